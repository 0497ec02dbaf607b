#include "shoal/exec/execution_plan.h"

#include <future>
#include <set>

#include "shoal/common/log_context.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/task_context.h"

namespace shoal::exec {
namespace {

std::string FormatNanos(int64_t nanos) {
  if (nanos < 1000000)
    return fmt::format("{:.3f}ms", static_cast<double>(nanos) / 1e6);
  if (nanos < 10000000000LL)
    return fmt::format("{:.1f}ms", static_cast<double>(nanos) / 1e6);
  return fmt::format("{:.2f}s", static_cast<double>(nanos) / 1e9);
}

// `printed`: the nodes printed so far. A node with several parents (a shared subplan,
// shared_subplans.h) prints its subtree and metrics at its first place only.
void FormatNode(const ExecutionPlan& plan, bool verbose, const TaskContext* analyzed, int depth,
                std::set<const ExecutionPlan*>* printed, std::string* out) {
  out->append(static_cast<size_t>(depth) * 2, ' ');
  out->append(plan.name());
  std::string description = plan.Describe(verbose);
  if (!description.empty()) {
    out->append(": ");
    out->append(description);
  }
  if (!printed->insert(&plan).second) {
    out->append(" (the same node as above, computed once)\n");
    return;
  }
  if (verbose) {
    out->append(fmt::format(" [partitions={}, schema=({})]", plan.num_partitions(),
                            plan.schema()->ToString()));
  }
  if (analyzed != nullptr) {
    MetricsRegistry::Totals t = analyzed->metrics().Sum(&plan);
    out->append(fmt::format(" (rows={}, batches={}, time={}", t.output_rows, t.output_batches,
                            FormatNanos(t.compute_nanos)));
    if (t.peak_memory_bytes > 0)
      out->append(", peak_memory=" + FormatBytes(t.peak_memory_bytes));
    if (t.spill_count > 0) {
      out->append(
          fmt::format(", spilled={} in {} files", FormatBytes(t.spilled_bytes), t.spill_count));
    }
    for (const auto& [key, value] : t.extra) {
      // Durations travel as "<name>_nanos" counters and print like the operator's time.
      constexpr std::string_view kNanos = "_nanos";
      if (key.size() > kNanos.size() && key.ends_with(kNanos)) {
        out->append(
            fmt::format(", {}={}", key.substr(0, key.size() - kNanos.size()), FormatNanos(value)));
      } else {
        out->append(fmt::format(", {}={}", key, value));
      }
    }
    out->append(")");
  }
  out->push_back('\n');
  if (analyzed != nullptr) {
    for (const std::string& note : analyzed->metrics().Notes(&plan, verbose)) {
      out->append(static_cast<size_t>(depth) * 2 + 2, ' ');
      out->append("* ");
      out->append(note);
      out->push_back('\n');
    }
  }
  for (const ExecPlanPtr& child : plan.children())
    FormatNode(*child, verbose, analyzed, depth + 1, printed, out);
}

}  // namespace

std::string_view PlanKindName(PlanKind kind) {
  switch (kind) {
    case PlanKind::kTableScan: return "TableScanExec";
    case PlanKind::kValues: return "ValuesExec";
    case PlanKind::kFilter: return "FilterExec";
    case PlanKind::kProjection: return "ProjectionExec";
    case PlanKind::kHashAggregate: return "HashAggregateExec";
    case PlanKind::kHashJoin: return "HashJoinExec";
    case PlanKind::kNestedLoopJoin: return "NestedLoopJoinExec";
    case PlanKind::kSort: return "SortExec";
    case PlanKind::kSortPreservingMerge: return "SortPreservingMergeExec";
    case PlanKind::kLimit: return "LimitExec";
    case PlanKind::kRepartition: return "RepartitionExec";
    case PlanKind::kCoalescePartitions: return "CoalescePartitionsExec";
    case PlanKind::kUnion: return "UnionExec";
    case PlanKind::kWindow: return "WindowExec";
    case PlanKind::kExpand: return "ExpandExec";
    case PlanKind::kTableFunction: return "TableFunctionExec";
    case PlanKind::kRecursiveCte: return "RecursiveCteExec";
    case PlanKind::kWorkingTableScan: return "WorkingTableScanExec";
    case PlanKind::kUnnest: return "UnnestExec";
    case PlanKind::kSharedResult: return "SharedResultExec";
    case PlanKind::kNetworkExchange: return "NetworkExchangeExec";
    case PlanKind::kWorkUnitFeedScan: return "WorkUnitFeedScanExec";
    case PlanKind::kLoadSample: return "SampledExec";
    case PlanKind::kStageFile: return "StageFileExec";
    case PlanKind::kShuffleQuery: return "ShuffleQueryExec";
  }
  return "?";
}

Result<ExecPlanPtr> ExecutionPlan::WithRowLimit(int64_t) const {
  return ExecPlanPtr();
}

std::string Partitioning::ToString() const {
  switch (kind) {
    case PartitioningKind::kUnknown: return fmt::format("Unknown({})", num_partitions);
    case PartitioningKind::kSingle: return "Single";
    case PartitioningKind::kRoundRobin: return fmt::format("RoundRobin({})", num_partitions);
    case PartitioningKind::kHash:
      return fmt::format("Hash([{}], {})", ExprListText(keys), num_partitions);
  }
  return "?";
}

std::string FormatExecutionPlan(const ExecutionPlan& plan, bool verbose,
                                const TaskContext* analyzed) {
  std::string out;
  if (analyzed != nullptr)
    analyzed->metrics().Collect();  // metrics from elsewhere (remote tasks) before printing
  std::set<const ExecutionPlan*> printed;
  FormatNode(plan, verbose, analyzed, 0, &printed, &out);
  return out;
}

Result<std::vector<columnar::RecordBatchPtr>> CollectAll(
    const ExecPlanPtr& plan, const std::shared_ptr<TaskContext>& context) {
  using Batches = std::vector<columnar::RecordBatchPtr>;
  SHOAL_RETURN_IF_ERROR(context->thread_pool().start_status());
  const int n = plan->num_partitions();
  std::vector<std::future<Result<Batches>>> futures;
  futures.reserve(static_cast<size_t>(n));
  for (int p = 0; p < n; ++p) {
    // By reference: the task must not own the context, or a worker could drop the last reference
    // and destroy the pool it runs on. Both outlive the futures awaited below.
    futures.push_back(context->thread_pool().Submit([&plan, &context, p]() -> Result<Batches> {
      const ScopedLogContext log_context(context->query_id(), context->task_key());
      auto run = [&]() -> Result<Batches> {
        Batches batches;
        SHOAL_ASSIGN_OR_RETURN(StreamPtr stream, plan->Execute(p, context));
        for (;;) {
          SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr batch, stream->Next());
          if (!batch)
            break;
          batches.push_back(std::move(batch));
        }
        return batches;
      };
      Result<Batches> result = run();
      // A failed partition ends the query: siblings blocked on shared exchanges must stop too.
      if (!result.ok())
        context->Cancel();
      return result;
    }));
  }
  Batches all;
  Status first_error;
  for (auto& future : futures) {
    Result<Batches> result = future.get();
    if (!result.ok()) {
      // Prefer the root cause over the Cancelled errors it triggered in siblings.
      if (first_error.ok() || (first_error.code() == StatusCode::kCancelled &&
                               result.status().code() != StatusCode::kCancelled)) {
        first_error = result.status();
      }
      continue;
    }
    for (auto& batch : *result)
      all.push_back(std::move(batch));
  }
  if (!first_error.ok())
    return first_error;
  return all;
}

}  // namespace shoal::exec
