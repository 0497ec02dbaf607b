// POSIX regular expressions, as PostgreSQL 15 has them: the operators ~ ~* (!~ and !~* are NOT of
// them), regexp_like, regexp_count, regexp_instr, regexp_substr, regexp_replace, substring(s FROM
// pattern), SIMILAR TO and substring(s SIMILAR pattern ESCAPE e), over the regex engine in
// common/regex (linear-time matching, no backtracking).
//
// Patterns are compiled lazily and cached per kernel instance: the last pattern (with its flags or
// escape) stays compiled, so a constant pattern is compiled once for the whole stream and a pattern
// column only when it changes from one row to the next. Every function is strict (a NULL argument
// gives NULL) and positions are in characters, 1-based, as in PostgreSQL.

#include <cstring>
#include <memory>
#include <optional>

#include "shoal/common/regex/regex_compiler.h"
#include "shoal/common/regex/regex_matcher.h"
#include "shoal/common/regex/similar_to_pattern.h"
#include "shoal/exec/expr/kernel_util.h"
#include "shoal/exec/expr/string_kernels_internal.h"

namespace shoal::exec {
namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace)
using internal::IsContinuation;
using regex::RegexCompiler;
using regex::RegexFlags;
using regex::RegexMatcher;
using regex::RegexProgram;
using regex::RegexSpan;

enum class RegexFunction : uint8_t {
  kMatch,             // s ~ p, s ~* p (case_insensitive)
  kLike,              // regexp_like(s, p [, flags])
  kSimilar,           // s SIMILAR TO p [ESCAPE e]
  kReplace,           // regexp_replace(s, p, r [, flags]) / (s, p, r, start [, n [, flags]])
  kCount,             // regexp_count(s, p [, start [, flags]])
  kInstr,             // regexp_instr(s, p [, start [, n [, endoption [, flags [, subexpr]]]]])
  kSubstr,            // regexp_substr(s, p [, start [, n [, flags [, subexpr]]]])
  kSubstring,         // substring(s FROM p)
  kSubstringSimilar,  // substring(s SIMILAR p ESCAPE e)
};

const char* FunctionName(RegexFunction f) {
  switch (f) {
    case RegexFunction::kLike: return "regexp_like";
    case RegexFunction::kCount: return "regexp_count";
    case RegexFunction::kInstr: return "regexp_instr";
    case RegexFunction::kSubstr: return "regexp_substr";
    default: return "regexp_replace";
  }
}

// Where each optional argument is, -1 when the call has none.
struct RegexArgLayout {
  int replacement = -1, start = -1, n = -1, endoption = -1, flags = -1, subexpr = -1, escape = -1;
};

RegexArgLayout LayoutOf(RegexFunction f, const std::vector<DataType>& types) {
  RegexArgLayout l;
  const int count = static_cast<int>(types.size());
  auto at = [count](int i) { return i < count ? i : -1; };
  switch (f) {
    case RegexFunction::kMatch:
    case RegexFunction::kSubstring: break;
    case RegexFunction::kLike: l.flags = at(2); break;
    case RegexFunction::kSimilar:
    case RegexFunction::kSubstringSimilar: l.escape = at(2); break;
    case RegexFunction::kReplace:
      l.replacement = 2;
      if (count == 4 && types[3].id() == TypeId::kUtf8) {
        l.flags = 3;
      } else {
        l.start = at(3);
        l.n = at(4);
        l.flags = at(5);
      }
      break;
    case RegexFunction::kCount:
      l.start = at(2);
      l.flags = at(3);
      break;
    case RegexFunction::kInstr:
      l.start = at(2);
      l.n = at(3);
      l.endoption = at(4);
      l.flags = at(5);
      l.subexpr = at(6);
      break;
    case RegexFunction::kSubstr:
      l.start = at(2);
      l.n = at(3);
      l.flags = at(4);
      l.subexpr = at(5);
      break;
  }
  return l;
}

Status BadParameter(std::string_view name, int64_t value) {
  return Status::InvalidArgument("invalid value for parameter \"{}\": {}", name, value)
      .WithSqlState("22023");
}

// A compiled pattern with its matcher; the cache of a kernel instance.
struct CompiledRegex {
  std::string pattern;
  std::string options;  // flags or escape text, as given
  bool has_options = false;
  bool global = false;
  std::unique_ptr<RegexProgram> program;
  std::unique_ptr<RegexMatcher> matcher;
};

class RegexCache {
 public:
  RegexCache(RegexFunction function, bool case_insensitive)
      : function_(function), case_insensitive_(case_insensitive) {}

  /// The compiled form of `pattern` with `options` (flags, or the SIMILAR TO escape; nullopt when
  /// the call has none), compiling only when they differ from the last call's.
  Result<CompiledRegex*> Get(std::string_view pattern, std::optional<std::string_view> options) {
    if (last_.matcher && last_.pattern == pattern && last_.has_options == options.has_value() &&
        (!options || last_.options == *options))
      return &last_;
    last_.matcher.reset();
    last_.program.reset();
    RegexFlags flags;
    flags.case_insensitive = case_insensitive_;
    bool global = false, quote = false;
    std::string source;
    if (function_ == RegexFunction::kSimilar || function_ == RegexFunction::kSubstringSimilar) {
      SHOAL_ASSIGN_OR_RETURN(source, regex::SimilarToRegex(pattern, options));
    } else {
      if (options) {
        for (char c : *options) {
          switch (c) {
            case 'g': global = true; break;
            case 'i': flags.case_insensitive = true; break;
            case 'c': flags.case_insensitive = false; break;
            case 'n':
            case 'm': flags.newline_sensitive = true; break;
            case 's': flags.newline_sensitive = false; break;
            case 'q': quote = true; break;
            case 'b':
            case 'e':
            case 'p':
            case 'w':
            case 't':
            case 'x':
              return Status::NotImplemented("regular expression option \"{}\" is not supported",
                                            std::string(1, c))
                  .WithSqlState("0A000");
            default:
              return Status::InvalidArgument("invalid regular expression option: \"{}\"",
                                             std::string(1, c))
                  .WithSqlState("22023");
          }
        }
      }
      if (global && function_ != RegexFunction::kReplace)
        return Status::InvalidArgument("{}() does not support the \"global\" option",
                                       FunctionName(function_))
            .WithSqlState("22023")
            .WithHint("Use the regexp_matches function instead.");
      source = quote ? "***=" + std::string(pattern) : std::string(pattern);
    }
    SHOAL_ASSIGN_OR_RETURN(RegexProgram program, RegexCompiler::Compile(source, flags));
    last_.pattern.assign(pattern);
    last_.has_options = options.has_value();
    last_.options.assign(options.value_or(""));
    last_.global = global;
    last_.program = std::make_unique<RegexProgram>(std::move(program));
    last_.matcher = std::make_unique<RegexMatcher>(last_.program.get());
    return &last_;
  }

 private:
  RegexFunction function_;
  bool case_insensitive_;
  CompiledRegex last_;
};

// Byte offset of the `chars`-th character of s (s.size() when past the end).
size_t RegexCharOffset(std::string_view s, int64_t chars) {
  size_t i = 0;
  while (chars > 0 && i < s.size()) {
    ++i;
    while (i < s.size() && IsContinuation(static_cast<unsigned char>(s[i])))
      ++i;
    --chars;
  }
  return i;
}

int64_t CharsBefore(std::string_view s, int64_t byte) {
  int64_t chars = 0;
  for (int64_t i = 0; i < byte; ++i)
    chars += !IsContinuation(static_cast<unsigned char>(s[static_cast<size_t>(i)]));
  return chars;
}

// Where the search after `m` resumes: its end, one character further for an empty match (false
// when that passes the end of the text), as PostgreSQL iterates over matches.
bool NextSearchStart(std::string_view s, const RegexSpan& m, size_t* from) {
  *from = static_cast<size_t>(m.end);
  if (m.begin == m.end) {
    if (*from >= s.size())
      return false;
    ++*from;
    while (*from < s.size() && IsContinuation(static_cast<unsigned char>(s[*from])))
      ++*from;
  }
  return true;
}

// The `n`-th match (1-based) at or after byte `from`, as regexp_instr / regexp_substr count them.
bool FindNth(RegexMatcher* matcher, std::string_view s, size_t from, int64_t n, RegexSpan* m) {
  for (int64_t k = 1;; ++k) {
    if (!matcher->Find(s, from, m))
      return false;
    if (k == n)
      return true;
    if (!NextSearchStart(s, *m, &from))
      return false;
  }
}

// Appends the replacement for match `m`: \1..\9 are subexpressions, \& the whole match, \\ a
// backslash; any other backslash stays as written.
void AppendReplacement(RegexMatcher* matcher, std::string_view s, const RegexSpan& m,
                       std::string_view replacement, bool uses_groups,
                       const std::vector<int32_t>& all_groups, RegexSpan* groups,
                       std::string* out) {
  if (uses_groups)
    matcher->Groups(s, m, all_groups, groups);
  for (size_t i = 0; i < replacement.size(); ++i) {
    const char c = replacement[i];
    if (c != '\\' || i + 1 == replacement.size()) {
      out->push_back(c);
      continue;
    }
    const char next = replacement[i + 1];
    if (next >= '1' && next <= '9') {
      const RegexSpan& g = groups[next - '1'];
      if (g.matched())
        out->append(s.substr(static_cast<size_t>(g.begin), static_cast<size_t>(g.end - g.begin)));
      ++i;
    } else if (next == '&') {
      out->append(s.substr(static_cast<size_t>(m.begin), static_cast<size_t>(m.end - m.begin)));
      ++i;
    } else if (next == '\\') {
      out->push_back('\\');
      ++i;
    } else {
      out->push_back('\\');
    }
  }
}

bool ReplacementUsesGroups(std::string_view r) {
  for (size_t i = 0; i + 1 < r.size(); ++i) {
    if (r[i] == '\\') {
      if (r[i + 1] >= '1' && r[i + 1] <= '9')
        return true;
      ++i;
    }
  }
  return false;
}

// The per-call state the row loop reads: the arguments (cast), the layout, the cache.
class RegexRows {
 public:
  RegexRows(const std::vector<Datum>& args, const RegexArgLayout& layout)
      : args_(args), layout_(layout) {}

  std::string_view Str(int k, int64_t i) const {
    const Datum& d = args_[static_cast<size_t>(k)];
    return d.array->StringValue(d.is_scalar ? 0 : i);
  }

  int64_t Int(int k, int64_t i, int64_t absent) const {
    if (k < 0)
      return absent;
    const Datum& d = args_[static_cast<size_t>(k)];
    return d.array->values<int64_t>()[d.is_scalar ? 0 : i];
  }

  std::optional<std::string_view> Options(int64_t i) const {
    const int k = layout_.flags >= 0 ? layout_.flags : layout_.escape;
    if (k < 0)
      return std::nullopt;
    return Str(k, i);
  }

 private:
  const std::vector<Datum>& args_;
  const RegexArgLayout& layout_;
};

Result<KernelPtr> MakeRegexKernel(const KernelSignature& sig, RegexFunction function,
                                  bool case_insensitive) {
  const RegexArgLayout layout = LayoutOf(function, sig.arg_types);
  std::vector<DataType> want(sig.arg_types.size(), DataType::Utf8());
  for (int k : {layout.start, layout.n, layout.endoption, layout.subexpr}) {
    if (k >= 0)
      want[static_cast<size_t>(k)] = DataType::Int64();
  }
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(casts->Init(sig.arg_types, want));
  auto cache = std::make_shared<RegexCache>(function, case_insensitive);
  const bool returns_bool = function == RegexFunction::kMatch || function == RegexFunction::kLike ||
                            function == RegexFunction::kSimilar;
  const bool returns_int = function == RegexFunction::kCount || function == RegexFunction::kInstr;
  const DataType type = returns_bool  ? DataType::Boolean()
                        : returns_int ? DataType::Int32()
                                      : DataType::Utf8();
  return MakeLambdaKernel([casts, cache, layout, function, type, returns_bool, returns_int](
                              const std::vector<Datum>& args, int64_t length,
                              KernelContext* ctx) -> Result<Datum> {
    if (AnyNullScalar(args))
      return NullScalar(type, ctx);
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
    const bool scalar = AllScalar(c);
    const int64_t n = scalar ? 1 : length;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, PropagateValidity(c, n, ctx));
    const uint8_t* v = validity ? validity->data() : nullptr;
    RegexRows rows(c, layout);
    // Constant patterns (the usual case) are looked up once per batch.
    const bool constant_pattern = c[1].is_scalar &&
                                  (layout.flags < 0 || c[layout.flags].is_scalar) &&
                                  (layout.escape < 0 || c[layout.escape].is_scalar);
    CompiledRegex* re = nullptr;
    if (constant_pattern) {
      SHOAL_ASSIGN_OR_RETURN(re, cache->Get(rows.Str(1, 0), rows.Options(0)));
    }
    auto regex_at = [&](int64_t i) -> Result<CompiledRegex*> {
      if (constant_pattern)
        return re;
      return cache->Get(rows.Str(1, i), rows.Options(i));
    };
    auto valid = [v](int64_t i) { return v == nullptr || columnar::bitmap::GetBit(v, i); };
    // Checks of the integer parameters, per valid row.
    auto start_of = [&](int64_t i, std::string_view s, size_t* from) -> Status {
      const int64_t start = rows.Int(layout.start, i, 1);
      if (start <= 0)
        return BadParameter("start", start);
      *from = RegexCharOffset(s, start - 1);
      return Status::OK();
    };

    if (returns_bool) {
      std::vector<uint8_t> out(static_cast<size_t>(n), 0);
      for (int64_t i = 0; i < n; ++i) {
        if (!valid(i))
          continue;
        SHOAL_ASSIGN_OR_RETURN(CompiledRegex * r, regex_at(i));
        out[static_cast<size_t>(i)] = r->matcher->Test(rows.Str(0, i));
      }
      return BoolFromBytes(out, n, std::move(validity), scalar, ctx);
    }

    if (returns_int) {
      SHOAL_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues<int32_t>(n, ctx->pool));
      int32_t* out = values->mutable_data_as<int32_t>();
      std::vector<int32_t> group(1);
      for (int64_t i = 0; i < n; ++i) {
        out[i] = 0;
        if (!valid(i))
          continue;
        SHOAL_ASSIGN_OR_RETURN(CompiledRegex * r, regex_at(i));
        std::string_view s = rows.Str(0, i);
        size_t from = 0;
        SHOAL_RETURN_IF_ERROR(start_of(i, s, &from));
        RegexSpan m;
        if (function == RegexFunction::kCount) {
          int64_t count = 0;
          while (r->matcher->Find(s, from, &m)) {
            ++count;
            if (!NextSearchStart(s, m, &from))
              break;
          }
          out[i] = static_cast<int32_t>(count);
          continue;
        }
        const int64_t nth = rows.Int(layout.n, i, 1);
        if (nth <= 0)
          return BadParameter("n", nth);
        const int64_t endoption = rows.Int(layout.endoption, i, 0);
        if (endoption != 0 && endoption != 1)
          return BadParameter("endoption", endoption);
        const int64_t subexpr = rows.Int(layout.subexpr, i, 0);
        if (subexpr < 0)
          return BadParameter("subexpr", subexpr);
        if (!FindNth(r->matcher.get(), s, from, nth, &m))
          continue;
        RegexSpan g = m;
        if (subexpr > 0) {
          if (subexpr > r->program->num_groups)
            continue;
          group[0] = static_cast<int32_t>(subexpr);
          r->matcher->Groups(s, m, group, &g);
          if (!g.matched())
            continue;
        }
        out[i] = static_cast<int32_t>(CharsBefore(s, endoption == 1 ? g.end : g.begin) + 1);
      }
      return MakeResult(type, n, std::move(validity), {std::move(values)}, scalar);
    }

    // Text results; rows without a match are NULL for regexp_substr and substring.
    SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets, AllocateValues<int32_t>(n + 1, ctx->pool));
    int32_t* o = offsets->mutable_data_as<int32_t>();
    std::vector<uint8_t> row_valid(static_cast<size_t>(n), 0);
    bool any_null = false;
    std::string data;
    o[0] = 0;
    std::vector<int32_t> group(1);
    const std::vector<int32_t> replacement_groups = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    RegexSpan groups[9];
    for (int64_t i = 0; i < n; ++i) {
      if (valid(i)) {
        SHOAL_ASSIGN_OR_RETURN(CompiledRegex * r, regex_at(i));
        std::string_view s = rows.Str(0, i);
        RegexMatcher* matcher = r->matcher.get();
        size_t from = 0;
        SHOAL_RETURN_IF_ERROR(start_of(i, s, &from));
        RegexSpan m;
        bool is_null = false;
        if (function == RegexFunction::kReplace) {
          // PostgreSQL: the n-th match only when n is given, else the first or (g) every one.
          int64_t nth = r->global ? 0 : 1;
          if (layout.n >= 0) {
            nth = rows.Int(layout.n, i, 1);
            if (nth < 0)
              return BadParameter("n", nth);
          }
          std::string_view replacement = rows.Str(layout.replacement, i);
          const bool uses_groups = ReplacementUsesGroups(replacement);
          size_t copied = 0;
          int64_t seen = 0;
          while (from <= s.size() && matcher->Find(s, from, &m)) {
            ++seen;
            if (nth == 0 || seen == nth) {
              data.append(s.substr(copied, static_cast<size_t>(m.begin) - copied));
              AppendReplacement(matcher, s, m, replacement, uses_groups, replacement_groups, groups,
                                &data);
              copied = static_cast<size_t>(m.end);
              if (nth > 0)
                break;
            }
            if (!NextSearchStart(s, m, &from))
              break;
          }
          data.append(s.substr(copied));
        } else {
          int64_t nth = 1, subexpr = 0;
          if (function == RegexFunction::kSubstr) {
            nth = rows.Int(layout.n, i, 1);
            if (nth <= 0)
              return BadParameter("n", nth);
            subexpr = rows.Int(layout.subexpr, i, 0);
            if (subexpr < 0)
              return BadParameter("subexpr", subexpr);
          } else if (r->program->num_groups > 0) {
            subexpr = 1;  // substring(): the first parenthesised subexpression
          }
          RegexSpan g;
          if (FindNth(matcher, s, from, nth, &m)) {
            g = m;
            if (subexpr > 0) {
              g = RegexSpan{};
              if (subexpr <= r->program->num_groups) {
                group[0] = static_cast<int32_t>(subexpr);
                matcher->Groups(s, m, group, &g);
              }
            }
          }
          if (g.matched())
            data.append(
                s.substr(static_cast<size_t>(g.begin), static_cast<size_t>(g.end - g.begin)));
          else
            is_null = true;
        }
        row_valid[static_cast<size_t>(i)] = !is_null;
        any_null = any_null || is_null;
      } else {
        any_null = true;
      }
      if (data.size() > INT32_MAX)
        return Status::OutOfRange("string column exceeds 2 GiB in one batch");
      o[i + 1] = static_cast<int32_t>(data.size());
    }
    if (any_null) {
      SHOAL_ASSIGN_OR_RETURN(validity, bits::Allocate(n, ctx->pool));
      bits::PackBytes(row_valid.data(), n, validity->mutable_data());
    }
    SHOAL_ASSIGN_OR_RETURN(
        BufferPtr bytes, columnar::Buffer::Allocate(static_cast<int64_t>(data.size()), ctx->pool));
    std::memcpy(bytes->mutable_data(), data.data(), data.size());
    return MakeResult(type, n, std::move(validity), {std::move(offsets), std::move(bytes)}, scalar);
  });
}

}  // namespace

namespace internal {

Result<KernelPtr> MakeRegexSubstring(const KernelSignature& sig) {
  return MakeRegexKernel(
      sig, sig.arg_types.size() == 3 ? RegexFunction::kSubstringSimilar : RegexFunction::kSubstring,
      false);
}

void RegisterRegexKernels(KernelRegistry* registry) {
  auto add = [registry](const char* name, RegexFunction f, bool icase = false) {
    registry->Register(
        name, [f, icase](const KernelSignature& s) { return MakeRegexKernel(s, f, icase); });
  };
  add("~", RegexFunction::kMatch);
  add("~*", RegexFunction::kMatch, true);
  add("regexp_like", RegexFunction::kLike);
  add("similar_to", RegexFunction::kSimilar);
  add("regexp_replace", RegexFunction::kReplace);
  add("regexp_count", RegexFunction::kCount);
  add("regexp_instr", RegexFunction::kInstr);
  add("regexp_substr", RegexFunction::kSubstr);
}

}  // namespace internal
}  // namespace shoal::exec
