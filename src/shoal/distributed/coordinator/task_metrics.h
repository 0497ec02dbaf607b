// Task metrics: how the per-operator numbers of a distributed query's tasks get from the workers
// into the coordinator's EXPLAIN ANALYZE.
//
// A worker reports, when a task's coordinator channel closes (worker_service.h), one entry per
// operator of the task plan in TaskPlanOperators order, each summed over the task's partitions,
// plus the producer heads consumers asked for and what its ExecuteTask calls sent. Every task of a
// stage has a plan of the same shape (distributed_planner.h), and the coordinator shows task 0's
// plan under the exchange that reads the stage, so task t's entry i belongs to node i of that
// display plan. FoldStageMetrics adds every task's entries into the head's MetricsRegistry under
// those nodes (so EXPLAIN ANALYZE prints per-stage sums unchanged) and notes which task ran where
// (per task and operator with VERBOSE).
#pragma once

#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/distributed/transport/worker_channel.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/exec/task_context.h"

namespace shoal::distributed {

namespace proto {
class TaskMetricsProto;
}

/// The operators of a task plan in the order TaskMetrics::operators lists them: pre-order, not
/// entering network exchanges (on the coordinator their children are other stages, shown for
/// EXPLAIN only; on workers they have none).
std::vector<const exec::ExecutionPlan*> TaskPlanOperators(const exec::ExecutionPlan& root);

/// The totals of `node` in `registry`.
OperatorTaskMetrics OperatorMetricsOf(const exec::ExecutionPlan& node,
                                      const exec::MetricsRegistry& registry);

/// Worker side: TaskMetrics::operators of a task that ran `plan` with `registry`.
std::vector<OperatorTaskMetrics> CollectOperatorMetrics(const exec::ExecutionPlan& plan,
                                                        const exec::MetricsRegistry& registry);

void EncodeTaskMetrics(const TaskMetrics& metrics, proto::TaskMetricsProto* out);
/// Everything but plan_status, which the transport turns into the task's error.
TaskMetrics DecodeTaskMetrics(const proto::TaskMetricsProto& in);

/// What the coordinator shows of one stage: task 0's plan (the display child of the exchange
/// reading the stage) and that exchange, both as they appear in the head plan EXPLAIN prints.
struct StageDisplay {
  int stage_id = 0;
  exec::ExecPlanPtr root;
  /// Only a key into the registry, never dereferenced (the head plan owns it); may be null.
  const exec::ExecutionPlan* exchange = nullptr;
};

/// What the coordinator got back for one task.
struct TaskReport {
  int task_number = 0;
  std::string worker;  // where the coordinator sent it
  Result<TaskMetrics> metrics = TaskMetrics{};
};

/// Adds the tasks' operator metrics of one stage into `registry` under the stage's display nodes,
/// the bytes and messages they sent as extras of the exchange, a note on the exchange naming the
/// tasks and their workers, and (VERBOSE) a note per task under every operator. A task whose
/// entries do not match the display plan's shape is noted, not folded.
void FoldStageMetrics(const StageDisplay& stage, const std::vector<TaskReport>& tasks,
                      exec::MetricsRegistry* registry);

/// Every StageDisplay of `head`: the network exchanges in it (display children included) whose
/// display child is a producer stage's plan. Producers come before their consumers, so folding in
/// this order prints a stage's own lines on its exchange before those of the consumer reading it.
std::vector<StageDisplay> FindStageDisplays(const exec::ExecPlanPtr& head);

}  // namespace shoal::distributed
