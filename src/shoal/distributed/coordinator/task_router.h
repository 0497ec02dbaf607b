// TaskRouter: decides which worker runs each task of a distributed query. The distributed planner
// asks it once per task while it cuts the plan into stages (the consumers' exchanges name their
// producers' workers, so placement is fixed at planning time). The default is round-robin over the
// query's workers, starting one worker further for each query, so that single-task stages of
// consecutive queries land on different workers; other policies (locality, load) plug in through
// CoordinatorOptions::router.
//
// Thread safety: Route may be called for several queries at once.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "shoal/common/result.h"

namespace shoal::distributed {

/// One task to place.
struct TaskPlacement {
  std::string query_id;
  int stage_id = 0;
  int task_number = 0;
  int task_count = 1;
  /// Position of the task among all the query's tasks, in planning order (0, 1, 2, ...).
  size_t ordinal = 0;
  /// A per-query counter from the coordinator (0 for its first query, 1 for the next, ...).
  size_t query_sequence = 0;
};

class TaskRouter {
 public:
  virtual ~TaskRouter() = default;
  /// The worker (one of `workers`, never empty) that runs the task.
  virtual Result<std::string> Route(const TaskPlacement& task,
                                    const std::vector<std::string>& workers) = 0;
};

using TaskRouterPtr = std::shared_ptr<TaskRouter>;

/// workers[(query_sequence + ordinal) % workers.size()].
class RoundRobinTaskRouter final : public TaskRouter {
 public:
  Result<std::string> Route(const TaskPlacement& task,
                            const std::vector<std::string>& workers) override;
};

/// Routes one task through `router`, checking that the answer is one of `workers`, so a faulty
/// policy gives a clear error instead of a task sent nowhere.
Result<std::string> RouteTask(TaskRouter& router, const TaskPlacement& task,
                              const std::vector<std::string>& workers);

}  // namespace shoal::distributed
