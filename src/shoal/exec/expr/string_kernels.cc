// Text and date-part kernels: LIKE / ILIKE (literal patterns are analysed once and matched with a
// specialised loop for exact, prefix%, %suffix and %infix% shapes; other shapes use a general
// matcher with _ and % and an escape character), SUBSTRING, UPPER / LOWER, LENGTH, CONCAT, ||,
// REPLACE, SPLIT_PART, TRIM / LTRIM / RTRIM, LPAD / RPAD, POSITION, STARTS_WITH and
// EXTRACT from dates and timestamps.
#include <cstring>

#include "shoal/columnar/pretty_print.h"
#include "shoal/exec/expr/kernel_util.h"

namespace shoal::exec {
namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace)

// ---- LIKE -------------------------------------------------------------------------------------

inline bool IsContinuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// A LIKE pattern decoded: tokens are literal runs, '_' (one character) or '%' (any run).
class LikePattern {
 public:
  enum class Shape : uint8_t { kExact, kPrefix, kSuffix, kContains, kGeneral, kAny };

  static Result<LikePattern> Compile(std::string_view pattern, int escape) {
    LikePattern p;
    bool pending_escape = false;
    for (char c : pattern) {
      if (pending_escape) {
        p.text_.push_back(c);
        p.kinds_.push_back(kLiteral);
        pending_escape = false;
      } else if (escape >= 0 && c == static_cast<char>(escape)) {
        pending_escape = true;
      } else if (c == '%') {
        // Consecutive % are one.
        if (p.kinds_.empty() || p.kinds_.back() != kPercent) {
          p.text_.push_back(c);
          p.kinds_.push_back(kPercent);
        }
      } else if (c == '_') {
        p.text_.push_back(c);
        p.kinds_.push_back(kUnderscore);
      } else {
        p.text_.push_back(c);
        p.kinds_.push_back(kLiteral);
      }
    }
    if (pending_escape)
      return Status::InvalidArgument("LIKE pattern must not end with escape character")
          .WithSqlState("22025");
    p.Classify();
    return p;
  }

  bool Match(std::string_view s) const {
    switch (shape_) {
      case Shape::kAny: return true;
      case Shape::kExact: return s == literal_;
      case Shape::kPrefix:
        return s.size() >= literal_.size() && s.compare(0, literal_.size(), literal_) == 0;
      case Shape::kSuffix:
        return s.size() >= literal_.size() &&
               s.compare(s.size() - literal_.size(), literal_.size(), literal_) == 0;
      case Shape::kContains:
        return literal_.empty() ||
               (s.size() >= literal_.size() &&
                memmem(s.data(), s.size(), literal_.data(), literal_.size()) != nullptr);
      case Shape::kGeneral: return MatchGeneral(s);
    }
    return false;
  }

 private:
  static constexpr uint8_t kLiteral = 0, kUnderscore = 1, kPercent = 2;

  void Classify() {
    const size_t n = kinds_.size();
    bool has_underscore = false;
    size_t percents = 0;
    for (uint8_t k : kinds_) {
      has_underscore |= k == kUnderscore;
      percents += k == kPercent;
    }
    auto literal_between = [&](size_t from, size_t to) {
      literal_ = text_.substr(from, to - from);
    };
    shape_ = Shape::kGeneral;
    if (has_underscore)
      return;
    if (percents == 0) {
      shape_ = Shape::kExact;
      literal_between(0, n);
    } else if (percents == 1 && n == 1) {
      shape_ = Shape::kAny;
    } else if (percents == 1 && kinds_.back() == kPercent) {
      shape_ = Shape::kPrefix;
      literal_between(0, n - 1);
    } else if (percents == 1 && kinds_.front() == kPercent) {
      shape_ = Shape::kSuffix;
      literal_between(1, n);
    } else if (percents == 2 && n >= 2 && kinds_.front() == kPercent && kinds_.back() == kPercent) {
      shape_ = Shape::kContains;
      literal_between(1, n - 1);
    }
  }

  // Iterative matcher with backtracking to the last %, linear in practice.
  bool MatchGeneral(std::string_view s) const {
    size_t si = 0, pi = 0;
    size_t star_p = std::string::npos, star_s = 0;
    const size_t pn = kinds_.size();
    while (si < s.size()) {
      if (pi < pn && kinds_[pi] == kPercent) {
        star_p = pi++;
        star_s = si;
        continue;
      }
      if (pi < pn && kinds_[pi] == kUnderscore) {
        ++pi;
        ++si;
        while (si < s.size() && IsContinuation(static_cast<unsigned char>(s[si])))
          ++si;
        continue;
      }
      if (pi < pn && kinds_[pi] == kLiteral && text_[pi] == s[si]) {
        ++pi;
        ++si;
        continue;
      }
      if (star_p == std::string::npos)
        return false;
      pi = star_p + 1;
      ++star_s;
      while (star_s < s.size() && IsContinuation(static_cast<unsigned char>(s[star_s])))
        ++star_s;
      si = star_s;
    }
    while (pi < pn && kinds_[pi] == kPercent)
      ++pi;
    return pi == pn;
  }

  std::string text_;
  std::vector<uint8_t> kinds_;
  Shape shape_ = Shape::kGeneral;
  std::string literal_;
};

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

Result<int> EscapeOf(const sql::Expr* expr, const std::vector<Datum>* args) {
  // Default escape is backslash, as in PostgreSQL; '' disables escaping.
  std::string_view esc = "\\";
  std::string holder;
  if (expr != nullptr && expr->args.size() >= 3 && expr->args[2]->kind == sql::ExprKind::kLiteral) {
    if (expr->args[2]->value.is_null())
      return -2;
    holder = expr->args[2]->value.string_value();
    esc = holder;
  } else if (args != nullptr && args->size() >= 3) {
    const Datum& d = (*args)[2];
    if (d.array->IsNull(0))
      return -2;
    esc = d.array->StringValue(0);
  }
  if (esc.empty())
    return -1;
  if (esc.size() != 1)
    return Status::InvalidArgument("invalid escape string")
        .WithHint("Escape string must be empty or one character.");
  return static_cast<int>(static_cast<unsigned char>(esc[0]));
}

Result<KernelPtr> MakeLike(const KernelSignature& sig, bool case_insensitive) {
  const sql::Expr* expr = sig.expr;
  std::shared_ptr<LikePattern> fixed;
  bool fixed_null = false;
  if (expr != nullptr && expr->args.size() >= 2 && expr->args[1]->kind == sql::ExprKind::kLiteral &&
      (expr->args.size() < 3 || expr->args[2]->kind == sql::ExprKind::kLiteral)) {
    SHOAL_ASSIGN_OR_RETURN(int escape, EscapeOf(expr, nullptr));
    if (expr->args[1]->value.is_null() || escape == -2) {
      fixed_null = true;
    } else {
      std::string pattern = expr->args[1]->value.string_value();
      if (case_insensitive)
        pattern = AsciiLower(pattern);
      SHOAL_ASSIGN_OR_RETURN(LikePattern p, LikePattern::Compile(pattern, escape));
      fixed = std::make_shared<LikePattern>(std::move(p));
    }
  }
  return MakeLambdaKernel(
      [fixed, fixed_null, case_insensitive](const std::vector<Datum>& args, int64_t length,
                                            KernelContext* ctx) -> Result<Datum> {
        if (fixed_null || AnyNullScalar(args))
          return NullScalar(DataType::Boolean(), ctx);
        const Datum& value = args[0];
        const bool scalar = AllScalar(args);
        const int64_t n = scalar ? 1 : length;
        std::vector<uint8_t> out(static_cast<size_t>(n));
        SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, PropagateValidity(args, n, ctx));
        std::string lowered;
        auto match = [&](const LikePattern& p, std::string_view s) {
          if (!case_insensitive)
            return p.Match(s);
          lowered.assign(s);
          for (char& c : lowered) {
            if (c >= 'A' && c <= 'Z')
              c = static_cast<char>(c - 'A' + 'a');
          }
          return p.Match(lowered);
        };
        if (fixed) {
          WithStringReader(value, [&](auto r) {
            for (int64_t i = 0; i < n; ++i)
              out[static_cast<size_t>(i)] = match(*fixed, r[i]);
          });
        } else {
          SHOAL_ASSIGN_OR_RETURN(int escape, EscapeOf(nullptr, &args));
          std::string last_pattern;
          std::optional<LikePattern> compiled;
          for (int64_t i = 0; i < n; ++i) {
            const Array& pa = *args[1].array;
            int64_t pi = args[1].is_scalar ? 0 : i;
            if (pa.IsNull(pi) || value.array->IsNull(value.is_scalar ? 0 : i))
              continue;
            std::string pattern(pa.StringValue(pi));
            if (case_insensitive)
              pattern = AsciiLower(pattern);
            if (!compiled || pattern != last_pattern) {
              SHOAL_ASSIGN_OR_RETURN(LikePattern p, LikePattern::Compile(pattern, escape));
              compiled = std::move(p);
              last_pattern = pattern;
            }
            out[static_cast<size_t>(i)] =
                match(*compiled, value.array->StringValue(value.is_scalar ? 0 : i));
          }
        }
        return BoolFromBytes(out, n, std::move(validity), scalar, ctx);
      });
}

// ---- string functions -------------------------------------------------------------------------

// Builds a utf8 result row by row with `fn(i, std::string* out) -> bool valid`.
template <typename Fn>
Result<Datum> BuildStrings(const DataType& type, int64_t n, bool scalar, BufferPtr validity,
                           KernelContext* ctx, Fn fn) {
  SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets, AllocateValues<int32_t>(n + 1, ctx->pool));
  int32_t* o = offsets->mutable_data_as<int32_t>();
  std::string data;
  o[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (validity == nullptr || columnar::bitmap::GetBit(validity->data(), i))
      SHOAL_RETURN_IF_ERROR(fn(i, &data));
    if (data.size() > INT32_MAX)
      return Status::OutOfRange("string column exceeds 2 GiB in one batch");
    o[i + 1] = static_cast<int32_t>(data.size());
  }
  SHOAL_ASSIGN_OR_RETURN(BufferPtr bytes,
                         columnar::Buffer::Allocate(static_cast<int64_t>(data.size()), ctx->pool));
  std::memcpy(bytes->mutable_data(), data.data(), data.size());
  return MakeResult(type, n, std::move(validity), {std::move(offsets), std::move(bytes)}, scalar);
}

// Byte offset of the `chars`-th code point of s (s.size() when past the end).
size_t CharOffset(std::string_view s, int64_t chars) {
  size_t i = 0;
  while (chars > 0 && i < s.size()) {
    ++i;
    while (i < s.size() && IsContinuation(static_cast<unsigned char>(s[i])))
      ++i;
    --chars;
  }
  return i;
}

Result<KernelPtr> MakeSubstring(const KernelSignature& sig) {
  const DataType type = sig.result_type.id() == TypeId::kNull ? DataType::Utf8() : sig.result_type;
  auto casts = std::make_shared<ArgCasts>();
  std::vector<DataType> want{sig.arg_types[0], DataType::Int64()};
  if (sig.arg_types.size() == 3)
    want.push_back(DataType::Int64());
  SHOAL_RETURN_IF_ERROR(casts->Init(sig.arg_types, want));
  return MakeLambdaKernel([casts, type](const std::vector<Datum>& args, int64_t length,
                                        KernelContext* ctx) -> Result<Datum> {
    if (AnyNullScalar(args))
      return NullScalar(type, ctx);
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
    const bool scalar = AllScalar(c);
    const int64_t n = scalar ? 1 : length;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, PropagateValidity(c, n, ctx));
    auto at = [](const Datum& d, int64_t i) { return d.is_scalar ? 0 : i; };
    return BuildStrings(
        type, n, scalar, std::move(validity), ctx, [&](int64_t i, std::string* out) -> Status {
          std::string_view s = c[0].array->StringValue(at(c[0], i));
          int64_t start = c[1].array->values<int64_t>()[at(c[1], i)];
          int64_t end = INT64_MAX;
          if (c.size() == 3) {
            int64_t len = c[2].array->values<int64_t>()[at(c[2], i)];
            if (len < 0) {
              return Status::InvalidArgument("negative substring length not allowed")
                  .WithSqlState("22011");
            }
            end = start > INT64_MAX - len ? INT64_MAX : start + len;
          }
          // 1-based; positions before 1 count against the length.
          int64_t from = std::max<int64_t>(start, 1);
          if (end <= from)
            return Status::OK();
          size_t b = CharOffset(s, from - 1);
          size_t e = end == INT64_MAX ? s.size() : b + CharOffset(s.substr(b), end - from);
          out->append(s.substr(b, e - b));
          return Status::OK();
        });
  });
}

Result<KernelPtr> MakeCaseMap(const KernelSignature& sig, bool upper) {
  const DataType type = sig.result_type.id() == TypeId::kNull ? DataType::Utf8() : sig.result_type;
  return MakeLambdaKernel([type, upper](const std::vector<Datum>& args, int64_t length,
                                        KernelContext* ctx) -> Result<Datum> {
    if (AnyNullScalar(args))
      return NullScalar(type, ctx);
    const int64_t n = args[0].is_scalar ? 1 : length;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, bits::CopyValidity(*args[0].array, ctx->pool));
    return BuildStrings(type, n, args[0].is_scalar, std::move(validity), ctx,
                        [&](int64_t i, std::string* out) -> Status {
                          std::string_view s = args[0].array->StringValue(i);
                          size_t start = out->size();
                          out->append(s);
                          for (size_t k = start; k < out->size(); ++k) {
                            char& ch = (*out)[k];
                            if (upper && ch >= 'a' && ch <= 'z')
                              ch = static_cast<char>(ch - 'a' + 'A');
                            if (!upper && ch >= 'A' && ch <= 'Z')
                              ch = static_cast<char>(ch - 'A' + 'a');
                          }
                          return Status::OK();
                        });
  });
}

Result<KernelPtr> MakeLength(const KernelSignature& sig) {
  const DataType type = sig.result_type;
  SHOAL_ASSIGN_OR_RETURN(KernelPtr to_result_kernel, MakeCastKernel(DataType::Int64(), type));
  std::shared_ptr<Kernel> to_result = std::move(to_result_kernel);
  return MakeLambdaKernel([to_result, type](const std::vector<Datum>& args, int64_t length,
                                            KernelContext* ctx) -> Result<Datum> {
    if (AnyNullScalar(args))
      return NullScalar(type, ctx);
    const Datum& in = args[0];
    const int64_t n = in.is_scalar ? 1 : length;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, bits::CopyValidity(*in.array, ctx->pool));
    SHOAL_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues<int64_t>(n, ctx->pool));
    int64_t* out = values->mutable_data_as<int64_t>();
    StringReader r = MakeStringReader(*in.array);
    for (int64_t i = 0; i < n; ++i) {
      std::string_view s = r[i];
      int64_t chars = 0;
      for (char c : s)
        chars += !IsContinuation(static_cast<unsigned char>(c));
      out[i] = chars;
    }
    Datum lengths =
        MakeResult(DataType::Int64(), n, std::move(validity), {std::move(values)}, in.is_scalar);
    return to_result->Execute({lengths}, length, ctx);
  });
}

// concat(): NULL arguments are skipped, so the result is never NULL (|| is MakeConcatOperator).
Result<KernelPtr> MakeConcat(const KernelSignature& sig) {
  const DataType type = DataType::Utf8();
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(
      casts->Init(sig.arg_types, std::vector<DataType>(sig.arg_types.size(), type)));
  return MakeLambdaKernel([casts, type](const std::vector<Datum>& args, int64_t length,
                                        KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
    const bool scalar = AllScalar(c);
    const int64_t n = scalar ? 1 : length;
    return BuildStrings(type, n, scalar, nullptr, ctx, [&](int64_t i, std::string* out) -> Status {
      for (const Datum& d : c) {
        int64_t k = d.is_scalar ? 0 : i;
        if (d.array->IsValid(k))
          out->append(d.array->StringValue(k));
      }
      return Status::OK();
    });
  });
}

// ---- EXTRACT ----------------------------------------------------------------------------------

enum class DatePart : uint8_t {
  kYear,
  kMonth,
  kDay,
  kQuarter,
  kDow,
  kDoy,
  kEpoch,
  kHour,
  kMinute,
  kSecond
};

Result<DatePart> ParseDatePart(std::string name) {
  for (char& c : name)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name == "year" || name == "years")
    return DatePart::kYear;
  if (name == "month" || name == "months")
    return DatePart::kMonth;
  if (name == "day" || name == "days")
    return DatePart::kDay;
  if (name == "quarter")
    return DatePart::kQuarter;
  if (name == "dow")
    return DatePart::kDow;
  if (name == "doy")
    return DatePart::kDoy;
  if (name == "epoch")
    return DatePart::kEpoch;
  if (name == "hour")
    return DatePart::kHour;
  if (name == "minute")
    return DatePart::kMinute;
  if (name == "second")
    return DatePart::kSecond;
  return Status::InvalidArgument("unit \"{}\" not recognized for type date", name);
}

int64_t DatePartOf(DatePart part, int64_t days, int64_t seconds_of_day) {
  int64_t y;
  unsigned m, d;
  switch (part) {
    case DatePart::kEpoch: return days * 86400 + seconds_of_day;
    case DatePart::kHour: return seconds_of_day / 3600;
    case DatePart::kMinute: return seconds_of_day / 60 % 60;
    case DatePart::kSecond: return seconds_of_day % 60;
    case DatePart::kDow: return ((days % 7) + 7 + 4) % 7;  // 1970-01-01 was a Thursday
    default: break;
  }
  columnar::CivilFromDays(days, &y, &m, &d);
  switch (part) {
    case DatePart::kYear: return y;
    case DatePart::kMonth: return m;
    case DatePart::kDay: return d;
    case DatePart::kQuarter: return (m - 1) / 3 + 1;
    case DatePart::kDoy: return days - columnar::DaysFromCivil(y, 1, 1) + 1;
    default: return 0;
  }
}

Result<KernelPtr> MakeExtract(const KernelSignature& sig) {
  if (sig.expr == nullptr || sig.expr->args.size() != 2 ||
      sig.expr->args[0]->kind != sql::ExprKind::kLiteral || sig.expr->args[0]->value.is_null()) {
    return Status::NotImplemented("extract with a non-literal field");
  }
  SHOAL_ASSIGN_OR_RETURN(DatePart part, ParseDatePart(sig.expr->args[0]->value.string_value()));
  const DataType input = sig.arg_types[1];
  int64_t per_second = 0;
  if (input.id() == TypeId::kTimestamp) {
    switch (input.unit()) {
      case columnar::TimeUnit::kSecond: per_second = 1; break;
      case columnar::TimeUnit::kMilli: per_second = 1000; break;
      case columnar::TimeUnit::kMicro: per_second = 1000000; break;
      case columnar::TimeUnit::kNano: per_second = 1000000000; break;
    }
  } else if (input.id() != TypeId::kDate32) {
    return Status::NotImplemented("extract from {}", input.ToString());
  }
  SHOAL_ASSIGN_OR_RETURN(KernelPtr to_result_kernel,
                         MakeCastKernel(DataType::Int64(), sig.result_type));
  std::shared_ptr<Kernel> to_result = std::move(to_result_kernel);
  return MakeLambdaKernel([part, per_second, to_result](const std::vector<Datum>& args,
                                                        int64_t length,
                                                        KernelContext* ctx) -> Result<Datum> {
    const Datum& in = args[1];
    uint8_t flags = 0;
    Result<Datum> parts = Status::Internal("unset");
    if (per_second == 0) {
      parts = UnaryFixed<int32_t, int64_t>(
          in, length, DataType::Int64(), ctx, &flags,
          [part](int32_t d, uint8_t&) { return DatePartOf(part, d, 0); });
    } else {
      const int64_t per_day = per_second * 86400;
      parts = UnaryFixed<int64_t, int64_t>(in, length, DataType::Int64(), ctx, &flags,
                                           [part, per_day, per_second](int64_t t, uint8_t&) {
                                             int64_t days = t / per_day;
                                             int64_t rem = t % per_day;
                                             if (rem < 0) {
                                               rem += per_day;
                                               --days;
                                             }
                                             return DatePartOf(part, days, rem / per_second);
                                           });
    }
    if (!parts.ok())
      return parts;
    return to_result->Execute({*parts}, length, ctx);
  });
}

// ---- more text functions ----------------------------------------------------------------------

std::string_view StrAt(const std::vector<Datum>& c, size_t k, int64_t i) {
  return c[k].array->StringValue(c[k].is_scalar ? 0 : i);
}

int64_t IntAt(const std::vector<Datum>& c, size_t k, int64_t i) {
  return c[k].array->values<int64_t>()[c[k].is_scalar ? 0 : i];
}

// Byte length of the code point starting s (s non-empty).
size_t FirstCharLen(std::string_view s) {
  size_t e = 1;
  while (e < s.size() && IsContinuation(static_cast<unsigned char>(s[e])))
    ++e;
  return e;
}

// Byte length of the first code point of `set` that `x` starts (or, `at_end`, ends) with; 0 if
// none does.
size_t MatchSetChar(std::string_view x, std::string_view set, bool at_end) {
  for (size_t i = 0; i < set.size();) {
    const size_t len = FirstCharLen(set.substr(i));
    std::string_view ch = set.substr(i, len);
    if (x.size() >= len && x.compare(at_end ? x.size() - len : 0, len, ch) == 0)
      return len;
    i += len;
  }
  return 0;
}

size_t CharCount(std::string_view s) {
  size_t chars = 0;
  for (char c : s)
    chars += !IsContinuation(static_cast<unsigned char>(c));
  return chars;
}

// A strict row-wise kernel: arguments are cast to `want`, any NULL argument makes the row NULL,
// and fn(c, i, out) -> Status appends a valid row's text to `out`.
template <typename Fn>
Result<KernelPtr> MakeStrictTextKernel(const KernelSignature& sig, std::vector<DataType> want,
                                       Fn fn) {
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(casts->Init(sig.arg_types, want));
  return MakeLambdaKernel([casts, fn](const std::vector<Datum>& args, int64_t length,
                                      KernelContext* ctx) -> Result<Datum> {
    const DataType type = DataType::Utf8();
    if (AnyNullScalar(args))
      return NullScalar(type, ctx);
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
    const bool scalar = AllScalar(c);
    const int64_t n = scalar ? 1 : length;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, PropagateValidity(c, n, ctx));
    return BuildStrings(type, n, scalar, std::move(validity), ctx,
                        [&](int64_t i, std::string* out) -> Status { return fn(c, i, out); });
  });
}

// A strict row-wise kernel with a bigint (R = int64_t) or boolean (R = bool) result: fn(c, i) -> R,
// cast to the call's result type when that differs.
template <typename R, typename Fn>
Result<KernelPtr> MakeStrictFixedKernel(const KernelSignature& sig, std::vector<DataType> want,
                                        Fn fn) {
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(casts->Init(sig.arg_types, want));
  std::shared_ptr<Kernel> to_result;
  const DataType raw = std::is_same_v<R, bool> ? DataType::Boolean() : DataType::Int64();
  if (sig.result_type != raw && sig.result_type.id() != TypeId::kNull) {
    SHOAL_ASSIGN_OR_RETURN(KernelPtr k, MakeCastKernel(raw, sig.result_type));
    to_result = std::move(k);
  }
  return MakeLambdaKernel([casts, fn, raw, to_result](const std::vector<Datum>& args,
                                                      int64_t length,
                                                      KernelContext* ctx) -> Result<Datum> {
    if (AnyNullScalar(args))
      return NullScalar(raw, ctx);
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
    const bool scalar = AllScalar(c);
    const int64_t n = scalar ? 1 : length;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, PropagateValidity(c, n, ctx));
    const uint8_t* v = validity ? validity->data() : nullptr;
    Datum result;
    if constexpr (std::is_same_v<R, bool>) {
      std::vector<uint8_t> bytes(static_cast<size_t>(n), 0);
      for (int64_t i = 0; i < n; ++i) {
        if (v == nullptr || columnar::bitmap::GetBit(v, i))
          bytes[static_cast<size_t>(i)] = fn(c, i);
      }
      SHOAL_ASSIGN_OR_RETURN(result, BoolFromBytes(bytes, n, std::move(validity), scalar, ctx));
    } else {
      SHOAL_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues<int64_t>(n, ctx->pool));
      int64_t* out = values->mutable_data_as<int64_t>();
      for (int64_t i = 0; i < n; ++i)
        out[i] = (v == nullptr || columnar::bitmap::GetBit(v, i)) ? fn(c, i) : 0;
      result = MakeResult(raw, n, std::move(validity), {std::move(values)}, scalar);
    }
    if (to_result)
      return to_result->Execute({result}, length, ctx);
    return result;
  });
}

Result<KernelPtr> MakeReplace(const KernelSignature& sig) {
  const DataType t = DataType::Utf8();
  return MakeStrictTextKernel(sig, {t, t, t},
                              [](const std::vector<Datum>& c, int64_t i, std::string* out) {
                                std::string_view s = StrAt(c, 0, i);
                                std::string_view from = StrAt(c, 1, i);
                                std::string_view to = StrAt(c, 2, i);
                                if (from.empty()) {
                                  out->append(s);
                                  return Status::OK();
                                }
                                size_t pos = 0;
                                while (true) {
                                  size_t hit = s.find(from, pos);
                                  if (hit == std::string_view::npos)
                                    break;
                                  out->append(s.substr(pos, hit - pos));
                                  out->append(to);
                                  pos = hit + from.size();
                                }
                                out->append(s.substr(pos));
                                return Status::OK();
                              });
}

Result<KernelPtr> MakeSplitPart(const KernelSignature& sig) {
  const DataType t = DataType::Utf8();
  return MakeStrictTextKernel(
      sig, {t, t, DataType::Int64()},
      [](const std::vector<Datum>& c, int64_t i, std::string* out) -> Status {
        std::string_view s = StrAt(c, 0, i);
        std::string_view delim = StrAt(c, 1, i);
        int64_t field = IntAt(c, 2, i);
        if (field == 0)
          return Status::InvalidArgument("field position must not be zero").WithSqlState("22023");
        // Fields are the pieces between delimiters; an empty string has none and an empty
        // delimiter makes the whole string the only field.
        auto next = [&](size_t from) {
          return delim.empty() ? std::string_view::npos : s.find(delim, from);
        };
        int64_t count = 0;
        if (!s.empty()) {
          count = 1;
          for (size_t p = next(0); p != std::string_view::npos; p = next(p + delim.size()))
            ++count;
        }
        const int64_t index = field > 0 ? field - 1 : count + field;
        if (index < 0 || index >= count)
          return Status::OK();
        size_t begin = 0;
        for (int64_t k = 0; k < index; ++k)
          begin = next(begin) + delim.size();
        const size_t end = next(begin);
        out->append(s.substr(begin, end == std::string_view::npos ? s.npos : end - begin));
        return Status::OK();
      });
}

enum class TrimSide : uint8_t { kBoth, kLeft, kRight };

Result<KernelPtr> MakeTrim(const KernelSignature& sig, TrimSide side) {
  const DataType t = DataType::Utf8();
  std::vector<DataType> want(sig.arg_types.size(), t);
  return MakeStrictTextKernel(
      sig, want, [side](const std::vector<Datum>& c, int64_t i, std::string* out) -> Status {
        std::string_view s = StrAt(c, 0, i);
        std::string_view set = c.size() > 1 ? StrAt(c, 1, i) : std::string_view(" ");
        if (side != TrimSide::kRight) {
          while (size_t k = MatchSetChar(s, set, false))
            s.remove_prefix(k);
        }
        if (side != TrimSide::kLeft) {
          while (size_t k = MatchSetChar(s, set, true))
            s.remove_suffix(k);
        }
        out->append(s);
        return Status::OK();
      });
}

Result<KernelPtr> MakePad(const KernelSignature& sig, bool left) {
  const DataType t = DataType::Utf8();
  std::vector<DataType> want{t, DataType::Int64()};
  if (sig.arg_types.size() == 3)
    want.push_back(t);
  return MakeStrictTextKernel(
      sig, want, [left](const std::vector<Datum>& c, int64_t i, std::string* out) -> Status {
        std::string_view s = StrAt(c, 0, i);
        std::string_view fill = c.size() > 2 ? StrAt(c, 2, i) : std::string_view(" ");
        const int64_t len = IntAt(c, 1, i);
        if (len <= 0)
          return Status::OK();
        const int64_t have = static_cast<int64_t>(CharCount(s));
        if (have >= len || fill.empty()) {
          out->append(s.substr(0, CharOffset(s, len)));
          return Status::OK();
        }
        if (!left)
          out->append(s);
        size_t f = 0;
        for (int64_t k = 0; k < len - have; ++k) {
          if (f == fill.size())
            f = 0;
          const size_t step = FirstCharLen(fill.substr(f));
          out->append(fill.substr(f, step));
          f += step;
        }
        if (left)
          out->append(s);
        return Status::OK();
      });
}

Result<KernelPtr> MakePosition(const KernelSignature& sig) {
  const DataType t = DataType::Utf8();
  return MakeStrictFixedKernel<int64_t>(
      sig, {t, t}, [](const std::vector<Datum>& c, int64_t i) -> int64_t {
        std::string_view s = StrAt(c, 0, i);
        size_t hit = s.find(StrAt(c, 1, i));
        if (hit == std::string_view::npos)
          return 0;
        return static_cast<int64_t>(CharCount(s.substr(0, hit))) + 1;
      });
}

Result<KernelPtr> MakeStartsWith(const KernelSignature& sig) {
  const DataType t = DataType::Utf8();
  return MakeStrictFixedKernel<bool>(
      sig, {t, t}, [](const std::vector<Datum>& c, int64_t i) -> uint8_t {
        std::string_view s = StrAt(c, 0, i);
        std::string_view p = StrAt(c, 1, i);
        return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
      });
}

// concat() skips NULL arguments; the || operator is strict.
Result<KernelPtr> MakeConcatOperator(const KernelSignature& sig) {
  std::vector<DataType> want(sig.arg_types.size(), DataType::Utf8());
  return MakeStrictTextKernel(sig, want,
                              [](const std::vector<Datum>& c, int64_t i, std::string* out) {
                                for (size_t k = 0; k < c.size(); ++k)
                                  out->append(StrAt(c, k, i));
                                return Status::OK();
                              });
}

}  // namespace

void RegisterStringKernels(KernelRegistry* registry) {
  registry->Register("like", [](const KernelSignature& s) { return MakeLike(s, false); });
  registry->Register("ilike", [](const KernelSignature& s) { return MakeLike(s, true); });
  registry->Register("substring", &MakeSubstring);
  registry->Register("substr", &MakeSubstring);
  registry->Register("upper", [](const KernelSignature& s) { return MakeCaseMap(s, true); });
  registry->Register("lower", [](const KernelSignature& s) { return MakeCaseMap(s, false); });
  registry->Register("length", &MakeLength);
  registry->Register("char_length", &MakeLength);
  registry->Register("concat", &MakeConcat);
  registry->Register("||", &MakeConcatOperator);
  registry->Register("replace", &MakeReplace);
  registry->Register("split_part", &MakeSplitPart);
  registry->Register("trim", [](const KernelSignature& s) { return MakeTrim(s, TrimSide::kBoth); });
  registry->Register("btrim",
                     [](const KernelSignature& s) { return MakeTrim(s, TrimSide::kBoth); });
  registry->Register("ltrim",
                     [](const KernelSignature& s) { return MakeTrim(s, TrimSide::kLeft); });
  registry->Register("rtrim",
                     [](const KernelSignature& s) { return MakeTrim(s, TrimSide::kRight); });
  registry->Register("lpad", [](const KernelSignature& s) { return MakePad(s, true); });
  registry->Register("rpad", [](const KernelSignature& s) { return MakePad(s, false); });
  registry->Register("position", &MakePosition);
  registry->Register("strpos", &MakePosition);
  registry->Register("starts_with", &MakeStartsWith);
  registry->Register("extract", &MakeExtract);
  registry->Register("date_part", &MakeExtract);
}

}  // namespace shoal::exec
