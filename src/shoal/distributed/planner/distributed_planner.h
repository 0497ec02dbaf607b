// DistributedPlanner: turns a single-node physical plan into a distributed one. Nothing in the plan
// changes except that network boundaries replace the in-process ones:
//  - a Repartition becomes a NetworkShuffle (the producer stage is what was below it; workers add
//    the repartition head when consumers ask, so partial aggregates stay below the shuffle);
//  - the input of a CoalescePartitions / SortPreservingMerge becomes a NetworkCoalesce; a LIMIT
//    above it also limits the producer stage to offset + fetch rows per partition (its sort
//    becomes a top-k, else a local limit is added), so tasks send no more than that;
//  - the build (right) side of a collect-build HashJoin or a NestedLoopJoin becomes a
//    NetworkBroadcast.
// Subtrees without scans or exchanges (VALUES) stay where they are. The fragments between
// boundaries are stages; the one holding the root is the head stage, run by the coordinator as
// one task. A boundary between two stages that can each only run as one task is removed again
// (the producer joins its consumer), so a plan whose boundaries all fall away runs as on one node.
//
// Stages are bound late: PlanDistributed only cuts the plan and describes the stages; the
// coordinator then instantiates each stage, producers first, for a task count and workers it
// chooses (InstantiateAll: the planned counts, placed by the task router), which builds the tasks'
// plans and binds every exchange reading the stage, the head's included.
//
// Task counts (each capped by the worker count and `dist_max_tasks`):
//  - 1 unless every operator of the stage is partition-wise, i.e. gives the same rows when its
//    input is split across tasks: scans, filters, projections, unions, per-partition sorts, local
//    limits, partial aggregates, aggregates and partitioned joins over hash-partitioned inputs,
//    and collect-build joins whose type never emits unmatched build rows (not RIGHT / FULL, which
//    need the whole probe side in one place). A global LIMIT, VALUES, or a NetworkCoalesce input
//    keep a stage in one task.
//  - Otherwise ceil(estimated bytes / `dist_bytes_per_task`), where the estimate is what the
//    stage scans plus what its shuffle / coalesce inputs send (their stages' scanned bytes, an
//    aggregation without keys counting as nothing; broadcast inputs are replicated, not split).
//    Physical nodes carry no row estimates, so bytes stand in for cardinalities.
//  - A stage that reads no shuffle or coalesce has at most as many tasks as its largest scan has
//    units (files / row groups / batches); each task's plan holds only its contiguous share.
//  - A stage reading shuffles prefers a count that splits their partitions evenly (each task
//    reads a contiguous range); any other count works, short tasks being padded.
//  - A stage whose broadcast inputs scan more than `dist_broadcast_max_bytes` runs as one task, so
//    a large build side is shipped once rather than to every task.
//  - In a stage running a UNION as several tasks, the union's inputs run on disjoint sets of its
//    tasks (input i on tasks [i*T/k, (i+1)*T/k), or one task per group of inputs when T < k)
//    instead of every task running a slice of every input. Tasks whose plans end up with fewer
//    partitions than others are padded with empty partitions, so every task has the same shape.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/distributed/coordinator/task_router.h"
#include "shoal/distributed/planner/network_exchange_exec.h"
#include "shoal/distributed/transport/worker_channel.h"
#include "shoal/exec/execution_plan.h"

namespace shoal::distributed {

struct DistributedPlannerOptions {
  std::vector<std::string> workers;
  std::string query_id;
  int max_tasks = 0;  // per stage; 0: the number of workers
  int64_t bytes_per_task = 64LL << 20;
  int64_t broadcast_max_bytes = 64LL << 20;
  /// Places InstantiateAll's tasks; null: round-robin starting at workers[first_worker].
  TaskRouterPtr router;
  /// Index of the worker that gets the first task (TaskPlacement::query_sequence).
  size_t first_worker = 0;
};

/// What the coordinator knows of a stage before it is instantiated.
struct StageDescription {
  int id = 0;
  /// The stages its exchanges read (all lower ids).
  std::vector<int> input_stage_ids;
  /// The static mode's task count.
  int planned_task_count = 1;
  /// The most tasks it may run as (1: it must run as one task).
  int max_task_count = 1;
  /// Reads no other stage.
  bool leaf = false;
  /// What its own scans read: bytes, and rows (-1 when a scan does not know its rows).
  int64_t scanned_bytes = 0;
  int64_t scanned_rows = 0;
  /// Estimated bytes it receives from its input stages (0 for leaf stages).
  int64_t estimated_input_bytes = 0;
};

/// An instantiated stage.
struct Stage {
  int id = 0;
  int task_count = 1;
  /// Task t's plan, specialised to its share of the scans and shuffle partitions.
  std::vector<exec::ExecPlanPtr> task_plans;
  std::vector<std::string> task_workers;
};

class DistributedPlan {
 public:
  struct State;
  explicit DistributedPlan(std::shared_ptr<State> state);
  ~DistributedPlan();

  const std::string& query_id() const;
  /// The head stage: runs on the coordinator; its exchanges read the other stages (through their
  /// bindings) and show them (task 0's plan, once instantiated) as children in EXPLAIN.
  const exec::ExecPlanPtr& head() const;
  /// Drops this object's reference to the head (head() is null afterwards; stages can still be
  /// instantiated), so a head whose dispatch owns this plan does not keep itself alive.
  void ReleaseHead();
  /// Stages 1..n (stages()[i].id == i + 1), producers before their consumers.
  const std::vector<StageDescription>& stages() const;

  /// A task count for the stage near `wanted`: within [1, max_task_count], the largest one not
  /// above `wanted` that splits the stage's shuffle partitions evenly if there is one > 1.
  int FitTaskCount(int stage_id, int wanted) const;

  /// Builds the stage's task plans for workers.size() tasks, task t on workers[t] (a worker may
  /// appear more than once), and binds every exchange reading the stage. Every input stage must
  /// be instantiated first; each stage is instantiated once. Any count in [1, max_task_count]
  /// works (FitTaskCount gives the even ones). Not thread-safe.
  Result<const Stage*> InstantiateStage(int stage_id, std::vector<std::string> workers);

  /// The static mode: instantiates every stage not yet instantiated, producers first, with its
  /// planned task count, placing tasks with the options' router.
  Status InstantiateAll();

  /// Null until the stage is instantiated.
  const Stage* instantiated(int stage_id) const;

 private:
  std::shared_ptr<State> state_;
};

using DistributedPlanPtr = std::shared_ptr<DistributedPlan>;

/// Cuts `plan` into stages; instantiates none. `channels` and `dispatch` are given to the head's
/// exchanges (workers get their own).
Result<DistributedPlanPtr> PlanDistributed(const exec::ExecPlanPtr& plan,
                                           const DistributedPlannerOptions& options,
                                           ChannelResolverPtr channels,
                                           std::shared_ptr<QueryDispatch> dispatch);

}  // namespace shoal::distributed
