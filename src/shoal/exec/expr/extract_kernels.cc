// EXTRACT (and date_part) of a field from dates and timestamps: year, month, day, quarter, dow,
// doy, epoch, hour, minute, second.

#include <string>

#include "shoal/columnar/pretty_print.h"
#include "shoal/exec/expr/kernel_util.h"
#include "shoal/exec/expr/string_kernels_internal.h"

namespace shoal::exec {
namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace)

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

}  // namespace

namespace internal {

void RegisterExtractKernels(KernelRegistry* registry) {
  registry->Register("extract", &MakeExtract);
  registry->Register("date_part", &MakeExtract);
}

}  // namespace internal
}  // namespace shoal::exec
