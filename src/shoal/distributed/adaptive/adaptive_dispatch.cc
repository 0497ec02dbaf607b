#include "shoal/distributed/adaptive/adaptive_dispatch.h"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "shoal/common/logging.h"
#include "shoal/distributed/planner/network_exchange_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"

namespace shoal::distributed {

OutputEstimate EstimateTaskOutput(const std::vector<LoadInfo>& samples, int64_t leaf_rows) {
  OutputEstimate out;
  int64_t open_rows = 0;
  int64_t open_bytes = 0;
  int64_t pulled = 0;
  for (const LoadInfo& s : samples) {
    int64_t bytes = 0;
    for (int64_t b : s.column_bytes_ready)
      bytes += b;
    if (s.reached_eos) {
      out.rows += s.rows_ready;
      out.bytes += bytes;
    } else {
      open_rows += s.rows_ready;
      open_bytes += bytes;
    }
    // Each partition reports the task-wide count when its sample was done; the last one saw the
    // others' pulls too.
    pulled = std::max(pulled, s.rows_pulled_from_leaf);
  }
  if (open_rows == 0 && open_bytes == 0)
    return out;
  if (leaf_rows <= 0 || pulled <= 0) {
    out.rows += open_rows;
    out.bytes += open_bytes;
    out.known = false;
    return out;
  }
  if (pulled >= leaf_rows) {
    // The leaves are exhausted but the partitions go on (an aggregate emits after its whole input,
    // a join multiplies): assume at most one output row per leaf row, at the sampled width.
    const double remaining_rows = std::max<double>(0.0, static_cast<double>(leaf_rows));
    const double width = open_rows > 0 ? static_cast<double>(open_bytes) / open_rows : 0.0;
    out.rows += std::max(open_rows, static_cast<int64_t>(remaining_rows));
    out.bytes += std::max(open_bytes, static_cast<int64_t>(remaining_rows * width));
    return out;
  }
  const double scale = static_cast<double>(leaf_rows) / static_cast<double>(pulled);
  out.rows += static_cast<int64_t>(static_cast<double>(open_rows) * scale);
  out.bytes += static_cast<int64_t>(static_cast<double>(open_bytes) * scale);
  return out;
}

std::string StageChoice::ToString() const {
  if (leaf)
    return fmt::format("adaptive: {} task(s) as planned (a leaf stage)", task_count);
  if (!sampled)
    return fmt::format("adaptive: {} task(s) as planned (inputs not estimable)", task_count);
  return fmt::format("adaptive: {} task(s) (planned {}) for {} bytes predicted by samples",
                     task_count, planned_task_count, estimated_input_bytes);
}

AdaptiveDispatch::AdaptiveDispatch(DistributedPlanPtr plan, AdaptiveDispatchOptions options)
    : plan_(std::move(plan)), options_(std::move(options)) {}

int64_t AdaptiveDispatch::LeafRows(const exec::ExecutionPlan& node) const {
  if (const auto* scan = node.TryAs<exec::TableScanExec>()) {
    int64_t rows = 0;
    for (const auto& group : scan->unit_groups()) {
      for (const auto& unit : group) {
        if (unit.rows < 0)
          return -1;
        rows += unit.rows;
      }
    }
    return rows;
  }
  if (const auto* exchange = node.TryAs<NetworkExchangeExec>()) {
    const ExchangeSpec& spec = exchange->spec();
    auto it = estimates_.find(spec.stage_id);
    if (it == estimates_.end() || !it->second.known)
      return -1;
    double share = 1.0;  // coalesce and broadcast read every producer partition
    if (spec.kind == ExchangeKind::kShuffle && spec.partitioning.num_partitions > 0) {
      share = static_cast<double>(spec.partition_end - spec.partition_start) /
              static_cast<double>(spec.partitioning.num_partitions);
    }
    return static_cast<int64_t>(static_cast<double>(it->second.rows) * share);
  }
  // Leaves without rows of their own (VALUES) add nothing the samples could be scaled by.
  int64_t rows = 0;
  for (const auto& child : node.children()) {
    const int64_t r = LeafRows(*child);
    if (r < 0)
      return -1;
    rows += r;
  }
  return rows;
}

Result<OutputEstimate> AdaptiveDispatch::ReadSamples(
    const Stage& stage, const std::vector<CoordinatorStream*>& streams) {
  OutputEstimate total;
  for (size_t t = 0; t < streams.size(); ++t) {
    std::vector<LoadInfo> samples;
    for (;;) {
      Result<std::optional<LoadInfo>> next = streams[t]->ReadLoadInfo();
      if (!next.ok()) {
        return std::move(next).status().WithContext(
            fmt::format("reading the samples of stage {} task {} on worker {}", stage.id, t,
                        stage.task_workers[t]));
      }
      if (!next->has_value())
        break;
      samples.push_back(std::move(**next));
    }
    const OutputEstimate task = EstimateTaskOutput(samples, LeafRows(*stage.task_plans[t]));
    total.rows += task.rows;
    total.bytes += task.bytes;
    total.known = total.known && task.known;
  }
  return total;
}

Result<std::vector<std::string>> AdaptiveDispatch::Route(const StageDescription& stage,
                                                         int task_count) {
  RoundRobinTaskRouter round_robin;
  TaskRouter& router = options_.router ? *options_.router : round_robin;
  std::vector<std::string> workers;
  for (int t = 0; t < task_count; ++t) {
    TaskPlacement placement;
    placement.query_id = plan_->query_id();
    placement.stage_id = stage.id;
    placement.task_number = t;
    placement.task_count = task_count;
    placement.ordinal = next_ordinal_++;
    placement.query_sequence = options_.query_sequence;
    SHOAL_ASSIGN_OR_RETURN(std::string worker, RouteTask(router, placement, options_.workers));
    workers.push_back(std::move(worker));
  }
  return workers;
}

Status AdaptiveDispatch::Run(const SendStage& send) {
  if (options_.workers.empty())
    return Status::InvalidArgument("adaptive task counts need at least one worker");
  // Samples are read only of stages another stage (not the head) reads.
  std::set<int> consumed;
  for (const StageDescription& d : plan_->stages())
    consumed.insert(d.input_stage_ids.begin(), d.input_stage_ids.end());
  int cap = static_cast<int>(options_.workers.size());
  if (options_.max_tasks > 0)
    cap = std::min(cap, options_.max_tasks);

  std::map<int, std::vector<CoordinatorStream*>> unread;  // sent, samples not read yet
  for (const StageDescription& d : plan_->stages()) {
    StageChoice choice;
    choice.stage_id = d.id;
    choice.planned_task_count = d.planned_task_count;
    choice.task_count = d.planned_task_count;
    choice.leaf = d.leaf;
    if (!d.leaf) {
      bool known = true;
      for (int input : d.input_stage_ids) {
        auto pending = unread.find(input);
        if (pending != unread.end()) {
          SHOAL_ASSIGN_OR_RETURN(OutputEstimate estimate,
                                 ReadSamples(*plan_->instantiated(input), pending->second));
          estimates_[input] = estimate;
          for (StageChoice& c : choices_) {
            if (c.stage_id == input)
              c.output = estimate;
          }
          unread.erase(pending);
        }
        auto it = estimates_.find(input);
        if (it == estimates_.end() || !it->second.known) {
          known = false;
          continue;
        }
        choice.estimated_input_bytes += it->second.bytes;
      }
      if (known) {
        const int64_t wanted64 =
            std::max<int64_t>(1, (choice.estimated_input_bytes + options_.bytes_per_task - 1) /
                                     options_.bytes_per_task);
        const int wanted = static_cast<int>(std::min<int64_t>(wanted64, cap));
        choice.task_count = plan_->FitTaskCount(d.id, wanted);
        choice.sampled = true;
      }
    }
    choice.task_count = std::clamp(choice.task_count, 1, std::max(1, d.max_task_count));
    SHOAL_ASSIGN_OR_RETURN(std::vector<std::string> workers, Route(d, choice.task_count));
    SHOAL_ASSIGN_OR_RETURN(const Stage* stage, plan_->InstantiateStage(d.id, std::move(workers)));
    SHOAL_ASSIGN_OR_RETURN(std::vector<CoordinatorStream*> streams, send(*stage));
    if (consumed.count(d.id) > 0)
      unread[d.id] = std::move(streams);
    SHOAL_LOG(kInfo, "query {} stage {}: {}", plan_->query_id(), d.id, choice.ToString());
    choices_.push_back(choice);
  }
  return Status::OK();
}

}  // namespace shoal::distributed
