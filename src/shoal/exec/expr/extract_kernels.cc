// EXTRACT (and date_part) of a field from dates, timestamps and intervals, with PostgreSQL 15's
// fields and results: extract returns numeric, exact, with 6 fraction digits for second and epoch
// (of a timestamp or interval) and 3 for millisecond; the binder gives the call that decimal type
// (sql::ExtractResultScale) and the kernel writes unscaled values of it. date_part is the same
// kernel under a cast to double precision.

#include <string>

#include "shoal/columnar/pretty_print.h"
#include "shoal/exec/expr/kernel_util.h"
#include "shoal/exec/expr/string_kernels_internal.h"

namespace shoal::exec {
namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace)

enum class DatePart : uint8_t {
  kMicrosecond,
  kMillisecond,
  kSecond,
  kMinute,
  kHour,
  kDay,
  kMonth,
  kYear,
  kQuarter,
  kDecade,
  kCentury,
  kMillennium,
  kDow,
  kIsodow,
  kDoy,
  kWeek,
  kIsoyear,
  kJulian,
  kEpoch
};

enum class Source : uint8_t { kDate, kTimestamp, kInterval };

Result<DatePart> ParseDatePart(std::string name, Source source) {
  for (char& c : name)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  struct Entry {
    const char* name;
    DatePart part;
  };
  static constexpr Entry kParts[] = {{"microsecond", DatePart::kMicrosecond},
                                     {"microseconds", DatePart::kMicrosecond},
                                     {"millisecond", DatePart::kMillisecond},
                                     {"milliseconds", DatePart::kMillisecond},
                                     {"second", DatePart::kSecond},
                                     {"seconds", DatePart::kSecond},
                                     {"minute", DatePart::kMinute},
                                     {"minutes", DatePart::kMinute},
                                     {"hour", DatePart::kHour},
                                     {"hours", DatePart::kHour},
                                     {"day", DatePart::kDay},
                                     {"days", DatePart::kDay},
                                     {"month", DatePart::kMonth},
                                     {"months", DatePart::kMonth},
                                     {"year", DatePart::kYear},
                                     {"years", DatePart::kYear},
                                     {"quarter", DatePart::kQuarter},
                                     {"decade", DatePart::kDecade},
                                     {"century", DatePart::kCentury},
                                     {"millennium", DatePart::kMillennium},
                                     {"dow", DatePart::kDow},
                                     {"isodow", DatePart::kIsodow},
                                     {"doy", DatePart::kDoy},
                                     {"week", DatePart::kWeek},
                                     {"isoyear", DatePart::kIsoyear},
                                     {"julian", DatePart::kJulian},
                                     {"epoch", DatePart::kEpoch}};
  const char* type_name = source == Source::kDate        ? "date"
                          : source == Source::kTimestamp ? "timestamp"
                                                         : "interval";
  for (const auto& e : kParts) {
    if (name != e.name)
      continue;
    DatePart p = e.part;
    bool time_of_day = p == DatePart::kMicrosecond || p == DatePart::kMillisecond ||
                       p == DatePart::kSecond || p == DatePart::kMinute || p == DatePart::kHour;
    bool calendar = p == DatePart::kDow || p == DatePart::kIsodow || p == DatePart::kDoy ||
                    p == DatePart::kWeek || p == DatePart::kIsoyear || p == DatePart::kJulian;
    if ((source == Source::kDate && time_of_day) || (source == Source::kInterval && calendar) ||
        (source == Source::kTimestamp && p == DatePart::kJulian)) {
      return Status::InvalidArgument("unit \"{}\" not supported for type {}", name, type_name)
          .WithSqlState("0A000");
    }
    return p;
  }
  return Status::InvalidArgument("unit \"{}\" not recognized for type {}", name, type_name)
      .WithSqlState("22023");
}

constexpr int64_t kMicrosPerSecond = 1000000;

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/// ISO 8601 week-numbering year and week of `days` (days since 1970-01-01).
void IsoWeek(int64_t days, int64_t* iso_year, int64_t* week) {
  int64_t dow = ((days % 7) + 7 + 4) % 7;  // 0 = Sunday
  int64_t iso_dow = dow == 0 ? 7 : dow;
  int64_t thursday = days - iso_dow + 4;  // the Thursday of this ISO week decides its year
  int64_t y = 0;
  unsigned m = 0, d = 0;
  columnar::CivilFromDays(thursday, &y, &m, &d);
  *iso_year = y;
  *week = (thursday - columnar::DaysFromCivil(y, 1, 1)) / 7 + 1;
}

/// Field `part` of a point in time (`days` since 1970-01-01 plus `micros` into that day), in
/// millionths (the exact value times 10^6).
int128_t PointPartMicros(DatePart part, int64_t days, int64_t micros) {
  const int128_t kM = kMicrosPerSecond;
  int64_t y = 0;
  unsigned m = 0, d = 0;
  columnar::CivilFromDays(days, &y, &m, &d);
  int64_t dow = ((days % 7) + 7 + 4) % 7;  // 1970-01-01 was a Thursday
  switch (part) {
    case DatePart::kMicrosecond: return kM * (micros % (60 * kMicrosPerSecond));
    case DatePart::kMillisecond: return 1000 * int128_t{micros % (60 * kMicrosPerSecond)};
    case DatePart::kSecond: return micros % (60 * kMicrosPerSecond);
    case DatePart::kMinute: return kM * (micros / (60 * kMicrosPerSecond) % 60);
    case DatePart::kHour: return kM * (micros / (3600 * kMicrosPerSecond));
    case DatePart::kDay: return kM * d;
    case DatePart::kMonth: return kM * m;
    case DatePart::kYear: return kM * y;
    case DatePart::kQuarter: return kM * ((m - 1) / 3 + 1);
    case DatePart::kDecade: return kM * FloorDiv(y, 10);
    case DatePart::kCentury: return kM * (y > 0 ? (y + 99) / 100 : -((99 - (y - 1)) / 100));
    case DatePart::kMillennium: return kM * (y > 0 ? (y + 999) / 1000 : -((999 - (y - 1)) / 1000));
    case DatePart::kDow: return kM * dow;
    case DatePart::kIsodow: return kM * (dow == 0 ? 7 : dow);
    case DatePart::kDoy: return kM * (days - columnar::DaysFromCivil(y, 1, 1) + 1);
    case DatePart::kWeek:
    case DatePart::kIsoyear: {
      int64_t iso_year = 0, week = 0;
      IsoWeek(days, &iso_year, &week);
      return kM * (part == DatePart::kWeek ? week : iso_year);
    }
    case DatePart::kJulian: return kM * (days + 2440588);  // 1970-01-01 is Julian day 2440588
    case DatePart::kEpoch: return kM * days * 86400 + micros;
  }
  return 0;
}

/// Field `part` of an interval, in millionths (PostgreSQL's interval_part: months split into
/// years and months by truncation; epoch counts a year as 365.25 days and a month as 30).
int128_t IntervalPartMicros(DatePart part, const columnar::MonthDayNano& v) {
  const int128_t kM = kMicrosPerSecond;
  int64_t micros = v.nanoseconds / 1000;
  int64_t years = v.months / 12;
  int64_t months = v.months % 12;
  switch (part) {
    case DatePart::kMicrosecond: return kM * (micros % (60 * kMicrosPerSecond));
    case DatePart::kMillisecond: return 1000 * int128_t{micros % (60 * kMicrosPerSecond)};
    case DatePart::kSecond: return micros % (60 * kMicrosPerSecond);
    case DatePart::kMinute: return kM * (micros / (60 * kMicrosPerSecond) % 60);
    case DatePart::kHour: return kM * (micros / (3600 * kMicrosPerSecond));
    case DatePart::kDay: return kM * v.days;
    case DatePart::kMonth: return kM * months;
    case DatePart::kYear: return kM * years;
    case DatePart::kQuarter: return kM * (months / 3 + 1);
    case DatePart::kDecade: return kM * (years / 10);
    case DatePart::kCentury: return kM * (years / 100);
    case DatePart::kMillennium: return kM * (years / 1000);
    case DatePart::kEpoch:
      // 365.25 days a year: years * 31557600 s, exact in integers.
      return kM * (int128_t{years} * 31557600 + int128_t{months} * 30 * 86400 +
                   int128_t{v.days} * 86400) +
             micros;
    default: return 0;
  }
}

Result<KernelPtr> MakeExtract(const KernelSignature& sig) {
  if (sig.expr == nullptr || sig.expr->args.size() != 2 ||
      sig.expr->args[0]->kind != sql::ExprKind::kLiteral || sig.expr->args[0]->value.is_null()) {
    return Status::NotImplemented("extract with a non-literal field");
  }
  const DataType input = sig.arg_types[1];
  const DataType result = sig.result_type;
  Source source = Source::kDate;
  int64_t units_per_second = 1;
  if (input.id() == TypeId::kTimestamp) {
    source = Source::kTimestamp;
    switch (input.unit()) {
      case columnar::TimeUnit::kSecond: units_per_second = 1; break;
      case columnar::TimeUnit::kMilli: units_per_second = 1000; break;
      case columnar::TimeUnit::kMicro: units_per_second = kMicrosPerSecond; break;
      case columnar::TimeUnit::kNano: units_per_second = 1000 * kMicrosPerSecond; break;
    }
  } else if (input.id() == TypeId::kInterval) {
    source = Source::kInterval;
  } else if (input.id() != TypeId::kDate32) {
    return Status::NotImplemented("extract from {}", input.ToString());
  }
  SHOAL_ASSIGN_OR_RETURN(DatePart part,
                         ParseDatePart(sig.expr->args[0]->value.string_value(), source));
  // The result is a decimal of scale <= 6 (or an integer / float, from older plans): divide the
  // millionths down to its scale.
  int scale = result.id() == TypeId::kDecimal ? result.scale() : 0;
  if (scale > 6)
    return Status::Internal("extract to {}", result.ToString());
  const int128_t divisor = columnar::PowerOfTen(6 - scale);
  DataType unscaled_type = result.id() == TypeId::kDecimal
                               ? DataType::Decimal(DataType::kMaxDecimal64Precision, scale)
                               : DataType::Int64();
  std::shared_ptr<Kernel> to_result;
  if (unscaled_type != result) {
    SHOAL_ASSIGN_OR_RETURN(KernelPtr k, MakeCastKernel(unscaled_type, result));
    to_result = std::move(k);
  }
  const auto divisor64 = static_cast<int64_t>(divisor);
  auto narrow = [divisor, divisor64](int128_t v, uint8_t& f) -> int64_t {
    if (v >= INT64_MIN && v <= INT64_MAX)  // the usual case, without a 128-bit division
      return static_cast<int64_t>(v) / divisor64;
    int128_t q = v / divisor;
    if (q > INT64_MAX || q < INT64_MIN) {
      f |= kOverflowFlag;
      return 0;
    }
    return static_cast<int64_t>(q);
  };
  return MakeLambdaKernel([part, source, units_per_second, unscaled_type, to_result, narrow](
                              const std::vector<Datum>& args, int64_t length,
                              KernelContext* ctx) -> Result<Datum> {
    const Datum& in = args[1];
    uint8_t flags = 0;
    Result<Datum> parts = Status::Internal("unset");
    switch (source) {
      case Source::kDate:
        parts = UnaryFixed<int32_t, int64_t>(in, length, unscaled_type, ctx, &flags,
                                             [part, narrow](int32_t d, uint8_t& f) {
                                               return narrow(PointPartMicros(part, d, 0), f);
                                             });
        break;
      case Source::kTimestamp:
        parts =
            UnaryFixed<int64_t, int64_t>(in, length, unscaled_type, ctx, &flags,
                                         [part, units_per_second, narrow](int64_t t, uint8_t& f) {
                                           // Floor division keeps times before 1970 in their own
                                           // day.
                                           const int64_t per_day = 86400 * units_per_second;
                                           int64_t days = FloorDiv(t, per_day);
                                           int64_t rem = t - days * per_day;
                                           rem = units_per_second >= kMicrosPerSecond
                                                     ? rem / (units_per_second / kMicrosPerSecond)
                                                     : rem * (kMicrosPerSecond / units_per_second);
                                           return narrow(PointPartMicros(part, days, rem), f);
                                         });
        break;
      case Source::kInterval:
        parts = UnaryFixed<columnar::MonthDayNano, int64_t>(
            in, length, unscaled_type, ctx, &flags,
            [part, narrow](columnar::MonthDayNano v, uint8_t& f) {
              return narrow(IntervalPartMicros(part, v), f);
            });
        break;
    }
    if (!parts.ok())
      return parts;
    if (flags != 0)
      return Status::OutOfRange("value out of range for type numeric").WithSqlState("22003");
    if (!to_result)
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
