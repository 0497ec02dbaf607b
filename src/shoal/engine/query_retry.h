// QueryRetry: the `retry_policy = query` rule of a session (issue 16, after Trino's policy of the
// same name). A query on workers that fails because a worker was lost (a transport failure:
// Unavailable, "worker ... is unreachable", a stream a killed process closed) before any of its
// rows reached the client is planned again and runs again, on the workers that answer then: the
// coordinator health-checks every worker before planning (distributed/coordinator/
// worker_health.h), so the lost one is skipped. The client sees a NOTICE per retry, not an error.
//
// What is never retried: errors every attempt would repeat (SQL errors, bad data, out-of-range,
// a memory limit), a cancelled query, a query that already handed rows to its client (the shell
// collects a whole result first, so it never has; a server streams rows, and a failure after the
// first one stands), and queries that run on one node or through the file shuffle (whose driver
// retries each task itself). `retry_policy = none`, the default, fails the query with the worker's
// error as before.
#pragma once

#include <string>
#include <vector>

#include "shoal/common/settings.h"
#include "shoal/common/status.h"
#include "shoal/engine/execution_mode.h"

namespace shoal::engine {

class QueryRetry {
 public:
  /// The policy of a session's `settings` for queries running in `mode`.
  QueryRetry(const Settings& settings, ExecutionMode::Kind mode);

  /// Whether a query whose attempt `attempt` (from 1) failed with `error` runs again; when it
  /// does, the NOTICE for the client is appended to `notices`.
  bool Again(const Status& error, int attempt, std::vector<std::string>* notices) const;

 private:
  bool enabled_ = false;
  int attempts_ = 1;
};

}  // namespace shoal::engine
