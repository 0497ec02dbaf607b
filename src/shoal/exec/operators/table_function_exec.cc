#include "shoal/exec/operators/table_function_exec.h"

#include <limits>
#include <utility>

#include <fmt/format.h>

#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/calendar_arithmetic.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/operators/row_expanding_stream.h"

namespace shoal::exec {
namespace {

constexpr int64_t kMicrosPerDay = int64_t{86400} * 1000000;

Status StepIsZero() {
  return Status::InvalidArgument("step size cannot equal zero").WithSqlState("22023");
}

class TableFunctionStream final : public RowExpandingStream {
 public:
  TableFunctionStream(const TableFunctionExec* node, int partition,
                      std::shared_ptr<TaskContext> context, StreamPtr input)
      : RowExpandingStream(node, partition, std::move(context), std::move(input),
                           node->input() != nullptr),
        node_(node),
        type_(node->schema()->field(0).type) {}

  Status Init() {
    const columnar::Schema empty(std::vector<columnar::Field>{});
    const columnar::Schema& input_schema = node_->input() ? *node_->input()->schema() : empty;
    SHOAL_ASSIGN_OR_RETURN(args_, MakeEvaluators(node_->args(), input_schema, pool()));
    if (type_.id() == TypeId::kTimestamp)
      per_second_ = UnitsPerSecond(type_);
    return Status::OK();
  }

 protected:
  Status StartBatch() override {
    arrays_.clear();
    for (auto& e : args_) {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, e->Evaluate(*batch()));
      arrays_.push_back(std::move(a));
    }
    row_ = -1;
    active_ = false;
    return Status::OK();
  }

  // Starts the series of input row `row`: false when it has no values (a NULL argument, or
  // start already beyond stop).
  Result<bool> StartRow(int64_t row) {
    for (const ArrayPtr& a : arrays_) {
      if (a->IsNull(row))
        return false;
    }
    ordinal_ = 0;
    if (type_.id() == TypeId::kTimestamp) {
      current_ = arrays_[0]->Value<int64_t>(row);
      stop_ = arrays_[1]->Value<int64_t>(row);
      interval_ = arrays_[2]->Value<columnar::MonthDayNano>(row);
      // The direction is the interval's sign as PostgreSQL compares intervals (30-day months).
      const __int128 span = static_cast<__int128>(interval_.months) * 30 * kMicrosPerDay +
                            static_cast<__int128>(interval_.days) * kMicrosPerDay +
                            interval_.nanoseconds / 1000;
      if (span == 0)
        return StepIsZero();
      direction_ = span > 0 ? 1 : -1;
    } else {
      auto value = [&](int i) {
        return type_.id() == TypeId::kInt32 ? int64_t{arrays_[i]->Value<int32_t>(row)}
                                            : arrays_[i]->Value<int64_t>(row);
      };
      current_ = value(0);
      stop_ = value(1);
      step_ = arrays_.size() > 2 ? value(2) : 1;
      if (step_ == 0)
        return StepIsZero();
      direction_ = step_ > 0 ? 1 : -1;
    }
    return direction_ > 0 ? current_ <= stop_ : current_ >= stop_;
  }

  // Moves to the next value of the current series; false when it is past stop or would not fit.
  bool Advance() {
    int64_t next = 0;
    if (type_.id() == TypeId::kTimestamp) {
      if (!AddIntervalToTimestamp(current_, interval_, 1, per_second_, &next))
        return false;
    } else {
      if (__builtin_add_overflow(current_, step_, &next))
        return false;
      if (type_.id() == TypeId::kInt32 && (next > std::numeric_limits<int32_t>::max() ||
                                           next < std::numeric_limits<int32_t>::min()))
        return false;
    }
    current_ = next;
    return direction_ > 0 ? current_ <= stop_ : current_ >= stop_;
  }

  // Up to batch_size rows of the current input batch's series; null when the batch is done.
  Result<RecordBatchPtr> Produce() override {
    values_.clear();
    ordinals_.clear();
    rows_.clear();
    const auto limit = static_cast<size_t>(context()->batch_size());
    const int64_t num_rows = batch()->num_rows();
    while (values_.size() < limit) {
      if (!active_) {
        if (++row_ >= num_rows)
          break;
        // A batch of rows whose series are all empty could take long: notice cancellation.
        if ((row_ & 1023) == 0 && context()->cancelled())
          return TaskContext::CancelledStatus();
        SHOAL_ASSIGN_OR_RETURN(active_, StartRow(row_));
        continue;
      }
      values_.push_back(current_);
      ordinals_.push_back(++ordinal_);
      rows_.push_back(static_cast<int32_t>(row_));
      active_ = Advance();
    }
    if (values_.empty())
      return RecordBatchPtr();
    const auto n = static_cast<int64_t>(values_.size());
    std::vector<ArrayPtr> columns;
    if (type_.id() == TypeId::kInt32) {
      SHOAL_ASSIGN_OR_RETURN(BufferPtr buffer, AllocateValues<int32_t>(n, pool()));
      auto* out = buffer->mutable_data_as<int32_t>();
      for (int64_t i = 0; i < n; ++i)
        out[i] = static_cast<int32_t>(values_[static_cast<size_t>(i)]);
      columns.push_back(Array::Make(type_, n, {BufferPtr(), std::move(buffer)}, 0));
    } else {
      SHOAL_ASSIGN_OR_RETURN(BufferPtr buffer, AllocateValues<int64_t>(n, pool()));
      std::copy(values_.begin(), values_.end(), buffer->mutable_data_as<int64_t>());
      columns.push_back(Array::Make(type_, n, {BufferPtr(), std::move(buffer)}, 0));
    }
    return Assemble(std::move(columns), node_->with_ordinality() ? &ordinals_ : nullptr, rows_, n);
  }

 private:
  const TableFunctionExec* node_;
  const DataType type_;
  int64_t per_second_ = 1000000;
  std::vector<std::unique_ptr<ExprEvaluator>> args_;

  std::vector<ArrayPtr> arrays_;
  int64_t row_ = -1;
  bool active_ = false;
  int64_t current_ = 0;
  int64_t stop_ = 0;
  int64_t step_ = 1;
  columnar::MonthDayNano interval_{};
  int direction_ = 1;
  int64_t ordinal_ = 0;

  std::vector<int64_t> values_;
  std::vector<int64_t> ordinals_;
  std::vector<int32_t> rows_;
};

}  // namespace

Result<std::shared_ptr<TableFunctionExec>> TableFunctionExec::Make(ExecPlanPtr input,
                                                                   std::string function,
                                                                   std::vector<sql::ExprPtr> args,
                                                                   bool with_ordinality,
                                                                   std::vector<std::string> names) {
  if (function != "generate_series")
    return Status::NotImplemented("table function {} is not supported", function);
  if (args.size() != 2 && args.size() != 3)
    return Status::InvalidArgument("generate_series takes 2 or 3 arguments, not {}", args.size());
  if (names.size() != (with_ordinality ? 2u : 1u))
    return Status::InvalidArgument("generate_series: {} column names for {} columns", names.size(),
                                   with_ordinality ? 2 : 1);
  const columnar::Schema empty(std::vector<columnar::Field>{});
  const columnar::Schema& input_schema = input ? *input->schema() : empty;
  std::vector<DataType> types;
  for (const auto& a : args) {
    if (!a)
      return Status::InvalidArgument("generate_series: a missing argument");
    SHOAL_ASSIGN_OR_RETURN(auto eval, ExprEvaluator::Make(a, input_schema, DefaultMemoryPool()));
    types.push_back(eval->type());
  }
  const DataType& type = types[0];
  const bool integer = type.id() == TypeId::kInt32 || type.id() == TypeId::kInt64;
  const bool timestamp = type.id() == TypeId::kTimestamp;
  bool ok = (integer || timestamp) && types[1] == type;
  if (ok && integer && types.size() == 3)
    ok = types[2] == type;
  if (ok && timestamp)
    ok = types.size() == 3 && types[2].id() == TypeId::kInterval;
  if (!ok) {
    std::string list;
    for (const auto& t : types)
      list += (list.empty() ? "" : ", ") + t.ToString();
    return Status::NotImplemented("generate_series({}) is not supported", list);
  }
  std::vector<columnar::Field> fields;
  fields.emplace_back(names[0], type, false);
  if (with_ordinality)
    fields.emplace_back(names[1], DataType::Int64(), false);
  if (input) {
    for (const auto& f : input->schema()->fields())
      fields.push_back(f);
  }
  auto schema = std::make_shared<const columnar::Schema>(std::move(fields));
  return std::shared_ptr<TableFunctionExec>(new TableFunctionExec(
      std::move(schema), std::move(input), std::move(function), std::move(args), with_ordinality));
}

Result<ExecPlanPtr> TableFunctionExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (children.size() != (input_ ? 1u : 0u))
    return Status::Internal("TableFunction takes {} children", input_ ? 1 : 0);
  std::vector<std::string> names = {schema()->field(0).name};
  if (with_ordinality_)
    names.push_back(schema()->field(1).name);
  SHOAL_ASSIGN_OR_RETURN(auto node, Make(input_ ? children[0] : nullptr, function_, args_,
                                         with_ordinality_, std::move(names)));
  return ExecPlanPtr(std::move(node));
}

Result<StreamPtr> TableFunctionExec::Execute(int partition,
                                             const std::shared_ptr<TaskContext>& context) const {
  if (partition < 0 || partition >= num_partitions())
    return Status::Internal("TableFunction partition {} of {}", partition, num_partitions());
  StreamPtr input;
  if (input_) {
    SHOAL_ASSIGN_OR_RETURN(input, input_->Execute(partition, context));
  }
  auto stream = std::make_unique<TableFunctionStream>(this, partition, context, std::move(input));
  SHOAL_RETURN_IF_ERROR(stream->Init());
  return StreamPtr(std::move(stream));
}

std::string TableFunctionExec::Describe(bool) const {
  std::string text = function_ + "(";
  for (size_t i = 0; i < args_.size(); ++i)
    text += (i > 0 ? ", " : "") + ExprText(*args_[i]);
  text += ")";
  if (with_ordinality_)
    text += " WITH ORDINALITY";
  return text;
}

}  // namespace shoal::exec
