#include "shoal/exec/operators/values_exec.h"

#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/operator_stream.h"

namespace shoal::exec {
namespace {

class ValuesStream final : public OperatorStream {
 public:
  ValuesStream(const ValuesExec* node, std::shared_ptr<TaskContext> context,
               std::vector<RecordBatchPtr> batches)
      : OperatorStream(node, 0, std::move(context)), batches_(std::move(batches)) {}

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    const int64_t size = context()->batch_size();
    while (index_ < batches_.size()) {
      const RecordBatchPtr& b = batches_[index_];
      if (offset_ >= b->num_rows()) {
        ++index_;
        offset_ = 0;
        continue;
      }
      int64_t n = std::min(size, b->num_rows() - offset_);
      RecordBatchPtr out = (offset_ == 0 && n == b->num_rows()) ? b : b->Slice(offset_, n);
      offset_ += n;
      return out;
    }
    return RecordBatchPtr();
  }

 private:
  std::vector<RecordBatchPtr> batches_;
  size_t index_ = 0;
  int64_t offset_ = 0;
};

}  // namespace

Result<std::shared_ptr<ValuesExec>> ValuesExec::Make(columnar::SchemaPtr schema,
                                                     std::vector<RecordBatchPtr> batches) {
  for (const auto& b : batches) {
    if (b->num_columns() != schema->num_fields())
      return Status::Internal("Values batch has {} columns, schema {}", b->num_columns(),
                              schema->num_fields());
  }
  return std::shared_ptr<ValuesExec>(new ValuesExec(std::move(schema), std::move(batches)));
}

Result<std::shared_ptr<ValuesExec>> ValuesExec::FromRows(
    columnar::SchemaPtr schema, const std::vector<std::vector<sql::ExprPtr>>& rows) {
  const int ncols = schema->num_fields();
  auto empty_schema = std::make_shared<const columnar::Schema>();
  RecordBatchPtr one_row = RecordBatch::Make(empty_schema, 1, {});
  std::vector<std::vector<ArrayPtr>> cells(static_cast<size_t>(ncols));
  for (const auto& row : rows) {
    if (static_cast<int>(row.size()) != ncols)
      return Status::InvalidArgument("VALUES lists must all be the same length");
    for (int c = 0; c < ncols; ++c) {
      SHOAL_ASSIGN_OR_RETURN(auto ev, ExprEvaluator::Make(row[static_cast<size_t>(c)],
                                                          *empty_schema, DefaultMemoryPool()));
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr v, ev->Evaluate(*one_row));
      const DataType& want = schema->field(c).type;
      if (v->type() != want) {
        SHOAL_ASSIGN_OR_RETURN(KernelPtr cast, MakeCastKernel(v->type(), want));
        KernelContext ctx{DefaultMemoryPool()};
        SHOAL_ASSIGN_OR_RETURN(Datum d, cast->Execute({Datum::Array(v)}, 1, &ctx));
        v = d.array;
      }
      cells[static_cast<size_t>(c)].push_back(std::move(v));
    }
  }
  std::vector<RecordBatchPtr> batches;
  if (!rows.empty()) {
    std::vector<ArrayPtr> columns;
    for (int c = 0; c < ncols; ++c) {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr col,
                             Concatenate(cells[static_cast<size_t>(c)], DefaultMemoryPool()));
      columns.push_back(std::move(col));
    }
    batches.push_back(
        RecordBatch::Make(schema, static_cast<int64_t>(rows.size()), std::move(columns)));
  }
  return Make(std::move(schema), std::move(batches));
}

Result<ExecPlanPtr> ValuesExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (!children.empty())
    return Status::Internal("Values has no children");
  return shared_from_this();
}

Result<StreamPtr> ValuesExec::Execute(int partition,
                                      const std::shared_ptr<TaskContext>& context) const {
  if (partition != 0)
    return Status::Internal("Values has one partition, asked for {}", partition);
  return StreamPtr(new ValuesStream(this, context, batches_));
}

std::string ValuesExec::Describe(bool) const {
  int64_t rows = 0;
  for (const auto& b : batches_)
    rows += b->num_rows();
  return fmt::format("rows={}", rows);
}

}  // namespace shoal::exec
