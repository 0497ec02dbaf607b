#include "shoal/engine/execution_modes.h"

#include <utility>

namespace shoal::engine {

void UseCoordinator(QueryRunner& runner,
                    const std::shared_ptr<distributed::Coordinator>& coordinator) {
  runner.SetPlanTransform(coordinator->AsPlanTransform());
}

Status UseShuffleDriver(QueryRunner& runner, distributed::shuffle::ShuffleDriverOptions options) {
  SHOAL_ASSIGN_OR_RETURN(auto driver,
                         distributed::shuffle::ShuffleDriver::Make(std::move(options)));
  runner.SetPlanTransform(driver->AsPlanTransform());
  return Status::OK();
}

}  // namespace shoal::engine
