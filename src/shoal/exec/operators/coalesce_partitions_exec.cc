#include "shoal/exec/operators/coalesce_partitions_exec.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "shoal/common/log_context.h"
#include "shoal/common/thread_start.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/operator_stream.h"

namespace shoal::exec {
namespace {

class CoalesceStream final : public OperatorStream {
 public:
  CoalesceStream(const CoalescePartitionsExec* node, std::shared_ptr<TaskContext> context,
                 ExecPlanPtr input)
      : OperatorStream(node, 0, std::move(context)), input_(std::move(input)) {
    capacity_ = static_cast<size_t>(std::max(2, 2 * input_->num_partitions()));
  }

  // One producer per input partition. When the OS refuses one, those started stop at their next
  // batch and the destructor joins them.
  Status Start() {
    const int n = input_->num_partitions();
    running_ = n;  // before the first start: a producer that ends at once decrements it
    for (int p = 0; p < n; ++p) {
      Result<std::thread> thread =
          StartThread(fmt::format("a CoalescePartitions producer (partition {} of {})", p, n),
                      [this, p] { Produce(p); });
      if (!thread.ok()) {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
        running_ -= n - p;
        return thread.status();
      }
      threads_.push_back(std::move(*thread));
    }
    return Status::OK();
  }

  ~CoalesceStream() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      queue_.clear();
    }
    cv_.notify_all();
    for (auto& t : threads_)
      t.join();
  }

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (!error_.ok())
        return error_;
      if (!queue_.empty()) {
        RecordBatchPtr batch = std::move(queue_.front());
        queue_.pop_front();
        cv_.notify_all();
        return batch;
      }
      if (running_ == 0)
        return RecordBatchPtr();
      if (context()->cancelled())
        return TaskContext::CancelledStatus();
      cv_.wait_for(lock, std::chrono::milliseconds(50));
    }
  }

 private:
  void Produce(int partition) {
    // A thread of its own: its log lines name the query and task as the caller's do.
    const ScopedLogContext log_context(context()->query_id(), context()->task_key());
    Status status = [&]() -> Status {
      SHOAL_ASSIGN_OR_RETURN(StreamPtr stream, input_->Execute(partition, context()));
      for (;;) {
        SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, stream->Next());
        if (!batch)
          return Status::OK();
        std::unique_lock<std::mutex> lock(mutex_);
        while (!stop_ && queue_.size() >= capacity_ && !context()->cancelled())
          cv_.wait_for(lock, std::chrono::milliseconds(50));
        if (stop_)
          return Status::OK();
        if (context()->cancelled())
          return TaskContext::CancelledStatus();
        queue_.push_back(std::move(batch));
        cv_.notify_all();
      }
    }();
    std::lock_guard<std::mutex> lock(mutex_);
    if (!status.ok() && error_.ok())
      error_ = std::move(status);
    --running_;
    cv_.notify_all();
  }

  ExecPlanPtr input_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<RecordBatchPtr> queue_;
  size_t capacity_ = 2;
  int running_ = 0;
  bool stop_ = false;
  Status error_;
  std::vector<std::thread> threads_;
};

// One input partition: pass its stream through.
class PassThroughStream final : public OperatorStream {
 public:
  PassThroughStream(const CoalescePartitionsExec* node, std::shared_ptr<TaskContext> context,
                    StreamPtr input)
      : OperatorStream(node, 0, std::move(context)), input_(std::move(input)) {}

 protected:
  Result<RecordBatchPtr> NextImpl() override { return input_->Next(); }

 private:
  StreamPtr input_;
};

}  // namespace

std::shared_ptr<CoalescePartitionsExec> CoalescePartitionsExec::Make(ExecPlanPtr input) {
  return std::shared_ptr<CoalescePartitionsExec>(new CoalescePartitionsExec(std::move(input)));
}

Result<ExecPlanPtr> CoalescePartitionsExec::WithNewChildren(
    std::vector<ExecPlanPtr> children) const {
  if (children.size() != 1)
    return Status::Internal("CoalescePartitions takes one child");
  return ExecPlanPtr(Make(std::move(children[0])));
}

Result<StreamPtr> CoalescePartitionsExec::Execute(
    int partition, const std::shared_ptr<TaskContext>& context) const {
  if (partition != 0)
    return Status::Internal("CoalescePartitions has one partition, asked for {}", partition);
  if (input_->num_partitions() == 1) {
    SHOAL_ASSIGN_OR_RETURN(StreamPtr input, input_->Execute(0, context));
    return StreamPtr(new PassThroughStream(this, context, std::move(input)));
  }
  auto stream = std::make_unique<CoalesceStream>(this, context, input_);
  SHOAL_RETURN_IF_ERROR(stream->Start());
  return StreamPtr(std::move(stream));
}

}  // namespace shoal::exec
