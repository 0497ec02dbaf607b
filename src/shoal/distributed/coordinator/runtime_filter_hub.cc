#include "shoal/distributed/coordinator/runtime_filter_hub.h"

#include <utility>

#include <fmt/format.h>

#include "shoal/common/logging.h"
#include "shoal/distributed/planner/network_exchange_exec.h"
#include "shoal/exec/join/runtime_filter_registry.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"

namespace shoal::distributed {

RuntimeFilterHub::RuntimeFilterHub(const exec::ExecPlanPtr& head,
                                   const std::shared_ptr<exec::TaskContext>& context)
    : head_context_(context) {
  if (head)
    AddStage(kHeadStage, 1, *head);
}

void RuntimeFilterHub::Walk(int stage_id, int task_count, const exec::ExecutionPlan& node) {
  if (node.Is<NetworkExchangeExec>())
    return;  // another stage
  if (const auto* join = node.TryAs<exec::HashJoinExec>()) {
    for (const exec::JoinRuntimeFilter& spec : join->runtime_filters()) {
      Filter& f = filters_[spec.id];
      f.build_stage = stage_id;
      f.build_tasks = task_count;
      f.partitioned = join->mode() == exec::HashJoinExec::Mode::kPartitioned;
    }
  }
  if (const auto* scan = node.TryAs<exec::TableScanExec>()) {
    for (const io::RuntimeFilterTarget& target : scan->request().runtime_filters)
      filters_[target.id].scan_stages.insert(stage_id);
  }
  for (const auto& child : node.children())
    Walk(stage_id, task_count, *child);
}

void RuntimeFilterHub::AddStage(int stage_id, int task_count, const exec::ExecutionPlan& plan) {
  std::lock_guard<std::mutex> lock(mutex_);
  Walk(stage_id, task_count, plan);
}

std::vector<int> RuntimeFilterHub::ExportsOf(int stage_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<int> ids;
  for (const auto& [id, f] : filters_) {
    if (f.build_stage != stage_id)
      continue;
    bool elsewhere = f.partitioned && f.build_tasks > 1 && !f.scan_stages.empty();
    for (int s : f.scan_stages)
      elsewhere = elsewhere || s != stage_id;
    if (elsewhere)
      ids.push_back(id);
  }
  return ids;
}

std::vector<int> RuntimeFilterHub::ImportsOf(int stage_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<int> ids;
  for (const auto& [id, f] : filters_) {
    if (f.scan_stages.count(stage_id) == 0)
      continue;
    if (f.build_stage != stage_id || (f.partitioned && f.build_tasks > 1))
      ids.push_back(id);
  }
  return ids;
}

RuntimeFilterSink RuntimeFilterHub::SinkFor(int stage_id, int task_number) {
  return [hub = weak_from_this(), stage_id, task_number](
             int id, std::shared_ptr<const exec::RuntimeFilter> filter, bool complete) {
    if (auto h = hub.lock())
      h->OnReport(stage_id, task_number, id, std::move(filter), complete);
  };
}

void RuntimeFilterHub::AddStream(int stage_id, CoordinatorStream* stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_)
    return;
  streams_[stage_id].push_back(stream);
  for (const auto& [id, f] : filters_) {
    if (f.merged && f.scan_stages.count(stage_id) > 0)
      (void)stream->SendRuntimeFilter(id, f.merged);
  }
}

void RuntimeFilterHub::Close() {
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  streams_.clear();
}

void RuntimeFilterHub::OnReport(int stage_id, int task_number, int id,
                                std::shared_ptr<const exec::RuntimeFilter> filter, bool complete) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = filters_.find(id);
  if (closed_ || it == filters_.end())
    return;
  Filter& f = it->second;
  if (f.build_stage != stage_id || f.merged || !f.reported.insert(task_number).second)
    return;
  if (f.reported.size() == 1)
    f.first_report = std::chrono::steady_clock::now();
  if (complete) {
    // A collect-build join's filter holds every build key: no need to wait for the others.
    f.merged = std::move(filter);
  } else {
    f.parts.push_back(std::move(filter));
    if (static_cast<int>(f.parts.size()) < f.build_tasks)
      return;
    Result<std::shared_ptr<const exec::RuntimeFilter>> merged =
        exec::RuntimeFilter::Merge(f.parts, DefaultMemoryPool());
    f.parts.clear();
    if (!merged.ok()) {
      // The scans read without it (they stop waiting when their wait ends).
      f.error = merged.status().ToString();
      SHOAL_LOG(kWarning, "runtime filter rf{}: {}", id, f.error);
      return;
    }
    f.merged = std::move(*merged);
  }
  f.merge_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - f.first_report)
                   .count();
  ForwardLocked(id, f);
}

void RuntimeFilterHub::ForwardLocked(int id, const Filter& f) {
  for (int stage : f.scan_stages) {
    if (stage == kHeadStage) {
      if (auto context = head_context_.lock())
        context->runtime_filters().Publish(id, f.merged);
      continue;
    }
    auto it = streams_.find(stage);
    if (it == streams_.end())
      continue;  // not sent yet: AddStream sends it
    for (CoordinatorStream* stream : it->second)
      (void)stream->SendRuntimeFilter(id, f.merged);
  }
}

std::map<int, std::vector<std::string>> RuntimeFilterHub::Notes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<int, std::vector<std::string>> notes;
  for (const auto& [id, f] : filters_) {
    if (f.build_stage < 0)
      continue;
    bool crosses = f.partitioned && f.build_tasks > 1;
    for (int s : f.scan_stages)
      crosses = crosses || s != f.build_stage;
    if (!crosses)
      continue;
    std::string what;
    if (f.merged) {
      what =
          fmt::format("{} (sent {} ms after the first report)", f.merged->Describe(), f.merge_ms);
    } else if (!f.error.empty()) {
      what = "not merged: " + f.error;
    } else {
      what = "never complete";
    }
    // A partitioned join's tasks each hold a share of the keys (merged); a collect-build join's
    // each hold them all (the first report is used).
    const std::string built =
        f.partitioned ? fmt::format("built in stage {} by {} of {} tasks (merged)", f.build_stage,
                                    f.reported.size(), f.build_tasks)
                      : fmt::format(
                            "built in stage {} ({} of {} tasks reported, each with every "
                            "key)",
                            f.build_stage, f.reported.size(), f.build_tasks);
    for (int s : f.scan_stages)
      notes[s].push_back(
          fmt::format("runtime filter rf{}: {}, applied in stage {}: {}", id, built, s, what));
  }
  return notes;
}

}  // namespace shoal::distributed
