// WorkerHealth: which of its workers a coordinator may use right now. The resolver says which
// workers exist (worker_resolver.h); this says which of them answer. Before a query is planned,
// every worker not in quarantine is health-checked (GetWorkerInfo, well under a millisecond on a
// live connection): one that does not answer is quarantined, with a warning, and the query is
// planned on the others, so the task router never places a task on a worker known dead. The
// check also re-establishes a connection a worker restart broke: the gRPC transport tries a
// GetWorkerInfo that failed on a connection that looked ready once more (grpc_worker_channel.cc),
// so a restarted worker is in use in the very next query, before any of its tasks was sent.
//
// Quarantined workers are checked again by a background thread, each `quarantine` after its last
// failed check, and come back into use as soon as they answer; queries never wait for an address
// that does not answer (a connect timeout), unless no worker at all answers: then every worker is
// checked before the query fails.
//
// The check is a GetWorkerInfo on the streaming channel by default; the materialized shuffle's
// driver (shuffle/shuffle_driver.h) gives its own (a ping of the shuffle service) when it has no
// coordinator to share one with, and asks CheckNow() about the workers a failed task points at.
//
// A version mismatch is not a health matter: it is reported as an error (the operator must run the
// same binary everywhere), not skipped.
//
// Thread safety: every method may be called from many threads at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/distributed/transport/worker_channel.h"

namespace shoal::distributed {

struct WorkerHealthOptions {
  /// How long after a failed check a quarantined worker is checked again.
  std::chrono::milliseconds quarantine{2000};
  /// How long a worker that failed a query (Penalize) stays out of use, even if it answers checks
  /// meanwhile: a worker that froze or crashed once is likely to again (a swapping host, a
  /// flapping link), and a retry must not land on it the moment it answers a ping.
  std::chrono::milliseconds failure_quarantine{30000};
  /// The version workers must report (empty: not checked).
  std::string version;
};

class WorkerHealth {
 public:
  /// One health check of `worker`: OK, InvalidArgument for a worker that must not be used at all
  /// (reported, not skipped), any other error for one that does not answer.
  using Check = std::function<Status(const std::string& worker)>;

  WorkerHealth(ChannelResolverPtr channels, const WorkerHealthOptions& options);
  WorkerHealth(Check check, WorkerHealthOptions options);
  /// Stops the background checks (waits for one in flight).
  ~WorkerHealth();

  WorkerHealth(const WorkerHealth&) = delete;
  WorkerHealth& operator=(const WorkerHealth&) = delete;

  /// The workers of `workers` (in their order) that are not quarantined and answered a health
  /// check now; those that did not are quarantined, with a warning naming each and why.
  /// Unavailable naming every worker when none answers; InvalidArgument when one reports another
  /// version.
  Result<std::vector<std::string>> Usable(const std::vector<std::string>& workers);

  /// A worker that failed (lost, unreachable): skipped until it answers a check again.
  void Quarantine(const std::string& worker, const Status& why);

  /// A worker that failed a query: skipped for `failure_quarantine` whether or not it answers
  /// checks meanwhile, then checked again (Usable still falls back to it when no other worker
  /// answers: a penalty never fails a query that could run).
  void Penalize(const std::string& worker, const Status& why);

  bool IsQuarantined(const std::string& worker) const;

  /// Checks `worker` now, quarantined or not: OK (and back in use) when it answers, else why not
  /// (and quarantined).
  Status CheckNow(const std::string& worker);

 private:
  // A health check of one worker: OK, or why it cannot be used.
  Status CheckOne(const std::string& worker);
  // Checks `workers` at once; quarantines those that fail, releases those that answer.
  Result<std::vector<std::string>> CheckAll(const std::vector<std::string>& workers,
                                            std::vector<std::string>* failures);
  void Release(const std::string& worker);
  void RecheckLoop();

  Check check_;
  WorkerHealthOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  // Quarantined workers and when each is checked again.
  std::map<std::string, std::chrono::steady_clock::time_point> quarantined_;
  bool stopping_ = false;
  std::thread rechecks_;
};

}  // namespace shoal::distributed
