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
//  - Nothing here knows about the network: exchanges are ordinary nodes whose streams the
//    distributed layer supplies.
//
// Node kinds. Every concrete node class has one PlanKind value, set once at construction and
// declared by the class as `static constexpr PlanKind kKind`. Code that must know which operator it
// holds asks `node.Is<HashJoinExec>()`, `node.TryAs<HashJoinExec>()` (null on another kind) or
// `node.As<HashJoinExec>()` (a wrong kind is a bug: it aborts naming both kinds), never
// dynamic_cast. The enum is the one list of node kinds, including the nodes the distributed layer
// defines, so a new operator is added here, in its class, in its codec entry
// (distributed/codec/node_codec.h) and in its tests, and a switch over PlanKind shows every place
// that must learn about it.
//
// Distribution properties. What an operator means when the distributed planner cuts a plan into
// stages is answered by the operator itself (distribution(), WithRowLimit()), so the planners ask
// the node instead of recognising classes.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/columnar/record_batch_reader.h"
#include "shoal/common/check.h"
#include "shoal/sql/expr.h"

namespace shoal::exec {

class TaskContext;
class ExecutionPlan;
using ExecPlanPtr = std::shared_ptr<const ExecutionPlan>;
using RecordBatchStream = columnar::RecordBatchReader;
using StreamPtr = columnar::RecordBatchReaderPtr;

/// One value per concrete ExecutionPlan class (see the header comment); kLast is the count.
enum class PlanKind : uint8_t {
  // exec/operators
  kTableScan,
  kValues,
  kFilter,
  kProjection,
  kHashAggregate,
  kHashJoin,
  kNestedLoopJoin,
  kSort,
  kSortPreservingMerge,
  kLimit,
  kRepartition,
  kCoalescePartitions,
  kUnion,
  kWindow,
  kExpand,
  kTableFunction,
  kRecursiveCte,
  kWorkingTableScan,
  kUnnest,
  kSharedResult,
  // distributed/
  kNetworkExchange,   // planner/network_exchange_exec.h
  kWorkUnitFeedScan,  // feeds/work_unit_feed_scan_exec.h
  kLoadSample,        // adaptive/load_sampler.cc (a task plan replaying its sample)
  kStageFile,         // shuffle/stage_file_exec.h
  kShuffleQuery,      // shuffle/shuffle_query_exec.h
  kLast = kShuffleQuery,
};

/// The class name of a kind ("HashJoinExec"), for messages and debugging (EXPLAIN prints name()).
std::string_view PlanKindName(PlanKind kind);

/// What the distributed planner does with a node when it cuts the plan into stages.
enum class StageBoundary : uint8_t {
  kNone,
  /// The node becomes a shuffle: its input runs as a producer stage whose rows are spread over
  /// the consumer's tasks by the node's output partitioning (RepartitionExec).
  kShuffle,
  /// Every input becomes a producer stage whose partitions all flow to the one task running this
  /// node (CoalescePartitionsExec, SortPreservingMergeExec).
  kCoalesce,
  /// Input 1, the side collected whole by every partition (a join's build side), becomes a
  /// producer stage replicated to every consumer task (HashJoinExec in collect-build mode,
  /// NestedLoopJoinExec).
  kBroadcastBuild,
  /// The node's input, which several parents read (the same node under each: SharedResultExec),
  /// becomes one producer stage run once as one task whose output its workers keep; each parent
  /// reads every partition of it, in order, so the input's partitioning holds above.
  kShared,
};

/// A node's answers to the questions the distributed planners ask (distributed/planner,
/// distributed/shuffle). Each describes this node only; the planners combine them over subtrees.
struct DistributionTraits {
  /// Gives the same rows, in total, when its input partitions are split across tasks that each
  /// run a copy of it (a filter, a partial aggregate, a join whose build side every task has).
  /// A stage runs as several tasks only when every node of it is partition-wise.
  bool partition_wise = false;
  StageBoundary boundary = StageBoundary::kNone;
  /// Its rows come from outside the plan (a table, another stage, a feed): a subtree without such
  /// a node (VALUES) produces the same rows anywhere and is never cut out into a stage of its own.
  /// Such nodes are the leaves of a stage for metrics and sampling.
  bool reads_outside_plan = false;
  /// Emits at most one row per partition whatever its input (an aggregation without keys), so its
  /// stage's output is sized at nothing.
  bool at_most_one_row = false;
  /// Different tasks of a stage may run different inputs of it (UNION ALL splits its inputs
  /// between tasks instead of splitting each input).
  bool splits_inputs_across_tasks = false;
  /// Runs its children itself, several times (a recursive CTE re-runs its recursive term every
  /// round): the planners cut no stage inside it, so the whole subtree runs in its task.
  bool keeps_subtree_whole = false;
  /// >= 0: keeps only the first `row_limit` rows of its whole input (a global LIMIT, offset plus
  /// fetch), so producers below a merge under it need send no more rows than that.
  int64_t row_limit = -1;
};

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

  PlanKind kind() const { return kind_; }

  /// Whether this node is a `T` (T declares `static constexpr PlanKind kKind`).
  template <typename T>
  bool Is() const {
    return kind_ == T::kKind;
  }

  /// This node as a `T`, or null when it is another kind.
  template <typename T>
  const T* TryAs() const {
    return Is<T>() ? static_cast<const T*>(this) : nullptr;
  }

  /// This node as a `T`; a node of another kind is a bug and aborts naming both kinds.
  template <typename T>
  const T& As() const {
    SHOAL_CHECK(Is<T>(), "plan node {} ({}) used as a {}", PlanKindName(kind_), name(),
                PlanKindName(T::kKind));
    return static_cast<const T&>(*this);
  }

  /// What this node means for distribution (DistributionTraits); the default answers "nothing
  /// special, not partition-wise", the safe answer for an operator that has not thought about it.
  virtual DistributionTraits distribution() const { return {}; }

  /// This node made to emit at most `rows` rows per partition by itself (a sort becomes a top-k,
  /// a tighter local limit stays as it is), or null when it cannot absorb a limit: the planner then
  /// puts a local LimitExec above it.
  virtual Result<ExecPlanPtr> WithRowLimit(int64_t rows) const;

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
  ExecutionPlan(PlanKind kind, columnar::SchemaPtr schema)
      : kind_(kind), schema_(std::move(schema)) {}

 private:
  PlanKind kind_;
  columnar::SchemaPtr schema_;
};

/// The indented tree EXPLAIN prints; with a context that has run the plan, EXPLAIN ANALYZE adds
/// each node's metrics (rows, batches, time, peak memory, spilled bytes) summed over partitions,
/// and the notes registered for it, after running the registry's collectors (remote tasks).
/// `plan` as a `T` when it is one, else null (the shared-pointer form of ExecutionPlan::TryAs).
template <typename T>
std::shared_ptr<const T> PlanAs(const ExecPlanPtr& plan) {
  if (plan == nullptr || !plan->Is<T>())
    return nullptr;
  return std::static_pointer_cast<const T>(plan);
}

std::string FormatExecutionPlan(const ExecutionPlan& plan, bool verbose = false,
                                const TaskContext* analyzed = nullptr);

/// Runs every partition of `plan` concurrently on the context's thread pool and collects the
/// batches in partition order. For the shell, tests and the coordinator's head stage.
Result<std::vector<columnar::RecordBatchPtr>> CollectAll(
    const ExecPlanPtr& plan, const std::shared_ptr<TaskContext>& context);

}  // namespace shoal::exec
