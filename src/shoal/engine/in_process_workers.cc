#include "shoal/engine/in_process_workers.h"

#include <charconv>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/distributed/transport/passthrough_headers.h"
#include "shoal/distributed/worker/worker_service.h"

namespace shoal::engine {

namespace {

constexpr std::string_view kPrefix = "inproc:";

}  // namespace

bool IsInProcessWorkers(const std::string& workers) {
  return workers.rfind(kPrefix, 0) == 0;
}

Result<std::shared_ptr<distributed::Coordinator>> StartInProcessWorkers(
    const WorkerConnection& connection, std::shared_ptr<const sql::Catalog> catalog) {
  const std::string_view count = std::string_view(connection.workers).substr(kPrefix.size());
  int n = 0;
  auto parsed = std::from_chars(count.data(), count.data() + count.size(), n);
  if (parsed.ec != std::errc() || parsed.ptr != count.data() + count.size() || n < 1 ||
      n > kMaxInProcessWorkers)
    return Status::InvalidArgument("--workers {}: expected inproc:N with N from 1 to {}",
                                   connection.workers, kMaxInProcessWorkers)
        .WithHint("e.g. --workers inproc:4 runs queries across 4 workers inside this process");
  // In-process workers report the coordinator's expected version, or a fixed one when unchecked.
  const std::string version =
      connection.worker_version.empty() ? "inproc" : connection.worker_version;
  auto cluster = distributed::InProcessCluster::Make();
  std::vector<std::string> addresses;
  for (int i = 0; i < n; ++i) {
    distributed::WorkerServiceOptions options;
    options.address = fmt::format("inproc-{}", i + 1);
    options.version = version;
    options.catalog = catalog;
    addresses.push_back(options.address);
    SHOAL_RETURN_IF_ERROR(cluster->AddWorker(std::move(options)));
  }
  distributed::CoordinatorOptions options;
  options.workers = std::move(addresses);
  for (const auto& header : connection.headers)
    SHOAL_RETURN_IF_ERROR(distributed::ParseHeader(header, &options.headers));
  options.channels = cluster;
  options.version = version;
  return distributed::Coordinator::Make(std::move(options));
}

}  // namespace shoal::engine
