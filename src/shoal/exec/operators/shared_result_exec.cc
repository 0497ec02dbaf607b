#include "shoal/exec/operators/shared_result_exec.h"

#include <atomic>
#include <thread>
#include <utility>

#include "shoal/common/log_context.h"
#include "shoal/common/thread_start.h"
#include "shoal/exec/join/shared_build.h"
#include "shoal/exec/operator_stream.h"

namespace shoal::exec {

using columnar::RecordBatchPtr;

/// Every batch the child produced, by partition.
struct SharedBatches {
  std::vector<std::vector<RecordBatchPtr>> partitions;
};

namespace {

// Runs every partition of `child` at once, one thread each, and keeps their batches. The first
// error (or the cancellation) wins; the other partitions stop at their next batch.
Result<std::shared_ptr<SharedBatches>> RunChild(const ExecPlanPtr& child,
                                                const std::shared_ptr<TaskContext>& context) {
  const int n = child->num_partitions();
  auto out = std::make_shared<SharedBatches>();
  out->partitions.resize(static_cast<size_t>(n));
  std::vector<Status> statuses(static_cast<size_t>(n));
  std::atomic<bool> failed{false};
  const auto drain = [&](int p) {
    const ScopedLogContext log_context(context->query_id(), context->task_key());
    statuses[static_cast<size_t>(p)] = [&]() -> Status {
      SHOAL_ASSIGN_OR_RETURN(StreamPtr stream, child->Execute(p, context));
      for (;;) {
        if (failed.load(std::memory_order_relaxed))
          return Status::OK();
        if (context->cancelled())
          return TaskContext::CancelledStatus();
        SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, stream->Next());
        if (!batch)
          return Status::OK();
        if (batch->num_rows() > 0)
          out->partitions[static_cast<size_t>(p)].push_back(std::move(batch));
      }
    }();
    if (!statuses[static_cast<size_t>(p)].ok())
      failed.store(true, std::memory_order_relaxed);
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n > 0 ? n - 1 : 0));
  Status started;
  for (int p = 1; p < n; ++p) {
    Result<std::thread> thread = StartThread(
        fmt::format("a SharedResult reader (partition {} of {})", p, n), [&drain, p] { drain(p); });
    if (!thread.ok()) {
      // The readers started stop at their next batch and are joined below.
      failed.store(true, std::memory_order_relaxed);
      started = thread.status();
      break;
    }
    threads.push_back(std::move(*thread));
  }
  if (n > 0 && started.ok())
    drain(0);
  for (auto& t : threads)
    t.join();
  SHOAL_RETURN_IF_ERROR(started);
  for (const Status& st : statuses)
    SHOAL_RETURN_IF_ERROR(st);
  return out;
}

class SharedResultStream final : public OperatorStream {
 public:
  SharedResultStream(const SharedResultExec* node, int partition,
                     std::shared_ptr<TaskContext> context, ExecPlanPtr child,
                     std::shared_ptr<SharedBuild<SharedBatches>> shared)
      : OperatorStream(node, partition, std::move(context)),
        child_(std::move(child)),
        shared_(std::move(shared)) {}

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    if (batches_ == nullptr) {
      SHOAL_ASSIGN_OR_RETURN(batches_, shared_->Get([&] { return RunChild(child_, context()); }));
    }
    const auto& mine = batches_->partitions[static_cast<size_t>(partition())];
    if (next_ >= mine.size())
      return RecordBatchPtr();
    return mine[next_++];
  }

 private:
  ExecPlanPtr child_;
  std::shared_ptr<SharedBuild<SharedBatches>> shared_;
  std::shared_ptr<SharedBatches> batches_;
  size_t next_ = 0;
};

}  // namespace

SharedResultExec::SharedResultExec(ExecPlanPtr child, int references)
    : ExecutionPlan(kKind, child->schema()),
      child_(std::move(child)),
      references_(references),
      results_(std::make_unique<SharedBuildRegistry<SharedBatches>>()) {}

SharedResultExec::~SharedResultExec() = default;

std::shared_ptr<SharedResultExec> SharedResultExec::Make(ExecPlanPtr child, int references) {
  return std::shared_ptr<SharedResultExec>(new SharedResultExec(std::move(child), references));
}

Result<ExecPlanPtr> SharedResultExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  return ExecPlanPtr(Make(std::move(children.at(0)), references_));
}

Result<StreamPtr> SharedResultExec::Execute(int partition,
                                            const std::shared_ptr<TaskContext>& context) const {
  // Every reference opens every partition once; the entry leaves the registry with the last.
  auto shared = results_->Acquire(context, references_ * child_->num_partitions(), "SharedResult");
  return StreamPtr(new SharedResultStream(this, partition, context, child_, std::move(shared)));
}

std::string SharedResultExec::Describe(bool) const {
  return fmt::format("references={}", references_);
}

}  // namespace shoal::exec
