#include "shoal/exec/operators/unnest_exec.h"

#include <algorithm>
#include <utility>

#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/operators/row_expanding_stream.h"

namespace shoal::exec {
namespace {

class UnnestStream final : public RowExpandingStream {
 public:
  UnnestStream(const UnnestExec* node, int partition, std::shared_ptr<TaskContext> context,
               StreamPtr input)
      : RowExpandingStream(node, partition, std::move(context), std::move(input),
                           node->input() != nullptr),
        node_(node) {}

  Status Init() {
    const columnar::Schema empty(std::vector<columnar::Field>{});
    const columnar::Schema& input_schema = node_->input() ? *node_->input()->schema() : empty;
    SHOAL_ASSIGN_OR_RETURN(evaluators_, MakeEvaluators(node_->arrays(), input_schema, pool()));
    return Status::OK();
  }

 protected:
  // Evaluates the arrays over the new batch and counts each row's output rows.
  Status StartBatch() override {
    arrays_.clear();
    for (auto& e : evaluators_) {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, e->Evaluate(*batch()));
      SHOAL_ASSIGN_OR_RETURN(a, DecodeDictionary(a, pool()));
      if (!a->type().is_list_like() || a->type().id() == TypeId::kMap)
        return Status::Internal("unnest over {}", a->type().ToString());
      arrays_.push_back(std::move(a));
    }
    const int64_t n = batch()->num_rows();
    counts_.assign(static_cast<size_t>(n), 0);
    for (const ArrayPtr& a : arrays_) {
      for (int64_t r = 0; r < n; ++r) {
        if (a->IsValid(r))
          counts_[static_cast<size_t>(r)] =
              std::max(counts_[static_cast<size_t>(r)], a->ListLength(r));
      }
    }
    row_ = 0;
    position_ = 0;
    return Status::OK();
  }

  // Up to batch_size rows of the current batch's elements; null when the batch is done.
  Result<RecordBatchPtr> Produce() override {
    const int64_t limit = context()->batch_size();
    const int64_t n = batch()->num_rows();
    rows_.clear();
    ordinals_.clear();
    takes_.resize(arrays_.size());
    for (auto& t : takes_)
      t.clear();
    while (static_cast<int64_t>(rows_.size()) < limit && row_ < n) {
      const int64_t count = counts_[static_cast<size_t>(row_)];
      const int64_t emit =
          std::min<int64_t>(count - position_, limit - static_cast<int64_t>(rows_.size()));
      for (int64_t k = 0; k < emit; ++k) {
        const int64_t p = position_ + k;
        rows_.push_back(static_cast<int32_t>(row_));
        ordinals_.push_back(p + 1);
        for (size_t i = 0; i < arrays_.size(); ++i) {
          const Array& a = *arrays_[i];
          const bool inside = a.IsValid(row_) && p < a.ListLength(row_);
          takes_[i].push_back(inside ? static_cast<int32_t>(a.ListStart(row_) + p) : -1);
        }
      }
      position_ += emit;
      if (position_ >= count) {
        ++row_;
        position_ = 0;
        if ((row_ & 1023) == 0 && context()->cancelled())
          return TaskContext::CancelledStatus();
      }
    }
    if (rows_.empty())
      return RecordBatchPtr();
    const auto out = static_cast<int64_t>(rows_.size());
    std::vector<ArrayPtr> columns;
    for (size_t i = 0; i < arrays_.size(); ++i) {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr items,
                             Take(*arrays_[i]->child(0), takes_[i].data(), out, pool(), true));
      columns.push_back(std::move(items));
    }
    return Assemble(std::move(columns), node_->with_ordinality() ? &ordinals_ : nullptr, rows_,
                    out);
  }

 private:
  const UnnestExec* node_;
  std::vector<std::unique_ptr<ExprEvaluator>> evaluators_;

  std::vector<ArrayPtr> arrays_;
  std::vector<int64_t> counts_;
  int64_t row_ = 0;
  int64_t position_ = 0;

  std::vector<int32_t> rows_;
  std::vector<int64_t> ordinals_;
  std::vector<std::vector<int32_t>> takes_;
};

}  // namespace

Result<std::shared_ptr<UnnestExec>> UnnestExec::Make(ExecPlanPtr input,
                                                     std::vector<sql::ExprPtr> arrays,
                                                     bool with_ordinality,
                                                     std::vector<std::string> names) {
  if (arrays.empty())
    return Status::InvalidArgument("unnest needs at least one array");
  if (names.size() != arrays.size() + (with_ordinality ? 1u : 0u))
    return Status::InvalidArgument("unnest: {} column names for {} columns", names.size(),
                                   arrays.size() + (with_ordinality ? 1u : 0u));
  const columnar::Schema empty(std::vector<columnar::Field>{});
  const columnar::Schema& input_schema = input ? *input->schema() : empty;
  std::vector<columnar::Field> fields;
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (!arrays[i])
      return Status::InvalidArgument("unnest: a missing argument");
    SHOAL_ASSIGN_OR_RETURN(auto eval,
                           ExprEvaluator::Make(arrays[i], input_schema, DefaultMemoryPool()));
    DataType type = eval->type();
    if (type.id() == TypeId::kDictionary)
      type = type.value_type();
    if (type.id() != TypeId::kList && type.id() != TypeId::kLargeList)
      return Status::InvalidArgument("unnest of {}: an array is required", type.ToString());
    fields.emplace_back(names[i], type.item_field().type, true);
  }
  if (with_ordinality)
    fields.emplace_back(names.back(), DataType::Int64(), false);
  if (input) {
    for (const auto& f : input->schema()->fields())
      fields.push_back(f);
  }
  auto schema = std::make_shared<const columnar::Schema>(std::move(fields));
  return std::shared_ptr<UnnestExec>(
      new UnnestExec(std::move(schema), std::move(input), std::move(arrays), with_ordinality));
}

Result<ExecPlanPtr> UnnestExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (children.size() != (input_ ? 1u : 0u))
    return Status::Internal("Unnest takes {} children", input_ ? 1 : 0);
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(num_function_columns()));
  for (int i = 0; i < num_function_columns(); ++i)
    names.push_back(schema()->field(i).name);
  SHOAL_ASSIGN_OR_RETURN(
      auto node, Make(input_ ? children[0] : nullptr, arrays_, with_ordinality_, std::move(names)));
  return ExecPlanPtr(std::move(node));
}

Result<StreamPtr> UnnestExec::Execute(int partition,
                                      const std::shared_ptr<TaskContext>& context) const {
  if (partition < 0 || partition >= num_partitions())
    return Status::Internal("Unnest partition {} of {}", partition, num_partitions());
  StreamPtr input;
  if (input_) {
    SHOAL_ASSIGN_OR_RETURN(input, input_->Execute(partition, context));
  }
  auto stream = std::make_unique<UnnestStream>(this, partition, context, std::move(input));
  SHOAL_RETURN_IF_ERROR(stream->Init());
  return StreamPtr(std::move(stream));
}

std::string UnnestExec::Describe(bool) const {
  std::string text = "unnest(";
  for (size_t i = 0; i < arrays_.size(); ++i)
    text += (i > 0 ? ", " : "") + ExprText(*arrays_[i]);
  text += ")";
  if (with_ordinality_)
    text += " WITH ORDINALITY";
  return text;
}

}  // namespace shoal::exec
