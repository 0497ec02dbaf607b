#include "shoal/exec/operators/expand_exec.h"

#include <utility>

#include <fmt/format.h>

#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/operator_stream.h"

namespace shoal::exec {
namespace {

class ExpandStream final : public OperatorStream {
 public:
  ExpandStream(const ExpandExec* node, int partition, std::shared_ptr<TaskContext> context,
               StreamPtr input)
      : OperatorStream(node, partition, std::move(context)),
        node_(node),
        input_(std::move(input)) {}

  Status Init(const columnar::Schema& input_schema) {
    for (const auto& list : node_->projections()) {
      SHOAL_ASSIGN_OR_RETURN(auto evals, MakeEvaluators(list, input_schema, pool()));
      projections_.push_back(std::move(evals));
    }
    return Status::OK();
  }

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    for (;;) {
      if (batch_ && next_projection_ < projections_.size()) {
        auto& evals = projections_[next_projection_++];
        std::vector<ArrayPtr> columns;
        columns.reserve(evals.size());
        for (auto& e : evals) {
          SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, e->Evaluate(*batch_));
          columns.push_back(std::move(a));
        }
        return RecordBatch::Make(schema(), batch_->num_rows(), std::move(columns));
      }
      batch_.reset();
      if (input_) {
        SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, input_->Next());
        if (batch) {
          if (batch->num_rows() > 0) {
            batch_ = std::move(batch);
            next_projection_ = 0;
          }
          continue;
        }
        input_.reset();
      }
      if (constants_emitted_ || node_->constant_rows().empty())
        return RecordBatchPtr();
      constants_emitted_ = true;
      return ConstantRows();
    }
  }

 private:
  Result<RecordBatchPtr> ConstantRows() {
    const auto& rows = node_->constant_rows();
    auto empty = std::make_shared<columnar::Schema>(std::vector<columnar::Field>{});
    auto one = RecordBatch::Make(empty, 1, {});
    std::vector<ArrayPtr> columns;
    for (int c = 0; c < schema()->num_fields(); ++c) {
      std::vector<ArrayPtr> values;
      for (const auto& row : rows) {
        SHOAL_ASSIGN_OR_RETURN(auto eval,
                               ExprEvaluator::Make(row[static_cast<size_t>(c)], *empty, pool()));
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr v, eval->Evaluate(*one));
        values.push_back(std::move(v));
      }
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr column, Concatenate(values, pool()));
      columns.push_back(std::move(column));
    }
    return RecordBatch::Make(schema(), static_cast<int64_t>(rows.size()), std::move(columns));
  }

  const ExpandExec* node_;
  StreamPtr input_;
  std::vector<std::vector<std::unique_ptr<ExprEvaluator>>> projections_;
  RecordBatchPtr batch_;
  size_t next_projection_ = 0;
  bool constants_emitted_ = false;
};

}  // namespace

Result<std::shared_ptr<ExpandExec>> ExpandExec::Make(
    ExecPlanPtr input, std::vector<std::vector<sql::ExprPtr>> projections,
    std::vector<std::string> names, std::vector<std::vector<sql::ExprPtr>> constant_rows) {
  if (!input)
    return Status::Internal("Expand without an input");
  if (projections.empty())
    return Status::Internal("Expand without projections");
  std::vector<columnar::Field> fields;
  const size_t width = names.size();
  for (const auto& list : projections) {
    if (list.size() != width)
      return Status::Internal("Expand projections of different widths");
  }
  for (const auto& row : constant_rows) {
    if (row.size() != width)
      return Status::Internal("Expand constant row of the wrong width");
    for (const auto& e : row) {
      if (!sql::ReferencedColumns(e).empty())
        return Status::Internal("Expand constant row reads a column");
    }
  }
  for (size_t c = 0; c < width; ++c) {
    const columnar::DataType& type = projections[0][c]->type;
    for (const auto& list : projections) {
      if (list[c]->type != type)
        return Status::Internal("Expand column {} has types {} and {}", names[c], type.ToString(),
                                list[c]->type.ToString());
      SHOAL_RETURN_IF_ERROR(
          ExprEvaluator::Make(list[c], *input->schema(), DefaultMemoryPool()).status());
    }
    fields.emplace_back(names[c], type, true);
  }
  auto schema = std::make_shared<columnar::Schema>(std::move(fields));
  return std::shared_ptr<ExpandExec>(new ExpandExec(
      std::move(input), std::move(schema), std::move(projections), std::move(constant_rows)));
}

Result<ExecPlanPtr> ExpandExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (children.size() != 1)
    return Status::Internal("Expand takes one child");
  std::vector<std::string> names;
  for (const auto& f : schema()->fields())
    names.push_back(f.name);
  SHOAL_ASSIGN_OR_RETURN(
      auto node, Make(std::move(children[0]), projections_, std::move(names), constant_rows_));
  return ExecPlanPtr(std::move(node));
}

Result<StreamPtr> ExpandExec::Execute(int partition,
                                      const std::shared_ptr<TaskContext>& context) const {
  SHOAL_ASSIGN_OR_RETURN(StreamPtr input, input_->Execute(partition, context));
  auto stream = std::make_unique<ExpandStream>(this, partition, context, std::move(input));
  SHOAL_RETURN_IF_ERROR(stream->Init(*input_->schema()));
  return StreamPtr(std::move(stream));
}

std::string ExpandExec::Describe(bool) const {
  std::string out = "projections=[";
  for (size_t i = 0; i < projections_.size(); ++i) {
    if (i > 0)
      out += ", ";
    out += "[" + ExprListText(projections_[i]) + "]";
  }
  out += "]";
  if (!constant_rows_.empty())
    out += fmt::format(", constant_rows={}", constant_rows_.size());
  return out;
}

}  // namespace shoal::exec
