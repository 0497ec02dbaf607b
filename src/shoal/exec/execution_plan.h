// ExecutionPlan: a node of a physical plan, the unit the engine runs and the distributed layer
// cuts into stages.
//
// Every node declares its output schema, how many output partitions it has and how rows are spread
// over them (Partitioning), and any ordering its partitions keep. Execute(partition, context)
// returns a stream of record batches for one output partition; partitions run concurrently, one
// pulling thread each. Nodes are immutable values (ExecPlanPtr, shared): all run-time state —
// hash tables, buffers, cursors, metrics — lives in the stream objects Execute creates or in
// per-execution state reached through the TaskContext, so one plan can be executed many times, by
// many tasks, at once.
//
// Expressions inside physical nodes are the SQL layer's bound expressions (sql/expr.h) with one
// difference: a kColumnRef's `column` is the position of the column in the node's input batches,
// not a ColumnId. That keeps a single, serialisable expression form from the binder to the wire;
// nodes compile their expressions into vectorized evaluators when a stream is created.
//
// Contract for implementers:
//  - Execute may be called concurrently for different partitions, and repeatedly.
//  - Streams check context->cancelled() between batches and return a Cancelled status when set.
//  - Destroying a stream early stops its work and releases its memory (RAII all the way down).
//  - Memory held across batches is reserved from the TaskContext's pool (per-operator child pools).
//  - Nothing here knows about the network: exchanges are ordinary nodes whose streams the dist
//  layer
//    supplies.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/columnar/record_batch_reader.h"
#include "shoal/sql/expr.h"

namespace shoal::exec {

class TaskContext;
class ExecutionPlan;
using ExecPlanPtr = std::shared_ptr<const ExecutionPlan>;
using RecordBatchStream = columnar::RecordBatchReader;
using StreamPtr = columnar::RecordBatchReaderPtr;

enum class PartitioningKind : uint8_t {
  kUnknown,     // rows are spread in no particular way (e.g. file splits)
  kSingle,      // exactly one partition
  kRoundRobin,  // rows dealt evenly
  kHash,        // rows with equal `keys` land in the same partition
};

struct Partitioning {
  PartitioningKind kind = PartitioningKind::kUnknown;
  int num_partitions = 1;
  std::vector<sql::ExprPtr> keys;  // kHash only; column refs are input positions

  static Partitioning Single() { return {PartitioningKind::kSingle, 1, {}}; }

  static Partitioning Unknown(int n) { return {PartitioningKind::kUnknown, n, {}}; }

  static Partitioning RoundRobin(int n) { return {PartitioningKind::kRoundRobin, n, {}}; }

  static Partitioning Hash(std::vector<sql::ExprPtr> keys, int n) {
    return {PartitioningKind::kHash, n, std::move(keys)};
  }

  std::string ToString() const;
};

class ExecutionPlan : public std::enable_shared_from_this<ExecutionPlan> {
 public:
  virtual ~ExecutionPlan() = default;

  /// Operator name as EXPLAIN prints it ("HashJoin", "Filter").
  virtual std::string_view name() const = 0;

  const columnar::SchemaPtr& schema() const { return schema_; }

  virtual std::vector<ExecPlanPtr> children() const = 0;
  /// The same node over other children (same schemas); rules and the distributed planner use it.
  virtual Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const = 0;

  virtual Partitioning output_partitioning() const = 0;

  int num_partitions() const { return output_partitioning().num_partitions; }

  /// Ordering every output partition keeps (empty: none).
  virtual std::vector<sql::SortKey> output_ordering() const { return {}; }

  virtual Result<StreamPtr> Execute(int partition,
                                    const std::shared_ptr<TaskContext>& context) const = 0;

  /// One line of EXPLAIN: the operator's parameters ("type=inner, on=[#0 = #3]"); `verbose` adds
  /// types and estimates.
  virtual std::string Describe(bool verbose) const = 0;

 protected:
  explicit ExecutionPlan(columnar::SchemaPtr schema) : schema_(std::move(schema)) {}

 private:
  columnar::SchemaPtr schema_;
};

/// The indented tree EXPLAIN prints; with a context that has run the plan, EXPLAIN ANALYZE adds
/// each node's metrics (rows, batches, time, peak memory, spilled bytes) summed over partitions,
/// and the notes registered for it, after running the registry's collectors (remote tasks).
std::string FormatExecutionPlan(const ExecutionPlan& plan, bool verbose = false,
                                const TaskContext* analyzed = nullptr);

/// Runs every partition of `plan` concurrently on the context's thread pool and collects the
/// batches in partition order. For the shell, tests and the coordinator's head stage.
Result<std::vector<columnar::RecordBatchPtr>> CollectAll(
    const ExecPlanPtr& plan, const std::shared_ptr<TaskContext>& context);

}  // namespace shoal::exec
