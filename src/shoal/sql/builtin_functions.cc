// The built-in functions: the signature table (name, kind, type rule, signature text) of every
// scalar function, operator, aggregate and window function, and the rule builders it is
// written with.

#include <string>
#include <utility>
#include <vector>

#include "shoal/sql/function_registry_internal.h"

namespace shoal::sql::internal {

namespace {

bool IsString(const DataType& t) {
  return t.id() == TypeId::kUtf8;
}

/// Accepts exactly the arity of `sig` with each argument implicitly castable.
TypeRule Fixed(std::vector<DataType> sig, DataType result, bool nullable = true) {
  return [sig = std::move(sig), result = std::move(result),
          nullable](const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
    if (args.size() != sig.size())
      return std::nullopt;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!CanImplicitCast(args[i], sig[i]))
        return std::nullopt;
    }
    return Res(sig, result, nullable);
  };
}

/// Like Fixed, for functions with text parameters: the binder gives unknown-typed literals ('a,b')
/// the type of the first typed argument, so a text parameter also accepts the type of an argument
/// at a non-text parameter (the literal is then read as text, as PostgreSQL reads `unknown`).
TypeRule FixedText(std::vector<DataType> sig, DataType result) {
  return [sig = std::move(sig), result = std::move(result)](
             const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
    if (args.size() != sig.size())
      return std::nullopt;
    for (size_t i = 0; i < args.size(); ++i) {
      if (CanImplicitCast(args[i], sig[i]))
        continue;
      bool hinted = false;
      for (size_t j = 0; j < args.size() && sig[i].id() == TypeId::kUtf8; ++j)
        hinted = hinted || (sig[j].id() != TypeId::kUtf8 && args[j] == args[i]);
      if (!hinted)
        return std::nullopt;
    }
    return Res(sig, result);
  };
}

/// Tries each rule in order.
TypeRule AnyOf(std::vector<TypeRule> rules) {
  return [rules = std::move(rules)](
             const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
    for (const auto& rule : rules) {
      if (auto r = rule(args))
        return r;
    }
    return std::nullopt;
  };
}

std::optional<DataType> CommonOfAll(const std::vector<DataType>& args, size_t from = 0) {
  if (args.size() <= from)
    return std::nullopt;
  DataType common = args[from];
  for (size_t i = from + 1; i < args.size(); ++i) {
    auto next = CommonSuperType(common, args[i]);
    if (!next)
      return std::nullopt;
    common = *next;
  }
  return common;
}

bool IsComparable(const DataType& t) {
  return t.id() != TypeId::kDictionary;
}

std::optional<FunctionResolution> ComparisonRule(const std::vector<DataType>& args) {
  if (args.size() != 2)
    return std::nullopt;
  auto common = CommonSuperType(args[0], args[1]);
  if (!common || !IsComparable(*common))
    return std::nullopt;
  return Res({*common, *common}, DataType::Boolean());
}

/// One argument of any type, which is also the result's (min, max, first_value, last_value).
std::optional<FunctionResolution> AnyOneArgumentRule(const std::vector<DataType>& args) {
  if (args.size() != 1)
    return std::nullopt;
  return Res(args, args[0]);
}

std::optional<FunctionResolution> AddSubRule(std::string_view op,
                                             const std::vector<DataType>& args) {
  if (args.size() != 2)
    return std::nullopt;
  const DataType& a = args[0];
  const DataType& b = args[1];
  if (a.id() == TypeId::kNull && b.id() == TypeId::kNull)
    return Res({DataType::Int32(), DataType::Int32()}, DataType::Int32());
  // PostgreSQL's date/time operators: date +/- integer -> date, date - date -> integer,
  // date +/- interval -> timestamp (the date read as its midnight), timestamp[tz] +/- interval ->
  // the same type, timestamp - timestamp (a date read as a timestamp) -> interval, interval +/-
  // interval -> interval.
  auto is_int = [](const DataType& t) { return t.is_integer() || t.id() == TypeId::kNull; };
  auto is_interval = [](const DataType& t) {
    return t.id() == TypeId::kInterval || t.id() == TypeId::kNull;
  };
  const bool add = op == "+";
  const DataType ts = DataType::Timestamp(columnar::TimeUnit::kMicro);
  const DataType iv = DataType::Interval();
  if (a.id() == TypeId::kDate32 && is_int(b))
    return Res({a, DataType::Int32()}, a);
  if (add && is_int(a) && b.id() == TypeId::kDate32)
    return Res({DataType::Int32(), b}, b);
  if (!add && a.id() == TypeId::kDate32 && b.id() == TypeId::kDate32)
    return Res({a, b}, DataType::Int32());
  if (a.id() == TypeId::kDate32 && is_interval(b))
    return Res({ts, iv}, ts);
  if (add && a.id() == TypeId::kInterval && b.id() == TypeId::kDate32)
    return Res({iv, ts}, ts);
  if (a.id() == TypeId::kTimestamp && is_interval(b))
    return Res({a, iv}, a);
  if (add && a.id() == TypeId::kInterval && b.id() == TypeId::kTimestamp)
    return Res({a, b}, b);
  if (a.id() == TypeId::kInterval && is_interval(b))
    return Res({a, iv}, a);
  if (add && a.id() == TypeId::kNull && b.id() == TypeId::kInterval)
    return Res({b, b}, b);
  if (!add && IsTemporal(a) && IsTemporal(b)) {
    DataType t = a.id() == TypeId::kTimestamp ? a : (b.id() == TypeId::kTimestamp ? b : ts);
    return Res({t, t}, iv);
  }
  return ResolveArithmetic(op, a, b);
}

}  // namespace

void RegisterBuiltins(FunctionRegistry& r) {
  auto scalar = [&r](std::string name, TypeRule rule, std::string sig) {
    r.Register({std::move(name), FunctionKind::kScalar, std::move(rule), std::move(sig)});
  };
  auto aggregate = [&r](std::string name, TypeRule rule, std::string sig) {
    r.Register({std::move(name), FunctionKind::kAggregate, std::move(rule), std::move(sig)});
  };
  auto window = [&r](std::string name, TypeRule rule, std::string sig) {
    r.Register({std::move(name), FunctionKind::kWindow, std::move(rule), std::move(sig)});
  };
  const DataType kBool = DataType::Boolean();
  const DataType kI64 = DataType::Int64();
  const DataType kF64 = DataType::Float64();
  const DataType kText = DataType::Utf8();

  for (const char* op : {"+", "-"}) {
    std::string name = op;
    scalar(
        name, [name](const std::vector<DataType>& a) { return AddSubRule(name, a); },
        fmt::format("numeric {0} numeric, date {0} integer, date {0} interval", name));
  }
  for (const char* op : {"*", "/", "%"}) {
    std::string name = op;
    scalar(
        name,
        [name](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
          if (a.size() != 2)
            return std::nullopt;
          // interval * number, number * interval, interval / number -> interval.
          const DataType iv = DataType::Interval();
          const DataType f8 = DataType::Float64();
          auto number = [](const DataType& t) { return IsNumeric(t) || t.id() == TypeId::kNull; };
          if (name != "%" && a[0].id() == TypeId::kInterval && number(a[1]))
            return Res({iv, f8}, iv);
          if (name == "*" && number(a[0]) && a[1].id() == TypeId::kInterval)
            return Res({f8, iv}, iv);
          return ResolveArithmetic(name, a[0], a[1]);
        },
        "numeric " + name + " numeric" + (name == "%" ? "" : ", interval " + name + " number"));
  }
  scalar(
      "mod",
      [](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
        if (a.size() != 2)
          return std::nullopt;
        return ResolveArithmetic("%", a[0], a[1]);
      },
      "mod(numeric, numeric)");
  scalar(
      "negate",
      [](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
        if (a.size() != 1)
          return std::nullopt;
        DataType t = a[0].id() == TypeId::kNull ? DataType::Int32() : a[0];
        if (!IsNumeric(t) && t.id() != TypeId::kInterval)
          return std::nullopt;
        return Res({t}, t);
      },
      "-numeric, -interval");
  for (const char* op : {"=", "<>", "<", "<=", ">", ">="})
    scalar(op, ComparisonRule, std::string("any ") + op + " any (of comparable types)");
  for (const char* op : {"is_distinct_from", "is_not_distinct_from"}) {
    scalar(
        op,
        [](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
          auto r = ComparisonRule(a);
          if (r)
            r->nullable_result = false;
          return r;
        },
        "any IS [NOT] DISTINCT FROM any");
  }
  for (const char* op : {"and", "or"}) {
    scalar(
        op,
        [kBool](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
          if (a.size() < 2)
            return std::nullopt;
          for (const auto& t : a) {
            if (!CanImplicitCast(t, kBool))
              return std::nullopt;
          }
          return Res(std::vector<DataType>(a.size(), kBool), kBool);
        },
        std::string("boolean ") + op + " boolean");
  }
  scalar("not", Fixed({kBool}, kBool), "NOT boolean");
  for (const char* op : {"is_null", "is_not_null"}) {
    scalar(
        op,
        [kBool](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
          if (a.size() != 1)
            return std::nullopt;
          return Res(a, kBool, false);
        },
        "any IS [NOT] NULL");
  }
  for (const char* op : {"is_true", "is_false"})
    scalar(op, Fixed({kBool}, kBool, false), "boolean IS [NOT] TRUE/FALSE");
  scalar(
      "in",
      [kBool](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
        if (a.size() < 2)
          return std::nullopt;
        auto common = CommonOfAll(a);
        if (!common)
          return std::nullopt;
        return Res(std::vector<DataType>(a.size(), *common), kBool);
      },
      "any IN (any, ...)");
  for (const char* op : {"like", "ilike"}) {
    scalar(op, AnyOf({Fixed({kText, kText}, kBool), Fixed({kText, kText, kText}, kBool)}),
           std::string("text ") + op + " text [ESCAPE text]");
  }
  for (const char* name : {"coalesce", "greatest", "least"}) {
    scalar(
        name,
        [](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
          auto common = CommonOfAll(a);
          if (!common)
            return std::nullopt;
          return Res(std::vector<DataType>(a.size(), *common), *common);
        },
        std::string(name) + "(any, ...)");
  }
  scalar(
      "nullif",
      [](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
        if (a.size() != 2)
          return std::nullopt;
        auto common = CommonSuperType(a[0], a[1]);
        if (!common)
          return std::nullopt;
        return Res({*common, *common}, *common);
      },
      "nullif(any, any)");
  // Strings.
  scalar(
      "concat",
      [kText](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
        if (a.empty())
          return std::nullopt;
        return Res(std::vector<DataType>(a.size(), kText), kText);
      },
      "concat(any, ...), text || text");
  // The || operator: strict, unlike concat().
  scalar(
      "||",
      [kText](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
        if (a.size() != 2)
          return std::nullopt;
        return Res({kText, kText}, kText);
      },
      "text || text");
  scalar("substring",
         AnyOf({Fixed({kText, kI64}, kText), Fixed({kText, kI64, kI64}, kText),
                FixedText({kText, kText}, kText), FixedText({kText, kText, kText}, kText)}),
         "substring(text, bigint[, bigint]), substring(text FROM pattern), "
         "substring(text SIMILAR pattern ESCAPE text)");
  // POSIX regular expressions (exec/expr/regex_kernels.cc); integer parameters are bigint here
  // (PostgreSQL's are integer) and the counts and positions are integer, as in PostgreSQL.
  const DataType kI32 = DataType::Int32();
  for (const char* op : {"~", "~*"})
    scalar(op, Fixed({kText, kText}, kBool), std::string("text ") + op + " text");
  scalar("similar_to", AnyOf({Fixed({kText, kText}, kBool), Fixed({kText, kText, kText}, kBool)}),
         "text SIMILAR TO text [ESCAPE text]");
  scalar("regexp_like",
         AnyOf({FixedText({kText, kText}, kBool), FixedText({kText, kText, kText}, kBool)}),
         "regexp_like(text, pattern[, flags])");
  scalar("regexp_replace",
         AnyOf({FixedText({kText, kText, kText}, kText),
                FixedText({kText, kText, kText, kText}, kText),
                FixedText({kText, kText, kText, kI64}, kText),
                FixedText({kText, kText, kText, kI64, kI64}, kText),
                FixedText({kText, kText, kText, kI64, kI64, kText}, kText)}),
         "regexp_replace(text, pattern, replacement[, flags]), regexp_replace(text, pattern, "
         "replacement, start[, n[, flags]])");
  scalar("regexp_count",
         AnyOf({FixedText({kText, kText}, kI32), FixedText({kText, kText, kI64}, kI32),
                FixedText({kText, kText, kI64, kText}, kI32)}),
         "regexp_count(text, pattern[, start[, flags]])");
  scalar("regexp_instr",
         AnyOf({FixedText({kText, kText}, kI32), FixedText({kText, kText, kI64}, kI32),
                FixedText({kText, kText, kI64, kI64}, kI32),
                FixedText({kText, kText, kI64, kI64, kI64}, kI32),
                FixedText({kText, kText, kI64, kI64, kI64, kText}, kI32),
                FixedText({kText, kText, kI64, kI64, kI64, kText, kI64}, kI32)}),
         "regexp_instr(text, pattern[, start[, n[, endoption[, flags[, subexpr]]]]])");
  scalar("regexp_substr",
         AnyOf({FixedText({kText, kText}, kText), FixedText({kText, kText, kI64}, kText),
                FixedText({kText, kText, kI64, kI64}, kText),
                FixedText({kText, kText, kI64, kI64, kText}, kText),
                FixedText({kText, kText, kI64, kI64, kText, kI64}, kText)}),
         "regexp_substr(text, pattern[, start[, n[, flags[, subexpr]]]])");
  scalar("position", Fixed({kText, kText}, kI64), "position(text IN text)");
  for (const char* name : {"upper", "lower"})
    scalar(name, Fixed({kText}, kText), std::string(name) + "(text)");
  for (const char* name : {"trim", "ltrim", "rtrim"}) {
    scalar(name, AnyOf({Fixed({kText}, kText), Fixed({kText, kText}, kText)}),
           std::string(name) + "(text[, characters text])");
  }
  scalar("length", Fixed({kText}, kI64), "length(text)");
  scalar("replace", Fixed({kText, kText, kText}, kText), "replace(text, text, text)");
  scalar("split_part", FixedText({kText, kText, kI64}, kText), "split_part(text, text, bigint)");
  scalar("starts_with", Fixed({kText, kText}, kBool), "starts_with(text, text)");
  for (const char* name : {"lpad", "rpad"}) {
    scalar(name, AnyOf({FixedText({kText, kI64}, kText), FixedText({kText, kI64, kText}, kText)}),
           std::string(name) + "(text, bigint[, text])");
  }
  // Dates.
  scalar(
      "extract",
      [kText](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
        if (a.size() != 2 || !IsString(a[0]))
          return std::nullopt;
        if (!IsTemporal(a[1]) && a[1].id() != TypeId::kInterval)
          return std::nullopt;
        // numeric, as in PostgreSQL 15; the binder sets the scale the field needs.
        return Res({kText, a[1]}, DataType::Decimal(DataType::kMaxDecimal64Precision, 0));
      },
      "extract(field FROM date | timestamp | interval)");
  scalar(
      "date_trunc",
      [kText](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
        if (a.size() != 2 || !IsString(a[0]) || !IsTemporal(a[1]))
          return std::nullopt;
        // PostgreSQL has no date_trunc(text, date): the date is read as a timestamp with time
        // zone (midnight UTC in Shoal's one time zone), and so is the result.
        if (a[1].id() == TypeId::kDate32) {
          DataType tz = DataType::Timestamp(columnar::TimeUnit::kMicro, "UTC");
          return Res({kText, tz}, tz);
        }
        return Res({kText, a[1]}, a[1]);
      },
      "date_trunc(text, timestamp | timestamp with time zone)");
  scalar("current_date", Fixed({}, DataType::Date32(), false), "current_date");
  scalar("make_date", Fixed({kI64, kI64, kI64}, DataType::Date32()),
         "make_date(bigint, bigint, bigint)");
  // Numbers.
  auto same_numeric = [](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
    if (a.size() != 1 || !IsNumeric(a[0]))
      return std::nullopt;
    return Res(a, a[0]);
  };
  scalar("abs", same_numeric, "abs(numeric)");
  // Rounding, as PostgreSQL resolves it: round / trunc / ceil / floor of a number have a
  // numeric and a double precision version, and an integer or real argument goes to the double
  // one (its preferred type); round / trunc with a digits argument exist for numeric only, an
  // integer going to numeric. Rounding a decimal to an integer gives scale 0 and may need one more
  // digit (9.5 -> 10). With digits the scale stays (the binder sets it when the digits are a
  // constant) and one digit is added for the carry. round / trunc (double precision, integer),
  // which PostgreSQL refuses, are accepted (round(avg(x), 2) is everyday SQL and Shoal's avg is
  // double precision) and computed as PostgreSQL computes round(x::numeric, n).
  auto to_integral = [kF64](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
    if (a.size() != 1)
      return std::nullopt;
    if (a[0].id() == TypeId::kDecimal)
      return Res(a, CappedDecimal(a[0].precision() - a[0].scale() + 1, 0));
    if (IsNumeric(a[0]) || a[0].id() == TypeId::kNull)
      return Res({kF64}, kF64);
    return std::nullopt;
  };
  for (const char* name : {"floor", "ceil"})
    scalar(name, to_integral, std::string(name) + "(numeric | double precision)");
  for (const char* name : {"round", "trunc"}) {
    scalar(
        name,
        [to_integral, kF64](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
          if (a.size() != 2)
            return to_integral(a);
          if (!CanImplicitCast(a[1], DataType::Int32()))
            return std::nullopt;
          if (IsFloat(a[0]))
            return Res({kF64, DataType::Int32()}, kF64);
          if (a[0].id() != TypeId::kDecimal && !a[0].is_integer() && a[0].id() != TypeId::kNull)
            return std::nullopt;
          DataType d = a[0].id() == TypeId::kDecimal ? a[0]
                       : a[0].id() == TypeId::kNull  ? IntegerAsDecimal(DataType::Int32())
                                                     : IntegerAsDecimal(a[0]);
          return Res({d, DataType::Int32()}, CappedDecimal(d.precision() + 1, d.scale()));
        },
        std::string(name) + "(numeric | double precision[, integer])");
  }
  scalar("power", Fixed({kF64, kF64}, kF64), "power(double, double)");
  for (const char* name : {"sqrt", "ln", "log", "exp"})
    scalar(name, Fixed({kF64}, kF64), std::string(name) + "(double)");

  // More text functions (exec/expr/text_function_kernels.cc).
  scalar(
      "concat_ws",
      [kText](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
        if (a.size() < 2 || !CanImplicitCast(a[0], kText))
          return std::nullopt;
        return Res(std::vector<DataType>(a.size(), kText), kText);
      },
      "concat_ws(text, any, ...)");
  for (const char* name : {"initcap", "reverse", "md5"})
    scalar(name, Fixed({kText}, kText), std::string(name) + "(text)");
  for (const char* name : {"repeat", "left", "right"})
    scalar(name, FixedText({kText, DataType::Int32()}, kText),
           std::string(name) + "(text, integer)");
  scalar("ascii", Fixed({kText}, DataType::Int32()), "ascii(text)");
  scalar("chr", Fixed({DataType::Int32()}, kText), "chr(integer)");
  scalar("translate", Fixed({kText, kText, kText}, kText), "translate(text, text, text)");
  for (const char* name : {"octet_length", "bit_length"})
    scalar(name, Fixed({kText}, DataType::Int32()), std::string(name) + "(text)");
  scalar("to_hex", AnyOf({Fixed({DataType::Int32()}, kText), Fixed({DataType::Int64()}, kText)}),
         "to_hex(integer | bigint)");
  // More numeric functions (exec/expr/numeric_function_kernels.cc).
  for (const char* name : {"cbrt", "degrees", "radians", "sign", "sin", "cos", "tan", "cot", "asin",
                           "acos", "atan", "sinh", "cosh", "tanh"})
    scalar(name, Fixed({kF64}, kF64), std::string(name) + "(double precision)");
  scalar("atan2", Fixed({kF64, kF64}, kF64), "atan2(double precision, double precision)");
  scalar("log_base", Fixed({kF64, kF64}, kF64), "log(numeric, numeric)");
  scalar("pi", Fixed({}, kF64, false), "pi()");
  scalar("width_bucket", Fixed({kF64, kF64, kF64, DataType::Int32()}, DataType::Int32()),
         "width_bucket(double precision, double precision, double precision, integer)");
  // Integer functions and operators: the wider of the integer types (smallint & smallint stays
  // smallint, as in PostgreSQL).
  auto integers = [](size_t arity, bool shift) {
    return [arity, shift](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
      if (a.size() != arity)
        return std::nullopt;
      DataType wide = DataType::Int16();
      for (size_t i = 0; i < a.size(); ++i) {
        const DataType& t = a[i];
        if (!t.is_integer() && t.id() != TypeId::kNull)
          return std::nullopt;
        if (shift && i == 1)
          continue;
        if (t.id() == TypeId::kInt64)
          wide = DataType::Int64();
        else if (t.id() == TypeId::kInt32 && wide.id() != TypeId::kInt64)
          wide = DataType::Int32();
      }
      std::vector<DataType> args(a.size(), wide);
      if (shift)
        args[1] = DataType::Int32();
      return Res(std::move(args), wide);
    };
  };
  for (const char* name : {"gcd", "lcm"}) {
    scalar(name, integers(2, false), std::string(name) + "(integer, integer)");
  }
  for (const char* op : {"&", "|", "#"})
    scalar(op, integers(2, false), std::string("integer ") + op + " integer");
  for (const char* op : {"<<", ">>"})
    scalar(op, integers(2, true), std::string("integer ") + op + " integer");
  scalar("bitnot", integers(1, false), "~ integer");
  // More date/time functions (exec/expr/datetime_function_kernels.cc).
  {
    const DataType ts = DataType::Timestamp(columnar::TimeUnit::kMicro);
    const DataType tstz = DataType::Timestamp(columnar::TimeUnit::kMicro, "UTC");
    scalar(
        "age",
        [ts](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
          if (a.empty() || a.size() > 2)
            return std::nullopt;
          for (const auto& t : a) {
            if (!IsTemporal(t) && t.id() != TypeId::kNull)
              return std::nullopt;
          }
          return Res(std::vector<DataType>(a.size(), ts), DataType::Interval());
        },
        "age(timestamp [, timestamp])");
    scalar(
        "to_char",
        [kText, ts](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
          if (a.size() != 2 || !CanImplicitCast(a[1], kText))
            return std::nullopt;
          if (a[0].id() == TypeId::kTimestamp)
            return Res({a[0], kText}, kText);
          if (a[0].id() == TypeId::kDate32)
            return Res({ts, kText}, kText);
          return std::nullopt;
        },
        "to_char(timestamp, text)");
    scalar("to_timestamp", Fixed({kF64}, tstz), "to_timestamp(double precision)");
  }

  // Aggregates.
  aggregate(
      "count",
      [kI64](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
        if (a.size() > 1)
          return std::nullopt;
        return Res(a, kI64, false);
      },
      "count(*), count(any)");
  aggregate(
      "sum",
      [](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
        if (a.size() != 1)
          return std::nullopt;
        const DataType& t = a[0];
        if (t.is_integer() || t.id() == TypeId::kNull)
          return Res({t.id() == TypeId::kNull ? DataType::Int64() : t}, DataType::Int64());
        if (t.id() == TypeId::kDecimal)
          return Res(a, DataType::Decimal(DataType::kMaxDecimalPrecision, t.scale()));
        if (IsFloat(t))
          return Res(a, DataType::Float64());
        if (t.id() == TypeId::kInterval)
          return Res(a, t);
        return std::nullopt;
      },
      "sum(numeric)");
  aggregate(
      "avg",
      [kF64](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
        if (a.size() != 1 || !(IsNumeric(a[0]) || a[0].id() == TypeId::kNull))
          return std::nullopt;
        return Res({a[0].id() == TypeId::kNull ? kF64 : a[0]}, kF64);
      },
      "avg(numeric)");
  for (const char* name : {"min", "max"}) {
    aggregate(name, AnyOneArgumentRule, std::string(name) + "(any)");
  }
  for (const char* name : {"stddev_samp", "stddev_pop", "var_samp", "var_pop"})
    aggregate(name, Fixed({kF64}, kF64), std::string(name) + "(double)");
  for (const char* name : {"bool_and", "bool_or"})
    aggregate(name, Fixed({kBool}, kBool), std::string(name) + "(boolean)");
  aggregate("string_agg", Fixed({kText, kText}, kText), "string_agg(text, text)");

  // Window-only functions (aggregates work as window functions too).
  for (const char* name : {"row_number", "rank", "dense_rank"})
    window(name, Fixed({}, kI64, false), std::string(name) + "()");
  window("ntile", Fixed({kI64}, kI64), "ntile(bigint)");
  for (const char* name : {"lag", "lead"}) {
    window(
        name,
        [kI64](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
          if (a.empty() || a.size() > 3)
            return std::nullopt;
          if (a.size() >= 2 && !CanImplicitCast(a[1], kI64))
            return std::nullopt;
          std::vector<DataType> args = {a[0]};
          if (a.size() >= 2)
            args.push_back(kI64);
          DataType result = a[0];
          if (a.size() == 3) {
            auto common = CommonSuperType(a[0], a[2]);
            if (!common)
              return std::nullopt;
            result = *common;
            args[0] = result;
            args.push_back(result);
          }
          return Res(args, result);
        },
        std::string(name) + "(any[, bigint[, any]])");
  }
  for (const char* name : {"percent_rank", "cume_dist"})
    window(name, Fixed({}, kF64, false), std::string(name) + "()");
  window(
      "nth_value",
      [kI64](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
        if (a.size() != 2 || !CanImplicitCast(a[1], kI64))
          return std::nullopt;
        return Res({a[0], kI64}, a[0]);
      },
      "nth_value(any, bigint)");
  for (const char* name : {"first_value", "last_value"}) {
    window(name, AnyOneArgumentRule, std::string(name) + "(any)");
  }
  RegisterArrayBuiltins(r);
}

}  // namespace shoal::sql::internal
