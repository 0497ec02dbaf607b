#include "shoal/distributed/coordinator/task_router.h"

#include <algorithm>

namespace shoal::distributed {

Result<std::string> RoundRobinTaskRouter::Route(const TaskPlacement& task,
                                                const std::vector<std::string>& workers) {
  if (workers.empty())
    return Status::InvalidArgument("no worker to run {} task {} on", task.stage_id,
                                   task.task_number);
  return workers[(task.query_sequence + task.ordinal) % workers.size()];
}

Result<std::string> RouteTask(TaskRouter& router, const TaskPlacement& task,
                              const std::vector<std::string>& workers) {
  SHOAL_ASSIGN_OR_RETURN(std::string worker, router.Route(task, workers));
  if (std::find(workers.begin(), workers.end(), worker) == workers.end()) {
    return Status::Internal(
        "the task router placed stage {} task {} on '{}', which is not one of the query's {} "
        "workers",
        task.stage_id, task.task_number, worker, workers.size());
  }
  return worker;
}

}  // namespace shoal::distributed
