#include "shoal/exec/operators/projection_exec.h"

#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/operator_stream.h"

namespace shoal::exec {
namespace {

class ProjectionStream final : public OperatorStream {
 public:
  ProjectionStream(const ProjectionExec* node, int partition, std::shared_ptr<TaskContext> context,
                   StreamPtr input)
      : OperatorStream(node, partition, std::move(context)), input_(std::move(input)) {}

  Status Init(const std::vector<sql::ExprPtr>& exprs, const columnar::Schema& input_schema) {
    SHOAL_ASSIGN_OR_RETURN(evaluators_, MakeEvaluators(exprs, input_schema, pool()));
    for (size_t i = 0; i < evaluators_.size(); ++i) {
      const DataType& want = schema()->field(static_cast<int>(i)).type;
      if (evaluators_[i]->type() != want) {
        // The binder's type and the evaluator's differ (e.g. an untyped NULL); convert.
        SHOAL_ASSIGN_OR_RETURN(KernelPtr cast, MakeCastKernel(evaluators_[i]->type(), want));
        casts_.resize(evaluators_.size());
        casts_[i] = std::move(cast);
      }
    }
    return Status::OK();
  }

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, input_->Next());
    if (!batch)
      return batch;
    std::vector<ArrayPtr> columns;
    columns.reserve(evaluators_.size());
    KernelContext ctx{pool()};
    for (size_t i = 0; i < evaluators_.size(); ++i) {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr column, evaluators_[i]->Evaluate(*batch));
      if (i < casts_.size() && casts_[i]) {
        SHOAL_ASSIGN_OR_RETURN(Datum d,
                               casts_[i]->Execute({Datum::Array(column)}, batch->num_rows(), &ctx));
        if (d.is_scalar && batch->num_rows() != 1) {
          SHOAL_ASSIGN_OR_RETURN(column, Broadcast(*d.array, batch->num_rows(), pool()));
        } else {
          column = d.array;
        }
      }
      columns.push_back(std::move(column));
    }
    return RecordBatch::Make(schema(), batch->num_rows(), std::move(columns));
  }

 private:
  StreamPtr input_;
  std::vector<std::unique_ptr<ExprEvaluator>> evaluators_;
  std::vector<KernelPtr> casts_;
};

}  // namespace

Result<std::shared_ptr<ProjectionExec>> ProjectionExec::Make(ExecPlanPtr input,
                                                             std::vector<sql::ExprPtr> exprs,
                                                             std::vector<std::string> names) {
  if (names.size() != exprs.size())
    return Status::Internal("Projection: {} names for {} expressions", names.size(), exprs.size());
  std::vector<columnar::Field> fields;
  for (size_t i = 0; i < exprs.size(); ++i) {
    DataType type = exprs[i]->type;
    // Only an untyped NULL needs the evaluator's type; the others are compiled (and their errors
    // raised) once per stream, in Execute. Compiling here as well doubled a short query's cost.
    if (type.id() == TypeId::kNull) {
      SHOAL_ASSIGN_OR_RETURN(auto ev,
                             ExprEvaluator::Make(exprs[i], *input->schema(), DefaultMemoryPool()));
      type = ev->type();
    }
    fields.emplace_back(names[i], std::move(type), exprs[i]->nullable);
  }
  auto schema = std::make_shared<const columnar::Schema>(std::move(fields));
  return std::shared_ptr<ProjectionExec>(
      new ProjectionExec(std::move(schema), std::move(input), std::move(exprs)));
}

Result<ExecPlanPtr> ProjectionExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (children.size() != 1)
    return Status::Internal("Projection takes one child");
  std::vector<std::string> names;
  for (const auto& f : schema()->fields())
    names.push_back(f.name);
  SHOAL_ASSIGN_OR_RETURN(auto node, Make(std::move(children[0]), exprs_, std::move(names)));
  return ExecPlanPtr(std::move(node));
}

Result<StreamPtr> ProjectionExec::Execute(int partition,
                                          const std::shared_ptr<TaskContext>& context) const {
  SHOAL_ASSIGN_OR_RETURN(StreamPtr input, input_->Execute(partition, context));
  auto stream = std::make_unique<ProjectionStream>(this, partition, context, std::move(input));
  SHOAL_RETURN_IF_ERROR(stream->Init(exprs_, *input_->schema()));
  return StreamPtr(std::move(stream));
}

std::string ProjectionExec::Describe(bool) const {
  std::string out;
  for (size_t i = 0; i < exprs_.size(); ++i) {
    if (i > 0)
      out += ", ";
    out += ExprText(*exprs_[i]);
    const std::string& n = schema()->field(static_cast<int>(i)).name;
    if (!n.empty() && exprs_[i]->kind != sql::ExprKind::kColumnRef)
      out += " AS " + n;
  }
  return out;
}

}  // namespace shoal::exec
