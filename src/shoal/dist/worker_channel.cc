#include "shoal/dist/worker_channel.h"

#include <fmt/format.h>

namespace shoal::dist {

std::string TaskKey::ToString() const {
  return fmt::format("stage {} task {}", stage_id, task_number);
}

}  // namespace shoal::dist
