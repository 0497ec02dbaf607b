#include "shoal/distributed/planner/distributed_planner.h"

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "shoal/common/settings.h"
#include "shoal/distributed/adaptive/load_sampler.h"
#include "shoal/distributed/planner/stage_walk_internal.h"
#include "shoal/exec/operators/limit_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/operators/union_exec.h"
#include "shoal/exec/operators/values_exec.h"

namespace shoal::distributed {

namespace {

using internal::IsSelfContained;
using internal::MapPlan;
using internal::PartitionWise;
using internal::VisitStage;

int64_t CeilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

struct DistributedPlan::State {
  struct StageState {
    exec::ExecPlanPtr root;                       // with placeholder exchanges
    ExchangeKind kind = ExchangeKind::kCoalesce;  // of the boundary reading it
    exec::ExecPlanPtr boundary;                   // the Repartition a shuffle replaced
    bool dead = false;                            // merged into its consumer
    bool shared = false;  // read by several exchanges (kShared): one task, never merged
    StageBindingPtr binding;
    bool instantiated = false;
    Stage stage;
  };

  DistributedPlannerOptions options;
  ChannelResolverPtr channels;
  std::shared_ptr<QueryDispatch> dispatch;
  std::vector<StageState> stages;  // [0]: the head
  std::vector<StageDescription> descriptions;
  exec::ExecPlanPtr head;
  // Cut: the stage of each shared node (SharedResultExec) met so far; its other references
  // read the same stage.
  std::map<const exec::ExecutionPlan*, ExchangeSpec> shared_stages;
  size_t next_ordinal = 0;

  int WorkerCap() const {
    return std::max(1, std::min(static_cast<int>(options.workers.size()),
                                options.max_tasks > 0 ? options.max_tasks : INT32_MAX));
  }

  StageState& At(int id) { return stages[static_cast<size_t>(id)]; }
  const StageState& At(int id) const { return stages[static_cast<size_t>(id)]; }

  int AddStage(exec::ExecPlanPtr root, ExchangeKind kind, exec::ExecPlanPtr boundary) {
    StageState stage;
    stage.root = std::move(root);
    stage.kind = kind;
    stage.boundary = std::move(boundary);
    stages.push_back(std::move(stage));
    return static_cast<int>(stages.size() - 1);
  }

  Result<exec::ExecPlanPtr> Placeholder(ExchangeKind kind, const exec::ExecPlanPtr& input,
                                        exec::Partitioning partitioning,
                                        exec::ExecPlanPtr boundary) {
    ExchangeSpec spec;
    spec.kind = kind;
    spec.schema = input->schema();
    spec.query_id = options.query_id;
    spec.partition_end = partitioning.num_partitions;
    spec.partitioning = std::move(partitioning);
    spec.stage_id = AddStage(input, kind, std::move(boundary));
    SHOAL_ASSIGN_OR_RETURN(auto node, NetworkExchangeExec::Make(std::move(spec), nullptr));
    return exec::ExecPlanPtr(std::move(node));
  }

  // A LIMIT over a merge of a stage's partitions needs at most offset + fetch rows of each of
  // them: the producer stage keeps only those (a sort becomes a top-k), so tasks send no more.
  Status PushLimit(int stage_id, int64_t rows) {
    exec::ExecPlanPtr& root = At(stage_id).root;
    SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr limited, root->WithRowLimit(rows));
    if (limited) {
      root = std::move(limited);
      return Status::OK();
    }
    SHOAL_ASSIGN_OR_RETURN(auto limit, exec::LimitExec::Make(root, 0, rows, false));
    root = std::move(limit);
    return Status::OK();
  }

  // Replaces in-process boundaries with placeholder exchanges, creating a stage for each.
  Result<exec::ExecPlanPtr> Cut(const exec::ExecPlanPtr& node) {
    const exec::DistributionTraits traits = node->distribution();
    if (traits.keeps_subtree_whole)
      return node;  // runs its inputs itself (a recursive CTE): no stage inside it
    if (traits.row_limit >= 0 && node->children().size() == 1) {
      SHOAL_ASSIGN_OR_RETURN(auto merge, Cut(node->children()[0]));
      if (merge->distribution().boundary == exec::StageBoundary::kCoalesce) {
        const auto* exchange = merge->children()[0]->TryAs<NetworkExchangeExec>();
        if (exchange != nullptr && exchange->spec().kind == ExchangeKind::kCoalesce)
          SHOAL_RETURN_IF_ERROR(PushLimit(exchange->spec().stage_id, traits.row_limit));
      }
      return node->WithNewChildren({std::move(merge)});
    }
    if (traits.boundary == exec::StageBoundary::kShuffle) {
      SHOAL_ASSIGN_OR_RETURN(auto input, Cut(node->children()[0]));
      return Placeholder(ExchangeKind::kShuffle, input, node->output_partitioning(), node);
    }
    if (traits.boundary == exec::StageBoundary::kShared)
      return CutShared(node);
    const bool merge = traits.boundary == exec::StageBoundary::kCoalesce;
    const bool build = traits.boundary == exec::StageBoundary::kBroadcastBuild;
    std::vector<exec::ExecPlanPtr> children = node->children();
    if (children.empty())
      return node;
    for (size_t i = 0; i < children.size(); ++i) {
      SHOAL_ASSIGN_OR_RETURN(auto child, Cut(children[i]));
      const bool cut = merge || (build && i == 1);
      if (cut && !IsSelfContained(*child)) {
        SHOAL_ASSIGN_OR_RETURN(
            child, Placeholder(merge ? ExchangeKind::kCoalesce : ExchangeKind::kBroadcast, child,
                               exec::Partitioning::Unknown(child->num_partitions()), nullptr));
      }
      children[i] = std::move(child);
    }
    return node->WithNewChildren(std::move(children));
  }

  // A node that several parents hold: its input becomes one stage, cut at the first reference,
  // and every reference becomes an exchange reading it whole (each partition in order, so the
  // input's partitioning holds for the plans above).
  Result<exec::ExecPlanPtr> CutShared(const exec::ExecPlanPtr& node) {
    if (node->children().size() != 1)
      return Status::Internal("a shared node with {} inputs", node->children().size());
    auto it = shared_stages.find(node.get());
    if (it == shared_stages.end()) {
      const exec::ExecPlanPtr child = node->children()[0];
      SHOAL_ASSIGN_OR_RETURN(auto input, Cut(child));
      SHOAL_ASSIGN_OR_RETURN(auto exchange, Placeholder(ExchangeKind::kShared, input,
                                                        child->output_partitioning(), nullptr));
      const ExchangeSpec& spec = exchange->As<NetworkExchangeExec>().spec();
      At(spec.stage_id).shared = true;
      shared_stages.emplace(node.get(), spec);
      return exchange;
    }
    // Another reference: an exchange of its own (plan nodes are per place) on the same stage.
    SHOAL_ASSIGN_OR_RETURN(auto exchange, NetworkExchangeExec::Make(it->second, nullptr));
    return exec::ExecPlanPtr(std::move(exchange));
  }

  // Puts back the producers of `consumer_single` stages that can only run as one task themselves:
  // a boundary between one task and one task moves data for nothing.
  Result<exec::ExecPlanPtr> MergeSingles(const exec::ExecPlanPtr& root, bool consumer_single) {
    if (!consumer_single)
      return root;
    return MapPlan(root, [&](const exec::ExecPlanPtr& n) -> Result<exec::ExecPlanPtr> {
      const auto* x = n->TryAs<NetworkExchangeExec>();
      if (x == nullptr)
        return exec::ExecPlanPtr();
      StageState& producer = At(x->spec().stage_id);
      if (PartitionWise(*producer.root) || producer.shared)
        return n;
      producer.dead = true;
      SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr inner, MergeSingles(producer.root, true));
      if (producer.kind == ExchangeKind::kShuffle)
        return producer.boundary->WithNewChildren({std::move(inner)});
      return inner;
    });
  }

  // Numbers the live stages 1..n in their order.
  Status Renumber() {
    std::vector<int> new_id(stages.size(), -1);
    std::vector<StageState> live;
    for (size_t s = 0; s < stages.size(); ++s) {
      if (stages[s].dead)
        continue;
      new_id[s] = static_cast<int>(live.size());
      live.push_back(std::move(stages[s]));
    }
    for (auto& stage : live) {
      SHOAL_ASSIGN_OR_RETURN(
          stage.root,
          MapPlan(stage.root, [&](const exec::ExecPlanPtr& n) -> Result<exec::ExecPlanPtr> {
            const auto* x = n->TryAs<NetworkExchangeExec>();
            if (x == nullptr)
              return exec::ExecPlanPtr();
            ExchangeSpec spec = x->spec();
            spec.stage_id = new_id[static_cast<size_t>(spec.stage_id)];
            if (spec.stage_id < 1)
              return Status::Internal("an exchange reads a merged stage");
            SHOAL_ASSIGN_OR_RETURN(auto out, NetworkExchangeExec::Make(std::move(spec), nullptr));
            return exec::ExecPlanPtr(std::move(out));
          }));
    }
    stages = std::move(live);
    return Status::OK();
  }

  // Bytes a stage's output is estimated at: what its scans read plus what its inputs send,
  // except that an aggregation without keys sends one row.
  int64_t EstimatedBytes(const exec::ExecutionPlan& node) const {
    if (const auto* x = node.TryAs<NetworkExchangeExec>())
      return EstimatedBytes(*At(x->spec().stage_id).root);
    if (node.distribution().at_most_one_row)
      return 0;
    int64_t bytes = 0;
    if (const auto* x = node.TryAs<exec::TableScanExec>()) {
      for (const auto& g : x->unit_groups()) {
        for (const auto& u : g)
          bytes += std::max<int64_t>(0, u.bytes);
      }
    }
    for (const auto& c : node.children())
      bytes += EstimatedBytes(*c);
    return bytes;
  }

  Status Describe() {
    descriptions.clear();
    for (size_t s = 1; s < stages.size(); ++s) {
      const exec::ExecutionPlan& root = *stages[s].root;
      StageDescription d;
      d.id = static_cast<int>(s);
      int64_t scan_units = 0;  // of its largest scan (union inputs each get their own tasks)
      bool big_broadcast = false;
      int64_t streamed_in = 0;  // from shuffles and coalesces; broadcasts are replicated
      VisitStage(root, [&](const exec::ExecutionPlan& n) {
        if (const auto* x = n.TryAs<NetworkExchangeExec>()) {
          d.input_stage_ids.push_back(x->spec().stage_id);
          const int64_t in = EstimatedBytes(*At(x->spec().stage_id).root);
          d.estimated_input_bytes += in;
          if (x->spec().kind != ExchangeKind::kBroadcast)
            streamed_in += in;
          else if (in > options.broadcast_max_bytes)
            big_broadcast = true;
        } else if (const auto* x = n.TryAs<exec::TableScanExec>()) {
          int64_t units = 0;
          for (const auto& g : x->unit_groups()) {
            units += static_cast<int64_t>(g.size());
            for (const auto& u : g) {
              d.scanned_bytes += std::max<int64_t>(0, u.bytes);
              if (u.rows < 0 || d.scanned_rows < 0)
                d.scanned_rows = -1;
              else
                d.scanned_rows += u.rows;
            }
          }
          scan_units = std::max(scan_units, units);
        }
      });
      std::sort(d.input_stage_ids.begin(), d.input_stage_ids.end());
      d.input_stage_ids.erase(std::unique(d.input_stage_ids.begin(), d.input_stage_ids.end()),
                              d.input_stage_ids.end());
      d.leaf = d.input_stage_ids.empty();
      // A shared stage runs as one task, so that its readers get its partitions in order.
      if (!PartitionWise(root) || big_broadcast || stages[s].shared) {
        d.max_task_count = 1;
      } else {
        int64_t cap = WorkerCap();
        if (streamed_in == 0 && scan_units > 0)
          cap = std::min(cap, scan_units);
        d.max_task_count = static_cast<int>(cap);
      }
      descriptions.push_back(std::move(d));
      StageDescription& desc = descriptions.back();
      const int64_t wanted = CeilDiv(desc.scanned_bytes + streamed_in, options.bytes_per_task);
      desc.planned_task_count = FitTaskCount(
          desc.id, static_cast<int>(std::clamp<int64_t>(wanted, 1, desc.max_task_count)));
    }
    return Status::OK();
  }

  int FitTaskCount(int stage_id, int wanted) const {
    const StageDescription& d = descriptions[static_cast<size_t>(stage_id - 1)];
    const int top = std::clamp(wanted, 1, d.max_task_count);
    std::vector<int> shuffles;
    VisitStage(*At(stage_id).root, [&](const exec::ExecutionPlan& n) {
      if (const auto* x = n.TryAs<NetworkExchangeExec>()) {
        if (x->spec().kind == ExchangeKind::kShuffle)
          shuffles.push_back(x->spec().partitioning.num_partitions);
      }
    });
    if (shuffles.empty())
      return top;
    for (int t = top; t > 1; --t) {
      bool even = true;
      for (int n : shuffles)
        even = even && n % t == 0;
      if (even)
        return t;
    }
    return top;  // no even split: tasks are padded to the same shape
  }

  // The plan of task `task` of `tasks`: its share of every scan, its range of every shuffle, and
  // exchanges connected to their producers (bound now, or through the binding for the head).
  // `display`: the plan EXPLAIN shows for the stage, where a split UNION keeps every input (each
  // as its first task runs it).
  Result<exec::ExecPlanPtr> Specialise(const exec::ExecPlanPtr& node, int task, int tasks,
                                       bool head, bool display = false) {
    if (const auto* x = node->TryAs<NetworkExchangeExec>()) {
      ExchangeSpec spec = x->spec();
      const StageState& producer = At(spec.stage_id);
      exec::ExecPlanPtr shown;
      if (head) {
        spec.binding = producer.binding;
      } else {
        if (!producer.binding->bound())
          return Status::Internal("input stage {} is not instantiated yet", spec.stage_id);
        spec.producer_workers = producer.binding->workers();
        spec.producer_partitions = producer.binding->partitions_per_task();
        // The producer's first task, shown under the exchange by EXPLAIN (never shipped).
        shown = producer.binding->display();
      }
      if (spec.kind == ExchangeKind::kShuffle) {
        const int n = spec.partitioning.num_partitions;
        spec.partition_start = task * n / tasks;
        spec.partition_end = (task + 1) * n / tasks;
        if (spec.partition_end == spec.partition_start)
          return Status::Internal("stage task {} of {} gets no partition of a {}-way shuffle", task,
                                  tasks, n);
      }
      SHOAL_ASSIGN_OR_RETURN(
          auto out, NetworkExchangeExec::Make(std::move(spec), channels, head ? dispatch : nullptr,
                                              std::move(shown)));
      return exec::ExecPlanPtr(std::move(out));
    }
    if (const auto* x = node->TryAs<exec::TableScanExec>()) {
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
    if (tasks > 1 && children.size() > 1 && node->distribution().splits_inputs_across_tasks) {
      // Disjoint tasks per input: input i on tasks [i*T/k, (i+1)*T/k) when T >= k, else the
      // inputs i with i*T/k == task all on this task.
      const int k = static_cast<int>(children.size());
      std::vector<exec::ExecPlanPtr> mine;
      for (int i = 0; i < k; ++i) {
        if (tasks >= k) {
          const int first = i * tasks / k;
          const int last = (i + 1) * tasks / k;
          if (display || (task >= first && task < last)) {
            SHOAL_ASSIGN_OR_RETURN(
                auto c, Specialise(children[static_cast<size_t>(i)], display ? 0 : task - first,
                                   last - first, head, display));
            mine.push_back(std::move(c));
          }
        } else if (display || i * tasks / k == task) {
          SHOAL_ASSIGN_OR_RETURN(auto c,
                                 Specialise(children[static_cast<size_t>(i)], 0, 1, head, display));
          mine.push_back(std::move(c));
        }
      }
      return node->WithNewChildren(std::move(mine));
    }
    for (auto& c : children) {
      SHOAL_ASSIGN_OR_RETURN(c, Specialise(c, task, tasks, head, display));
    }
    return node->WithNewChildren(std::move(children));
  }

  static bool HasUnion(const exec::ExecutionPlan& root) {
    bool found = false;
    VisitStage(root, [&](const exec::ExecutionPlan& n) {
      found = found || (n.distribution().splits_inputs_across_tasks && n.children().size() > 1);
    });
    return found;
  }

  Result<const Stage*> Instantiate(int stage_id, std::vector<std::string> workers) {
    if (stage_id < 1 || stage_id >= static_cast<int>(stages.size()))
      return Status::InvalidArgument("query {} has no stage {}", options.query_id, stage_id);
    StageState& state = At(stage_id);
    const StageDescription& d = descriptions[static_cast<size_t>(stage_id - 1)];
    if (state.instantiated)
      return Status::Internal("stage {} was instantiated twice", stage_id);
    const int tasks = static_cast<int>(workers.size());
    if (tasks < 1 || tasks > d.max_task_count)
      return Status::InvalidArgument("stage {} runs as 1 to {} tasks, not {}", stage_id,
                                     d.max_task_count, tasks);
    for (int input : d.input_stage_ids) {
      if (!At(input).instantiated)
        return Status::Internal("stage {} was instantiated before its input stage {}", stage_id,
                                input);
    }
    std::vector<exec::ExecPlanPtr> plans;
    int partitions = 0;
    for (int t = 0; t < tasks; ++t) {
      SHOAL_ASSIGN_OR_RETURN(auto plan, Specialise(state.root, t, tasks, false));
      partitions = std::max(partitions, plan->num_partitions());
      plans.push_back(std::move(plan));
    }
    // Consumers address producer task t's partition p as t * partitions + p: pad short tasks
    // with empty partitions.
    for (auto& plan : plans) {
      const int missing = partitions - plan->num_partitions();
      if (missing == 0)
        continue;
      std::vector<exec::ExecPlanPtr> inputs = {plan};
      for (int i = 0; i < missing; ++i) {
        SHOAL_ASSIGN_OR_RETURN(auto empty, exec::ValuesExec::Make(plan->schema(), {}));
        inputs.push_back(std::move(empty));
      }
      SHOAL_ASSIGN_OR_RETURN(auto padded, exec::UnionExec::Make(std::move(inputs)));
      plan = std::move(padded);
    }
    // EXPLAIN shows task 0's plan, unless tasks split a UNION's inputs between them.
    exec::ExecPlanPtr shown = plans[0];
    if (tasks > 1 && HasUnion(*state.root)) {
      SHOAL_ASSIGN_OR_RETURN(shown, Specialise(state.root, 0, tasks, false, true));
    }
    SHOAL_RETURN_IF_ERROR(state.binding->Bind(workers, partitions, std::move(shown)));
    state.instantiated = true;
    state.stage.id = stage_id;
    state.stage.task_count = tasks;
    state.stage.task_plans = std::move(plans);
    state.stage.task_workers = std::move(workers);
    return &state.stage;
  }

  Status InstantiateAll() {
    RoundRobinTaskRouter round_robin;
    TaskRouter& router = options.router ? *options.router : round_robin;
    for (const StageDescription& d : descriptions) {
      if (At(d.id).instantiated)
        continue;
      std::vector<std::string> workers;
      for (int t = 0; t < d.planned_task_count; ++t) {
        TaskPlacement placement;
        placement.query_id = options.query_id;
        placement.stage_id = d.id;
        placement.task_number = t;
        placement.task_count = d.planned_task_count;
        placement.ordinal = next_ordinal++;
        placement.query_sequence = options.first_worker;
        SHOAL_ASSIGN_OR_RETURN(std::string worker, RouteTask(router, placement, options.workers));
        workers.push_back(std::move(worker));
      }
      SHOAL_RETURN_IF_ERROR(Instantiate(d.id, std::move(workers)).status());
    }
    return Status::OK();
  }

  Status Plan(const exec::ExecPlanPtr& plan) {
    if (options.workers.empty())
      return Status::InvalidArgument("a distributed plan needs at least one worker");
    stages.emplace_back();  // stage 0: the head
    SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr root, Cut(plan));
    stages[0].root = std::move(root);
    // Consumers before producers (producers have lower ids), so merged chains collapse fully.
    SHOAL_ASSIGN_OR_RETURN(stages[0].root, MergeSingles(stages[0].root, true));
    for (size_t s = stages.size() - 1; s >= 1; --s) {
      if (!stages[s].dead) {
        SHOAL_ASSIGN_OR_RETURN(stages[s].root,
                               MergeSingles(stages[s].root, !PartitionWise(*stages[s].root)));
      }
    }
    SHOAL_RETURN_IF_ERROR(Renumber());
    for (size_t s = 0; s < stages.size(); ++s)
      stages[s].binding = std::make_shared<StageBinding>(static_cast<int>(s));
    SHOAL_RETURN_IF_ERROR(Describe());
    SHOAL_ASSIGN_OR_RETURN(head, Specialise(stages[0].root, 0, 1, true));
    dispatch.reset();  // only the head's exchanges use it
    return Status::OK();
  }
};

DistributedPlan::DistributedPlan(std::shared_ptr<State> state) : state_(std::move(state)) {}

DistributedPlan::~DistributedPlan() = default;

const std::string& DistributedPlan::query_id() const {
  return state_->options.query_id;
}

const exec::ExecPlanPtr& DistributedPlan::head() const {
  return state_->head;
}

void DistributedPlan::ReleaseHead() {
  state_->head.reset();
}

const std::vector<StageDescription>& DistributedPlan::stages() const {
  return state_->descriptions;
}

int DistributedPlan::FitTaskCount(int stage_id, int wanted) const {
  if (stage_id < 1 || stage_id > static_cast<int>(state_->descriptions.size()))
    return 1;
  return state_->FitTaskCount(stage_id, wanted);
}

Result<const Stage*> DistributedPlan::InstantiateStage(int stage_id,
                                                       std::vector<std::string> workers) {
  return state_->Instantiate(stage_id, std::move(workers));
}

Status DistributedPlan::InstantiateAll() {
  return state_->InstantiateAll();
}

const Stage* DistributedPlan::instantiated(int stage_id) const {
  if (stage_id < 1 || stage_id >= static_cast<int>(state_->stages.size()))
    return nullptr;
  const auto& s = state_->At(stage_id);
  return s.instantiated ? &s.stage : nullptr;
}

Result<DistributedPlanPtr> PlanDistributed(const exec::ExecPlanPtr& plan,
                                           const DistributedPlannerOptions& options,
                                           ChannelResolverPtr channels,
                                           std::shared_ptr<QueryDispatch> dispatch) {
  auto state = std::make_shared<DistributedPlan::State>();
  state->options = options;
  state->channels = std::move(channels);
  state->dispatch = std::move(dispatch);
  SHOAL_RETURN_IF_ERROR(state->Plan(plan));
  return std::make_shared<DistributedPlan>(std::move(state));
}

}  // namespace shoal::distributed
