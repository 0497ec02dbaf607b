#include "shoal/distributed/planner/network_exchange_exec.h"

#include <chrono>
#include <utility>

#include <fmt/format.h>

#include "shoal/exec/operator_stream.h"

namespace shoal::distributed {

const char* ExchangeKindName(ExchangeKind kind) {
  switch (kind) {
    case ExchangeKind::kShuffle: return "NetworkShuffle";
    case ExchangeKind::kCoalesce: return "NetworkCoalesce";
    case ExchangeKind::kBroadcast: return "NetworkBroadcast";
    case ExchangeKind::kShared: return "NetworkShared";
  }
  return "NetworkExchange";
}

Status StageBinding::Bind(std::vector<std::string> workers, int partitions_per_task,
                          exec::ExecPlanPtr display) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bound_.load(std::memory_order_relaxed))
    return Status::Internal("stage {} was instantiated twice", stage_id_);
  if (workers.empty() || partitions_per_task < 1)
    return Status::Internal("stage {} bound to {} tasks of {} partitions", stage_id_,
                            workers.size(), partitions_per_task);
  workers_ = std::move(workers);
  partitions_per_task_ = partitions_per_task;
  display_ = std::move(display);
  bound_.store(true, std::memory_order_release);
  return Status::OK();
}

const std::vector<std::string>& StageBinding::workers() const {
  static const std::vector<std::string> kNone;
  return bound() ? workers_ : kNone;
}

int StageBinding::partitions_per_task() const {
  return bound() ? partitions_per_task_ : 1;
}

exec::ExecPlanPtr StageBinding::display() const {
  return bound() ? display_ : nullptr;
}

struct NetworkExchangeExec::Opened {
  // streams[t][i]: producer task t, i-th partition of the requested range.
  std::vector<std::vector<exec::StreamPtr>> streams;
  int taken = 0;
};

namespace {

// Reads `inputs` one after the other (a shuffle partition from every producer task).
class ExchangeStream final : public exec::OperatorStream {
 public:
  ExchangeStream(const exec::ExecutionPlan* node, int partition,
                 std::shared_ptr<exec::TaskContext> context, std::vector<exec::StreamPtr> inputs,
                 std::vector<std::string> labels)
      : OperatorStream(node, partition, std::move(context)),
        inputs_(std::move(inputs)),
        labels_(std::move(labels)) {}

  // Network metrics (A metrics): what the inputs received, and the time spent waiting for them.
  ~ExchangeStream() override {
    for (size_t i = 0; i < inputs_.size(); ++i)
      AccountReceived(i);
    metrics()->AddExtra("network_wait_nanos", wait_nanos_);
    if (received_messages_ > 0) {
      metrics()->AddExtra("received_bytes", received_bytes_);
      metrics()->AddExtra("received_messages", received_messages_);
    }
  }

 protected:
  Result<columnar::RecordBatchPtr> NextImpl() override {
    while (next_ < inputs_.size()) {
      const auto wait_start = std::chrono::steady_clock::now();
      Result<columnar::RecordBatchPtr> batch = inputs_[next_]->Next();
      wait_nanos_ += std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now() - wait_start)
                         .count();
      if (!batch.ok()) {
        Status st = std::move(batch).status();
        if (st.code() == StatusCode::kCancelled)
          return st;
        return std::move(st).WithContext(labels_[next_]);
      }
      if (*batch)
        return batch;
      AccountReceived(next_);
      inputs_[next_].reset();  // frees the producer's stream as soon as it is drained
      ++next_;
    }
    return columnar::RecordBatchPtr();
  }

 private:
  std::vector<exec::StreamPtr> inputs_;
  std::vector<std::string> labels_;
  size_t next_ = 0;
  int64_t wait_nanos_ = 0;
  int64_t received_bytes_ = 0;
  int64_t received_messages_ = 0;

  // Adds input i's received bytes and messages, once, before the input is dropped.
  void AccountReceived(size_t i) {
    // Not a plan node: wire counters are an optional capability of the streams a channel returns
    // (in-process streams have none), and columnar's reader interface cannot name them.
    if (const auto* stats = dynamic_cast<const NetworkStreamStats*>(inputs_[i].get())) {
      received_bytes_ += stats->received_bytes();
      received_messages_ += stats->received_messages();
    }
  }
};

}  // namespace

NetworkExchangeExec::NetworkExchangeExec(ExchangeSpec spec, ChannelResolverPtr channels,
                                         std::shared_ptr<QueryDispatch> dispatch,
                                         exec::ExecPlanPtr display_input)
    : ExecutionPlan(kKind, spec.schema),
      spec_(std::move(spec)),
      channels_(std::move(channels)),
      dispatch_(std::move(dispatch)),
      display_input_(std::move(display_input)) {}

NetworkExchangeExec::~NetworkExchangeExec() = default;

Result<std::shared_ptr<NetworkExchangeExec>> NetworkExchangeExec::Make(
    ExchangeSpec spec, ChannelResolverPtr channels, std::shared_ptr<QueryDispatch> dispatch,
    exec::ExecPlanPtr display_input) {
  if (!spec.schema)
    return Status::Internal("network exchange without a schema");
  if (spec.producer_partitions < 1)
    return Status::InvalidData("network exchange with {} producer partitions",
                               spec.producer_partitions);
  if (spec.kind == ExchangeKind::kShuffle) {
    if (spec.partition_start < 0 || spec.partition_end <= spec.partition_start ||
        spec.partition_end > spec.partitioning.num_partitions) {
      return Status::InvalidData("network shuffle range [{}, {}) outside its {} partitions",
                                 spec.partition_start, spec.partition_end,
                                 spec.partitioning.num_partitions);
    }
  }
  return std::shared_ptr<NetworkExchangeExec>(new NetworkExchangeExec(
      std::move(spec), std::move(channels), std::move(dispatch), std::move(display_input)));
}

std::string_view NetworkExchangeExec::name() const {
  return ExchangeKindName(spec_.kind);
}

const std::vector<std::string>& NetworkExchangeExec::producer_workers() const {
  if (spec_.binding && spec_.binding->bound())
    return spec_.binding->workers();
  return spec_.producer_workers;
}

int NetworkExchangeExec::producer_partitions() const {
  if (spec_.binding && spec_.binding->bound())
    return spec_.binding->partitions_per_task();
  return spec_.producer_partitions;
}

std::vector<exec::ExecPlanPtr> NetworkExchangeExec::children() const {
  if (display_input_)
    return {display_input_};
  if (spec_.binding && spec_.binding->display())
    return {spec_.binding->display()};
  return {};
}

Result<exec::ExecPlanPtr> NetworkExchangeExec::WithNewChildren(
    std::vector<exec::ExecPlanPtr> children) const {
  if (children.size() > 1)
    return Status::Internal("a network exchange has at most one (display) child");
  exec::ExecPlanPtr display = children.empty() ? nullptr : children[0];
  if (spec_.binding && display == spec_.binding->display())
    display = nullptr;  // keep following the binding
  return exec::ExecPlanPtr(
      new NetworkExchangeExec(spec_, channels_, dispatch_, std::move(display)));
}

exec::Partitioning NetworkExchangeExec::output_partitioning() const {
  if (spec_.kind == ExchangeKind::kShuffle) {
    exec::Partitioning p = spec_.partitioning;
    p.num_partitions = spec_.partition_end - spec_.partition_start;
    return p;
  }
  // Known before the stage is bound (the plans above are made, and fix their partition counts,
  // then): the producer's one task has exactly these partitions (checked in Open).
  if (spec_.kind == ExchangeKind::kShared)
    return spec_.partitioning;
  const int n = std::max(1, num_producer_tasks()) * producer_partitions();
  return n == 1 ? exec::Partitioning::Single() : exec::Partitioning::Unknown(n);
}

Result<std::shared_ptr<NetworkExchangeExec::Opened>> NetworkExchangeExec::Open(
    const std::shared_ptr<exec::TaskContext>& context) const {
  if (!channels_ || producer_workers().empty())
    return Status::Internal("{} of stage {} has no producer tasks to read from{}", name(),
                            spec_.stage_id,
                            spec_.binding ? " (the stage was never instantiated)" : "");
  if (spec_.kind == ExchangeKind::kShared &&
      num_producer_tasks() * producer_partitions() != spec_.partitioning.num_partitions)
    return Status::Internal(
        "NetworkShared of stage {} expects one task of {} partitions, not {} of {}", spec_.stage_id,
        spec_.partitioning.num_partitions, num_producer_tasks(), producer_partitions());
  if (dispatch_)
    SHOAL_RETURN_IF_ERROR(dispatch_->EnsureDispatched());
  auto opened = std::make_shared<Opened>();
  ExecuteTaskRequest request;
  request.task_key.query_id = spec_.query_id;
  request.task_key.stage_id = spec_.stage_id;
  switch (spec_.kind) {
    case ExchangeKind::kShuffle:
      request.partition_start = spec_.partition_start;
      request.partition_end = spec_.partition_end;
      request.head.kind = ProducerHeadKind::kRepartition;
      request.head.partitioning = spec_.partitioning;
      break;
    case ExchangeKind::kCoalesce:
    case ExchangeKind::kBroadcast:
    case ExchangeKind::kShared:
      request.partition_start = 0;
      request.partition_end = producer_partitions();
      // A shared stage is read by several exchanges: its workers keep its output, as a
      // broadcast's, for the task's lifetime.
      request.head.kind = spec_.kind == ExchangeKind::kCoalesce ? ProducerHeadKind::kNone
                                                                : ProducerHeadKind::kBroadcast;
      break;
  }
  for (int t = 0; t < num_producer_tasks(); ++t) {
    const std::string& address = producer_workers()[static_cast<size_t>(t)];
    request.task_key.task_number = t;
    auto label = fmt::format("{} on worker {}", request.task_key.ToString(), address);
    Result<WorkerChannelPtr> channel = channels_->Connect(address);
    if (!channel.ok())
      return std::move(channel).status().WithContext(label);
    Result<std::vector<exec::StreamPtr>> streams =
        (*channel)->ExecuteTask(Headers{}, request, context);
    if (!streams.ok())
      return std::move(streams).status().WithContext(label);
    if (static_cast<int>(streams->size()) != request.partition_end - request.partition_start)
      return Status::Internal("{}: {} streams for {} partitions", label, streams->size(),
                              request.partition_end - request.partition_start);
    opened->streams.push_back(std::move(streams).MoveValueUnsafe());
  }
  return opened;
}

Result<exec::StreamPtr> NetworkExchangeExec::Execute(
    int partition, const std::shared_ptr<exec::TaskContext>& context) const {
  const int n = num_partitions();
  if (partition < 0 || partition >= n)
    return Status::Internal("{} partition {} of {}", name(), partition, n);
  std::shared_ptr<Opened> opened;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = pending_.find(context.get());
    if (it == pending_.end()) {
      SHOAL_ASSIGN_OR_RETURN(opened, Open(context));
      pending_[context.get()] = opened;
    } else {
      opened = it->second;
    }
    if (++opened->taken >= n)
      pending_.erase(context.get());
  }
  std::vector<exec::StreamPtr> inputs;
  std::vector<std::string> labels;
  auto label = [&](int t) {
    return fmt::format("stage {} task {} on worker {}", spec_.stage_id, t,
                       producer_workers()[static_cast<size_t>(t)]);
  };
  if (spec_.kind == ExchangeKind::kShuffle) {
    const int tasks = num_producer_tasks();
    // Start at a different producer in each partition, to spread the first reads.
    for (int k = 0; k < tasks; ++k) {
      const int t = (partition + k) % tasks;
      auto& slot = opened->streams[static_cast<size_t>(t)][static_cast<size_t>(partition)];
      if (!slot)
        return Status::Internal("{} partition {} taken twice", name(), partition);
      inputs.push_back(std::move(slot));
      labels.push_back(label(t));
    }
  } else {
    const int t = partition / producer_partitions();
    const int p = partition % producer_partitions();
    auto& slot = opened->streams[static_cast<size_t>(t)][static_cast<size_t>(p)];
    if (!slot)
      return Status::Internal("{} partition {} taken twice", name(), partition);
    inputs.push_back(std::move(slot));
    labels.push_back(label(t));
  }
  return exec::StreamPtr(
      new ExchangeStream(this, partition, context, std::move(inputs), std::move(labels)));
}

std::string NetworkExchangeExec::Describe(bool verbose) const {
  std::string out = fmt::format("stage={}, tasks={}", spec_.stage_id, num_producer_tasks());
  if (spec_.kind == ExchangeKind::kShuffle) {
    out += fmt::format(", {}", spec_.partitioning.ToString());
    if (spec_.partition_start != 0 || spec_.partition_end != spec_.partitioning.num_partitions)
      out += fmt::format(", reads=[{}, {})", spec_.partition_start, spec_.partition_end);
  } else {
    out += fmt::format(", partitions_per_task={}", producer_partitions());
  }
  const std::vector<std::string>& producers = producer_workers();
  if (verbose && !producers.empty()) {
    std::string workers;
    for (size_t t = 0; t < producers.size(); ++t)
      workers += (t > 0 ? ", " : "") + producers[t];
    out += ", workers=[" + workers + "]";
  }
  return out;
}

}  // namespace shoal::distributed
