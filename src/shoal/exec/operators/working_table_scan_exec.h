// WorkingTableScanExec: the leaf of a recursive CTE's recursive term that reads the rows the
// previous round produced (PostgreSQL's WorkTableScan). It holds no rows itself: the
// RecursiveCteExec above it (recursive_cte_exec.h) binds it to its WorkingTable when it is made
// and, each round, publishes that round's batches there for its own execution.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

/// The current round's rows of a recursive CTE, per execution. Plans are immutable and may run in
/// several executions at once, so the rows are keyed by the execution's TaskContext (as shared
/// join builds are, join/shared_build.h); the RecursiveCteExec stream that owns an entry removes
/// it when it ends, before its context can go away.
class WorkingTable {
 public:
  using Rows = std::shared_ptr<const std::vector<columnar::RecordBatchPtr>>;

  /// Publishes `rows` as `context`'s current round on behalf of stream `owner`; an Internal
  /// error when another stream of the same execution owns it (the node would run twice at once).
  Status Publish(const TaskContext* context, const void* owner, Rows rows);
  /// The current round of `context`'s execution, or null when none is running.
  Rows Current(const TaskContext* context) const;
  /// Drops `owner`'s entry for `context`.
  void Release(const TaskContext* context, const void* owner);

 private:
  struct Entry {
    const void* owner = nullptr;
    Rows rows;
  };
  mutable std::mutex mutex_;
  std::map<const TaskContext*, Entry> entries_;
};

class WorkingTableScanExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kWorkingTableScan;

  /// A scan of recursive CTE `id`'s working table; `table` is null until the RecursiveCteExec
  /// binds it (WithTable).
  static std::shared_ptr<WorkingTableScanExec> Make(columnar::SchemaPtr schema, int64_t id,
                                                    std::shared_ptr<WorkingTable> table = nullptr);

  std::string_view name() const override { return "WorkingTableScan"; }

  std::vector<ExecPlanPtr> children() const override { return {}; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;

  Partitioning output_partitioning() const override { return Partitioning::Single(); }

  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;

  int64_t id() const { return id_; }

  const std::shared_ptr<WorkingTable>& table() const { return table_; }

  /// The same scan reading `table`.
  std::shared_ptr<WorkingTableScanExec> WithTable(std::shared_ptr<WorkingTable> table) const {
    return Make(schema(), id_, std::move(table));
  }

 private:
  WorkingTableScanExec(columnar::SchemaPtr schema, int64_t id, std::shared_ptr<WorkingTable> table)
      : ExecutionPlan(kKind, std::move(schema)), id_(id), table_(std::move(table)) {}

  int64_t id_;
  std::shared_ptr<WorkingTable> table_;
};

}  // namespace shoal::exec
