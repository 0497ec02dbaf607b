// NetworkExchangeExec: a network boundary as an ordinary physical plan node. The distributed
// planner (distributed_planner.h) puts one where the single-node plan moves data between
// partitions, and the stage below it runs as tasks on workers:
//  - NetworkShuffle replaces a hash (or round-robin) Repartition: this consumer task reads its
//    range [partition_start, partition_end) of the hash partitions from every producer task, which
//    adds the repartition head on demand. Local partition i is global partition start + i, read
//    from every producer task one after the other.
//  - NetworkCoalesce sits under a CoalescePartitions / SortPreservingMerge: it exposes every
//    partition of every producer task (producer task t's partition p is local partition
//    t * producer_partitions + p), and the node above merges them, so orderings survive.
//  - NetworkBroadcast feeds a join's build side: like a coalesce, but producers serve it from one
//    cached copy for all consumer tasks.
//  - NetworkShared reads a subplan that several places of the plan share (SharedResultExec): like
//    a broadcast, every partition from one cached copy, so any number of exchanges in any stages
//    read the one producer stage. That stage runs as one task, so its partitions arrive in order
//    and keep their partitioning (spec.partitioning), which the plans above were made for.
// Execution opens one ExecuteTask call per producer task for the whole range, at the first
// Execute of a given TaskContext, and hands out the per-partition streams (the calls carry a
// partition range, as the protocol wants). Errors name the producer's stage, task and worker.
//
// On the coordinator a node may carry its producer stage's plan as a child, for EXPLAIN only (it
// is never executed from here and never encoded); on workers nodes have no children.
//
// Producer tasks are bound late on the coordinator: the head stage's exchanges exist before the
// coordinator has chosen how many tasks each stage runs as and where. They hold a StageBinding,
// set once when the stage is instantiated; encoded plans carry the resolved worker list.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "shoal/distributed/transport/worker_channel.h"
#include "shoal/exec/execution_plan.h"

namespace shoal::distributed {

enum class ExchangeKind : uint8_t { kShuffle, kCoalesce, kBroadcast, kShared };

const char* ExchangeKindName(ExchangeKind kind);

/// The tasks of one stage as the coordinator chose them: shared by every exchange that reads the
/// stage, set once (before any of them executes). Thread-safe.
class StageBinding {
 public:
  explicit StageBinding(int stage_id) : stage_id_(stage_id) {}

  /// Producer task t runs on workers[t]; each has `partitions_per_task` output partitions;
  /// `display` (task 0's plan) is what EXPLAIN shows under the exchanges. Internal error when
  /// bound twice.
  Status Bind(std::vector<std::string> workers, int partitions_per_task, exec::ExecPlanPtr display);

  bool bound() const { return bound_.load(std::memory_order_acquire); }

  int stage_id() const { return stage_id_; }

  /// Empty until bound.
  const std::vector<std::string>& workers() const;
  int partitions_per_task() const;
  exec::ExecPlanPtr display() const;

 private:
  const int stage_id_;
  std::mutex mutex_;
  std::atomic<bool> bound_{false};
  std::vector<std::string> workers_;
  int partitions_per_task_ = 1;
  exec::ExecPlanPtr display_;
};

using StageBindingPtr = std::shared_ptr<StageBinding>;

struct ExchangeSpec {
  ExchangeKind kind = ExchangeKind::kCoalesce;
  columnar::SchemaPtr schema;
  std::string query_id;
  int stage_id = 0;
  /// Producer task t runs on producer_workers[t]; empty in the planner's placeholders and where
  /// `binding` supplies them.
  std::vector<std::string> producer_workers;
  /// Coalesce / broadcast: output partitions of each producer task.
  int producer_partitions = 1;
  /// Coordinator only, never encoded: once bound, overrides producer_workers and
  /// producer_partitions.
  StageBindingPtr binding;
  /// Shuffle: the partitioning over all consumer tasks (keys over the producer's output). Shared:
  /// the producer's output partitioning, which holds while the producer is one task.
  exec::Partitioning partitioning;
  int partition_start = 0;
  int partition_end = 0;
};

/// Called before the first byte is pulled, so the coordinator sends plans to workers lazily (an
/// EXPLAIN never contacts a worker).
class QueryDispatch {
 public:
  virtual ~QueryDispatch() = default;
  virtual Status EnsureDispatched() = 0;
};

class NetworkExchangeExec final : public exec::ExecutionPlan {
 public:
  static constexpr exec::PlanKind kKind = exec::PlanKind::kNetworkExchange;

  static Result<std::shared_ptr<NetworkExchangeExec>> Make(
      ExchangeSpec spec, ChannelResolverPtr channels,
      std::shared_ptr<QueryDispatch> dispatch = nullptr, exec::ExecPlanPtr display_input = nullptr);
  ~NetworkExchangeExec() override;

  std::string_view name() const override;

  std::vector<exec::ExecPlanPtr> children() const override;
  Result<exec::ExecPlanPtr> WithNewChildren(std::vector<exec::ExecPlanPtr> children) const override;
  exec::Partitioning output_partitioning() const override;
  Result<exec::StreamPtr> Execute(int partition,
                                  const std::shared_ptr<exec::TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;
  /// Reads another stage; shuffles and broadcasts run per task, a coalesce and a shared read
  /// gather everything.
  exec::DistributionTraits distribution() const override {
    return {.partition_wise =
                spec_.kind != ExchangeKind::kCoalesce && spec_.kind != ExchangeKind::kShared,
            .reads_outside_plan = true};
  }

  const ExchangeSpec& spec() const { return spec_; }

  /// The producer tasks' workers and partitions: from the binding once bound, else from the spec.
  const std::vector<std::string>& producer_workers() const;
  int producer_partitions() const;

  int num_producer_tasks() const { return static_cast<int>(producer_workers().size()); }

  struct Opened;

 private:
  NetworkExchangeExec(ExchangeSpec spec, ChannelResolverPtr channels,
                      std::shared_ptr<QueryDispatch> dispatch, exec::ExecPlanPtr display_input);

  Result<std::shared_ptr<Opened>> Open(const std::shared_ptr<exec::TaskContext>& context) const;

  ExchangeSpec spec_;
  ChannelResolverPtr channels_;
  std::shared_ptr<QueryDispatch> dispatch_;
  exec::ExecPlanPtr display_input_;
  // Executions whose partitions have not all been taken yet.
  mutable std::mutex mutex_;
  mutable std::map<const exec::TaskContext*, std::shared_ptr<Opened>> pending_;
};

}  // namespace shoal::distributed
