#include "shoal/dist/distributed_planner.h"

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "shoal/common/settings.h"
#include "shoal/exec/operators/coalesce_partitions_exec.h"
#include "shoal/exec/operators/filter_exec.h"
#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/limit_exec.h"
#include "shoal/exec/operators/nested_loop_join_exec.h"
#include "shoal/exec/operators/projection_exec.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "shoal/exec/operators/sort_exec.h"
#include "shoal/exec/operators/sort_preserving_merge_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/operators/union_exec.h"
#include "shoal/exec/operators/window_exec.h"

namespace shoal::dist {

namespace {

Status DoRegister() {
  SettingsRegistry& registry = SettingsRegistry::Global();
  SettingDefinition max_tasks;
  max_tasks.name = "dist_max_tasks";
  max_tasks.type = SettingType::kInt;
  max_tasks.default_value = "0";
  max_tasks.min = 0;
  max_tasks.max = 100000;
  max_tasks.description = "Most tasks per distributed stage (0: one per worker)";
  SHOAL_RETURN_IF_ERROR(registry.Register(std::move(max_tasks)));

  SettingDefinition bytes_per_task;
  bytes_per_task.name = "dist_bytes_per_task";
  bytes_per_task.type = SettingType::kBytes;
  bytes_per_task.default_value = std::to_string(64LL << 20);
  bytes_per_task.min = 1;
  bytes_per_task.description = "Bytes a leaf stage's task scans; sizes leaf stages";
  SHOAL_RETURN_IF_ERROR(registry.Register(std::move(bytes_per_task)));

  SettingDefinition broadcast;
  broadcast.name = "dist_broadcast_max_bytes";
  broadcast.type = SettingType::kBytes;
  broadcast.default_value = std::to_string(64LL << 20);
  broadcast.min = 0;
  broadcast.description =
      "Largest scanned size of a join build side replicated to every task of its consumer stage";
  SHOAL_RETURN_IF_ERROR(registry.Register(std::move(broadcast)));

  SettingDefinition compression;
  compression.name = "dist_compression";
  compression.type = SettingType::kEnum;
  compression.default_value = "lz4";
  compression.choices = {"none", "lz4", "zstd"};
  compression.description = "Compression of record batches sent between processes";
  return registry.Register(std::move(compression));
}

bool IsPlaceholder(const exec::ExecutionPlan& node) {
  return dynamic_cast<const NetworkExchangeExec*>(&node) != nullptr;
}

// A subtree that produces the same rows wherever it runs and reads nothing remote (VALUES).
bool IsSelfContained(const exec::ExecutionPlan& node) {
  if (IsPlaceholder(node) || dynamic_cast<const exec::TableScanExec*>(&node) != nullptr)
    return false;
  for (const auto& c : node.children()) {
    if (!IsSelfContained(*c))
      return false;
  }
  return true;
}

bool EmitsUnmatchedBuildRows(sql::JoinType type) {
  return type == sql::JoinType::kRight || type == sql::JoinType::kFull;
}

// Every operator of the stage gives the same rows when its input is split across tasks.
bool PartitionWise(const exec::ExecutionPlan& node) {
  if (const auto* x = dynamic_cast<const NetworkExchangeExec*>(&node))
    return x->spec().kind != ExchangeKind::kCoalesce;
  bool ok = false;
  if (dynamic_cast<const exec::TableScanExec*>(&node) != nullptr ||
      dynamic_cast<const exec::FilterExec*>(&node) != nullptr ||
      dynamic_cast<const exec::ProjectionExec*>(&node) != nullptr ||
      dynamic_cast<const exec::UnionExec*>(&node) != nullptr ||
      dynamic_cast<const exec::SortExec*>(&node) != nullptr) {
    ok = true;
  } else if (const auto* x = dynamic_cast<const exec::LimitExec*>(&node)) {
    ok = !x->global();
  } else if (const auto* x = dynamic_cast<const exec::HashAggregateExec*>(&node)) {
    ok = x->mode() == exec::AggregateMode::kPartial ||
         x->children()[0]->output_partitioning().kind == exec::PartitioningKind::kHash;
  } else if (const auto* x = dynamic_cast<const exec::HashJoinExec*>(&node)) {
    ok = x->mode() == exec::HashJoinExec::Mode::kPartitioned ||
         !EmitsUnmatchedBuildRows(x->join_type());
  } else if (const auto* x = dynamic_cast<const exec::NestedLoopJoinExec*>(&node)) {
    ok = !EmitsUnmatchedBuildRows(x->join_type());
  } else if (const auto* x = dynamic_cast<const exec::WindowExec*>(&node)) {
    // Partitions hold whole window partitions only when the input is hash-partitioned.
    ok = x->children()[0]->output_partitioning().kind == exec::PartitioningKind::kHash;
  }
  if (!ok)
    return false;
  for (const auto& c : node.children()) {
    if (!PartitionWise(*c))
      return false;
  }
  return true;
}

struct StageInfo {
  exec::ExecPlanPtr root;  // with placeholder exchanges
  int task_count = 1;
  int partitions = 0;  // of each task's plan, once specialised
  std::vector<std::string> workers;
  std::vector<exec::ExecPlanPtr> task_plans;
};

class Planner {
 public:
  Planner(const DistributedPlannerOptions& options, ChannelResolverPtr channels,
          std::shared_ptr<QueryDispatch> dispatch)
      : options_(options), channels_(std::move(channels)), dispatch_(std::move(dispatch)) {}

  Result<DistributedPlan> Run(const exec::ExecPlanPtr& plan) {
    if (options_.workers.empty())
      return Status::InvalidArgument("a distributed plan needs at least one worker");
    stages_.emplace_back();  // stage 0: the head
    SHOAL_ASSIGN_OR_RETURN(stages_[0].root, Cut(plan));
    size_t next_worker = options_.first_worker;
    for (size_t s = 1; s < stages_.size(); ++s) {
      StageInfo& stage = stages_[s];
      stage.task_count = TaskCount(*stage.root);
      for (int t = 0; t < stage.task_count; ++t)
        stage.workers.push_back(options_.workers[next_worker++ % options_.workers.size()]);
      for (int t = 0; t < stage.task_count; ++t) {
        SHOAL_ASSIGN_OR_RETURN(auto task_plan, Specialise(stage.root, t, stage.task_count, false));
        if (t == 0)
          stage.partitions = task_plan->num_partitions();
        else if (task_plan->num_partitions() != stage.partitions)
          return Status::Internal("stage {} task {} has {} partitions, task 0 has {}", s, t,
                                  task_plan->num_partitions(), stage.partitions);
        stage.task_plans.push_back(std::move(task_plan));
      }
    }
    DistributedPlan out;
    out.query_id = options_.query_id;
    SHOAL_ASSIGN_OR_RETURN(out.head, Specialise(stages_[0].root, 0, 1, true));
    for (size_t s = 1; s < stages_.size(); ++s) {
      Stage stage;
      stage.id = static_cast<int>(s);
      stage.task_count = stages_[s].task_count;
      stage.task_plans = stages_[s].task_plans;
      stage.task_workers = stages_[s].workers;
      out.stages.push_back(std::move(stage));
    }
    return out;
  }

 private:
  int AddStage(exec::ExecPlanPtr root) {
    StageInfo stage;
    stage.root = std::move(root);
    stages_.push_back(std::move(stage));
    return static_cast<int>(stages_.size() - 1);
  }

  Result<exec::ExecPlanPtr> Placeholder(ExchangeKind kind, const exec::ExecPlanPtr& input,
                                        exec::Partitioning partitioning) {
    ExchangeSpec spec;
    spec.kind = kind;
    spec.schema = input->schema();
    spec.query_id = options_.query_id;
    spec.partition_end = partitioning.num_partitions;
    spec.partitioning = std::move(partitioning);
    spec.stage_id = AddStage(input);
    SHOAL_ASSIGN_OR_RETURN(auto node, NetworkExchangeExec::Make(std::move(spec), nullptr));
    return exec::ExecPlanPtr(std::move(node));
  }

  // Replaces in-process boundaries with placeholder exchanges, creating a stage for each.
  Result<exec::ExecPlanPtr> Cut(const exec::ExecPlanPtr& node) {
    if (const auto* x = dynamic_cast<const exec::RepartitionExec*>(node.get())) {
      SHOAL_ASSIGN_OR_RETURN(auto input, Cut(x->children()[0]));
      return Placeholder(ExchangeKind::kShuffle, input, x->output_partitioning());
    }
    const bool merge = dynamic_cast<const exec::CoalescePartitionsExec*>(node.get()) != nullptr ||
                       dynamic_cast<const exec::SortPreservingMergeExec*>(node.get()) != nullptr;
    bool build = dynamic_cast<const exec::NestedLoopJoinExec*>(node.get()) != nullptr;
    if (const auto* j = dynamic_cast<const exec::HashJoinExec*>(node.get()))
      build = j->mode() == exec::HashJoinExec::Mode::kCollectBuild;
    std::vector<exec::ExecPlanPtr> children = node->children();
    if (children.empty())
      return node;
    for (size_t i = 0; i < children.size(); ++i) {
      SHOAL_ASSIGN_OR_RETURN(auto child, Cut(children[i]));
      const bool cut = merge || (build && i == 1);
      if (cut && !IsSelfContained(*child)) {
        SHOAL_ASSIGN_OR_RETURN(
            child, Placeholder(merge ? ExchangeKind::kCoalesce : ExchangeKind::kBroadcast, child,
                               exec::Partitioning::Unknown(child->num_partitions())));
      }
      children[i] = std::move(child);
    }
    return node->WithNewChildren(std::move(children));
  }

  // Bytes the scans of a subtree read, following exchanges into their producer stages.
  int64_t ScannedBytes(const exec::ExecutionPlan& node) const {
    if (const auto* x = dynamic_cast<const NetworkExchangeExec*>(&node))
      return ScannedBytes(*stages_[static_cast<size_t>(x->spec().stage_id)].root);
    int64_t bytes = 0;
    if (const auto* x = dynamic_cast<const exec::TableScanExec*>(&node)) {
      for (const auto& g : x->unit_groups()) {
        for (const auto& u : g)
          bytes += std::max<int64_t>(0, u.bytes);
      }
    }
    for (const auto& c : node.children())
      bytes += ScannedBytes(*c);
    return bytes;
  }

  int TaskCount(const exec::ExecutionPlan& root) const {
    if (!PartitionWise(root))
      return 1;
    const int cap = std::max(1, std::min(static_cast<int>(options_.workers.size()),
                                         options_.max_tasks > 0 ? options_.max_tasks : INT32_MAX));
    int shuffle_partitions = 0;
    int64_t scan_bytes = 0;
    size_t scan_units = SIZE_MAX;
    bool has_scan = false;
    bool big_broadcast = false;
    std::function<void(const exec::ExecutionPlan&)> visit = [&](const exec::ExecutionPlan& n) {
      if (const auto* x = dynamic_cast<const NetworkExchangeExec*>(&n)) {
        if (x->spec().kind == ExchangeKind::kShuffle)
          shuffle_partitions = x->spec().partitioning.num_partitions;
        if (x->spec().kind == ExchangeKind::kBroadcast &&
            ScannedBytes(n) > options_.broadcast_max_bytes)
          big_broadcast = true;
        return;
      }
      if (const auto* x = dynamic_cast<const exec::TableScanExec*>(&n)) {
        has_scan = true;
        size_t units = 0;
        for (const auto& g : x->unit_groups()) {
          units += g.size();
          for (const auto& u : g)
            scan_bytes += std::max<int64_t>(0, u.bytes);
        }
        scan_units = std::min(scan_units, units);
      }
      for (const auto& c : n.children())
        visit(*c);
    };
    visit(root);
    if (big_broadcast)
      return 1;
    if (shuffle_partitions > 0) {
      // Equal ranges keep every task's partition count the same.
      for (int t = std::min(cap, shuffle_partitions); t > 1; --t) {
        if (shuffle_partitions % t == 0)
          return t;
      }
      return 1;
    }
    if (!has_scan)
      return 1;
    const int64_t wanted = (scan_bytes + options_.bytes_per_task - 1) / options_.bytes_per_task;
    return static_cast<int>(
        std::max<int64_t>(1, std::min<int64_t>({wanted, cap, static_cast<int64_t>(scan_units)})));
  }

  // The plan of task `task` of `tasks`: its share of every scan, its range of every shuffle, and
  // exchanges connected to their producers' workers.
  Result<exec::ExecPlanPtr> Specialise(const exec::ExecPlanPtr& node, int task, int tasks,
                                       bool head) {
    if (const auto* x = dynamic_cast<const NetworkExchangeExec*>(node.get())) {
      ExchangeSpec spec = x->spec();
      const StageInfo& producer = stages_[static_cast<size_t>(spec.stage_id)];
      spec.producer_workers = producer.workers;
      spec.producer_partitions = std::max(1, producer.partitions);
      if (spec.kind == ExchangeKind::kShuffle) {
        const int n = spec.partitioning.num_partitions;
        spec.partition_start = task * n / tasks;
        spec.partition_end = (task + 1) * n / tasks;
      }
      // The producer's first task, shown under the exchange by EXPLAIN (never shipped).
      exec::ExecPlanPtr display = producer.task_plans.empty() ? nullptr : producer.task_plans[0];
      SHOAL_ASSIGN_OR_RETURN(
          auto out, NetworkExchangeExec::Make(std::move(spec), channels_,
                                              head ? dispatch_ : nullptr, std::move(display)));
      return exec::ExecPlanPtr(std::move(out));
    }
    if (const auto* x = dynamic_cast<const exec::TableScanExec*>(node.get())) {
      if (tasks == 1)
        return node;
      std::vector<io::ScanUnit> units;
      for (const auto& g : x->unit_groups())
        units.insert(units.end(), g.begin(), g.end());
      const size_t n = units.size();
      const size_t begin = static_cast<size_t>(task) * n / static_cast<size_t>(tasks);
      const size_t end = static_cast<size_t>(task + 1) * n / static_cast<size_t>(tasks);
      // Keep the template's partition count so every task's plan has the same shape.
      const size_t groups_count = std::max<size_t>(1, x->unit_groups().size());
      std::vector<std::vector<io::ScanUnit>> groups(groups_count);
      for (size_t i = begin; i < end; ++i)
        groups[(i - begin) * groups_count / std::max<size_t>(1, end - begin)].push_back(units[i]);
      SHOAL_ASSIGN_OR_RETURN(
          auto scan, exec::TableScanExec::FromUnitGroups(x->table(), x->table_name(), x->request(),
                                                         std::move(groups)));
      return exec::ExecPlanPtr(std::move(scan));
    }
    std::vector<exec::ExecPlanPtr> children = node->children();
    if (children.empty())
      return node;
    for (auto& c : children) {
      SHOAL_ASSIGN_OR_RETURN(c, Specialise(c, task, tasks, head));
    }
    return node->WithNewChildren(std::move(children));
  }

  const DistributedPlannerOptions& options_;
  ChannelResolverPtr channels_;
  std::shared_ptr<QueryDispatch> dispatch_;
  std::vector<StageInfo> stages_;
};

}  // namespace

Status RegisterDistSettings() {
  static const Status status = DoRegister();
  return status;
}

Result<DistributedPlan> PlanDistributed(const exec::ExecPlanPtr& plan,
                                        const DistributedPlannerOptions& options,
                                        ChannelResolverPtr channels,
                                        std::shared_ptr<QueryDispatch> dispatch) {
  Planner planner(options, std::move(channels), std::move(dispatch));
  return planner.Run(plan);
}

}  // namespace shoal::dist
