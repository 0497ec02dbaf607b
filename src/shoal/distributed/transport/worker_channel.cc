#include "shoal/distributed/transport/worker_channel.h"

#include <fmt/format.h>

namespace shoal::distributed {

std::string TaskKey::ToString() const {
  return fmt::format("stage {} task {}", stage_id, task_number);
}

}  // namespace shoal::distributed
