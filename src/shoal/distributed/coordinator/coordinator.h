// Coordinator: runs queries across workers. The engine's QueryRunner calls it in its workers mode
// (engine/execution_mode.h): each query's physical plan is cut into stages
// (distributed_planner.h), every task's plan is encoded (plan_codec.h), and the head stage stays
// local, so the shell, EXPLAIN and the result path are unchanged.
//
// Tasks are sent lazily, the first time the head pulls from an exchange (an EXPLAIN sends no
// task): one coordinator channel per task carries its plan and the session's settings. The
// channels stay open while the query's plan lives; dropping the plan closes them, which frees the
// tasks on the workers, also after an error or a cancellation; while they are open each task gets
// a heartbeat every `heartbeat_interval` (a worker drops a task only when its coordinator falls
// silent). The workers come from a resolver asked at every query (worker_resolver.h), those that
// do not answer a health check are skipped (worker_health.h), tasks are placed by a router
// (task_router.h, round-robin by default), and passthrough headers go with every call
// (passthrough_headers.h). With `dist_adaptive_task_counts` the stages are instead sent one by one
// while the query is planned, each sized from samples of its inputs' output (adaptive_dispatch.h).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "shoal/distributed/codec/table_codec.h"
#include "shoal/distributed/coordinator/task_router.h"
#include "shoal/distributed/coordinator/worker_health.h"
#include "shoal/distributed/coordinator/worker_resolver.h"
#include "shoal/distributed/transport/worker_channel.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/exec/task_context.h"

namespace shoal::distributed {

struct CoordinatorOptions {
  /// A static worker list; used when `resolver` is null.
  std::vector<std::string> workers;
  /// Asked for the workers at every query (worker_resolver.h); null: `workers`.
  WorkerResolverPtr resolver;
  /// Places tasks on workers (task_router.h); null: round-robin.
  TaskRouterPtr router;
  /// Passthrough headers sent with every call to workers (passthrough_headers.h).
  Headers headers;
  ChannelResolverPtr channels;
  /// Codecs for shipping tables; null: the built-in ones (in-memory tables inside the plan up to
  /// dist_memory_table_max_bytes, larger ones by catalog name).
  TableCodecRegistryPtr codecs;
  /// The version workers must report (empty: not checked).
  std::string version;
  /// How often each task sent hears from the coordinator while its query's plan lives (a
  /// heartbeat on its coordinator channel); a worker ends a task that heard nothing for its
  /// `--task-ttl`, so this must be well below the workers' TTLs. 0: no heartbeats.
  std::chrono::milliseconds heartbeat_interval{250};
  /// How long a worker that failed a health check is skipped (worker_health.h).
  std::chrono::milliseconds quarantine{2000};
};

class Coordinator : public std::enable_shared_from_this<Coordinator> {
 public:
  static Result<std::shared_ptr<Coordinator>> Make(CoordinatorOptions options);

  /// Resolves the workers and health-checks each (worker_health.h): those that do not answer are
  /// skipped with a warning; Unavailable naming them all when none answers, InvalidArgument for a
  /// version mismatch.
  Status CheckWorkers() const;

  /// Which workers answer (for tests and operators).
  const std::shared_ptr<WorkerHealth>& health() const { return health_; }

  /// The distributed form of `plan` (its head stage; the rest runs on the workers).
  Result<exec::ExecPlanPtr> Distribute(const exec::ExecPlanPtr& plan,
                                       const std::shared_ptr<exec::TaskContext>& context);

  const CoordinatorOptions& options() const { return options_; }

 private:
  explicit Coordinator(CoordinatorOptions options) : options_(std::move(options)) {}

  CoordinatorOptions options_;
  std::shared_ptr<WorkerHealth> health_;
  std::atomic<size_t> next_first_worker_{0};
};

}  // namespace shoal::distributed
