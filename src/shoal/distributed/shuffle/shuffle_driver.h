// ShuffleDriver: runs a query in materialized-shuffle mode (issue 7). The engine's QueryRunner
// calls it in its shuffle mode (engine/execution_mode.h): with `shuffle_dir` set, the physical
// plan is cut into stages (materialized_planner.h) and wrapped in a node that, the first time the
// plan is executed (never for a plain EXPLAIN):
//  1. works in a fresh directory per query, `shuffle_dir`/q-<id>/ (a stage reads a file it finds,
//     so old files would silently become this query's answer), removed when the query ends,
//     whether it succeeded or failed (its tasks' errors are in the query's error);
//  2. encodes every stage with the session's codecs (DIR/tasks/stage-<id>.plan; the directory is
//     inside the encoded stage nodes) and writes one envelope per (stage, partition);
//  3. runs `shoal task ENVELOPE` processes (the same binary, forked by the driver's task launcher:
//     task_launcher.h), stage levels in dependency order and the tasks of a level concurrently
//     (`shuffle_max_concurrent_tasks`), each in its own process group and killed if the driver
//     dies; reads each task's row count from the last line of its stdout; retries a failed or
//     killed task up to `shuffle_task_retries` times (a task whose output is committed is not run
//     again: publishing by rename makes that safe); collects every failure of a level before
//     reporting them together; kills every task still running on an error or a cancellation
//     (Ctrl-C), so no task outlives the query;
//  4. then runs the plan itself: every stage file exists, so the stage nodes only read.
// With `workers` (shoal sql --shuffle-workers, or the session's workers under retry_policy =
// task), step 3 sends the tasks to `shoal worker --shuffle-dir`s over gRPC instead
// (stage_file_service.h): round robin over the workers that answer a health check
// (coordinator/worker_health.h), the location and committed attempt of every finished task's
// output recorded and shipped in later envelopes; stage nodes fetch the files they do not have
// (stage_file_client.h), and the driver fetches the final stages' files itself before it reads
// them. A task that failed with a retryable error (transport, I/O, memory, a killed process) runs
// again on another worker, never on the one it failed on; the driver then checks that worker and
// the workers holding the task's inputs, and one that does not answer is lost: quarantined, and
// every output it had committed is forgotten and computed again from its inputs on the other
// workers (lineage), stage by stage as far down as a lost output is still needed, before the
// failed task runs again. A query has its files removed from the workers when its plan is
// released (a failed one, also the directories of its failed attempts, at once).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/common/settings.h"
#include "shoal/distributed/codec/table_codec.h"
#include "shoal/distributed/coordinator/worker_health.h"
#include "shoal/distributed/shuffle/materialized_planner.h"
#include "shoal/distributed/shuffle/shuffle_query_exec.h"
#include "shoal/distributed/shuffle/task_launcher.h"
#include "shoal/exec/task_context.h"

namespace shoal::distributed::shuffle {

struct ShuffleDriverOptions {
  /// Scale factor of the in-memory TPC-H tables of the session (`shoal sql --tpch`), regenerated
  /// by every task; empty: none.
  std::string tpch_scale;
  /// The `shoal` binary tasks run (`shoal task ENVELOPE`).
  std::string executable = "/proc/self/exe";
  /// The session's codecs; null: the built-in ones.
  TableCodecRegistryPtr codecs;
  /// `shoal worker --shuffle-dir` HOST:PORTs: tasks run there (round robin, a retry on the next
  /// worker) and stage nodes fetch the files from the worker that wrote them. Empty: tasks are
  /// local processes sharing the driver's directory.
  std::vector<std::string> workers;
  /// Asked for the workers at every query instead of `workers` when set (a `--workers` session
  /// under retry_policy = task: its coordinator's resolver).
  std::function<Result<std::vector<std::string>>()> resolve_workers;
  /// Which workers answer (shared with the session's coordinator under retry_policy = task); null
  /// with workers: the driver's own, checking a worker by pinging its shuffle service.
  std::shared_ptr<WorkerHealth> health;
  /// When the session's `shuffle_dir` is empty, keep the driver's files in a directory of its own
  /// (created 0700 under $TMPDIR at the first query, removed with the driver) instead of running
  /// the query locally: retry_policy = task needs no setting but the policy.
  bool private_dir = false;
  /// Local tasks are forked by one launcher process per driver (task_launcher.h) instead of each
  /// exec'ing the binary (about 46 ms of loading apiece); false: every task is exec'd, as before.
  bool task_launcher = true;
  /// Test hook: called with the round's number after each round of tasks (a stage level, or the
  /// recomputation of lost outputs) that lost no worker.
  std::function<void(int round)> after_round;
};

/// Refuses `dir` when it holds files matching the stage-file pattern (other files are fine; a
/// directory that does not exist holds none).
Status RequireNoStageOutput(const std::string& dir);

/// The file that marks a directory as Shoal's shuffle directory (a session's or worker's, and each
/// query's q-<id>/ in it): `shoal shuffle gc` removes nothing from a directory without it.
inline constexpr const char* kShuffleDirMarker = ".shoal-shuffle";

/// Creates `dir` if needed and puts the marker in it.
Status MarkShuffleDir(const std::string& dir);
bool IsMarkedShuffleDir(const std::string& dir);

/// `shoal shuffle gc`: removes the per-query directories q-<hex>/ (each carrying the marker) from
/// `dir`, a marked shuffle directory; refuses any other directory. Returns how many files were
/// removed; nothing else in `dir` is touched.
Result<int64_t> RemoveShuffleFiles(const std::string& dir);

class ShuffleDriver : public std::enable_shared_from_this<ShuffleDriver> {
 public:
  static Result<std::shared_ptr<ShuffleDriver>> Make(ShuffleDriverOptions options);

  /// Whether Transform stages plans under `settings` (a `shuffle_dir`, or a private directory),
  /// so that each partition of a stage runs in a task process of its own.
  bool Stages(const Settings& settings) const;

  /// `plan` unchanged when the context's `shuffle_dir` is empty; otherwise its staged form,
  /// wrapped in the node that runs the tasks on first execution.
  Result<exec::ExecPlanPtr> Transform(const exec::ExecPlanPtr& plan,
                                      const std::shared_ptr<exec::TaskContext>& context);

  /// Steps 1-3 above for `plan` (already cut); fills `reports` in the order tasks finished.
  Status RunStages(const MaterializedPlan& plan, const std::string& dir,
                   const std::shared_ptr<exec::TaskContext>& context,
                   std::vector<ShuffleTaskReport>* reports) const;

  const ShuffleDriverOptions& options() const { return options_; }

  ~ShuffleDriver();

 private:
  explicit ShuffleDriver(ShuffleDriverOptions options) : options_(std::move(options)) {}

  /// The session directory for queries when `shuffle_dir` is empty (private_dir).
  Result<std::string> PrivateDir();

  ShuffleDriverOptions options_;
  // The health of `workers` when no coordinator shares its own (made at the first query).
  mutable std::mutex health_mutex_;
  mutable std::shared_ptr<WorkerHealth> own_health_;
  std::mutex private_dir_mutex_;
  std::string private_dir_;
  // The fork server of local tasks, started at the first one (task_launcher.h).
  mutable SharedTaskLauncher launcher_;
};

}  // namespace shoal::distributed::shuffle
