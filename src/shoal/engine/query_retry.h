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
// error as before. `retry_policy = task` is not this class's: under it a query on workers runs as
// a materialized shuffle on them (execution_mode.h), whose driver re-runs failed tasks and
// recomputes a lost worker's outputs (distributed/shuffle/shuffle_driver.h).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/common/settings.h"
#include "shoal/common/status.h"
#include "shoal/engine/execution_mode.h"

namespace shoal::distributed {
class WorkerHealth;
}

namespace shoal::engine {

class QueryRetry {
 public:
  /// The policy of a session's `settings` for queries running in `mode`. A retry penalizes the
  /// workers the error says are unreachable in `health` (the coordinator's; may be null), so that
  /// the next attempt does not land on a worker that froze a moment ago and answers again now.
  QueryRetry(const Settings& settings, ExecutionMode::Kind mode,
             std::shared_ptr<distributed::WorkerHealth> health = nullptr);

  /// Whether a query whose attempt `attempt` (from 1) failed with `error` runs again; when it
  /// does, the NOTICE for the client is appended to `notices`. `cancelled_here`: the attempt's
  /// own context was cancelled (by its user, a statement timeout or the session). A cancellation
  /// error without it came from a worker whose task something else stopped: when one consumer
  /// of a task loses a frozen peer and drops its stream, the task stops and its other consumers
  /// read "canceling statement" — a lost worker's symptom, retried like one.
  bool Again(const Status& error, int attempt, std::vector<std::string>* notices,
             bool cancelled_here = true) const;

  /// Calls `attempt_fn` (an attempt of the query, from its planning on) until it succeeds or
  /// Again() says no, counting the attempts in `*attempt` (the number of the first call on entry)
  /// and appending a NOTICE per retry. A lost worker can fail an attempt while it is planned or
  /// while its tasks are being sent, not only while its rows are pulled: those are retried too.
  template <typename T>
  Result<T> Run(const std::function<Result<T>()>& attempt_fn, int* attempt,
                std::vector<std::string>* notices) const {
    for (;; ++*attempt) {
      Result<T> result = attempt_fn();
      if (result.ok() || !Again(result.status(), *attempt, notices))
        return result;
    }
  }

 private:
  bool enabled_ = false;
  int attempts_ = 1;
  std::shared_ptr<distributed::WorkerHealth> health_;
};

}  // namespace shoal::engine
