// HashJoinExec: equi-join of a probe input (left) and a build input (right) through a hash table
// built from the right side (join/join_hash_table.h), with an optional residual condition over the
// joined row, for every join type of sql::JoinType.
//
// Output schema: left columns then right columns for inner, left, right and full joins (the side
// that may be missing becomes nullable); only the left columns for semi, anti and null-aware anti
// joins; the left columns and a nullable boolean "mark" column for mark joins; only the right
// columns for right semi and right anti joins. The residual is a physical expression over left
// columns then right columns (positions), for every join type.
//
// Right semi and right anti joins are a semi or anti join with its sides swapped, which the
// physical planner chooses when the preserved side is the smaller: the build side's rows come out,
// each once, when some probe row matched them (semi) or when none did (anti), after the whole
// probe side; like RIGHT joins they record matches in the build table.
//
// Semantics beyond plain equality (NULL keys never match):
//  - null-aware anti (NOT IN): no rows at all when the build side has a row with a NULL in a key
//    column; probe rows with a NULL key are dropped unless the build side is empty, in which case
//    every probe row is kept. The residual only decides between rows whose keys are equal.
//  - mark: TRUE when some build row matches (keys equal, residual TRUE); otherwise NULL when the
//    build side is non-empty and either the probe row has a NULL key or some build row has one;
//    otherwise FALSE.
//
// Modes:
//  - kCollectBuild: every partition of the right input is collected into ONE hash table per
//    execution, shared by all probe partitions (how they find it: join/shared_build.h). Output
//    partitions follow the left input's. RIGHT, FULL, right semi and right anti joins record
//    matches in the shared table and the probe partition that finishes last emits the build rows
//    they choose, once.
//  - kPartitioned: probe partition i joins build partition i only (both inputs hash-partitioned
//    the same way on the join keys, so the input partition counts must be equal); each stream
//    builds and owns its table and emits its own unmatched build rows. Null-aware anti and mark
//    joins depend on the whole build side (is it empty, does it hold a NULL key) and are refused
//    in this mode (NotImplemented).
//
// Spilling (grace hash join): while the build side is collected, once holding it and its index
// would leave less than the spill headroom free (spill/memory_budget.h), every build row goes to
// one of 16 spill files by its key hash (join/build_input.h). The probe stream then writes its
// probe rows to 16 files by the same hash and joins partition by partition: a table from build
// file i, probed by probe file i, then (RIGHT, FULL) that table's unmatched rows. Whether the
// whole build side is empty or has a NULL key is recorded before partitioning, so NOT IN and mark
// joins keep their semantics. In collect-build mode every probe partition reads the shared build
// files and partitions its own probe rows; RIGHT and FULL joins there would need matched flags
// shared across probe streams and fail with OutOfMemory when they need to spill with more than
// one probe partition. A single partition that still does not fit fails with OutOfMemory naming
// the operator.
//
// Output batches hold at most batch_size rows; selective joins merge small results.
//
// Runtime join filters (join/runtime_filter.h): a collect-build join the planner chose for it
// (runtime_filter_planner.h) publishes, once its build side is complete, one filter per listed key
// column into the execution's RuntimeFilterRegistry, and opens its probe input only then, so that
// the scans below (which the planner told to apply the filters) start with the filters in place.
// A partitioned join (distributed plans only) publishes one part per partition, built from that
// partition's keys; the registry unions them (join/runtime_filter_registry.h). A spilled build
// side publishes nothing and abandons the filter, so no scan waits for it.
//
// Streams are single-threaded; the shared table is built once under a mutex and then read
// concurrently (matched flags are atomic).
#pragma once

#include "shoal/exec/execution_plan.h"
#include "shoal/sql/join_type.h"

namespace shoal::exec {

struct JoinBuildSide;
template <typename T>
class SharedBuildRegistry;

/// A runtime filter a hash join publishes: filter `id` of the build keys of join key `key`
/// (0-based), applied at `target` ("lineitem.l_partkey", for EXPLAIN).
struct JoinRuntimeFilter {
  int id = 0;
  int key = 0;
  std::string target;
};

class HashJoinExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kHashJoin;

  enum class Mode : uint8_t { kCollectBuild, kPartitioned };

  /// `left_keys[i]` (over the left input) equals `right_keys[i]` (over the right input); both
  /// lists non-empty, of equal length and pairwise of equal types (decimals of equal precision
  /// and scale). `residual` may be null.
  static Result<std::shared_ptr<HashJoinExec>> Make(ExecPlanPtr left, ExecPlanPtr right,
                                                    std::vector<sql::ExprPtr> left_keys,
                                                    std::vector<sql::ExprPtr> right_keys,
                                                    sql::JoinType join_type, sql::ExprPtr residual,
                                                    Mode mode);
  ~HashJoinExec() override;

  std::string_view name() const override { return "HashJoin"; }

  std::vector<ExecPlanPtr> children() const override { return {left_, right_}; }

  /// The probe input.
  const ExecPlanPtr& left() const { return left_; }

  /// The build input.
  const ExecPlanPtr& right() const { return right_; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;
  Partitioning output_partitioning() const override;
  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;
  /// Partitioned joins run per partition; collect-build joins broadcast their build side and run
  /// per probe partition unless they emit unmatched build rows (once, not once per task).
  DistributionTraits distribution() const override;

  sql::JoinType join_type() const { return join_type_; }

  Mode mode() const { return mode_; }

  const std::vector<sql::ExprPtr>& left_keys() const { return left_keys_; }

  const std::vector<sql::ExprPtr>& right_keys() const { return right_keys_; }

  const sql::ExprPtr& residual() const { return residual_; }

  const std::vector<JoinRuntimeFilter>& runtime_filters() const { return runtime_filters_; }

  /// The same join publishing `filters`.
  Result<std::shared_ptr<HashJoinExec>> WithRuntimeFilters(
      std::vector<JoinRuntimeFilter> filters) const;

  /// The joined row the residual sees: left fields then right fields.
  const columnar::SchemaPtr& joined_schema() const { return joined_schema_; }

 private:
  HashJoinExec(columnar::SchemaPtr schema, columnar::SchemaPtr joined_schema, ExecPlanPtr left,
               ExecPlanPtr right, std::vector<sql::ExprPtr> left_keys,
               std::vector<sql::ExprPtr> right_keys, sql::JoinType join_type, sql::ExprPtr residual,
               Mode mode);

  columnar::SchemaPtr joined_schema_;
  ExecPlanPtr left_;
  ExecPlanPtr right_;
  std::vector<sql::ExprPtr> left_keys_;
  std::vector<sql::ExprPtr> right_keys_;
  sql::JoinType join_type_;
  sql::ExprPtr residual_;
  Mode mode_;
  std::vector<JoinRuntimeFilter> runtime_filters_;
  // kCollectBuild: the shared table of each running execution.
  std::unique_ptr<SharedBuildRegistry<JoinBuildSide>> builds_;
};

}  // namespace shoal::exec
