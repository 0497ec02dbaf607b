// RecursiveCteExec: WITH RECURSIVE. Runs the non-recursive term, then runs the recursive term
// again and again, each round over the rows the previous round produced (its
// WorkingTableScanExec leaves read them), until a round produces no row; the output is every
// round's rows in order, streamed as they come (so a LIMIT above stops an endless recursion, as
// in PostgreSQL). UNION (not ALL) drops each row already produced, in this round or an earlier
// one, with a Grouper over all columns (NULLs equal, as in PostgreSQL's UNION).
//
// One output partition; each term runs as one partition (its partitions are coalesced). The
// subtree is kept whole by the distributed planners (keeps_subtree_whole): the recursive term is
// re-run every round, which a stage boundary inside it could not do.
//
// Memory: the rows of the round being read and of the round being produced are held (charged to
// the pools of the operators that produced them), and UNION's set of rows is reserved in this
// operator's pool, so a recursion that grows without end fails with OutOfMemory (53200) at the
// query's memory_limit; cancellation is checked between batches and rounds.
#pragma once

#include <memory>
#include <vector>

#include "shoal/exec/execution_plan.h"
#include "shoal/exec/operators/working_table_scan_exec.h"

namespace shoal::exec {

class RecursiveCteExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kRecursiveCte;

  /// `id` names the working table the recursive term's WorkingTableScanExec leaves read; they
  /// are bound to this node's working table here. `all`: UNION ALL.
  static Result<std::shared_ptr<RecursiveCteExec>> Make(ExecPlanPtr non_recursive,
                                                        ExecPlanPtr recursive, bool all,
                                                        int64_t id);

  std::string_view name() const override { return "RecursiveCte"; }

  std::vector<ExecPlanPtr> children() const override { return {non_recursive_, recursive_}; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;

  Partitioning output_partitioning() const override { return Partitioning::Single(); }

  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;

  DistributionTraits distribution() const override { return {.keeps_subtree_whole = true}; }

  const ExecPlanPtr& non_recursive() const { return non_recursive_; }
  const ExecPlanPtr& recursive() const { return recursive_; }
  bool all() const { return all_; }
  int64_t id() const { return id_; }
  const std::shared_ptr<WorkingTable>& working_table() const { return table_; }

 private:
  RecursiveCteExec(columnar::SchemaPtr schema, ExecPlanPtr non_recursive, ExecPlanPtr recursive,
                   bool all, int64_t id, std::shared_ptr<WorkingTable> table)
      : ExecutionPlan(kKind, std::move(schema)),
        non_recursive_(std::move(non_recursive)),
        recursive_(std::move(recursive)),
        all_(all),
        id_(id),
        table_(std::move(table)) {}

  ExecPlanPtr non_recursive_;
  ExecPlanPtr recursive_;
  bool all_;
  int64_t id_;
  std::shared_ptr<WorkingTable> table_;
};

}  // namespace shoal::exec
