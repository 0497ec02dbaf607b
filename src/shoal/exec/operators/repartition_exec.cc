#include "shoal/exec/operators/repartition_exec.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <thread>

#include "shoal/common/log_context.h"
#include "shoal/common/thread_start.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/hash.h"
#include "shoal/exec/operator_stream.h"

namespace shoal::exec {

struct RepartitionExec::State {
  State(const RepartitionExec* node, std::shared_ptr<TaskContext> ctx, int inputs, int outputs)
      : plan(node),
        context(std::move(ctx)),
        channels(static_cast<size_t>(outputs)),
        closed(static_cast<size_t>(outputs), false),
        waiting(static_cast<size_t>(outputs), 0),
        running(inputs),
        pool(context->MakeOperatorPool("Repartition buffers")) {}

  ~State() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
      for (auto& c : channels)
        c.clear();
    }
    cv.notify_all();
    for (auto& t : threads)
      t.join();
  }

  // One producer per input partition. When the OS refuses one, the error is every output's:
  // those started stop at their next batch (the destructor joins them), and the ones never
  // started leave `running`, so no consumer waits for them.
  Status Start(const ExecPlanPtr& input) {
    // Not `running`: producers decrement it as they finish, possibly while this loop runs.
    const int inputs = input->num_partitions();
    for (int p = 0; p < inputs; ++p) {
      Result<std::thread> thread =
          StartThread(fmt::format("a Repartition producer (partition {} of {})", p, inputs),
                      [this, input, p] { Produce(input, p); });
      if (!thread.ok()) {
        std::lock_guard<std::mutex> lock(mutex);
        stop = true;
        running -= inputs - p;
        if (error.ok())
          error = thread.status();
        cv.notify_all();
        return thread.status();
      }
      threads.push_back(std::move(*thread));
    }
    return Status::OK();
  }

  // Whether some consumer is blocked in Pop on an empty channel. Only then may a producer
  // overfill a full channel: that consumer (a merge of several partitions, say) may be what the
  // full channel's consumer waits for, and blocking would deadlock. A channel nobody reads yet
  // (not opened, or its consumer busy elsewhere) does not count, so buffers stay bounded.
  bool AnyConsumerStarving() const {
    for (size_t j = 0; j < channels.size(); ++j) {
      if (!closed[j] && channels[j].empty() && waiting[j] > 0)
        return true;
    }
    return false;
  }

  // Appends to channel j, waiting while it is full and no consumer is starving.
  Status Push(size_t j, RecordBatchPtr batch) {
    std::unique_lock<std::mutex> lock(mutex);
    while (!stop && !closed[j] && channels[j].size() >= kCapacity && !AnyConsumerStarving()) {
      if (context->cancelled())
        return TaskContext::CancelledStatus();
      cv.wait_for(lock, std::chrono::milliseconds(50));
    }
    if (stop || closed[j])
      return Status::OK();
    channels[j].push_back(std::move(batch));
    cv.notify_all();
    return Status::OK();
  }

  void Produce(const ExecPlanPtr& input, int partition) {
    // A thread of its own: its log lines name the query and task as the caller's do.
    const ScopedLogContext log_context(context->query_id(), context->task_key());
    Status status = [&]() -> Status {
      SHOAL_ASSIGN_OR_RETURN(StreamPtr stream, input->Execute(partition, context));
      const Partitioning& out = plan->output_partitioning();
      const size_t m = static_cast<size_t>(out.num_partitions);
      std::vector<std::unique_ptr<ExprEvaluator>> keys;
      if (out.kind == PartitioningKind::kHash) {
        SHOAL_ASSIGN_OR_RETURN(keys, MakeEvaluators(out.keys, *input->schema(), pool));
      }
      size_t next = static_cast<size_t>(partition) % m;
      std::vector<uint64_t> hashes;
      std::vector<SelectionVector> rows(m);
      std::vector<uint32_t> targets;  // per row: its partition
      std::vector<size_t> counts;     // per partition: its rows
      for (;;) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          if (stop)
            return Status::OK();
        }
        SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, stream->Next());
        if (!batch)
          return Status::OK();
        if (batch->num_rows() == 0)
          continue;
        if (out.kind != PartitioningKind::kHash) {
          SHOAL_RETURN_IF_ERROR(Push(next, std::move(batch)));
          next = (next + 1) % m;
          continue;
        }
        std::vector<ArrayPtr> key_columns;
        for (auto& k : keys) {
          SHOAL_ASSIGN_OR_RETURN(ArrayPtr column, k->Evaluate(*batch));
          key_columns.push_back(std::move(column));
        }
        SHOAL_RETURN_IF_ERROR(HashColumns(key_columns, batch->num_rows(), &hashes));
        // Counted first, then each partition's list is sized once and written by index.
        const int64_t n = batch->num_rows();
        targets.resize(static_cast<size_t>(n));
        counts.assign(m, 0);
        for (int64_t i = 0; i < n; ++i) {
          // Multiply-shift maps the hash onto [0, m) without a division.
          const auto j = static_cast<uint32_t>(
              (static_cast<unsigned __int128>(hashes[static_cast<size_t>(i)]) * m) >> 64);
          targets[static_cast<size_t>(i)] = j;
          ++counts[j];
        }
        for (size_t j = 0; j < m; ++j) {
          rows[j].resize(counts[j]);
          counts[j] = 0;
        }
        for (int64_t i = 0; i < n; ++i) {
          const uint32_t j = targets[static_cast<size_t>(i)];
          rows[j][counts[j]++] = static_cast<int32_t>(i);
        }
        for (size_t j = 0; j < m; ++j) {
          if (rows[j].empty())
            continue;
          RecordBatchPtr part;
          if (static_cast<int64_t>(rows[j].size()) == batch->num_rows()) {
            part = batch;
          } else {
            SHOAL_ASSIGN_OR_RETURN(part, TakeBatch(*batch, rows[j].data(),
                                                   static_cast<int64_t>(rows[j].size()), pool));
          }
          SHOAL_RETURN_IF_ERROR(Push(j, std::move(part)));
        }
      }
    }();
    std::lock_guard<std::mutex> lock(mutex);
    if (!status.ok() && error.ok())
      error = std::move(status);
    --running;
    cv.notify_all();
  }

  Result<RecordBatchPtr> Pop(size_t j) {
    std::unique_lock<std::mutex> lock(mutex);
    // Counted as waiting from the first wait until this call returns; the notification on that
    // first wait lets producers blocked on a full channel overfill it.
    bool counted = false;
    auto done = [&] {
      if (counted)
        --waiting[j];
    };
    for (;;) {
      if (!error.ok()) {
        done();
        return error;
      }
      if (!channels[j].empty()) {
        done();
        RecordBatchPtr batch = std::move(channels[j].front());
        channels[j].pop_front();
        cv.notify_all();
        return batch;
      }
      if (running == 0) {
        done();
        return RecordBatchPtr();
      }
      if (context->cancelled()) {
        done();
        return TaskContext::CancelledStatus();
      }
      if (!counted) {
        counted = true;
        ++waiting[j];
        cv.notify_all();
      }
      cv.wait_for(lock, std::chrono::milliseconds(50));
    }
  }

  void Close(size_t j) {
    std::lock_guard<std::mutex> lock(mutex);
    closed[j] = true;
    channels[j].clear();
    cv.notify_all();
  }

  static constexpr size_t kCapacity = 4;

  const RepartitionExec* plan;
  std::shared_ptr<TaskContext> context;
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::deque<RecordBatchPtr>> channels;
  std::vector<bool> closed;
  std::vector<int> waiting;  // consumers blocked in Pop, per channel
  int running;
  bool stop = false;
  Status error;
  int opened = 0;
  std::shared_ptr<MemoryPool> pool;
  std::vector<std::thread> threads;
};

namespace {

class RepartitionStream final : public OperatorStream {
 public:
  RepartitionStream(const RepartitionExec* node, int partition,
                    std::shared_ptr<TaskContext> context,
                    std::shared_ptr<RepartitionExec::State> state)
      : OperatorStream(node, partition, std::move(context)), state_(std::move(state)) {}

  ~RepartitionStream() override { state_->Close(static_cast<size_t>(partition())); }

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    return state_->Pop(static_cast<size_t>(partition()));
  }

 private:
  std::shared_ptr<RepartitionExec::State> state_;
};

}  // namespace

Result<std::shared_ptr<RepartitionExec>> RepartitionExec::Make(ExecPlanPtr input,
                                                               Partitioning partitioning) {
  if (partitioning.num_partitions < 1)
    return Status::Internal("Repartition into {} partitions", partitioning.num_partitions);
  if (partitioning.kind == PartitioningKind::kHash) {
    if (partitioning.keys.empty())
      return Status::Internal("hash repartition without keys");
    for (const auto& k : partitioning.keys) {
      SHOAL_ASSIGN_OR_RETURN(auto ev,
                             ExprEvaluator::Make(k, *input->schema(), DefaultMemoryPool()));
      (void)ev;
    }
  } else if (partitioning.kind != PartitioningKind::kRoundRobin) {
    return Status::Internal("Repartition needs hash or round-robin partitioning");
  }
  return std::shared_ptr<RepartitionExec>(
      new RepartitionExec(std::move(input), std::move(partitioning)));
}

RepartitionExec::~RepartitionExec() = default;

Result<ExecPlanPtr> RepartitionExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (children.size() != 1)
    return Status::Internal("Repartition takes one child");
  SHOAL_ASSIGN_OR_RETURN(auto node, Make(std::move(children[0]), partitioning_));
  return ExecPlanPtr(std::move(node));
}

Result<StreamPtr> RepartitionExec::Execute(int partition,
                                           const std::shared_ptr<TaskContext>& context) const {
  if (partition < 0 || partition >= partitioning_.num_partitions)
    return Status::Internal("Repartition partition {} of {}", partition,
                            partitioning_.num_partitions);
  std::shared_ptr<State> state;
  Status started;  // the other outputs read the same error from the state
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = pending_.find(context.get());
    if (it == pending_.end()) {
      state = std::make_shared<State>(this, context, input_->num_partitions(),
                                      partitioning_.num_partitions);
      started = state->Start(input_);
      it = pending_.emplace(context.get(), state).first;
    }
    state = it->second;
    if (++state->opened == partitioning_.num_partitions)
      pending_.erase(it);
  }
  SHOAL_RETURN_IF_ERROR(started);
  return StreamPtr(new RepartitionStream(this, partition, context, std::move(state)));
}

std::string RepartitionExec::Describe(bool) const {
  return fmt::format("{} -> {}", input_->num_partitions(), partitioning_.ToString());
}

}  // namespace shoal::exec
