#include "shoal/distributed/shuffle/materialized_planner.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/nested_loop_join_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/runtime_filter_planner.h"
#include "shoal/exec/shared_subplans.h"

namespace shoal::distributed::shuffle {

namespace {

bool IsHashRepartition(const exec::ExecutionPlan& node) {
  return node.distribution().boundary == exec::StageBoundary::kShuffle &&
         node.output_partitioning().kind == exec::PartitioningKind::kHash;
}

bool IsCoalescePoint(const exec::ExecutionPlan& node) {
  return node.distribution().boundary == exec::StageBoundary::kCoalesce;
}

// A join that emits build rows chosen by the whole probe side once, from the probe partition
// that ends last (exec/operators/hash_join_exec.h): its partitions depend on each other.
bool SharesStateAcrossPartitions(const exec::ExecutionPlan& node) {
  auto emits_unmatched_build = [](sql::JoinType type) {
    return type == sql::JoinType::kRight || type == sql::JoinType::kFull ||
           type == sql::JoinType::kRightSemi || type == sql::JoinType::kRightAnti;
  };
  if (const auto* x = node.TryAs<exec::HashJoinExec>())
    return x->mode() == exec::HashJoinExec::Mode::kCollectBuild &&
           emits_unmatched_build(x->join_type());
  if (const auto* x = node.TryAs<exec::NestedLoopJoinExec>())
    return emits_unmatched_build(x->join_type());
  return false;
}

// Whether each partition of `node` can be computed in a process of its own, as a passthrough
// stage's tasks do. Below a hash repartition or a coalesce point every partition runs in one
// process again (a hash stage's task runs all of its child's partitions), so the search stops.
bool PartitionsAreIndependent(const exec::ExecutionPlan& node) {
  if (SharesStateAcrossPartitions(node))
    return false;
  for (const auto& child : node.children()) {
    if (!IsHashRepartition(*child) && !IsCoalescePoint(*child) && !PartitionsAreIndependent(*child))
      return false;
  }
  return true;
}

// Whether the scan that applies runtime filter `f` of `join` lies below a shuffle point of the
// join's probe side, in another stage than the join (the planner marked it at the end of the
// probe key's pass-through path).
bool ProbeScanBelowCut(const exec::HashJoinExec& join, const exec::JoinRuntimeFilter& f) {
  bool cut = false;
  const exec::RuntimeFilterPathEnd scan = exec::FollowRuntimeFilterColumn(
      *join.left(), exec::PlainKeyColumn(join.left_keys()[static_cast<size_t>(f.key)]),
      [&cut](const exec::ExecutionPlan& node) {
        if (node.Is<exec::TableScanExec>())
          return true;
        cut = cut || IsHashRepartition(node) || IsCoalescePoint(node);
        return false;
      });
  return scan.node != nullptr && cut;
}

// Whether build key `key` of `join`, followed down its pass-through path, reaches a shuffle point
// (which becomes a stage its filter can be formed from).
bool BuildKeyReachesCut(const exec::HashJoinExec& join, int key) {
  return exec::FollowRuntimeFilterColumn(
             *join.right(), exec::PlainKeyColumn(join.right_keys()[static_cast<size_t>(key)]),
             [](const exec::ExecutionPlan& node) {
               return IsHashRepartition(node) || IsCoalescePoint(node);
             })
             .node != nullptr;
}

// A collect-build join whose probe scan runs in an earlier stage can only filter it when its
// build side is a stage's output (stage_runtime_filters.h). When the build side is computed
// inside the join's stage (a filtered dimension table: TPC-H Q17's part, whose filter would cut
// lineitem from 6M rows to 12k before the aggregate's shuffle), it becomes a passthrough stage of
// its own: computed once instead of in every task of the join's stage, and its output forms the
// filter before the probe scan's stage runs.
bool BuildSideNeedsStage(const exec::HashJoinExec& join) {
  if (join.mode() != exec::HashJoinExec::Mode::kCollectBuild || join.runtime_filters().empty())
    return false;
  const exec::ExecutionPlan& build = *join.right();
  if (IsHashRepartition(build) || !PartitionsAreIndependent(build))
    return false;
  for (const auto& f : join.runtime_filters())
    if (ProbeScanBelowCut(join, f) && !BuildKeyReachesCut(join, f.key))
      return true;
  return false;
}

// Whether the build side of collect-build `join` can be a passthrough stage of its own (a task
// per partition), which the join then reads: the driver's joins take this for a build side that
// scans (a dimension table), so that the driver reads files only and what scans is retried.
bool BuildSideCanBeStage(const exec::HashJoinExec& join) {
  return join.mode() == exec::HashJoinExec::Mode::kCollectBuild &&
         !IsHashRepartition(*join.right()) && PartitionsAreIndependent(*join.right());
}

// Whether every input `node` reads is the output of a stage: each leaf lies below a hash
// repartition (a hash stage) or in a build side that becomes a stage of its own, so the
// process that runs `node` reads files and computes from them, but scans nothing.
bool OnlyReadsStages(const exec::ExecutionPlan& node) {
  if (IsHashRepartition(node))
    return true;
  if (node.distribution().keeps_subtree_whole || node.children().empty())
    return false;
  if (const auto* join = node.TryAs<exec::HashJoinExec>();
      join != nullptr && BuildSideCanBeStage(*join))
    return OnlyReadsStages(*join->left());
  for (const auto& child : node.children())
    if (!OnlyReadsStages(*child))
      return false;
  return true;
}

void CollectStages(const exec::ExecPlanPtr& node,
                   std::vector<std::shared_ptr<const StageFileExec>>* out) {
  if (auto stage = exec::PlanAs<StageFileExec>(node)) {
    out->push_back(std::move(stage));
    return;
  }
  for (const auto& child : node->children())
    CollectStages(child, out);
}

// The bytes of the files the scans of `node` read (below stage boundaries too).
int64_t ScannedBytes(const exec::ExecutionPlan& node) {
  int64_t bytes = 0;
  if (const auto* scan = node.TryAs<exec::TableScanExec>())
    bytes += scan->unit_bytes();
  for (const auto& child : node.children())
    bytes += ScannedBytes(*child);
  return bytes;
}

class Cutter {
 public:
  explicit Cutter(const MaterializedPlannerOptions& options) : options_(options) {}

  Result<exec::ExecPlanPtr> Cut(const exec::ExecPlanPtr& node) {
    if (node->distribution().keeps_subtree_whole)
      return node;  // runs its inputs itself (a recursive CTE): no stage inside it
    if (node->distribution().boundary == exec::StageBoundary::kShared)
      return CutShared(node);
    if (IsHashRepartition(*node)) {
      // A shuffle inside a shared subplan is met once per reference where each reference gets a
      // copy (CutShared inside a stage): all read the one stage, computed once. How a hash
      // repartition is cut depends on its subtree alone, never on where it is met.
      if (auto it = hash_stages_.find(node.get()); it != hash_stages_.end())
        return it->second;
      const int id = next_id_++;  // before the subtree: pre-order ids
      // One map task per input partition, each reading its own share of the input once, when
      // every partition can run in a process of its own; else one map task runs them all.
      const exec::ExecPlanPtr child = node->children()[0];
      const int map_tasks =
          PartitionsAreIndependent(*child) ? std::max(1, child->num_partitions()) : 1;
      SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr input, CutInStage(child, map_tasks));
      SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr stage,
                             MakeStage(input, id, node->output_partitioning(), map_tasks));
      hash_stages_.emplace(node.get(), stage);
      return stage;
    }
    std::vector<exec::ExecPlanPtr> children = node->children();
    if (children.empty())
      return node;
    std::vector<exec::ExecPlanPtr> cut;
    cut.reserve(children.size());
    if (const auto* join = node->TryAs<exec::HashJoinExec>();
        join != nullptr && (BuildSideNeedsStage(*join) || DriverBuildSideScans(*join) ||
                            BuildSideRepeatedInTasks(*join))) {
      SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr probe, Cut(children[0]));
      const int id = next_id_++;
      SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr build_input,
                             CutInStage(children[1], children[1]->num_partitions()));
      SHOAL_ASSIGN_OR_RETURN(
          exec::ExecPlanPtr build,
          MakeStage(build_input, id, exec::Partitioning::Unknown(children[1]->num_partitions())));
      return node->WithNewChildren({std::move(probe), std::move(build)});
    }
    // A subtree whose partitions depend on each other stays whole (run by the driver), while
    // the shuffle points below it are still cut. With local tasks, so does one the driver would
    // run that only reads earlier stages' files (the final aggregate, join and sort of most
    // queries): as a stage, its tasks would be one more level of processes started on the same
    // cores, each reading the same files the driver reads, for work the driver's threads do as
    // fast (a level cost some 35 ms at SF1, the query's whole work after the scans often less).
    if (IsCoalescePoint(*node) && children[0]->num_partitions() > 1 &&
        !IsHashRepartition(*children[0]) && PartitionsAreIndependent(*children[0]) &&
        !(options_.local_tasks && stage_depth_ == 0 && OnlyReadsStages(*children[0]))) {
      const int id = next_id_++;
      SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr input,
                             CutInStage(children[0], children[0]->num_partitions()));
      SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr stage,
                             MakeStage(input, id, exec::Partitioning::Unknown(1)));
      cut.push_back(std::move(stage));
    } else {
      for (const auto& child : children) {
        SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr c, Cut(child));
        cut.push_back(std::move(c));
      }
    }
    bool same = true;
    for (size_t i = 0; i < cut.size(); ++i)
      same = same && cut[i] == children[i];
    if (same)
      return node;
    return node->WithNewChildren(std::move(cut));
  }

  /// Cut() of the whole plan: Cut(), then the shared nodes' reference counts made true again.
  Result<exec::ExecPlanPtr> CutPlan(const exec::ExecPlanPtr& plan) {
    SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr cut, Cut(plan));
    if (shared_.empty())
      return cut;
    return exec::RecountSharedReferences(cut);
  }

 private:
  // A subplan several places of the query read (exec/shared_subplans.h: TPC-H Q15's revenue
  // view). Where the driver runs it, it stays shared: the driver computes it once, from stages
  // cut once, and replays it to each reference. Inside a stage each task would compute all of
  // its partitions again, so there each reference gets a copy (RecountSharedReferences then
  // counts the readers left); the shuffles inside the copies are one stage, so a copy repeats
  // only what lies above its last shuffle (Q15: the final aggregation of the stage's files).
  Result<exec::ExecPlanPtr> CutShared(const exec::ExecPlanPtr& node) {
    if (stage_depth_ > 0)
      return Cut(node->children()[0]);
    if (auto it = shared_.find(node.get()); it != shared_.end())
      return it->second;
    SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr child, Cut(node->children()[0]));
    exec::ExecPlanPtr out = node;
    if (child != node->children()[0]) {
      SHOAL_ASSIGN_OR_RETURN(out, node->WithNewChildren({std::move(child)}));
    }
    shared_.emplace(node.get(), out);
    return out;
  }

  // With local tasks, the build side of a collect-build join the driver runs, when it scans (a
  // dimension table): a stage of its own, so that the driver reads files only and what scans is
  // retried as a task.
  bool DriverBuildSideScans(const exec::HashJoinExec& join) const {
    return options_.local_tasks && stage_depth_ == 0 && BuildSideCanBeStage(join) &&
           !OnlyReadsStages(*join.right());
  }

  // A collect-build join in a stage of several tasks: each task splits the probe side but builds
  // the whole build side itself, so a build side that scans much (TPC-H Q12's filtered lineitem,
  // Q3's orders and customer) was computed once per task. Such a build side becomes a stage of
  // its own, computed once by tasks of its own, whose files each task of the join reads; a
  // small one is not worth the level of processes it adds. With local tasks: the same cores run
  // every copy.
  bool BuildSideRepeatedInTasks(const exec::HashJoinExec& join) const {
    return options_.local_tasks && stage_depth_ > 0 && stage_tasks_ > 1 &&
           BuildSideCanBeStage(join) && !OnlyReadsStages(*join.right()) &&
           ScannedBytes(*join.right()) >= options_.repeated_build_min_bytes;
  }

  // Cut() of a subtree that a stage of `tasks` tasks will run, not the driver.
  Result<exec::ExecPlanPtr> CutInStage(const exec::ExecPlanPtr& node, int tasks) {
    ++stage_depth_;
    const int outer_tasks = stage_tasks_;
    stage_tasks_ = tasks;
    Result<exec::ExecPlanPtr> cut = Cut(node);
    stage_tasks_ = outer_tasks;
    --stage_depth_;
    return cut;
  }

  Result<exec::ExecPlanPtr> MakeStage(const exec::ExecPlanPtr& input, int id,
                                      exec::Partitioning partitioning, int map_tasks = 1) {
    SHOAL_ASSIGN_OR_RETURN(
        auto node, StageFileExec::Make(input, options_.shuffle_dir, id, std::move(partitioning),
                                       options_.compression, map_tasks));
    return exec::ExecPlanPtr(std::move(node));
  }

  const MaterializedPlannerOptions& options_;
  int next_id_ = 1;
  int stage_depth_ = 0;  // how many stages enclose the node being cut (0: the driver runs it)
  int stage_tasks_ = 1;  // how many tasks run the innermost stage enclosing it
  // Each shared node the driver runs, cut (every reference gets the same node).
  std::map<const exec::ExecutionPlan*, exec::ExecPlanPtr> shared_;
  // Each hash repartition cut, with its stage.
  std::map<const exec::ExecutionPlan*, exec::ExecPlanPtr> hash_stages_;
};

// Every stage of `root` with the stages it reads (directly) and the stages whose filters its scans
// apply; a stage's level is one more than the highest level of both.
void CollectStageGraph(const exec::ExecPlanPtr& node, int reader,
                       std::map<int, MaterializedStage>* stages,
                       std::set<std::pair<const exec::ExecutionPlan*, int>>* seen) {
  // A shared node (read by the driver in several places) is one subtree: its stages once.
  if (!seen->insert({node.get(), reader}).second)
    return;
  if (const auto stage = exec::PlanAs<StageFileExec>(node)) {
    MaterializedStage& s = (*stages)[stage->stage_id()];
    s.id = stage->stage_id();
    s.node = stage;
    if (reader != 0)
      (*stages)[reader].inputs.push_back(s.id);
    reader = s.id;
  }
  for (const auto& child : node->children())
    CollectStageGraph(child, reader, stages, seen);
}

std::vector<MaterializedStage> OrderStages(const exec::ExecPlanPtr& root,
                                           const std::vector<StageFilterRoute>& routes) {
  std::map<int, MaterializedStage> stages;
  std::set<std::pair<const exec::ExecutionPlan*, int>> seen;
  CollectStageGraph(root, 0, &stages, &seen);
  for (const auto& route : routes)
    for (int target : route.target_stages) {
      auto& sources = stages[target].filter_sources;
      if (std::find(sources.begin(), sources.end(), route.source_stage) == sources.end())
        sources.push_back(route.source_stage);
    }
  // A filter's source stage lies below its join's build side and the scan's stage below its
  // probe side, so the edges form no cycle: at most one pass per stage settles the levels.
  for (size_t pass = 0; pass <= stages.size(); ++pass) {
    bool changed = false;
    for (auto& [id, stage] : stages) {
      int level = 0;
      for (int in : stage.inputs)
        level = std::max(level, stages[in].level + 1);
      for (int in : stage.filter_sources)
        level = std::max(level, stages[in].level + 1);
      changed = changed || level != stage.level;
      stage.level = level;
    }
    if (!changed)
      break;
  }
  std::vector<MaterializedStage> out;
  out.reserve(stages.size());
  for (auto& [id, stage] : stages)
    out.push_back(std::move(stage));
  std::stable_sort(out.begin(), out.end(),
                   [](const MaterializedStage& a, const MaterializedStage& b) {
                     return a.level != b.level ? a.level < b.level : a.id < b.id;
                   });
  return out;
}

}  // namespace

Result<MaterializedPlan> PlanMaterialized(const exec::ExecPlanPtr& plan,
                                          const MaterializedPlannerOptions& options) {
  if (options.shuffle_dir.empty())
    return Status::InvalidArgument("a materialized shuffle needs a shuffle directory")
        .WithHint("SET shuffle_dir = '/path', or shoal sql --shuffle-dir DIR");
  Cutter cutter(options);
  SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr cut, cutter.CutPlan(plan));
  SHOAL_ASSIGN_OR_RETURN(RoutedStageFilters routed, RouteStageFilters(cut));
  MaterializedPlan out;
  out.root = std::move(routed.root);
  out.stages = OrderStages(out.root, routed.routes);
  out.filter_routes = std::move(routed.routes);
  return out;
}

std::vector<std::shared_ptr<const StageFileExec>> FindStages(const exec::ExecPlanPtr& plan) {
  std::vector<std::shared_ptr<const StageFileExec>> out;
  CollectStages(plan, &out);
  return out;
}

}  // namespace shoal::distributed::shuffle
