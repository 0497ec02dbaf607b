// DistributedPlanner: turns a single-node physical plan into a distributed one. Nothing in the plan
// changes except that network boundaries replace the in-process ones:
//  - a Repartition becomes a NetworkShuffle (the producer stage is what was below it; workers add
//    the repartition head when consumers ask, so partial aggregates stay below the shuffle);
//  - the input of a CoalescePartitions / SortPreservingMerge becomes a NetworkCoalesce;
//  - the build (right) side of a collect-build HashJoin or a NestedLoopJoin becomes a
//    NetworkBroadcast.
// Subtrees without scans or exchanges (VALUES) stay where they are. The fragments between
// boundaries are stages; the one holding the root is the head stage, run by the coordinator as
// one task. Every other stage runs as T tasks, one per worker (round-robin over the worker list):
//  - T = 1 unless every operator of the stage is partition-wise, i.e. gives the same rows when its
//    input is split across tasks: scans, filters, projections, unions, per-partition sorts, local
//    limits, partial aggregates, aggregates and partitioned joins over hash-partitioned inputs,
//    and collect-build joins whose type never emits unmatched build rows (not RIGHT / FULL, which
//    need the whole probe side in one place). A global LIMIT, VALUES, or a NetworkCoalesce input
//    keep a stage in one task.
//  - A stage reading shuffles uses as many tasks as divide the shuffle's partition count evenly
//    (each task reads a contiguous range), at most the worker count and `dist_max_tasks`.
//  - A stage that only scans uses ceil(scanned bytes / `dist_bytes_per_task`) tasks, capped the
//    same way and by its number of scan units; each task scans a contiguous share of the units.
//  - A stage whose broadcast inputs scan more than `dist_broadcast_max_bytes` runs as one task, so
//    a large build side is shipped once rather than to every task.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/dist/network_exchange_exec.h"
#include "shoal/dist/worker_channel.h"
#include "shoal/exec/execution_plan.h"

namespace shoal::dist {

/// Registers dist_max_tasks, dist_bytes_per_task, dist_broadcast_max_bytes and dist_compression
/// in the global settings registry. Idempotent.
Status RegisterDistSettings();

struct DistributedPlannerOptions {
  std::vector<std::string> workers;
  std::string query_id;
  int max_tasks = 0;  // per stage; 0: the number of workers
  int64_t bytes_per_task = 64LL << 20;
  int64_t broadcast_max_bytes = 64LL << 20;
  /// Index of the worker that gets the first task (round-robin continues across stages).
  size_t first_worker = 0;
};

struct Stage {
  int id = 0;
  int task_count = 1;
  /// Task t's plan, specialised to its share of the scans and shuffle partitions.
  std::vector<exec::ExecPlanPtr> task_plans;
  std::vector<std::string> task_workers;
};

struct DistributedPlan {
  std::string query_id;
  /// The head stage: runs on the coordinator; its exchanges read the other stages and show them
  /// (task 0's plan) as children in EXPLAIN.
  exec::ExecPlanPtr head;
  /// Stages 1..n, producers before their consumers.
  std::vector<Stage> stages;
};

/// `channels` and `dispatch` are given to the head's exchanges (workers get their own).
Result<DistributedPlan> PlanDistributed(const exec::ExecPlanPtr& plan,
                                        const DistributedPlannerOptions& options,
                                        ChannelResolverPtr channels,
                                        std::shared_ptr<QueryDispatch> dispatch);

}  // namespace shoal::dist
