#include "shoal/distributed/transport/worker_channel.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

namespace shoal::distributed {

namespace {

constexpr std::string_view kWorkerWord = "worker ";
constexpr std::string_view kUnreachableWords = " is unreachable";

}  // namespace

std::string TaskKey::ToString() const {
  return fmt::format("stage {} task {}", stage_id, task_number);
}

Status UnreachableWorkerError(const std::string& address, const std::string& why) {
  return Status::Unavailable("{}{}{}: {}", kWorkerWord, address, kUnreachableWords, why);
}

std::vector<std::string> UnreachableWorkers(const Status& status) {
  const std::string text = status.ToString();
  std::vector<std::string> workers;
  for (size_t at = text.find(kUnreachableWords); at != std::string::npos;
       at = text.find(kUnreachableWords, at + 1)) {
    const size_t word = text.rfind(kWorkerWord, at);
    if (word == std::string::npos || word + kWorkerWord.size() >= at)
      continue;
    const size_t start = word + kWorkerWord.size();
    std::string address = text.substr(start, at - start);
    // An address has no blanks: anything else is other words that happen to precede ours.
    if (address.empty() || address.find_first_of(" \t\n") != std::string::npos)
      continue;
    if (std::find(workers.begin(), workers.end(), address) == workers.end())
      workers.push_back(std::move(address));
  }
  return workers;
}

}  // namespace shoal::distributed
