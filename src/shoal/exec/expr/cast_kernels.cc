// Cast kernels: between all numeric types and decimals (range-checked, rescaled with rounding half
// away from zero), text to numbers / dates / booleans with clear errors, anything to text, and
// dates to and from timestamps. TRY_CAST turns a failing row into NULL instead of an error.
#include <charconv>
#include <cmath>
#include <limits>

#include "shoal/columnar/pretty_print.h"
#include "shoal/columnar/sql_type_name.h"
#include "shoal/common/date_text.h"
#include "shoal/common/text.h"
#include "shoal/exec/expr/array_casts.h"
#include "shoal/exec/expr/kernel_util.h"

namespace shoal::exec {
namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace)

Status OutOfRange(const DataType& to) {
  return Status::OutOfRange("value out of range for type {}", to.ToString()).WithSqlState("22003");
}

// Runs a per-value conversion `op(in, flag) -> Out` over an array with one pass, then, when some
// row failed, either nulls the failing rows (try_cast) or reports the first failing valid row.
template <typename In, typename Out, typename Reader, typename Op, typename Describe>
Result<Datum> ConvertLoop(const Datum& input, Reader reader, int64_t length, const DataType& to,
                          bool try_cast, KernelContext* ctx, Op op, Describe describe_error) {
  const int64_t n = input.is_scalar ? 1 : length;
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, bits::CopyValidity(*input.array, ctx->pool));
  SHOAL_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues<Out>(n, ctx->pool));
  Out* out = values->mutable_data_as<Out>();
  uint8_t any = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint8_t f = 0;
    out[i] = op(reader[i], f);
    any |= f;
  }
  if (any != 0) {
    for (int64_t i = 0; i < n; ++i) {
      if (validity && !columnar::bitmap::GetBit(validity->data(), i))
        continue;
      uint8_t f = 0;
      (void)op(reader[i], f);
      if (f == 0)
        continue;
      if (!try_cast)
        return describe_error(reader[i], f);
      if (!validity) {
        SHOAL_ASSIGN_OR_RETURN(validity, bits::Allocate(n, ctx->pool));
        std::memset(validity->mutable_data(), 0xFF,
                    static_cast<size_t>(columnar::bitmap::BytesForBits(n)));
      }
      columnar::bitmap::ClearBit(validity->mutable_data(), i);
    }
  }
  return MakeResult(to, n, std::move(validity), {std::move(values)}, input.is_scalar);
}

template <typename Out>
bool InRange(long double v) {
  return v >= static_cast<long double>(std::numeric_limits<Out>::lowest()) &&
         v <= static_cast<long double>(std::numeric_limits<Out>::max());
}

template <typename Out, typename In>
Out NumericConvert(In v, uint8_t& f) {
  if constexpr (std::is_floating_point_v<Out>) {
    return static_cast<Out>(v);
  } else if constexpr (std::is_same_v<Out, int128_t>) {
    return static_cast<Out>(v);
  } else if constexpr (std::is_floating_point_v<In>) {
    // PostgreSQL rounds floats to integers half to even (rint).
    In r = std::nearbyint(v);
    if (!(std::isfinite(r) && InRange<Out>(static_cast<long double>(r)))) {
      f |= kOverflowFlag;
      return Out{};
    }
    return static_cast<Out>(r);
  } else if constexpr (std::is_same_v<In, int128_t>) {
    if (v < static_cast<int128_t>(std::numeric_limits<Out>::lowest()) ||
        v > static_cast<int128_t>(std::numeric_limits<Out>::max())) {
      f |= kOverflowFlag;
      return Out{};
    }
    return static_cast<Out>(v);
  } else {
    if (!std::in_range<Out>(v)) {
      f |= kOverflowFlag;
      return Out{};
    }
    return static_cast<Out>(v);
  }
}

int128_t RoundDivide(int128_t n, int128_t d) {
  int128_t q = n / d;
  int128_t r = n % d;
  int128_t ar = r < 0 ? -r : r;
  if (ar >= d - ar)
    q += n < 0 ? -1 : 1;
  return q;
}

template <typename In, typename Out>
Result<KernelPtr> NumericCast(const DataType& from, const DataType& to, bool try_cast) {
  const bool from_dec = from.id() == TypeId::kDecimal;
  const bool to_dec = to.id() == TypeId::kDecimal;
  const int from_scale = from_dec ? from.scale() : 0;
  const int to_scale = to_dec ? to.scale() : 0;
  const int128_t max_abs = to_dec ? columnar::MaxUnscaled(to.precision()) : 0;
  const int128_t up = columnar::PowerOfTen(std::max(0, to_scale - from_scale));
  const int128_t down = columnar::PowerOfTen(std::max(0, from_scale - to_scale));
  const double from_div = static_cast<double>(columnar::PowerOfTen(from_scale));
  return MakeLambdaKernel([=](const std::vector<Datum>& args, int64_t length,
                              KernelContext* ctx) -> Result<Datum> {
    const Datum& in = args[0];
    auto op = [&](In v, uint8_t& f) -> Out {
      if constexpr (std::is_floating_point_v<In>) {
        if (to_dec) {
          // PostgreSQL's float8_numeric: the value's 15 significant digits (DBL_DIG), then
          // rounded to the scale. Scaling the binary value instead would invent digits past
          // the 15th (1e20 became 99999999999999996863.37 at scale 15).
          if (!std::isfinite(v)) {
            f |= kOverflowFlag;
            return Out{};
          }
          auto r = columnar::DecimalFromDouble(static_cast<double>(v), to.precision(), to.scale());
          if (!r.ok()) {
            f |= kOverflowFlag;
            return Out{};
          }
          return static_cast<Out>(*r);
        }
        return NumericConvert<Out, In>(v, f);
      } else {
        if (!from_dec && !to_dec)
          return NumericConvert<Out, In>(v, f);
        int128_t x = static_cast<int128_t>(v);
        if constexpr (std::is_floating_point_v<Out>) {
          return static_cast<Out>(static_cast<double>(x) / from_div);
        } else {
          if (down != 1)
            x = RoundDivide(x, down);
          if (up != 1) {
            const int128_t limit = (static_cast<int128_t>(1) << 125) / up;
            if (x > limit || x < -limit) {
              f |= kOverflowFlag;
              return Out{};
            }
            x *= up;
          }
          if (to_dec) {
            if (x > max_abs || x < -max_abs) {
              f |= kOverflowFlag;
              return Out{};
            }
            return static_cast<Out>(x);
          }
          if constexpr (std::is_same_v<Out, int128_t>) {
            return x;
          } else {
            if (x < static_cast<int128_t>(std::numeric_limits<Out>::lowest()) ||
                x > static_cast<int128_t>(std::numeric_limits<Out>::max())) {
              f |= kOverflowFlag;
              return Out{};
            }
            return static_cast<Out>(x);
          }
        }
      }
    };
    return ConvertLoop<In, Out>(in, ArrayReader<In>{in.array->values<In>()}, length, to, try_cast,
                                ctx, op, [&](In, uint8_t) { return OutOfRange(to); });
  });
}

// ---- text to values --------------------------------------------------------------------------

Status InvalidInput(const DataType& to, std::string_view text) {
  return Status::InvalidArgument("invalid input syntax for type {}: \"{}\"",
                                 columnar::SqlTypeName(to), text)
      .WithSqlState("22P02");
}

// A decimal's unscaled value from text; flags overflow and invalid text.
int128_t ParseDecimalText(std::string_view s, int precision, int scale, uint8_t& f) {
  auto r = columnar::ParseDecimal(s, precision, scale);
  if (!r.ok()) {
    f |= r.status().code() == StatusCode::kOutOfRange ? kOverflowFlag : kInvalidFlag;
    return 0;
  }
  return *r;
}

// An integer or floating-point number in from_chars' syntax, with an optional leading '+'.
template <typename Out>
Out ParseNumberText(std::string_view t, uint8_t& f) {
  if (!t.empty() && t[0] == '+')
    t.remove_prefix(1);
  Out v{};
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc::result_out_of_range) {
    f |= kOverflowFlag;
    return 0;
  }
  if (ec != std::errc() || p != t.data() + t.size() || t.empty())
    f |= kInvalidFlag;
  return v;
}

template <typename Out>
Result<KernelPtr> ParseCast(const DataType& to, bool try_cast) {
  return MakeLambdaKernel([to, try_cast](const std::vector<Datum>& args, int64_t length,
                                         KernelContext* ctx) -> Result<Datum> {
    const Datum& in = args[0];
    const int scale = to.id() == TypeId::kDecimal ? to.scale() : 0;
    const int precision = to.precision();
    auto op = [&](std::string_view text, uint8_t& f) -> Out {
      std::string_view s = Trim(text);
      if constexpr (std::is_same_v<Out, int128_t>) {
        return ParseDecimalText(s, precision, scale, f);
      } else if constexpr (std::is_floating_point_v<Out>) {
        return ParseNumberText<Out>(s, f);
      } else {
        if (to.id() == TypeId::kDate32) {
          auto d = ParseDate(s);
          if (!d.ok()) {
            f |= d.status().code() == StatusCode::kOutOfRange ? kOverflowFlag : kInvalidFlag;
            return 0;
          }
          return static_cast<Out>(*d);
        }
        if (to.id() == TypeId::kTimestamp) {
          auto t = ParseTimestamp(s, 3 * static_cast<int>(to.unit()), !to.timezone().empty());
          if (!t.ok()) {
            f |= t.status().code() == StatusCode::kOutOfRange ? kOverflowFlag : kInvalidFlag;
            return 0;
          }
          return static_cast<Out>(*t);
        }
        if (to.id() == TypeId::kDecimal)
          return static_cast<Out>(ParseDecimalText(s, precision, scale, f));
        return ParseNumberText<Out>(s, f);
      }
    };
    auto describe = [&](std::string_view text, uint8_t f) -> Status {
      if (to.id() == TypeId::kDate32)
        return ParseDate(text).status();  // PostgreSQL's date messages and SQLSTATEs
      if (to.id() == TypeId::kTimestamp) {
        return ParseTimestamp(Trim(text), 3 * static_cast<int>(to.unit()), !to.timezone().empty())
            .status();
      }
      if (f & kInvalidFlag)
        return InvalidInput(to, text);
      if (to.id() == TypeId::kDecimal) {
        return Status::OutOfRange("numeric field overflow: \"{}\" does not fit {}", text,
                                  columnar::SqlTypeName(to))
            .WithSqlState("22003");
      }
      return Status::OutOfRange("value \"{}\" is out of range for type {}", text,
                                columnar::SqlTypeName(to))
          .WithSqlState("22003");
    };
    if (in.is_scalar) {
      return ConvertLoop<std::string_view, Out>(in, StringScalarReader{in.array->StringValue(0)},
                                                length, to, try_cast, ctx, op, describe);
    }
    return ConvertLoop<std::string_view, Out>(in, MakeStringReader(*in.array), length, to, try_cast,
                                              ctx, op, describe);
  });
}

Result<KernelPtr> ParseBoolCast(bool try_cast) {
  return MakeLambdaKernel([try_cast](const std::vector<Datum>& args, int64_t length,
                                     KernelContext* ctx) -> Result<Datum> {
    const Datum& in = args[0];
    const int64_t n = in.is_scalar ? 1 : length;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, bits::CopyValidity(*in.array, ctx->pool));
    std::vector<uint8_t> bytes(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      if (in.array->IsNull(i))
        continue;
      const std::string s = AsciiLower(Trim(in.array->StringValue(i)));
      if (s == "t" || s == "true" || s == "yes" || s == "y" || s == "on" || s == "1") {
        bytes[static_cast<size_t>(i)] = 1;
      } else if (!(s == "f" || s == "false" || s == "no" || s == "n" || s == "off" || s == "0")) {
        if (!try_cast)
          return InvalidInput(DataType::Boolean(), in.array->StringValue(i));
        if (!validity) {
          SHOAL_ASSIGN_OR_RETURN(validity, bits::Allocate(n, ctx->pool));
          std::memset(validity->mutable_data(), 0xFF,
                      static_cast<size_t>(columnar::bitmap::BytesForBits(n)));
        }
        columnar::bitmap::ClearBit(validity->mutable_data(), i);
      }
    }
    return BoolFromBytes(bytes, n, std::move(validity), in.is_scalar, ctx);
  });
}

Result<KernelPtr> ToStringCast(const DataType& to) {
  return MakeLambdaKernel([to](const std::vector<Datum>& args, int64_t length,
                               KernelContext* ctx) -> Result<Datum> {
    const Datum& in = args[0];
    const int64_t n = in.is_scalar ? 1 : length;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, bits::CopyValidity(*in.array, ctx->pool));
    SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets, AllocateValues<int32_t>(n + 1, ctx->pool));
    std::string data;
    int32_t* o = offsets->mutable_data_as<int32_t>();
    o[0] = 0;
    const Array& a = *in.array;
    for (int64_t i = 0; i < n; ++i) {
      if (a.IsValid(i)) {
        if (a.type_id() == TypeId::kBoolean) {
          data += a.BoolValue(i) ? "true" : "false";
        } else {
          columnar::AppendValue(a, i, &data);
        }
      }
      if (data.size() > INT32_MAX)
        return Status::OutOfRange("string column exceeds 2 GiB in one batch");
      o[i + 1] = static_cast<int32_t>(data.size());
    }
    SHOAL_ASSIGN_OR_RETURN(
        BufferPtr bytes, columnar::Buffer::Allocate(static_cast<int64_t>(data.size()), ctx->pool));
    std::memcpy(bytes->mutable_data(), data.data(), data.size());
    return MakeResult(to, n, std::move(validity), {std::move(offsets), std::move(bytes)},
                      in.is_scalar);
  });
}

int64_t UnitsPerDay(columnar::TimeUnit unit) {
  switch (unit) {
    case columnar::TimeUnit::kSecond: return 86400LL;
    case columnar::TimeUnit::kMilli: return 86400LL * 1000;
    case columnar::TimeUnit::kMicro: return 86400LL * 1000000;
    case columnar::TimeUnit::kNano: return 86400LL * 1000000000;
  }
  return 1;
}

}  // namespace

Result<KernelPtr> MakeCastKernel(const DataType& from, const DataType& to, bool try_cast) {
  if (from == to) {
    return MakeLambdaKernel([](const std::vector<Datum>& args, int64_t,
                               KernelContext*) -> Result<Datum> { return args[0]; });
  }
  if (from.id() == TypeId::kNull) {
    return MakeLambdaKernel(
        [to](const std::vector<Datum>&, int64_t, KernelContext* ctx) -> Result<Datum> {
          return NullScalar(to, ctx);
        });
  }
  if (from.id() == TypeId::kDictionary) {
    SHOAL_ASSIGN_OR_RETURN(KernelPtr inner_kernel, MakeCastKernel(from.value_type(), to, try_cast));
    std::shared_ptr<Kernel> inner = std::move(inner_kernel);
    return MakeLambdaKernel([inner](const std::vector<Datum>& args, int64_t length,
                                    KernelContext* ctx) -> Result<Datum> {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr decoded, DecodeDictionary(args[0].array, ctx->pool));
      return inner->Execute({Datum{decoded, args[0].is_scalar}}, length, ctx);
    });
  }
  auto unsupported = [&]() -> Result<KernelPtr> {
    return Status::NotImplemented("cast from {} to {}", from.ToString(), to.ToString());
  };
  if (to.id() == TypeId::kList && from.id() == TypeId::kUtf8)
    return MakeTextToArrayCast(to, try_cast);
  if (to.is_list_like() && from.is_list_like())
    return MakeArrayToArrayCast(from, to, try_cast);
  const bool from_num = IsNumeric(from) || from.id() == TypeId::kDecimal;
  const bool to_num = IsNumeric(to) || to.id() == TypeId::kDecimal;
  if (from_num && to_num) {
    return DispatchFixed(
        from,
        [&](auto in) -> Result<KernelPtr> {
          using In = decltype(in);
          return DispatchFixed(
              to,
              [&](auto out) -> Result<KernelPtr> {
                using Out = decltype(out);
                return NumericCast<In, Out>(from, to, try_cast);
              },
              unsupported());
        },
        unsupported());
  }
  if (to.is_binary_like()) {
    if (from.is_binary_like()) {
      return MakeLambdaKernel(
          [to](const std::vector<Datum>& args, int64_t, KernelContext*) -> Result<Datum> {
            const Array& a = *args[0].array;
            return Datum{Array::Make(to, a.length(), a.buffers(), a.null_count(), a.offset()),
                         args[0].is_scalar};
          });
    }
    return ToStringCast(to);
  }
  if (from.id() == TypeId::kUtf8) {
    if (to.id() == TypeId::kBoolean)
      return ParseBoolCast(try_cast);
    if (to.id() == TypeId::kDate32)
      return ParseCast<int32_t>(to, try_cast);
    return DispatchFixed(
        to,
        [&](auto out) -> Result<KernelPtr> {
          using Out = decltype(out);
          if constexpr (std::is_same_v<Out, int128_t>) {
            return ParseCast<int128_t>(to, try_cast);
          } else {
            return ParseCast<Out>(to, try_cast);
          }
        },
        unsupported());
  }
  if (from.id() == TypeId::kBoolean && to.is_integer()) {
    return DispatchFixed(
        to,
        [&](auto out) -> Result<KernelPtr> {
          using Out = decltype(out);
          return MakeLambdaKernel([to](const std::vector<Datum>& args, int64_t length,
                                       KernelContext* ctx) -> Result<Datum> {
            const Array& a = *args[0].array;
            const int64_t n = args[0].is_scalar ? 1 : length;
            SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, bits::CopyValidity(a, ctx->pool));
            SHOAL_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues<Out>(n, ctx->pool));
            for (int64_t i = 0; i < n; ++i)
              values->mutable_data_as<Out>()[i] = static_cast<Out>(a.BoolValue(i));
            return MakeResult(to, n, std::move(validity), {std::move(values)}, args[0].is_scalar);
          });
        },
        unsupported());
  }
  if (from.is_integer() && to.id() == TypeId::kBoolean) {
    SHOAL_ASSIGN_OR_RETURN(KernelPtr widen_kernel, MakeCastKernel(from, DataType::Int64()));
    std::shared_ptr<Kernel> widen = std::move(widen_kernel);
    return MakeLambdaKernel([widen](const std::vector<Datum>& args, int64_t length,
                                    KernelContext* ctx) -> Result<Datum> {
      SHOAL_ASSIGN_OR_RETURN(Datum wide, widen->Execute(args, length, ctx));
      const int64_t n = wide.is_scalar ? 1 : length;
      SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, bits::CopyValidity(*wide.array, ctx->pool));
      std::vector<uint8_t> bytes(static_cast<size_t>(n));
      const int64_t* v = wide.array->values<int64_t>();
      for (int64_t i = 0; i < n; ++i)
        bytes[static_cast<size_t>(i)] = v[i] != 0;
      return BoolFromBytes(bytes, n, std::move(validity), wide.is_scalar, ctx);
    });
  }
  if (from.id() == TypeId::kDate32 && to.id() == TypeId::kTimestamp) {
    const int64_t per_day = UnitsPerDay(to.unit());
    return MakeLambdaKernel([to, per_day](const std::vector<Datum>& args, int64_t length,
                                          KernelContext* ctx) -> Result<Datum> {
      uint8_t flags = 0;
      return UnaryFixed<int32_t, int64_t>(args[0], length, to, ctx, &flags,
                                          [per_day](int32_t d, uint8_t&) { return d * per_day; });
    });
  }
  if (from.id() == TypeId::kTimestamp && to.id() == TypeId::kDate32) {
    const int64_t per_day = UnitsPerDay(from.unit());
    return MakeLambdaKernel([to, per_day](const std::vector<Datum>& args, int64_t length,
                                          KernelContext* ctx) -> Result<Datum> {
      uint8_t flags = 0;
      return UnaryFixed<int64_t, int32_t>(args[0], length, to, ctx, &flags,
                                          [per_day](int64_t t, uint8_t&) {
                                            int64_t q = t / per_day;
                                            if (t % per_day < 0)
                                              --q;
                                            return static_cast<int32_t>(q);
                                          });
    });
  }
  return unsupported();
}

void RegisterCastKernels(KernelRegistry* registry) {
  // Casts are normally kCast nodes; "cast" as a call takes the target from the result type.
  registry->Register("cast", [](const KernelSignature& sig) -> Result<KernelPtr> {
    return MakeCastKernel(sig.arg_types.at(0), sig.result_type, sig.expr && sig.expr->try_cast);
  });
}

}  // namespace shoal::exec
