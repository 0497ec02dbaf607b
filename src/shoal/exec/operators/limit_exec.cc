#include "shoal/exec/operators/limit_exec.h"

#include "shoal/exec/operator_stream.h"

namespace shoal::exec {
namespace {

class LimitStream final : public OperatorStream {
 public:
  LimitStream(const LimitExec* node, int partition, std::shared_ptr<TaskContext> context,
              StreamPtr input, int64_t offset, int64_t fetch)
      : OperatorStream(node, partition, std::move(context)),
        input_(std::move(input)),
        to_skip_(offset),
        remaining_(fetch < 0 ? INT64_MAX : fetch) {}

 protected:
  Result<columnar::RecordBatchPtr> NextImpl() override {
    while (input_ && remaining_ > 0) {
      SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr batch, input_->Next());
      if (!batch)
        break;
      int64_t start = 0;
      if (to_skip_ > 0) {
        start = std::min(to_skip_, batch->num_rows());
        to_skip_ -= start;
      }
      int64_t take = std::min(batch->num_rows() - start, remaining_);
      if (take <= 0)
        continue;
      remaining_ -= take;
      if (start == 0 && take == batch->num_rows())
        return batch;
      return batch->Slice(start, take);
    }
    input_.reset();  // enough rows: stop the work below and free its memory
    return columnar::RecordBatchPtr();
  }

 private:
  StreamPtr input_;
  int64_t to_skip_;
  int64_t remaining_;
};

}  // namespace

Result<std::shared_ptr<LimitExec>> LimitExec::Make(ExecPlanPtr input, int64_t offset, int64_t fetch,
                                                   bool global) {
  if (offset < 0)
    return Status::InvalidArgument("OFFSET must not be negative").WithSqlState("2201X");
  if (global && input->num_partitions() != 1) {
    return Status::Internal("global limit over {} partitions (coalesce them first)",
                            input->num_partitions());
  }
  if (!global && offset != 0)
    return Status::Internal("a per-partition limit cannot skip rows");
  return std::shared_ptr<LimitExec>(new LimitExec(std::move(input), offset, fetch, global));
}

Result<ExecPlanPtr> LimitExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (children.size() != 1)
    return Status::Internal("Limit takes one child");
  SHOAL_ASSIGN_OR_RETURN(auto node, Make(std::move(children[0]), offset_, fetch_, global_));
  return ExecPlanPtr(std::move(node));
}

Result<StreamPtr> LimitExec::Execute(int partition,
                                     const std::shared_ptr<TaskContext>& context) const {
  SHOAL_ASSIGN_OR_RETURN(StreamPtr input, input_->Execute(partition, context));
  return StreamPtr(new LimitStream(this, partition, context, std::move(input), offset_, fetch_));
}

std::string LimitExec::Describe(bool) const {
  std::string out = fetch_ < 0 ? "fetch=all" : fmt::format("fetch={}", fetch_);
  if (offset_ > 0)
    out += fmt::format(", offset={}", offset_);
  return out;
}

Result<ExecPlanPtr> LimitExec::WithRowLimit(int64_t rows) const {
  if (!global_ && offset_ == 0 && fetch_ >= 0 && fetch_ <= rows)
    return shared_from_this();
  return ExecPlanPtr();
}

}  // namespace shoal::exec
