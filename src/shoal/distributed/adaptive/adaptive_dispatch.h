// AdaptiveDispatch: the coordinator side of adaptive task counts (`dist_adaptive_task_counts`).
//
// In static mode every stage gets the task count the planner derived from what the leaves scan.
// In adaptive mode the coordinator instantiates the stages one by one, producers first, while it
// plans the query (the head's operators count their exchanges' partitions, i.e. the producers'
// tasks, as soon as they start, so the counts must be known before the head runs; an EXPLAIN
// therefore starts the leaf tasks too, and ends them with the plan): a leaf stage keeps its
// planned count and is sent at once; its tasks start running and report samples of their output
// partitions (LoadInfo, load_sampler.h). A stage reading other stages is sized only once the
// samples of all its inputs are in: each input's output bytes are extrapolated from its samples (a
// partition that ended is exact; otherwise the sampled bytes are scaled by the share of the task's
// leaf rows that had been pulled), their sum is divided by `dist_bytes_per_task`, and the count is
// capped by the workers, `dist_max_tasks` and what the stage allows
// (DistributedPlan::FitTaskCount). When a task's leaves do not know their rows (a CSV scan) the
// consumer keeps its planned count. Stages only the head reads are not waited for: the head runs as
// one task whatever they produce.
//
// Every choice is logged (kInfo) and kept in choices(), for EXPLAIN ANALYZE and tests.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/distributed/coordinator/task_router.h"
#include "shoal/distributed/planner/distributed_planner.h"
#include "shoal/distributed/transport/worker_channel.h"

namespace shoal::distributed {

/// Output of one task (or a whole stage) predicted from its samples.
struct OutputEstimate {
  int64_t rows = 0;
  int64_t bytes = 0;
  /// False when the samples cannot be extrapolated (leaf rows unknown).
  bool known = true;
};

/// Extrapolates one task's output from its partitions' samples. `leaf_rows` is what the task's
/// leaves produce in total (-1: unknown).
OutputEstimate EstimateTaskOutput(const std::vector<LoadInfo>& samples, int64_t leaf_rows);

/// What adaptive mode chose for one stage.
struct StageChoice {
  int stage_id = 0;
  int planned_task_count = 1;
  int task_count = 1;
  bool leaf = false;
  /// Sized from its inputs' samples (false: a leaf stage, or an input could not be estimated).
  bool sampled = false;
  int64_t estimated_input_bytes = 0;
  /// The stage's own output as its samples predict (when they were read).
  OutputEstimate output;

  /// One line for EXPLAIN ANALYZE and the log ("adaptive: 3 tasks (planned 2) for ...").
  std::string ToString() const;
};

struct AdaptiveDispatchOptions {
  std::vector<std::string> workers;
  int max_tasks = 0;  // 0: the number of workers
  int64_t bytes_per_task = 64LL << 20;
  TaskRouterPtr router;  // null: round-robin
  size_t query_sequence = 0;
};

class AdaptiveDispatch {
 public:
  /// Sends an instantiated stage's tasks and returns their coordinator channels in task order
  /// (owned by the caller, alive until Run returns).
  using SendStage = std::function<Result<std::vector<CoordinatorStream*>>(const Stage&)>;

  AdaptiveDispatch(DistributedPlanPtr plan, AdaptiveDispatchOptions options);

  /// Instantiates and sends every stage, producers first, sizing each from its inputs' samples.
  Status Run(const SendStage& send);

  const std::vector<StageChoice>& choices() const { return choices_; }

 private:
  // Reads the samples of an instantiated, sent stage and estimates its output.
  Result<OutputEstimate> ReadSamples(const Stage& stage,
                                     const std::vector<CoordinatorStream*>& streams);
  // What a task's leaves produce in total: scan unit rows, and the share of each input stage's
  // estimated output its exchanges read (-1: unknown).
  int64_t LeafRows(const exec::ExecutionPlan& node) const;
  Result<std::vector<std::string>> Route(const StageDescription& stage, int task_count);

  DistributedPlanPtr plan_;
  AdaptiveDispatchOptions options_;
  size_t next_ordinal_ = 0;
  std::map<int, OutputEstimate> estimates_;
  std::vector<StageChoice> choices_;
};

}  // namespace shoal::distributed
