#include "shoal/distributed/shuffle/materialized_planner.h"

#include <algorithm>
#include <map>

#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/nested_loop_join_exec.h"

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

void CollectStages(const exec::ExecPlanPtr& node,
                   std::vector<std::shared_ptr<const StageFileExec>>* out) {
  if (auto stage = exec::PlanAs<StageFileExec>(node)) {
    out->push_back(std::move(stage));
    return;
  }
  for (const auto& child : node->children())
    CollectStages(child, out);
}

class Cutter {
 public:
  explicit Cutter(const MaterializedPlannerOptions& options) : options_(options) {}

  Result<exec::ExecPlanPtr> Cut(const exec::ExecPlanPtr& node) {
    if (node->distribution().keeps_subtree_whole)
      return node;  // runs its inputs itself (a recursive CTE): no stage inside it
    if (node->distribution().boundary == exec::StageBoundary::kShared)
      return Status::Internal(
          "the file shuffle got a shared subplan: its plans are made with shared_subplans off");
    if (IsHashRepartition(*node)) {
      const int id = next_id_++;  // before the subtree: pre-order ids
      // One map task per input partition, each reading its own share of the input once, when
      // every partition can run in a process of its own; else one map task runs them all.
      const exec::ExecPlanPtr child = node->children()[0];
      const int map_tasks =
          PartitionsAreIndependent(*child) ? std::max(1, child->num_partitions()) : 1;
      SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr input, Cut(child));
      return MakeStage(input, id, node->output_partitioning(), map_tasks);
    }
    std::vector<exec::ExecPlanPtr> children = node->children();
    if (children.empty())
      return node;
    std::vector<exec::ExecPlanPtr> cut;
    cut.reserve(children.size());
    // A subtree whose partitions depend on each other stays whole (run by the driver), while
    // the shuffle points below it are still cut.
    if (IsCoalescePoint(*node) && children[0]->num_partitions() > 1 &&
        !IsHashRepartition(*children[0]) && PartitionsAreIndependent(*children[0])) {
      const int id = next_id_++;
      SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr input, Cut(children[0]));
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

  std::vector<MaterializedStage> TakeStages() {
    std::vector<MaterializedStage> stages;
    for (auto& [id, stage] : stages_)
      stages.push_back(std::move(stage));
    std::stable_sort(stages.begin(), stages.end(),
                     [](const MaterializedStage& a, const MaterializedStage& b) {
                       return a.level != b.level ? a.level < b.level : a.id < b.id;
                     });
    return stages;
  }

 private:
  Result<exec::ExecPlanPtr> MakeStage(const exec::ExecPlanPtr& input, int id,
                                      exec::Partitioning partitioning, int map_tasks = 1) {
    SHOAL_ASSIGN_OR_RETURN(
        auto node, StageFileExec::Make(input, options_.shuffle_dir, id, std::move(partitioning),
                                       options_.compression, map_tasks));
    MaterializedStage stage;
    stage.id = id;
    stage.node = node;
    std::vector<std::shared_ptr<const StageFileExec>> below;
    CollectStages(input, &below);
    for (const auto& b : below) {
      stage.inputs.push_back(b->stage_id());
      stage.level = std::max(stage.level, stages_.at(b->stage_id()).level + 1);
    }
    stages_[id] = std::move(stage);
    return exec::ExecPlanPtr(std::move(node));
  }

  const MaterializedPlannerOptions& options_;
  int next_id_ = 1;
  std::map<int, MaterializedStage> stages_;
};

}  // namespace

Result<MaterializedPlan> PlanMaterialized(const exec::ExecPlanPtr& plan,
                                          const MaterializedPlannerOptions& options) {
  if (options.shuffle_dir.empty())
    return Status::InvalidArgument("a materialized shuffle needs a shuffle directory")
        .WithHint("SET shuffle_dir = '/path', or shoal sql --shuffle-dir DIR");
  Cutter cutter(options);
  MaterializedPlan out;
  SHOAL_ASSIGN_OR_RETURN(out.root, cutter.Cut(plan));
  out.stages = cutter.TakeStages();
  return out;
}

std::vector<std::shared_ptr<const StageFileExec>> FindStages(const exec::ExecPlanPtr& plan) {
  std::vector<std::shared_ptr<const StageFileExec>> out;
  CollectStages(plan, &out);
  return out;
}

}  // namespace shoal::distributed::shuffle
