// Date functions: DATE_TRUNC (year, quarter, month, week, day, hour, minute, second) on dates and
// timestamps, MAKE_DATE with PostgreSQL's range errors, and CURRENT_DATE (UTC, fixed when the
// evaluator is built so every batch of a statement sees the same day).
#include <chrono>

#include "shoal/common/calendar.h"
#include "shoal/common/text.h"
#include "shoal/exec/expr/kernel_util.h"

namespace shoal::exec {
namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace)

enum class TruncUnit : uint8_t { kYear, kQuarter, kMonth, kWeek, kDay, kHour, kMinute, kSecond };

Result<TruncUnit> ParseTruncUnit(std::string name, const DataType& type) {
  name = AsciiLower(name);
  if (name == "year")
    return TruncUnit::kYear;
  if (name == "quarter")
    return TruncUnit::kQuarter;
  if (name == "month")
    return TruncUnit::kMonth;
  if (name == "week")
    return TruncUnit::kWeek;
  if (name == "day")
    return TruncUnit::kDay;
  if (name == "hour")
    return TruncUnit::kHour;
  if (name == "minute")
    return TruncUnit::kMinute;
  if (name == "second")
    return TruncUnit::kSecond;
  return Status::InvalidArgument("unit \"{}\" not recognized for type {}", name,
                                 type.id() == TypeId::kDate32 ? "date" : "timestamp")
      .WithSqlState("22023");
}

int64_t TruncDays(TruncUnit unit, int64_t days) {
  if (unit == TruncUnit::kWeek) {
    // Weeks start on Monday; 1970-01-01 was a Thursday.
    int64_t since_monday = (days + 3) % 7;
    if (since_monday < 0)
      since_monday += 7;
    return days - since_monday;
  }
  if (unit != TruncUnit::kYear && unit != TruncUnit::kQuarter && unit != TruncUnit::kMonth)
    return days;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  if (unit == TruncUnit::kYear)
    m = 1;
  else if (unit == TruncUnit::kQuarter)
    m = (m - 1) / 3 * 3 + 1;
  return DaysFromCivil(y, m, 1);
}

int64_t PerSecond(columnar::TimeUnit unit) {
  switch (unit) {
    case columnar::TimeUnit::kSecond: return 1;
    case columnar::TimeUnit::kMilli: return 1000;
    case columnar::TimeUnit::kMicro: return 1000000;
    case columnar::TimeUnit::kNano: return 1000000000;
  }
  return 1;
}

Result<KernelPtr> MakeDateTrunc(const KernelSignature& sig) {
  if (sig.expr == nullptr || sig.expr->args.size() != 2 ||
      sig.expr->args[0]->kind != sql::ExprKind::kLiteral || sig.expr->args[0]->value.is_null()) {
    return Status::NotImplemented("date_trunc with a non-literal unit");
  }
  const DataType input = sig.arg_types[1];
  if (input.id() != TypeId::kDate32 && input.id() != TypeId::kTimestamp)
    return Status::NotImplemented("date_trunc of {}", input.ToString());
  if (sig.result_type != input)
    return Status::NotImplemented("date_trunc of {} to {}", input.ToString(),
                                  sig.result_type.ToString());
  SHOAL_ASSIGN_OR_RETURN(TruncUnit unit,
                         ParseTruncUnit(sig.expr->args[0]->value.string_value(), input));
  const int64_t per_second = input.id() == TypeId::kTimestamp ? PerSecond(input.unit()) : 0;
  return MakeLambdaKernel([unit, per_second, input](const std::vector<Datum>& args, int64_t length,
                                                    KernelContext* ctx) -> Result<Datum> {
    uint8_t flags = 0;
    if (per_second == 0) {
      return UnaryFixed<int32_t, int32_t>(
          args[1], length, input, ctx, &flags,
          [unit](int32_t d, uint8_t&) { return static_cast<int32_t>(TruncDays(unit, d)); });
    }
    const int64_t per_day = per_second * 86400;
    int64_t step = per_day;
    if (unit == TruncUnit::kHour)
      step = per_second * 3600;
    else if (unit == TruncUnit::kMinute)
      step = per_second * 60;
    else if (unit == TruncUnit::kSecond)
      step = per_second;
    return UnaryFixed<int64_t, int64_t>(
        args[1], length, input, ctx, &flags, [unit, per_day, step](int64_t t, uint8_t&) {
          int64_t days = t / per_day;
          int64_t rem = t % per_day;
          if (rem < 0) {
            rem += per_day;
            --days;
          }
          return TruncDays(unit, days) * per_day + rem / step * step;
        });
  });
}

bool ValidCivil(int64_t y, int64_t m, int64_t d) {
  if (y == 0 || m < 1 || m > 12 || d < 1 || d > 31)
    return false;
  if (y < -4713 || y > 5874897)
    return false;
  return IsValidCivil(y < 0 ? y + 1 : y, m, d);  // 1 BC is year 0
}

Result<KernelPtr> MakeMakeDate(const KernelSignature& sig) {
  if (sig.arg_types.size() != 3)
    return Status::InvalidArgument("make_date takes three arguments");
  const DataType i64 = DataType::Int64();
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(casts->Init(sig.arg_types, {i64, i64, i64}));
  return MakeLambdaKernel(
      [casts](const std::vector<Datum>& args, int64_t length, KernelContext* ctx) -> Result<Datum> {
        const DataType type = DataType::Date32();
        if (AnyNullScalar(args))
          return NullScalar(type, ctx);
        SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
        const bool scalar = AllScalar(c);
        const int64_t n = scalar ? 1 : length;
        SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, PropagateValidity(c, n, ctx));
        SHOAL_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues<int32_t>(n, ctx->pool));
        int32_t* out = values->mutable_data_as<int32_t>();
        const uint8_t* v = validity ? validity->data() : nullptr;
        auto at = [&](size_t k, int64_t i) {
          return c[k].array->values<int64_t>()[c[k].is_scalar ? 0 : i];
        };
        for (int64_t i = 0; i < n; ++i) {
          out[i] = 0;
          if (v != nullptr && !columnar::bitmap::GetBit(v, i))
            continue;
          const int64_t y = at(0, i), m = at(1, i), d = at(2, i);
          if (!ValidCivil(y, m, d)) {
            return Status::OutOfRange("date field value out of range: {}-{:02}-{:02}", y, m, d)
                .WithSqlState("22008");
          }
          out[i] = static_cast<int32_t>(
              DaysFromCivil(y < 0 ? y + 1 : y, static_cast<unsigned>(m), static_cast<unsigned>(d)));
        }
        return MakeResult(type, n, std::move(validity), {std::move(values)}, scalar);
      });
}

Result<KernelPtr> MakeCurrentDate(const KernelSignature&) {
  const int64_t seconds = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  int64_t days = seconds / 86400;
  if (seconds % 86400 < 0)
    --days;
  const int32_t today = static_cast<int32_t>(days);
  return MakeLambdaKernel(
      [today](const std::vector<Datum>&, int64_t, KernelContext* ctx) -> Result<Datum> {
        SHOAL_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues<int32_t>(1, ctx->pool));
        values->mutable_data_as<int32_t>()[0] = today;
        return MakeResult(DataType::Date32(), 1, nullptr, {std::move(values)}, true);
      });
}

}  // namespace

void RegisterDateKernels(KernelRegistry* registry) {
  registry->Register("date_trunc", &MakeDateTrunc);
  registry->Register("make_date", &MakeMakeDate);
  registry->Register("current_date", &MakeCurrentDate);
}

}  // namespace shoal::exec
