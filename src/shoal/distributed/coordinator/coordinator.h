// Coordinator: runs queries across workers. The engine's QueryRunner calls it in its workers mode
// (engine/execution_mode.h): each query's physical plan is cut into stages
// (distributed_planner.h), every task's plan is encoded (plan_codec.h), and the head stage stays
// local, so the shell, EXPLAIN and the result path are unchanged.
//
// Tasks are sent lazily, the first time the head pulls from an exchange (an EXPLAIN contacts no
// worker): one coordinator channel per task carries its plan and the session's settings. The
// channels stay open while the query's plan lives; dropping the plan closes them, which frees the
// tasks on the workers, also after an error or a cancellation. The workers come from a resolver
// asked at every query (worker_resolver.h), tasks are placed by a router (task_router.h,
// round-robin by default), and passthrough headers go with every call (passthrough_headers.h).
// With `dist_adaptive_task_counts` the stages are instead sent one by one while the query is
// planned, each sized from samples of its inputs' output (adaptive_dispatch.h).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "shoal/distributed/codec/table_codec.h"
#include "shoal/distributed/coordinator/task_router.h"
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
};

class Coordinator : public std::enable_shared_from_this<Coordinator> {
 public:
  static Result<std::shared_ptr<Coordinator>> Make(CoordinatorOptions options);

  /// Resolves the workers and asks each for its info: Unavailable naming the first unreachable
  /// worker, InvalidArgument for a version mismatch.
  Status CheckWorkers() const;

  /// The distributed form of `plan` (its head stage; the rest runs on the workers).
  Result<exec::ExecPlanPtr> Distribute(const exec::ExecPlanPtr& plan,
                                       const std::shared_ptr<exec::TaskContext>& context);

  const CoordinatorOptions& options() const { return options_; }

 private:
  explicit Coordinator(CoordinatorOptions options) : options_(std::move(options)) {}

  CoordinatorOptions options_;
  std::atomic<size_t> next_first_worker_{0};
};

}  // namespace shoal::distributed
