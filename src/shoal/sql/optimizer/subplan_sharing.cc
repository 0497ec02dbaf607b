// Subplan sharing: subtrees of one query that compute the same thing from the same tables (TPC-H
// Q11's partsupp x supplier x nation join, in the main query and in its HAVING subquery; a WITH
// query referenced twice) are marked with a common number (LogicalPlan::shared_subplan), so that
// the query computes them once and every place reads the one result.
//
// Alike means: the same node kinds, tables, pushed-down predicates, join types, keys, filters,
// projections and aggregates, with column ids matched one to one (each reference of a WITH query
// is bound with ids of its own). The rule runs before projection pruning, while every copy still
// reads all of its table columns: pruning then gives every copy of a number the union of the
// columns its readers need (projection_pruning.cc), so the copies stay alike, and it is also
// where the cost decides, since only there the width of the kept result is known.
//
// Scalar subqueries over one fact table that differ only in their aggregates or WHERE clauses
// (`SELECT (SELECT count(*) FROM t WHERE a < 10), (SELECT avg(b) FROM t WHERE a > 90)`) are made
// alike first: each computes every aggregate of the group, under its own WHERE as a FILTER, over
// the scan filtered by the OR of the WHEREs, so that the table is read once for all of them.
//
// Which subtrees: the largest alike ones (a subtree inside a chosen one is not chosen again) that
// read a table and do more than scan it (a join or an aggregation inside). A scan or a filtered
// scan is read again instead: keeping its rows costs memory in proportion to the table, and every
// copy keeps its own runtime join filters (TPC-H Q21 at SF1: the supplier join's filter leaves
// 251,424 of l1's 3,793,296 late rows, other joins' filters 76,667 of l3's; one shared scan could
// take neither). Nothing inside a recursive CTE, and no subtree
// with a subquery, an outer reference or a volatile call, takes part.
//
// The plan does not depend on the execution mode or the shared_subplans setting (the statement
// cache keeps optimized plans across both): with sharing off, the copies read the union of their
// columns and are computed at each place.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "shoal/sql/optimizer/cardinality_estimator.h"
#include "shoal/sql/optimizer/optimizer.h"
#include "shoal/sql/optimizer/plan_util.h"
#include "shoal/sql/session.h"

namespace shoal::sql::optimizer {
namespace {

// Whether an expression may take part: no subquery, outer reference, window or volatile call.
bool Comparable(const ExprPtr& expr) {
  if (expr == nullptr)
    return true;
  bool ok = true;
  VisitExpr(expr, [&ok](const Expr& x) {
    switch (x.kind) {
      case ExprKind::kSubquery:
      case ExprKind::kWindow: ok = false; break;
      case ExprKind::kColumnRef: ok = ok && x.outer_depth == 0; break;
      case ExprKind::kCall: ok = ok && !IsVolatileFunction(x.name); break;
      default: break;
    }
  });
  return ok;
}

bool SamePredicates(const std::vector<io::ColumnPredicate>& a,
                    const std::vector<io::ColumnPredicate>& b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].column != b[i].column || a[i].op != b[i].op || a[i].values != b[i].values)
      return false;
  }
  return true;
}

// Matches two subtrees, extending `ids` (a's column ids -> b's) as it goes.
class Matcher {
 public:
  bool Alike(const LogicalPlan& a, const LogicalPlan& b) {
    if (a.kind != b.kind || a.children.size() != b.children.size() ||
        a.output.size() != b.output.size())
      return false;
    for (size_t i = 0; i < a.children.size(); ++i) {
      if (!Alike(*a.children[i], *b.children[i]))
        return false;
    }
    switch (a.kind) {
      case LogicalKind::kScan:
        if (a.table != b.table || a.table_name != b.table_name || a.projection != b.projection ||
            a.field_paths != b.field_paths ||
            !SamePredicates(a.pushed_predicates, b.pushed_predicates))
          return false;
        break;
      case LogicalKind::kFilter:
        if (!Same(a.predicate, b.predicate))
          return false;
        break;
      case LogicalKind::kProject:
        if (!Same(a.exprs, b.exprs))
          return false;
        break;
      case LogicalKind::kAggregate:
        if (!Same(a.group_by, b.group_by) || !Same(a.aggregates, b.aggregates) ||
            a.grouping_sets != b.grouping_sets ||
            (a.grouping_id_column == kInvalidColumnId) !=
                (b.grouping_id_column == kInvalidColumnId))
          return false;
        break;
      case LogicalKind::kJoin:
        if (a.lateral || b.lateral || a.join_type != b.join_type ||
            !Same(a.left_keys, b.left_keys) || !Same(a.right_keys, b.right_keys) ||
            !Same(a.predicate, b.predicate) ||
            (a.mark_column == kInvalidColumnId) != (b.mark_column == kInvalidColumnId))
          return false;
        break;
      case LogicalKind::kDistinct: break;
      default: return false;  // kinds this rule does not compare
    }
    // Output columns: those of the children must match as mapped, the node's own are new.
    for (size_t i = 0; i < a.output.size(); ++i) {
      const ColumnInfo& x = a.output[i];
      const ColumnInfo& y = b.output[i];
      if (x.type != y.type || x.nullable != y.nullable)
        return false;
      auto it = ids_.find(x.id);
      if (it == ids_.end()) {
        ids_.emplace(x.id, y.id);
      } else if (it->second != y.id) {
        return false;
      }
    }
    return true;
  }

 private:
  bool Same(const ExprPtr& a, const ExprPtr& b) {
    if (a == nullptr || b == nullptr)
      return a == b;
    if (!Comparable(a) || !Comparable(b))
      return false;
    bool mapped = true;
    ExprPtr renamed = TransformExpr(a, [&](const ExprPtr& e) -> ExprPtr {
      if (e->kind != ExprKind::kColumnRef)
        return nullptr;
      auto it = ids_.find(e->column);
      if (it == ids_.end()) {
        mapped = false;
        return nullptr;
      }
      auto copy = std::make_shared<Expr>(*e);
      copy->column = it->second;
      return copy;
    });
    return mapped && ExprEquals(*renamed, *b);
  }

  bool Same(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b) {
    if (a.size() != b.size())
      return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!Same(a[i], b[i]))
        return false;
    }
    return true;
  }

  std::map<ColumnId, ColumnId> ids_;
};

struct Shape {
  std::string key;  // kinds and tables in pre-order: only subtrees with equal keys can be alike
  bool reads_table = false;
  bool does_work = false;  // a join or an aggregation inside
};

// An aggregation without GROUP BY over a scan, filtered or not (a scalar subquery's shape).
struct GlobalAggregation {
  const LogicalPlan* node = nullptr;
  const LogicalPlan* filter = nullptr;  // the Filter between, or null
  const LogicalPlan* scan = nullptr;
};

std::optional<GlobalAggregation> AsGlobalAggregation(const LogicalPlan& node) {
  if (node.kind != LogicalKind::kAggregate || !node.group_by.empty() ||
      !node.grouping_sets.empty() || node.grouping_id_column != kInvalidColumnId ||
      node.aggregates.empty())
    return std::nullopt;
  GlobalAggregation out{&node, nullptr, node.children[0].get()};
  if (out.scan->kind == LogicalKind::kFilter) {
    out.filter = out.scan;
    out.scan = out.scan->children[0].get();
    if (!Comparable(out.filter->predicate))
      return std::nullopt;
  }
  if (out.scan->kind != LogicalKind::kScan || node.output.size() != node.aggregates.size())
    return std::nullopt;
  for (const auto& aggregate : node.aggregates) {
    if (!Comparable(aggregate))
      return std::nullopt;
  }
  return out;
}

// Which scan a global aggregation reads: those of one key read the same columns of one table.
std::string ScanKey(const LogicalPlan& scan) {
  std::string key =
      fmt::format("{}@{}[", scan.table_name, static_cast<const void*>(scan.table.get()));
  for (int column : scan.projection)
    key += std::to_string(column) + ",";
  key += "]";
  for (const auto& paths : scan.field_paths) {
    for (const auto& path : paths) {
      for (int step : path)
        key += std::to_string(step) + ".";
      key += ";";
    }
    key += "|";
  }
  return key;
}

class SubplanSharer {
 public:
  explicit SubplanSharer(ColumnIdAllocator* column_ids) : column_ids_(column_ids) {}

  LogicalPlanPtr Run(const LogicalPlanPtr& plan) {
    Describe(plan);
    Choose(plan);
    if (column_ids_ != nullptr) {
      CollectGlobalAggregations(plan);
      for (auto& [key, aggregations] : global_aggregations_) {
        if (aggregations.size() > 1)
          MergeGlobalAggregations(aggregations);
      }
    }
    if (groups_ == 0 && !marked_before_)
      return plan;
    return Mark(plan);
  }

 private:
  const Shape& Describe(const LogicalPlanPtr& node) {
    if (auto it = shapes_.find(node.get()); it != shapes_.end())
      return it->second;
    marked_before_ = marked_before_ || node->shared_subplan >= 0;
    Shape shape;
    shape.key = LogicalKindName(node->kind);
    if (node->kind == LogicalKind::kScan) {
      shape.key += ":" + node->table_name;
      shape.reads_table = true;
    }
    shape.does_work = node->kind == LogicalKind::kJoin || node->kind == LogicalKind::kAggregate ||
                      node->kind == LogicalKind::kDistinct;
    shape.key += "(";
    // A recursive CTE's terms run again each round: nothing below one takes part.
    if (node->kind != LogicalKind::kRecursiveCte) {
      for (const auto& child : node->children) {
        const Shape& c = Describe(child);
        shape.key += c.key + ",";
        shape.reads_table = shape.reads_table || c.reads_table;
        shape.does_work = shape.does_work || c.does_work;
      }
    }
    shape.key += ")";
    by_key_[shape.key].push_back(node.get());
    return shapes_.emplace(node.get(), std::move(shape)).first->second;
  }

  // Pre-order: the largest alike subtrees are met first.
  void Choose(const LogicalPlanPtr& node) {
    if (node->kind == LogicalKind::kRecursiveCte || taken_.count(node.get()) > 0)
      return;
    const Shape& shape = shapes_.at(node.get());
    if (shape.reads_table && shape.does_work) {
      std::vector<const LogicalPlan*> alike;
      for (const LogicalPlan* other : by_key_[shape.key]) {
        if (other == node.get() || taken_.count(other) > 0)
          continue;
        if (Matcher().Alike(*node, *other))
          alike.push_back(other);
      }
      if (!alike.empty()) {
        alike.push_back(node.get());
        const int group = groups_++;
        for (const LogicalPlan* copy : alike) {
          chosen_[copy] = group;
          Take(*copy);
        }
        return;
      }
    }
    for (const auto& child : node->children)
      Choose(child);
  }

  void Take(const LogicalPlan& node) {
    taken_.insert(&node);
    for (const auto& child : node.children)
      Take(*child);
  }

  // Global aggregations over the same scan that are not alike already: scalar subqueries over
  // one fact table that compute other aggregates, or the same ones under other WHERE clauses.
  void CollectGlobalAggregations(const LogicalPlanPtr& node) {
    if (node->kind == LogicalKind::kRecursiveCte || taken_.count(node.get()) > 0)
      return;
    if (auto aggregation = AsGlobalAggregation(*node)) {
      global_aggregations_[ScanKey(*aggregation->scan)].push_back(*aggregation);
      return;
    }
    for (const auto& child : node->children)
      CollectGlobalAggregations(child);
  }

  // Makes every aggregation of `group` compute all of their aggregates over one scan, each
  // aggregate under its own aggregation's WHERE as a FILTER and the scan under the OR of the
  // WHEREs, so that the copies are alike and are computed once: one scan instead of one per
  // scalar subquery. For an aggregation without GROUP BY this is exact: it gives one row whatever
  // rows reach it, and each aggregate sees exactly the rows its own WHERE kept. Each copy keeps
  // its own aggregates' ids; the others' get new ones (projection pruning keeps them, the copies
  // being one shared group).
  void MergeGlobalAggregations(const std::vector<GlobalAggregation>& group) {
    // A small table is read again by each: the wider filter and the FILTERs would cost more.
    if (CardinalityEstimator().Estimate(group[0].scan->Clone()) < kSharedSubplanMinScanRows)
      return;
    // Each copy's expressions over the first copy's scan columns (same table, same projection).
    const LogicalPlan& first_scan = *group[0].scan;
    std::vector<ExprPtr> predicates;  // null: no WHERE
    bool same_predicates = true;
    bool plain_aggregates = true;  // no DISTINCT or ORDER BY inside (those take no FILTER here)
    for (const GlobalAggregation& g : group) {
      predicates.push_back(g.filter == nullptr ? nullptr
                                               : SubstituteColumns(g.filter->predicate,
                                                                   ToScan(*g.scan, first_scan)));
      const ExprPtr& p = predicates.back();
      same_predicates = same_predicates &&
                        (p == nullptr || predicates[0] == nullptr ? p == predicates[0]
                                                                  : ExprEquals(*p, *predicates[0]));
      for (const auto& aggregate : g.node->aggregates)
        plain_aggregates = plain_aggregates && !aggregate->distinct && aggregate->order_by.empty();
    }
    if (!same_predicates && !plain_aggregates)
      return;
    // Pruning hints every copy's scan had: the merged scan may skip only what all of them skip.
    std::vector<io::ColumnPredicate> common;
    for (const auto& hint : first_scan.pushed_predicates) {
      bool everywhere = true;
      for (const GlobalAggregation& g : group)
        everywhere = everywhere &&
                     std::any_of(g.scan->pushed_predicates.begin(), g.scan->pushed_predicates.end(),
                                 [&hint](const io::ColumnPredicate& other) {
                                   return SamePredicates({hint}, {other});
                                 });
      if (everywhere)
        common.push_back(hint);
    }
    const int number = groups_++;
    for (const GlobalAggregation& target : group) {
      const LogicalPlan& scan = *target.scan;
      auto merged_scan = scan.Clone();
      merged_scan->pushed_predicates = common;
      const std::map<ColumnId, ExprPtr> to_target = ToScan(first_scan, scan);
      LogicalPlanPtr input = merged_scan;
      bool unfiltered = false;
      std::vector<ExprPtr> disjuncts;
      for (const ExprPtr& p : predicates) {
        unfiltered = unfiltered || p == nullptr;
        if (p != nullptr)
          disjuncts.push_back(SubstituteColumns(p, to_target));
      }
      if (!unfiltered) {
        auto filter = target.filter->Clone();
        filter->children = {input};
        if (!same_predicates) {
          bool nullable = false;
          for (const auto& d : disjuncts)
            nullable = nullable || d->nullable;
          filter->predicate = MakeCall("or", disjuncts, DataType::Boolean(), nullable);
        }
        filter->output = merged_scan->output;
        input = filter;
      }
      auto aggregation = target.node->Clone();
      aggregation->children = {input};
      aggregation->aggregates.clear();
      aggregation->output.clear();
      for (size_t i = 0; i < group.size(); ++i) {
        const GlobalAggregation& source = group[i];
        const std::map<ColumnId, ExprPtr> to_here = ToScan(*source.scan, scan);
        for (size_t k = 0; k < source.node->aggregates.size(); ++k) {
          ExprPtr aggregate = SubstituteColumns(source.node->aggregates[k], to_here);
          if (!same_predicates && predicates[i] != nullptr) {
            auto filtered = std::make_shared<Expr>(*aggregate);
            const ExprPtr where = SubstituteColumns(predicates[i], to_target);
            filtered->filter =
                aggregate->filter == nullptr
                    ? where
                    : MakeCall("and", {where, aggregate->filter}, DataType::Boolean(),
                               where->nullable || aggregate->filter->nullable);
            aggregate = filtered;
          }
          aggregation->aggregates.push_back(std::move(aggregate));
          ColumnInfo column = source.node->output[k];
          if (source.node != target.node)
            column.id = column_ids_->Next();
          aggregation->output.push_back(std::move(column));
        }
      }
      aggregation->shared_subplan = number;
      replacements_[target.node] = aggregation;
    }
  }

  // A reference to each column of `from` (a scan) as the same table column of `to`.
  static std::map<ColumnId, ExprPtr> ToScan(const LogicalPlan& from, const LogicalPlan& to) {
    std::map<ColumnId, ExprPtr> out;
    for (size_t i = 0; i < from.output.size() && i < to.output.size(); ++i)
      out.emplace(from.output[i].id, MakeRef(to.output[i]));
    return out;
  }

  LogicalPlanPtr Mark(const LogicalPlanPtr& node) {
    if (auto it = replacements_.find(node.get()); it != replacements_.end())
      return it->second;
    if (auto it = chosen_.find(node.get()); it != chosen_.end()) {
      auto marked = node->Clone();
      marked->shared_subplan = it->second;
      return marked;
    }
    std::vector<LogicalPlanPtr> children;
    bool changed = false;
    for (const auto& child : node->children) {
      children.push_back(Mark(child));
      changed = changed || children.back() != child;
    }
    // A plan optimized before may carry numbers of an earlier choice.
    if (!changed && node->shared_subplan < 0)
      return node;
    auto copy = node->Clone();
    copy->children = std::move(children);
    copy->shared_subplan = -1;
    return copy;
  }

  std::map<const LogicalPlan*, Shape> shapes_;
  std::map<std::string, std::vector<const LogicalPlan*>> by_key_;
  std::set<const LogicalPlan*> taken_;
  std::map<const LogicalPlan*, int> chosen_;
  int groups_ = 0;
  bool marked_before_ = false;
  ColumnIdAllocator* column_ids_;
  std::map<std::string, std::vector<GlobalAggregation>> global_aggregations_;
  std::map<const LogicalPlan*, LogicalPlanPtr> replacements_;
};

class SubplanSharingRule : public OptimizerRule {
 public:
  const char* name() const override { return "subplan_sharing"; }

  Result<LogicalPlanPtr> Apply(const LogicalPlanPtr& plan,
                               OptimizerContext& context) const override {
    return SubplanSharer(context.column_ids).Run(plan);
  }
};

}  // namespace

std::unique_ptr<OptimizerRule> MakeSubplanSharingRule() {
  return std::make_unique<SubplanSharingRule>();
}

}  // namespace shoal::sql::optimizer
