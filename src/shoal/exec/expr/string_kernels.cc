// Text kernels: SUBSTRING, UPPER / LOWER, LENGTH, CONCAT, ||, REPLACE, SPLIT_PART, TRIM / LTRIM /
// RTRIM, LPAD / RPAD, POSITION and STARTS_WITH, over UTF-8 characters. RegisterStringKernels also
// registers LIKE (like_kernels.cc), the regular expression functions (regex_kernels.cc) and
// EXTRACT (extract_kernels.cc).
#include <cstring>

#include "shoal/exec/expr/kernel_util.h"
#include "shoal/exec/expr/string_kernels_internal.h"

namespace shoal::exec {
namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace)
using internal::IsContinuation;

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
  if (sig.arg_types.size() >= 2 && sig.arg_types[1].id() == TypeId::kUtf8)
    return internal::MakeRegexSubstring(sig);
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
Result<KernelPtr> MakeStrictTextKernel(const KernelSignature& sig,
                                       const std::vector<DataType>& want, Fn fn) {
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
Result<KernelPtr> MakeStrictFixedKernel(const KernelSignature& sig,
                                        const std::vector<DataType>& want, Fn fn) {
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
        out->append(
            s.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
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
  internal::RegisterLikeKernels(registry);
  internal::RegisterRegexKernels(registry);
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
  internal::RegisterExtractKernels(registry);
}

}  // namespace shoal::exec
