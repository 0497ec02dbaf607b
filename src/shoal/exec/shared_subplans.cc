#include "shoal/exec/shared_subplans.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "shoal/exec/operators/shared_result_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"

namespace shoal::exec {
namespace {

// Node kinds whose EXPLAIN line (with the output schema) states all they compute.
bool Comparable(PlanKind kind) {
  switch (kind) {
    case PlanKind::kTableScan:
    case PlanKind::kFilter:
    case PlanKind::kProjection:
    case PlanKind::kHashAggregate:
    case PlanKind::kHashJoin:
    case PlanKind::kRepartition:
    case PlanKind::kCoalescePartitions: return true;
    default: return false;
  }
}

// Whether an EXPLAIN line calls a volatile function: two alike subplans calling random() give
// different rows, and each place must keep its own. The executor has none of these functions
// yet; the check is here so that adding one cannot silently merge such subplans.
bool CallsVolatileFunction(const std::string& description) {
  for (const char* name :
       {"random(", "gen_random_uuid(", "nextval(", "clock_timestamp(", "timeofday(", "setseed("}) {
    if (description.find(name) != std::string::npos)
      return true;
  }
  return false;
}

class Sharer {
 public:
  Sharer(const std::set<const ExecutionPlan*>* chosen, bool distributed)
      : chosen_(chosen), distributed_(distributed) {}

  // Fingerprints every node: equal strings mean alike subplans; empty: not comparable.
  const std::string& Fingerprint(const ExecPlanPtr& node) {
    if (auto it = fingerprints_.find(node.get()); it != fingerprints_.end())
      return it->second;
    std::string out;
    bool comparable = Comparable(node->kind());
    std::vector<std::string> children;
    for (const auto& child : node->children()) {
      children.push_back(Fingerprint(child));
      comparable = comparable && !children.back().empty();
    }
    const std::string description = comparable ? node->Describe(true) : std::string();
    if (comparable && !CallsVolatileFunction(description)) {
      out = fmt::format("{}[{}|{}]", PlanKindName(node->kind()), description,
                        node->schema()->ToString());
      if (const auto* scan = node->TryAs<TableScanExec>()) {
        out += fmt::format("@{}", static_cast<const void*>(scan->table().get()));
        reads_table_[node.get()] = true;
      }
      for (const auto& child : node->children())
        reads_table_[node.get()] = reads_table_[node.get()] || reads_table_[child.get()];
      out += "(";
      for (const std::string& child : children)
        out += child + ";";
      out += ")";
      ++occurrences_[out];
    }
    return fingerprints_.emplace(node.get(), std::move(out)).first->second;
  }

  // Counts the references each candidate keeps when the outermost repeated ones are shared: a
  // shared subplan's inside is visited once, however many places read it.
  void CountReferences(const ExecPlanPtr& node) {
    if (node->distribution().keeps_subtree_whole)
      return;  // see Rewrite
    if (Candidate(node)) {
      const std::string& fp = fingerprints_[node.get()];
      if (references_[fp]++ > 0)
        return;
    }
    for (const auto& child : node->children())
      CountReferences(child);
  }

  Result<ExecPlanPtr> Rewrite(const ExecPlanPtr& node) {
    // A node that runs its inputs again and again (a recursive CTE's rounds) keeps them whole:
    // a shared result's state lives for one execution, and the distributed planners cut no
    // stage inside such a node.
    if (node->distribution().keeps_subtree_whole)
      return node;
    const bool share = Candidate(node) && references_[fingerprints_[node.get()]] > 1;
    if (share) {
      if (auto it = shared_.find(fingerprints_[node.get()]); it != shared_.end())
        return it->second;
    }
    std::vector<ExecPlanPtr> children = node->children();
    bool changed = false;
    for (auto& child : children) {
      SHOAL_ASSIGN_OR_RETURN(ExecPlanPtr rewritten, Rewrite(child));
      changed = changed || rewritten != child;
      child = std::move(rewritten);
    }
    ExecPlanPtr out = node;
    if (changed) {
      SHOAL_ASSIGN_OR_RETURN(out, node->WithNewChildren(std::move(children)));
    }
    if (share) {
      const std::string& fp = fingerprints_[node.get()];
      if (distributed_ && !IsAggregation(*node) && out->num_partitions() > 1) {
        SHOAL_ASSIGN_OR_RETURN(out, Spread(std::move(out)));
      }
      out = SharedResultExec::Make(std::move(out), references_[fp]);
      shared_.emplace(fp, out);
    }
    return out;
  }

 private:
  static bool IsAggregation(const ExecutionPlan& node) {
    const auto* aggregate = node.TryAs<HashAggregateExec>();
    return aggregate != nullptr && aggregate->mode() != AggregateMode::kPartial;
  }

  // Across processes a shared subplan is a stage of one task (or, in the file shuffle, run by
  // the driver), so a join shared as it is would scan its probe side in one task where each copy
  // had many. Hashing its rows into as many partitions as it had puts a stage boundary under the
  // shared node: the work below runs in as many tasks as before, once, and only its result
  // (small: the optimizer shares nothing larger) goes through the one task. A hash partitioning
  // holds wherever the plans above expected the child's unknown one; a hash one is kept as is.
  static Result<ExecPlanPtr> Spread(ExecPlanPtr node) {
    Partitioning partitioning = node->output_partitioning();
    if (partitioning.kind != PartitioningKind::kHash) {
      std::vector<sql::ExprPtr> keys;
      const auto& fields = node->schema()->fields();
      for (size_t i = 0; i < fields.size(); ++i) {
        keys.push_back(sql::MakeColumnRef(static_cast<sql::ColumnId>(i), fields[i].name,
                                          fields[i].type, fields[i].nullable));
      }
      partitioning = Partitioning::Hash(std::move(keys), node->num_partitions());
    }
    SHOAL_ASSIGN_OR_RETURN(auto spread, RepartitionExec::Make(std::move(node), partitioning));
    return ExecPlanPtr(std::move(spread));
  }

  bool Candidate(const ExecPlanPtr& node) {
    if (!IsAggregation(*node) && chosen_->count(node.get()) == 0)
      return false;
    const std::string& fp = fingerprints_[node.get()];
    return !fp.empty() && reads_table_[node.get()] && occurrences_[fp] > 1;
  }

  std::map<const ExecutionPlan*, std::string> fingerprints_;
  std::map<const ExecutionPlan*, bool> reads_table_;
  std::map<std::string, int> occurrences_;
  std::map<std::string, int> references_;
  std::map<std::string, ExecPlanPtr> shared_;
  const std::set<const ExecutionPlan*>* chosen_;
  bool distributed_;
};

// Parents per shared node, each distinct parent counted once however often the DAG reaches it.
void CountParents(const ExecPlanPtr& node, std::set<const ExecutionPlan*>* seen,
                  std::map<const ExecutionPlan*, int>* parents) {
  if (!seen->insert(node.get()).second)
    return;
  for (const auto& child : node->children()) {
    if (child->Is<SharedResultExec>())
      ++(*parents)[child.get()];
    CountParents(child, seen, parents);
  }
}

Result<ExecPlanPtr> Recount(const ExecPlanPtr& node,
                            const std::map<const ExecutionPlan*, int>& parents,
                            std::map<const ExecutionPlan*, ExecPlanPtr>* done) {
  if (auto it = done->find(node.get()); it != done->end())
    return it->second;
  std::vector<ExecPlanPtr> children = node->children();
  bool changed = false;
  for (auto& child : children) {
    SHOAL_ASSIGN_OR_RETURN(ExecPlanPtr rewritten, Recount(child, parents, done));
    changed = changed || rewritten != child;
    child = std::move(rewritten);
  }
  ExecPlanPtr out = node;
  if (const auto* shared = node->TryAs<SharedResultExec>()) {
    auto it = parents.find(node.get());
    const int readers = it == parents.end() ? 0 : it->second;
    if (readers == 1) {
      out = children[0];
    } else if (readers > 1 && (changed || readers != shared->references())) {
      out = SharedResultExec::Make(children[0], readers);
    } else if (changed) {
      SHOAL_ASSIGN_OR_RETURN(out, node->WithNewChildren(std::move(children)));
    }
  } else if (changed) {
    SHOAL_ASSIGN_OR_RETURN(out, node->WithNewChildren(std::move(children)));
  }
  done->emplace(node.get(), out);
  return out;
}

}  // namespace

Result<ExecPlanPtr> RecountSharedReferences(const ExecPlanPtr& plan) {
  std::set<const ExecutionPlan*> seen;
  std::map<const ExecutionPlan*, int> parents;
  CountParents(plan, &seen, &parents);
  std::map<const ExecutionPlan*, ExecPlanPtr> done;
  return Recount(plan, parents, &done);
}

Result<ExecPlanPtr> ShareCommonSubplans(const ExecPlanPtr& plan,
                                        const std::set<const ExecutionPlan*>& chosen,
                                        bool distributed) {
  Sharer sharer(&chosen, distributed);
  sharer.Fingerprint(plan);
  sharer.CountReferences(plan);
  return sharer.Rewrite(plan);
}

}  // namespace shoal::exec
