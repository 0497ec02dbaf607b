#include "shoal/engine/query_retry.h"

#include <fmt/format.h>

#include "shoal/common/prometheus_registry.h"
#include "shoal/distributed/coordinator/worker_health.h"
#include "shoal/distributed/transport/worker_channel.h"

namespace shoal::engine {

QueryRetry::QueryRetry(const Settings& settings, ExecutionMode::Kind mode,
                       std::shared_ptr<distributed::WorkerHealth> health)
    : enabled_(mode == ExecutionMode::Kind::kWorkers &&
               settings.GetString("retry_policy") == "query"),
      attempts_(static_cast<int>(settings.GetInt("query_retry_attempts"))),
      health_(std::move(health)) {}

bool QueryRetry::Again(const Status& error, int attempt, std::vector<std::string>* notices,
                       bool cancelled_here) const {
  // Unavailable is what a lost worker gives (transport_errors: a closed stream, a refused
  // connection); every deterministic error has another code, and a cancel is kCancelled: retried
  // only when this side did not ask for it.
  const bool lost = error.code() == StatusCode::kUnavailable ||
                    (error.code() == StatusCode::kCancelled && !cancelled_here);
  if (!enabled_ || attempt >= attempts_ || !lost)
    return false;
  if (health_) {
    for (const std::string& worker : distributed::UnreachableWorkers(error))
      health_->Penalize(worker, error);
  }
  std::string why = error.UserMessage();
  if (const size_t end = why.find('\n'); end != std::string::npos)
    why.resize(end);
  notices->push_back(fmt::format(
      "a worker failed before any row was sent ({}); running the query again on the workers "
      "that answer (retry_policy = query, attempt {} of {})",
      why, attempt + 1, attempts_));
  // NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): a counter is mutable
  static Counter& retries = ProcessMetrics().GetCounter(
      "shoal_query_retries_total", "Queries run again after a lost worker (retry_policy = query).");
  retries.Add();
  return true;
}

}  // namespace shoal::engine
