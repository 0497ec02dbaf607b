#include "shoal/distributed/coordinator/task_metrics.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>

#include "shoal/common/memory_pool.h"
#include "shoal/distributed/planner/network_exchange_exec.h"
#include "shoal/distributed/proto/distributed.pb.h"

namespace shoal::distributed {

namespace {

std::string FormatNanos(int64_t nanos) {
  if (nanos < 10000000000LL)
    return fmt::format("{:.3f}ms", static_cast<double>(nanos) / 1e6);
  return fmt::format("{:.2f}s", static_cast<double>(nanos) / 1e9);
}

void EncodeOperator(const OperatorTaskMetrics& in, proto::OperatorMetricsProto* out) {
  out->set_name(in.name);
  out->set_output_rows(in.output_rows);
  out->set_output_batches(in.output_batches);
  out->set_compute_nanos(in.compute_nanos);
  out->set_peak_memory_bytes(in.peak_memory_bytes);
  out->set_spilled_bytes(in.spilled_bytes);
  out->set_spill_count(in.spill_count);
  for (const auto& [key, value] : in.extra)
    (*out->mutable_extra())[key] = value;
  out->set_partitions(in.partitions);
}

OperatorTaskMetrics DecodeOperator(const proto::OperatorMetricsProto& in) {
  OperatorTaskMetrics out;
  out.name = in.name();
  out.output_rows = in.output_rows();
  out.output_batches = in.output_batches();
  out.compute_nanos = in.compute_nanos();
  out.peak_memory_bytes = in.peak_memory_bytes();
  out.spilled_bytes = in.spilled_bytes();
  out.spill_count = in.spill_count();
  for (const auto& [key, value] : in.extra())
    out.extra[key] = value;
  out.partitions = in.partitions();
  return out;
}

// "rows=…, batches=…, time=…" and whatever else is non-zero, for the notes.
std::string Summary(const OperatorTaskMetrics& m) {
  std::string out = fmt::format("rows={}, batches={}, time={}", m.output_rows, m.output_batches,
                                FormatNanos(m.compute_nanos));
  if (m.peak_memory_bytes > 0)
    out += ", peak_memory=" + FormatBytes(m.peak_memory_bytes);
  if (m.spill_count > 0)
    out += fmt::format(", spilled={} in {} files", FormatBytes(m.spilled_bytes), m.spill_count);
  return out;
}

// The entry is the registry's partition key: tasks of one stage never collide, and negative keys
// (a producer's sends, on its consumer's exchange) never meet partition numbers.
void AddInto(const OperatorTaskMetrics& m, exec::OperatorMetrics* into) {
  into->output_rows += m.output_rows;
  into->output_batches += m.output_batches;
  into->compute_nanos += m.compute_nanos;
  into->peak_memory_bytes += m.peak_memory_bytes;
  into->spilled_bytes += m.spilled_bytes;
  into->spill_count += m.spill_count;
  for (const auto& [key, value] : m.extra)
    into->AddExtra(key, value);
}

// Why task entries do not fit the display plan, or empty when they do. A leaf may differ (the
// coordinator may ship a task a different scan than the one EXPLAIN shows, e.g. one fed with work
// units): in pre-order one leaf for another keeps every other position.
std::string ShapeMismatch(const std::vector<const exec::ExecutionPlan*>& nodes,
                          const std::vector<OperatorTaskMetrics>& operators) {
  if (nodes.size() != operators.size())
    return fmt::format("{} operators reported for a plan of {}", operators.size(), nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const bool leaf = !nodes[i]->Is<NetworkExchangeExec>() && nodes[i]->children().empty();
    if (!leaf && nodes[i]->name() != operators[i].name)
      return fmt::format("operator {} is {} on the worker and {} here", i, operators[i].name,
                         nodes[i]->name());
  }
  return "";
}

}  // namespace

std::vector<const exec::ExecutionPlan*> TaskPlanOperators(const exec::ExecutionPlan& root) {
  std::vector<const exec::ExecutionPlan*> out;
  std::function<void(const exec::ExecutionPlan&)> visit = [&](const exec::ExecutionPlan& node) {
    out.push_back(&node);
    if (node.Is<NetworkExchangeExec>())
      return;
    for (const auto& child : node.children())
      visit(*child);
  };
  visit(root);
  return out;
}

OperatorTaskMetrics OperatorMetricsOf(const exec::ExecutionPlan& node,
                                      const exec::MetricsRegistry& registry) {
  exec::MetricsRegistry::Totals t = registry.Sum(&node);
  OperatorTaskMetrics out;
  out.name = std::string(node.name());
  out.output_rows = t.output_rows;
  out.output_batches = t.output_batches;
  out.compute_nanos = t.compute_nanos;
  out.peak_memory_bytes = t.peak_memory_bytes;
  out.spilled_bytes = t.spilled_bytes;
  out.spill_count = t.spill_count;
  out.extra = std::move(t.extra);
  out.partitions = t.partitions;
  return out;
}

std::vector<OperatorTaskMetrics> CollectOperatorMetrics(const exec::ExecutionPlan& plan,
                                                        const exec::MetricsRegistry& registry) {
  std::vector<OperatorTaskMetrics> out;
  for (const exec::ExecutionPlan* node : TaskPlanOperators(plan))
    out.push_back(OperatorMetricsOf(*node, registry));
  return out;
}

void EncodeTaskMetrics(const TaskMetrics& metrics, proto::TaskMetricsProto* out) {
  out->set_output_rows(metrics.output_rows);
  out->set_output_batches(metrics.output_batches);
  out->set_elapsed_ns(metrics.elapsed_ns);
  out->set_worker(metrics.worker);
  out->set_bytes_sent(metrics.bytes_sent);
  out->set_messages_sent(metrics.messages_sent);
  out->set_start_offset_ns(metrics.start_offset_ns);
  out->set_end_offset_ns(metrics.end_offset_ns);
  for (const auto& m : metrics.operators)
    EncodeOperator(m, out->add_operators());
  for (const auto& m : metrics.heads)
    EncodeOperator(m, out->add_heads());
}

TaskMetrics DecodeTaskMetrics(const proto::TaskMetricsProto& in) {
  TaskMetrics out;
  out.output_rows = in.output_rows();
  out.output_batches = in.output_batches();
  out.elapsed_ns = in.elapsed_ns();
  out.worker = in.worker();
  out.bytes_sent = in.bytes_sent();
  out.messages_sent = in.messages_sent();
  out.start_offset_ns = in.start_offset_ns();
  out.end_offset_ns = in.end_offset_ns();
  for (const auto& m : in.operators())
    out.operators.push_back(DecodeOperator(m));
  for (const auto& m : in.heads())
    out.heads.push_back(DecodeOperator(m));
  return out;
}

void FoldStageMetrics(const StageDisplay& stage, const std::vector<TaskReport>& tasks,
                      exec::MetricsRegistry* registry) {
  std::vector<const exec::ExecutionPlan*> nodes;
  if (stage.root)
    nodes = TaskPlanOperators(*stage.root);
  std::vector<std::string> where;
  std::vector<std::string> task_lines;               // VERBOSE, on the exchange
  std::map<std::string, OperatorTaskMetrics> heads;  // by head name, summed over tasks
  for (const TaskReport& task : tasks) {
    const std::string& worker =
        !task.worker.empty() || !task.metrics.ok() ? task.worker : task.metrics->worker;
    if (!task.metrics.ok()) {
      where.push_back(fmt::format("#{} on {} (no metrics: {})", task.task_number, worker,
                                  task.metrics.status().message()));
      continue;
    }
    const TaskMetrics& m = *task.metrics;
    where.push_back(fmt::format("#{} on {} (rows={})", task.task_number, worker, m.output_rows));
    const std::string label =
        fmt::format("stage {} task {} on {}", stage.stage_id, task.task_number, worker);
    std::string verbose_line =
        fmt::format("{}: served rows={}, batches={}, elapsed={}", label, m.output_rows,
                    m.output_batches, FormatNanos(m.elapsed_ns));
    if (m.end_offset_ns > 0) {
      // From the query's start (the console draws its timeline from these).
      verbose_line += fmt::format(", ran from {} to {}", FormatNanos(m.start_offset_ns),
                                  FormatNanos(m.end_offset_ns));
    }
    if (m.messages_sent > 0) {
      verbose_line +=
          fmt::format(", sent={} in {} messages", FormatBytes(m.bytes_sent), m.messages_sent);
    }
    for (const auto& h : m.heads) {
      verbose_line += fmt::format(", head {} ({})", h.name, Summary(h));
      OperatorTaskMetrics& sum = heads[h.name];
      sum.name = h.name;
      sum.output_rows += h.output_rows;
      sum.output_batches += h.output_batches;
      sum.compute_nanos += h.compute_nanos;
      sum.peak_memory_bytes += h.peak_memory_bytes;
      sum.spilled_bytes += h.spilled_bytes;
      sum.spill_count += h.spill_count;
    }
    task_lines.push_back(std::move(verbose_line));
    if (stage.exchange != nullptr) {
      if (m.messages_sent > 0) {
        exec::OperatorMetrics* sent = registry->For(stage.exchange, -1 - task.task_number);
        sent->AddExtra("sent_bytes", m.bytes_sent);
        sent->AddExtra("sent_messages", m.messages_sent);
      }
    }
    const std::string mismatch = ShapeMismatch(nodes, m.operators);
    if (!mismatch.empty()) {
      where.back().insert(where.back().size() - 1, ", operator metrics not shown: " + mismatch);
      continue;
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      AddInto(m.operators[i], registry->For(nodes[i], task.task_number));
      registry->AddNote(nodes[i], label + ": " + Summary(m.operators[i]), true);
    }
  }
  if (stage.exchange == nullptr)
    return;
  std::string line = fmt::format("stage {}: {} task{}: ", stage.stage_id, tasks.size(),
                                 tasks.size() == 1 ? "" : "s");
  for (size_t i = 0; i < where.size(); ++i)
    line += (i > 0 ? ", " : "") + where[i];
  registry->AddNote(stage.exchange, std::move(line), false);
  for (const auto& [name, h] : heads) {
    registry->AddNote(stage.exchange,
                      fmt::format("producer head {} on the workers: {}", name, Summary(h)), false);
  }
  for (auto& task_line : task_lines)
    registry->AddNote(stage.exchange, std::move(task_line), true);
}

std::vector<StageDisplay> FindStageDisplays(const exec::ExecPlanPtr& head) {
  std::vector<StageDisplay> out;
  // A shared stage's display hangs under each exchange reading it: its metrics are folded once,
  // onto the first.
  std::set<const exec::ExecutionPlan*> seen;
  std::function<void(const exec::ExecPlanPtr&)> visit = [&](const exec::ExecPlanPtr& node) {
    if (!seen.insert(node.get()).second)
      return;
    const auto* x = node->TryAs<NetworkExchangeExec>();
    std::vector<exec::ExecPlanPtr> children = node->children();
    if (x != nullptr && !children.empty() && seen.count(children[0].get()) > 0)
      return;
    for (const auto& child : children)
      visit(child);
    if (x != nullptr && !children.empty())
      out.push_back(StageDisplay{x->spec().stage_id, children[0], x});
  };
  if (head)
    visit(head);
  return out;
}

}  // namespace shoal::distributed
