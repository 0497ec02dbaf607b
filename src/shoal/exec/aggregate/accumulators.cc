// The accumulator factory of accumulator.h: picks the family (sum_accumulators.cc,
// min_max_accumulators.cc, variance_accumulator.cc, string_agg_accumulator.cc) and its template
// instance for an aggregate call's argument types, once per aggregation, so the loops run over
// raw value pointers; and the partial-state columns each family ships between nodes.
#include <string>

#include "shoal/exec/aggregate/accumulator_internal.h"
#include "shoal/sql/ordered_aggregates.h"

namespace shoal::exec {

namespace internal {

Result<ArrayPtr> MakeStringArray(const DataType& type, const std::vector<std::string>& values,
                                 const std::vector<uint8_t>& valid, int64_t start, int64_t length,
                                 const std::shared_ptr<MemoryPool>& pool) {
  columnar::BinaryBuilder builder(type, pool);
  int64_t bytes = 0;
  for (int64_t i = start; i < start + length; ++i)
    bytes += static_cast<int64_t>(values[static_cast<size_t>(i)].size());
  SHOAL_RETURN_IF_ERROR(builder.Reserve(length));
  SHOAL_RETURN_IF_ERROR(builder.ReserveData(bytes));
  for (int64_t i = start; i < start + length; ++i) {
    if (valid[static_cast<size_t>(i)]) {
      builder.UnsafeAppend(values[static_cast<size_t>(i)]);
    } else {
      SHOAL_RETURN_IF_ERROR(builder.AppendNull());
    }
  }
  return builder.Finish();
}

}  // namespace internal

namespace {

using columnar::DataType;
using columnar::Field;
using columnar::TypeId;
using internal::MakeArrayAggAccumulator;
using internal::MakeBoolAccumulator;
using internal::MakeCountAccumulator;
using internal::MakeMinMaxAccumulator;
using internal::MakeStringAggAccumulator;
using internal::MakeSumAccumulator;
using internal::MakeVarianceAccumulator;

Status CheckArgs(const sql::Expr& agg, size_t n) {
  if (agg.args.size() != n)
    return Status::Internal("{} takes {} argument(s), got {}", agg.name, n, agg.args.size());
  for (const auto& arg : agg.args) {
    if (arg->type.id() == TypeId::kDictionary)
      return Status::Internal("{}: dictionary arguments must be decoded first", agg.name);
  }
  return Status::OK();
}

bool IsFloat(TypeId id) {
  return id == TypeId::kFloat32 || id == TypeId::kFloat64;
}

}  // namespace

Status Accumulator::BufferedRows(const std::shared_ptr<MemoryPool>&, std::vector<ArrayPtr>*,
                                 std::vector<uint32_t>*) const {
  return Status::Internal("this accumulator buffers no rows (it has a partial state)");
}

Result<std::unique_ptr<Accumulator>> MakeAccumulator(const sql::Expr& agg) {
  const std::string& name = agg.name;
  if (sql::NeedsOrderedInput(agg)) {
    for (const auto& key : agg.order_by) {
      if (key.expr->type.id() == TypeId::kDictionary)
        return Status::Internal("{}: dictionary sort keys must be decoded first", agg.name);
    }
    internal::AccPtr inner;
    if (!sql::IsOrderedSetAggregate(name)) {
      sql::Expr plain = agg;
      plain.order_by.clear();
      SHOAL_ASSIGN_OR_RETURN(inner, MakeAccumulator(plain));
    }
    return internal::MakeOrderedAccumulator(agg, std::move(inner));
  }
  if (name == "count") {
    if (agg.args.size() > 1)
      return Status::Internal("count takes at most one argument");
    return MakeCountAccumulator(agg.args.empty());
  }
  if (name == "sum" || name == "avg") {
    SHOAL_RETURN_IF_ERROR(CheckArgs(agg, 1));
    return MakeSumAccumulator(name, agg.args[0]->type, name == "avg", agg.type);
  }
  if (name == "min" || name == "max") {
    SHOAL_RETURN_IF_ERROR(CheckArgs(agg, 1));
    return MakeMinMaxAccumulator(name == "max", agg.args[0]->type);
  }
  if (name == "var_samp" || name == "var_pop" || name == "stddev_samp" || name == "stddev_pop") {
    SHOAL_RETURN_IF_ERROR(CheckArgs(agg, 1));
    return MakeVarianceAccumulator(name, agg.args[0]->type);
  }
  if (name == "bool_and" || name == "bool_or") {
    SHOAL_RETURN_IF_ERROR(CheckArgs(agg, 1));
    if (agg.args[0]->type.id() != TypeId::kBoolean)
      return Status::Internal("{} of {}", name, agg.args[0]->type.ToString());
    return MakeBoolAccumulator(name == "bool_and");
  }
  if (name == "string_agg") {
    SHOAL_RETURN_IF_ERROR(CheckArgs(agg, 2));
    if (!agg.args[0]->type.is_binary_like())
      return Status::Internal("string_agg of {}", agg.args[0]->type.ToString());
    return MakeStringAggAccumulator(agg.args[0]->type);
  }
  if (name == "array_agg") {
    SHOAL_RETURN_IF_ERROR(CheckArgs(agg, 1));
    return MakeArrayAggAccumulator(agg.args[0]->type);
  }
  return Status::NotImplemented("aggregate function {}", name);
}

Result<std::vector<Field>> AggregateStateFields(const sql::Expr& agg, const std::string& prefix) {
  const std::string& name = agg.name;
  if (sql::NeedsOrderedInput(agg))
    return Status::NotImplemented(
        "{} with ORDER BY / WITHIN GROUP has no partial state (it runs in one phase)", name);
  auto f = [&](const char* part, DataType type, bool nullable = true) {
    return Field(prefix + "[" + part + "]", std::move(type), nullable);
  };
  if (name == "count")
    return std::vector<Field>{f("count", DataType::Int64(), false)};
  if (agg.args.empty())
    return Status::Internal("{} without arguments", name);
  const DataType& in = agg.args[0]->type;
  if (name == "sum" || name == "avg") {
    DataType sum_type;
    if (in.is_integer()) {
      sum_type =
          name == "sum" ? DataType::Int64() : DataType::Decimal(DataType::kMaxDecimalPrecision, 0);
    } else if (in.id() == TypeId::kDecimal) {
      sum_type = DataType::Decimal(DataType::kMaxDecimalPrecision, in.scale());
    } else if (IsFloat(in.id())) {
      sum_type = DataType::Float64();
    } else {
      sum_type = in;
    }
    std::vector<Field> out{f("sum", sum_type)};
    if (name == "avg")
      out.push_back(f("count", DataType::Int64(), false));
    return out;
  }
  if (name == "min" || name == "max")
    return std::vector<Field>{f(name.c_str(), in)};
  if (name == "var_samp" || name == "var_pop" || name == "stddev_samp" || name == "stddev_pop")
    return std::vector<Field>{f("count", DataType::Int64(), false),
                              f("mean", DataType::Float64(), false),
                              f("m2", DataType::Float64(), false)};
  if (name == "bool_and" || name == "bool_or")
    return std::vector<Field>{f(name.c_str(), DataType::Boolean())};
  if (name == "string_agg")
    return std::vector<Field>{f("value", in), f("first_separator", in)};
  if (name == "array_agg")
    return std::vector<Field>{f("values", DataType::List(in))};
  return Status::NotImplemented("aggregate function {}", name);
}

}  // namespace shoal::exec
