// StageFileExec: the node a materialized shuffle (issue 7) puts at every shuffle point. It is both
// halves of the exchange: serving partition p of stage <id>, it reads DIR/stage-<id>-part-<p>.arrow
// when that file exists, and otherwise computes the partition from its child and writes the file
// while passing the batches on. Which half runs is decided by the filesystem, so one encoded plan
// serves the task processes that write the stage and the driver that reads it.
//
// Two kinds of stage:
//  - a hash stage replaces a hash Repartition: its partitions are the hash partitions of the
//    shuffle (same hash as RepartitionExec); computing partition p runs every partition of the
//    child and keeps the rows whose key hashes to p;
//  - a passthrough stage sits below a coalesce point (CoalescePartitions, SortPreservingMerge): its
//    partition p is the child's partition p, ordering kept.
//
// Files are Arrow IPC streams (body compression per `shuffle_compression`), written batch by batch
// (a partition is never held in memory) to a per-writer temporary name (pid + random, never
// matching the stage-file pattern) and published by an atomic rename once complete: a reader sees a
// whole file or none, so a task killed mid-write leaves only a temporary that nothing reads. A
// stream dropped before its end (a LIMIT above) removes its temporary and publishes nothing. On
// read, the file's schema must equal the stage's (names and types); a mismatch names the file and
// both schemas.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "shoal/exec/execution_plan.h"

namespace shoal::distributed::shuffle {

/// DIR/stage-<id>-part-<p>.arrow
std::string StageFilePath(const std::string& dir, int stage_id, int partition);
/// Whether `name` (a file name, no directory) is a published stage file.
bool IsStageFileName(std::string_view name);
/// Whether `name` is a stage writer's temporary (left behind by a killed writer).
bool IsStageTemporaryName(std::string_view name);

class StageFileExec final : public exec::ExecutionPlan {
 public:
  static constexpr exec::PlanKind kKind = exec::PlanKind::kStageFile;

  /// A hash stage (`partitioning` kHash, keys over the child's columns) or, for any other
  /// partitioning, a passthrough stage over the child's partitions. `compression`: none, lz4, zstd.
  static Result<std::shared_ptr<StageFileExec>> Make(exec::ExecPlanPtr child, std::string dir,
                                                     int stage_id, exec::Partitioning partitioning,
                                                     std::string compression);

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

 private:
  StageFileExec(exec::ExecPlanPtr child, std::string dir, int stage_id,
                exec::Partitioning partitioning, std::string compression)
      : ExecutionPlan(kKind, child->schema()),
        child_(std::move(child)),
        dir_(std::move(dir)),
        stage_id_(stage_id),
        partitioning_(std::move(partitioning)),
        compression_(std::move(compression)) {}

  Result<exec::StreamPtr> OpenFile(int partition,
                                   const std::shared_ptr<exec::TaskContext>& context) const;
  Result<exec::StreamPtr> Compute(int partition,
                                  const std::shared_ptr<exec::TaskContext>& context) const;

  exec::ExecPlanPtr child_;
  std::string dir_;
  int stage_id_;
  exec::Partitioning partitioning_;
  std::string compression_;
};

}  // namespace shoal::distributed::shuffle
