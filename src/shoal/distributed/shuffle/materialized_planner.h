// Materialized planner: with the session setting `shuffle_dir` set, cuts a single-node physical
// plan into stages that exchange data through files (issue 7). Nothing else in the plan changes:
//  - a hash Repartition becomes a hash StageFileExec over the Repartition's input (the stage's
//    partitions are the shuffle's hash partitions), written by one map task per partition of that
//    input (each partition, hence each scan unit, read by one map task: the input is read once)
//    when those partitions can each run in a process of their own, else by a single map task;
//  - the input of a CoalescePartitions / SortPreservingMerge, when it has several partitions and is
//    not already a shuffle, gets a passthrough StageFileExec (stage partition p = input partition
//    p, so per-partition sort order survives the cut) — unless the input's partitions depend on
//    each other (a RIGHT / FULL join with a collected build side emits the unmatched build rows
//    from the partition that ends last), as each partition of a passthrough stage is a process of
//    its own: that input then runs in the driver, cut only below.
// Cuts happen in chains of any depth (a stage's subtree holds the stages it reads, which read their
// files when run) and in every branch (a union with an aggregate in each branch has a stage per
// branch). Runtime join filters whose join and probe scan end up in different stages are formed
// from the stage that feeds the join's build side (stage_runtime_filters.h). Stage ids are 1, 2,
// ... in pre-order; a stage's level is one more than the highest level of the stages it reads and
// of those whose filters it applies, so running levels in order runs every stage after its inputs
// and its filters. The shuffle directory and the compression travel inside each stage node, hence
// inside the encoded plan.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/distributed/shuffle/stage_file_exec.h"
#include "shoal/distributed/shuffle/stage_runtime_filters.h"
#include "shoal/exec/execution_plan.h"

namespace shoal::distributed::shuffle {

struct MaterializedPlannerOptions {
  std::string shuffle_dir;
  std::string compression = "lz4";
  /// The tasks run on the driver's machine (task processes, no workers). Then what the driver
  /// would run and only reads earlier stages' files (a final aggregate, join or sort) is no
  /// stage of its own: its tasks would only add a level of processes on the same cores. With
  /// workers it stays a stage, spread over them and retried like any other.
  bool local_tasks = false;
  /// With local tasks, a collect-build join in a stage of several tasks gets its build side as
  /// a stage of its own (computed once, not in each task) when that side's scans read at least
  /// this many bytes of their files: below it, the level of processes costs more than the
  /// repeated build (measured at SF1: some 20 ms a level). Setting shuffle_build_stage_bytes.
  int64_t repeated_build_min_bytes = 8 << 20;
};

struct MaterializedStage {
  int id = 0;
  std::shared_ptr<const StageFileExec> node;
  std::vector<int> inputs;  // ids of the stages this one reads (directly)
  // ids of the stages whose output forms runtime filters this one's scans apply
  std::vector<int> filter_sources;
  int level = 0;  // 0: reads no stage and waits for no filter
};

struct MaterializedPlan {
  /// The plan with stage nodes; run after every stage's files exist, it only reads them above the
  /// cuts.
  exec::ExecPlanPtr root;
  /// Every stage, in dependency order (by level, then id).
  std::vector<MaterializedStage> stages;
  /// The runtime filters formed from stages' outputs for later stages' scans.
  std::vector<StageFilterRoute> filter_routes;
};

Result<MaterializedPlan> PlanMaterialized(const exec::ExecPlanPtr& plan,
                                          const MaterializedPlannerOptions& options);

/// The outermost stage nodes of `plan` in pre-order (not descending into a stage).
std::vector<std::shared_ptr<const StageFileExec>> FindStages(const exec::ExecPlanPtr& plan);

}  // namespace shoal::distributed::shuffle
