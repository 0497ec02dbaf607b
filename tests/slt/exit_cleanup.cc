#include "tests/slt/exit_cleanup.h"

#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <signal.h>
#include <unistd.h>

namespace shoal::slt {
namespace {

struct Registry {
  std::mutex mutex;
  int next_id = 0;
  std::map<int, std::function<void()>> cleanups;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: the signal thread may use it
  return *registry;
}

sigset_t StopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  return signals;
}

}  // namespace

void InstallSignalCleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    sigset_t signals = StopSignals();
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    std::thread([signals] {
      int signal = 0;
      if (sigwait(&signals, &signal) != 0)
        return;
      RunExitCleanups();
      ::_exit(128 + signal);
    }).detach();
  });
}

int AddExitCleanup(std::function<void()> cleanup) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  const int id = registry.next_id++;
  registry.cleanups.emplace(id, std::move(cleanup));
  return id;
}

void RunAndRemoveExitCleanup(int id) {
  std::function<void()> cleanup;
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    auto it = registry.cleanups.find(id);
    if (it == registry.cleanups.end())
      return;
    cleanup = std::move(it->second);
    registry.cleanups.erase(it);
  }
  cleanup();
}

void RunExitCleanups() {
  std::vector<std::function<void()>> cleanups;
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    for (auto it = registry.cleanups.rbegin(); it != registry.cleanups.rend(); ++it)
      cleanups.push_back(std::move(it->second));
    registry.cleanups.clear();
  }
  for (auto& cleanup : cleanups)
    cleanup();
}

}  // namespace shoal::slt
