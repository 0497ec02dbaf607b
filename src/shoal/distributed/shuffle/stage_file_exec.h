// StageFileExec: the node a materialized shuffle (issue 7) puts at every shuffle point. It is both
// halves of the exchange, so that one encoded plan serves the task processes that write the stage
// and the nodes (a later stage's tasks, the driver) that read it.
//
// Two kinds of stage:
//  - a hash stage replaces a hash Repartition. It is written by map tasks (map_output.h), as
//    Spark's shuffle map tasks write theirs: map task m of M runs the child's partitions
//    [m*K/M, (m+1)*K/M) (K = the child's partitions, each of them read by exactly one map task,
//    so the stage's input is read once), routes every row to hash partition p (the hash of
//    RepartitionExec) and writes all N partitions, then commits them (RunTask). Reading partition
//    p reads p's file of every map task's committed attempt, in map order, local or fetched from
//    the worker that ran the map (Execute). M is K when the child's partitions can each run in a
//    process of their own (the planner decides), else 1;
//  - a passthrough stage sits below a coalesce point (CoalescePartitions, SortPreservingMerge): its
//    partition p is the child's partition p, ordering kept, and its task p serves partition p: it
//    reads DIR/stage-<id>-part-<p>.arrow when that file exists, and otherwise computes the
//    partition from its child and writes the file while passing the batches on.
//
// Files are Arrow IPC streams (body compression per `shuffle_compression`), written batch by batch
// (a partition is never held in memory) to temporary dot names (pid + random, and the attempt for
// map outputs, never matching a published file's pattern) and published by an atomic rename once
// complete: a reader sees a whole file or none, so a task killed mid-write leaves only temporaries
// that nothing reads. A passthrough stream dropped before its end (a LIMIT above) removes its
// temporary and publishes nothing. On read, a file's schema must equal the stage's (names and
// types); a mismatch names the file and both schemas.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "shoal/exec/execution_plan.h"

namespace shoal::distributed::shuffle {

/// DIR/stage-<id>-part-<p>.arrow (a passthrough stage's partition)
std::string StageFilePath(const std::string& dir, int stage_id, int partition);
/// Whether `name` (a file name, no directory) is a published stage file: a passthrough stage's
/// partition, a map task's partition file (committed or not) or a fetched copy of one.
bool IsStageFileName(std::string_view name);
/// Whether `name` is a stage writer's temporary (left behind by a killed writer).
bool IsStageTemporaryName(std::string_view name);

class StageFileExec final : public exec::ExecutionPlan {
 public:
  static constexpr exec::PlanKind kKind = exec::PlanKind::kStageFile;
  /// A bound on a decoded plan's map tasks (each is a process and N files).
  static constexpr int kMaxMapTasks = 1 << 16;

  /// A hash stage (`partitioning` kHash, keys over the child's columns) written by `map_tasks`
  /// map tasks or, for any other partitioning, a passthrough stage over the child's partitions
  /// (`map_tasks` ignored). `compression`: none, lz4, zstd.
  static Result<std::shared_ptr<StageFileExec>> Make(exec::ExecPlanPtr child, std::string dir,
                                                     int stage_id, exec::Partitioning partitioning,
                                                     std::string compression, int map_tasks = 1);

  std::string_view name() const override { return "ShuffleStage"; }

  std::vector<exec::ExecPlanPtr> children() const override { return {child_}; }

  Result<exec::ExecPlanPtr> WithNewChildren(std::vector<exec::ExecPlanPtr> children) const override;

  exec::Partitioning output_partitioning() const override { return partitioning_; }

  std::vector<sql::SortKey> output_ordering() const override;

  Result<exec::StreamPtr> Execute(int partition,
                                  const std::shared_ptr<exec::TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;

  const std::string& dir() const { return dir_; }

  int stage_id() const { return stage_id_; }

  bool hash_stage() const { return partitioning_.kind == exec::PartitioningKind::kHash; }

  const std::string& compression() const { return compression_; }

  const exec::ExecPlanPtr& child() const { return child_; }

  std::string FilePath(int partition) const { return StageFilePath(dir_, stage_id_, partition); }

  /// The map tasks of a hash stage.
  int map_tasks() const { return map_tasks_; }

  /// The tasks that write the stage: its map tasks (hash) or one per partition (passthrough).
  int num_tasks() const { return hash_stage() ? map_tasks_ : num_partitions(); }

  /// Runs task `task` (attempt `attempt`, which names a map task's files): writes and commits its
  /// output. Returns the rows written. `observe` (when set) sees every batch of the output (the
  /// runtime filters a task forms from it: stage_runtime_filters.h).
  using BatchObserver = std::function<Status(const columnar::RecordBatch&)>;
  Result<int64_t> RunTask(int task, int attempt, const std::shared_ptr<exec::TaskContext>& context,
                          const BatchObserver& observe = nullptr) const;

  /// The rows of task `task`'s committed output in this directory; nullopt when it has none.
  Result<std::optional<int64_t>> CommittedTaskRows(int task) const;

 private:
  StageFileExec(exec::ExecPlanPtr child, std::string dir, int stage_id,
                exec::Partitioning partitioning, std::string compression, int map_tasks)
      : ExecutionPlan(kKind, child->schema()),
        child_(std::move(child)),
        dir_(std::move(dir)),
        stage_id_(stage_id),
        partitioning_(std::move(partitioning)),
        compression_(std::move(compression)),
        map_tasks_(map_tasks) {}

  Result<exec::StreamPtr> OpenFile(int partition,
                                   const std::shared_ptr<exec::TaskContext>& context) const;
  Result<exec::StreamPtr> Compute(int partition,
                                  const std::shared_ptr<exec::TaskContext>& context) const;
  Result<exec::StreamPtr> OpenMapOutputs(int partition,
                                         const std::shared_ptr<exec::TaskContext>& context) const;
  /// The file holding partition `partition` of map task `map`'s committed output (fetched first
  /// when the map ran on another worker); empty when the commit says it has no rows.
  Result<std::string> LocateMapOutput(int map, int partition) const;
  Result<int64_t> RunMap(int map, int attempt, const std::shared_ptr<exec::TaskContext>& context,
                         const BatchObserver& observe) const;

  exec::ExecPlanPtr child_;
  std::string dir_;
  int stage_id_;
  exec::Partitioning partitioning_;
  std::string compression_;
  int map_tasks_;
};

}  // namespace shoal::distributed::shuffle
