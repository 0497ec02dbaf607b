#include "shoal/distributed/shuffle/stage_runtime_filters.h"

#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "shoal/columnar/scalar.h"
#include "shoal/distributed/shuffle/stage_file_exec.h"
#include "shoal/distributed/transport/worker_messages.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/join/runtime_filter.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/runtime_filter_planner.h"

namespace shoal::distributed::shuffle {

namespace {

struct JoinInStage {
  const exec::HashJoinExec* join = nullptr;
  int stage = 0;
};

// The stage each filter's scan runs in, and the joins with filters with theirs (0: the driver).
void Collect(const exec::ExecPlanPtr& node, int stage, std::map<int, int>* scan_stages,
             std::vector<JoinInStage>* joins,
             std::set<std::pair<const exec::ExecutionPlan*, int>>* seen) {
  if (!seen->insert({node.get(), stage}).second)
    return;  // a shared node the driver reads in several places: its joins once
  if (const auto* s = node->TryAs<StageFileExec>()) {
    stage = s->stage_id();
  } else if (const auto* scan = node->TryAs<exec::TableScanExec>()) {
    for (const auto& target : scan->request().runtime_filters)
      (*scan_stages)[target.id] = stage;
  } else if (const auto* join = node->TryAs<exec::HashJoinExec>();
             join != nullptr && !join->runtime_filters().empty()) {
    joins->push_back({join, stage});
  }
  for (const auto& child : node->children())
    Collect(child, stage, scan_stages, joins, seen);
}

// The stage whose output column holds every value of build key `key` of `join`, and that column:
// the key followed down the build side to the stage node it is read from.
std::optional<std::pair<int, int>> SourceOf(const exec::HashJoinExec& join, int key) {
  const exec::RuntimeFilterPathEnd end = exec::FollowRuntimeFilterColumn(
      *join.right(), exec::PlainKeyColumn(join.right_keys()[static_cast<size_t>(key)]),
      [](const exec::ExecutionPlan& node) { return node.Is<StageFileExec>(); });
  if (end.node == nullptr)
    return std::nullopt;
  return std::make_pair(end.node->As<StageFileExec>().stage_id(), end.column);
}

// Rewritten once per node, so that a node several parents share stays one node.
Result<exec::ExecPlanPtr> RemoveJoinFilters(
    const exec::ExecPlanPtr& node, const std::map<const exec::ExecutionPlan*, std::set<int>>& ids,
    std::map<const exec::ExecutionPlan*, exec::ExecPlanPtr>* done) {
  if (auto it = done->find(node.get()); it != done->end())
    return it->second;
  std::vector<exec::ExecPlanPtr> children = node->children();
  bool changed = false;
  for (auto& child : children) {
    SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr rewritten, RemoveJoinFilters(child, ids, done));
    changed = changed || rewritten != child;
    child = std::move(rewritten);
  }
  exec::ExecPlanPtr out = node;
  if (changed) {
    SHOAL_ASSIGN_OR_RETURN(out, node->WithNewChildren(std::move(children)));
  }
  if (auto it = ids.find(node.get()); it != ids.end()) {
    const auto& join = out->As<exec::HashJoinExec>();
    std::vector<exec::JoinRuntimeFilter> kept;
    for (const auto& f : join.runtime_filters())
      if (!it->second.count(f.id))
        kept.push_back(f);
    SHOAL_ASSIGN_OR_RETURN(auto rewritten, join.WithRuntimeFilters(std::move(kept)));
    out = std::move(rewritten);
  }
  done->emplace(node.get(), out);
  return out;
}

}  // namespace

Result<RoutedStageFilters> RouteStageFilters(const exec::ExecPlanPtr& root) {
  std::map<int, int> scan_stages;
  std::vector<JoinInStage> joins;
  std::set<std::pair<const exec::ExecutionPlan*, int>> seen;
  Collect(root, 0, &scan_stages, &joins, &seen);
  RoutedStageFilters out;
  std::map<const exec::ExecutionPlan*, std::set<int>> remove;
  for (const JoinInStage& at : joins) {
    for (const auto& f : at.join->runtime_filters()) {
      auto scan = scan_stages.find(f.id);
      // Same stage: the join publishes the filter in the task's own registry before its probe
      // side opens (one process runs both).
      if (scan != scan_stages.end() && scan->second == at.stage &&
          at.join->mode() == exec::HashJoinExec::Mode::kCollectBuild)
        continue;
      remove[at.join].insert(f.id);
      if (scan == scan_stages.end() || scan->second == at.stage)
        continue;  // a partitioned join's partitions each run in a task of their own
      const auto source = SourceOf(*at.join, f.key);
      if (!source || source->first == scan->second)
        continue;
      out.routes.push_back({f.id, source->first, source->second, {scan->second}});
    }
  }
  if (remove.empty()) {
    out.root = root;
    return out;
  }
  std::map<const exec::ExecutionPlan*, exec::ExecPlanPtr> done;
  SHOAL_ASSIGN_OR_RETURN(out.root, RemoveJoinFilters(root, remove, &done));
  return out;
}

std::string StageFiltersPath(const std::string& dir, int stage_id, int task, int attempt) {
  return fmt::format("{}/stage-{}-task-{}.attempt-{}.filters", dir, stage_id, task, attempt);
}

StageOutputFilters::StageOutputFilters(const proto::ShuffleTaskEnvelopeProto& envelope,
                                       columnar::SchemaPtr schema, std::shared_ptr<MemoryPool> pool)
    : schema_(std::move(schema)), pool_(std::move(pool)) {
  for (const auto& e : envelope.export_runtime_filters()) {
    Export x;
    x.id = e.id();
    x.column = e.column();
    // A column the output does not have (an envelope of another plan) forms no filter.
    x.dropped = x.column < 0 || x.column >= schema_->num_fields();
    exports_.push_back(std::move(x));
  }
}

Status StageOutputFilters::Add(const columnar::RecordBatch& batch) {
  for (Export& x : exports_) {
    if (x.dropped || batch.num_rows() == 0)
      continue;
    x.values += batch.num_rows();
    if (x.values > kMaxStageFilterKeys) {
      x.dropped = true;
      x.arrays.clear();
      continue;
    }
    columnar::ArrayPtr column = batch.column(x.column);
    if (column->type_id() == columnar::TypeId::kDictionary) {
      SHOAL_ASSIGN_OR_RETURN(column, exec::DecodeDictionary(column, pool_));
    }
    x.arrays.push_back(std::move(column));
  }
  return Status::OK();
}

Result<proto::ShuffleTaskFiltersProto> StageOutputFilters::Finish() {
  proto::ShuffleTaskFiltersProto out;
  for (Export& x : exports_) {
    if (x.dropped)
      continue;
    columnar::ArrayPtr keys;
    if (x.arrays.empty()) {
      SHOAL_ASSIGN_OR_RETURN(keys,
                             columnar::Scalar(schema_->field(x.column).type).MakeArray(0, pool_));
    } else if (x.arrays.size() == 1) {
      keys = x.arrays[0];
    } else {
      SHOAL_ASSIGN_OR_RETURN(keys, exec::Concatenate(x.arrays, pool_));
    }
    x.arrays.clear();
    SHOAL_ASSIGN_OR_RETURN(auto filter,
                           exec::RuntimeFilter::Build(keys, pool_, /*mergeable=*/true));
    EncodeRuntimeFilter(x.id, *filter, out.add_filters());
  }
  return out;
}

StageFilterMerger::StageFilterMerger(std::vector<StageFilterRoute> routes,
                                     std::map<int, int> task_counts, int64_t max_bytes)
    : task_counts_(std::move(task_counts)), max_bytes_(max_bytes) {
  for (auto& r : routes)
    routes_.push_back({std::move(r), false, std::nullopt, false});
}

std::vector<proto::ShuffleFilterExportProto> StageFilterMerger::ExportsOf(int stage_id) const {
  std::vector<proto::ShuffleFilterExportProto> out;
  for (const Route& r : routes_) {
    if (r.route.source_stage != stage_id)
      continue;
    proto::ShuffleFilterExportProto& e = out.emplace_back();
    e.set_id(r.route.filter_id);
    e.set_column(r.route.column);
  }
  return out;
}

void StageFilterMerger::AddTask(int stage_id, int task, std::optional<std::string> filters) {
  std::optional<proto::ShuffleTaskFiltersProto> parsed;
  if (filters) {
    parsed.emplace();
    if (!parsed->ParseFromString(*filters))
      parsed.reset();  // unreadable: as if it had left none
  }
  reports_[stage_id][task] = std::move(parsed);
}

std::vector<proto::RuntimeFilterProto> StageFilterMerger::FiltersFor(int stage_id) {
  std::vector<proto::RuntimeFilterProto> out;
  int64_t bytes = 0;
  for (Route& r : routes_) {
    if (!r.route.target_stages.count(stage_id))
      continue;
    if (!r.merged)
      Merge(&r);
    if (!r.filter)
      continue;
    const auto size = static_cast<int64_t>(r.filter->table().size());
    if (bytes + size > max_bytes_) {
      if (!r.too_big_noted)
        notes_.push_back(
            fmt::format("rf{}: left out of stage {}'s envelopes ({} bytes of filters "
                        "there already, at most {})",
                        r.route.filter_id, stage_id, bytes, max_bytes_));
      r.too_big_noted = true;
      continue;
    }
    bytes += size;
    out.push_back(*r.filter);
  }
  return out;
}

void StageFilterMerger::Merge(Route* route) {
  route->merged = true;
  const int source = route->route.source_stage;
  const int id = route->route.filter_id;
  auto left_out = [&](const std::string& why) {
    notes_.push_back(fmt::format("rf{}: stage {} -> stage {}: left out ({})", id, source,
                                 fmt::join(route->route.target_stages, ", "), why));
  };
  const int tasks = task_counts_.count(source) ? task_counts_.at(source) : 0;
  const auto& reports = reports_[source];
  std::vector<std::shared_ptr<const exec::RuntimeFilter>> parts;
  for (int t = 0; t < tasks; ++t) {
    auto it = reports.find(t);
    if (it == reports.end() || !it->second)
      return left_out(fmt::format("task {} left no filters", t));
    const proto::RuntimeFilterProto* part = nullptr;
    for (const auto& f : it->second->filters())
      if (f.id() == id)
        part = &f;
    if (part == nullptr)
      return left_out(fmt::format("task {} formed none", t));
    auto decoded = DecodeRuntimeFilter(*part, DefaultMemoryPool());
    if (!decoded.ok())
      return left_out(decoded.status().UserMessage());
    parts.push_back(std::move(decoded).MoveValueUnsafe());
  }
  if (parts.empty())
    return left_out("the stage has no tasks");
  auto merged = exec::RuntimeFilter::Merge(parts, DefaultMemoryPool());
  if (!merged.ok())
    return left_out(merged.status().UserMessage());
  proto::RuntimeFilterProto encoded;
  EncodeRuntimeFilter(id, **merged, &encoded);
  route->filter = std::move(encoded);
  notes_.push_back(fmt::format("rf{}: stage {} -> stage {}: {}", id, source,
                               fmt::join(route->route.target_stages, ", "), (*merged)->Describe()));
}

std::vector<std::string> StageFilterMerger::Notes() const {
  return notes_;
}

}  // namespace shoal::distributed::shuffle
