#include "shoal/engine/shuffle_tasks.h"

#include "shoal/distributed/shuffle/shuffle_driver.h"
#include "shoal/distributed/shuffle/shuffle_task.h"
#include "shoal/distributed/shuffle/task_launcher.h"
#include "shoal/distributed/shuffle/task_process.h"

namespace shoal::engine {

Result<int64_t> RunShuffleTask(const std::string& envelope_path) {
  return distributed::shuffle::RunShuffleTask(envelope_path);
}

int ServeShuffleTaskLauncher(int fd, const std::function<int(const std::string&)>& run_task) {
  distributed::shuffle::PrepareProcessForTasks();
  return distributed::shuffle::ServeTaskLauncher(fd, run_task);
}

std::string ShuffleTaskErrorReport(const Status& status) {
  return distributed::shuffle::TaskErrorReport(status);
}

Result<int64_t> RemoveShuffleFiles(const std::string& dir) {
  return distributed::shuffle::RemoveShuffleFiles(dir);
}

}  // namespace shoal::engine
