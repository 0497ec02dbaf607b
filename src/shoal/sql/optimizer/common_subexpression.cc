// Common subexpression elimination: an expression computed more than once per row by one node
// (TPC-H Q1 computes l_extendedprice * (1 - l_discount) for two sums) is computed once, by a
// projection added below the node, and the node reads the result as a column.
//
// Where it applies: an Aggregate (its grouping keys and the arguments of aggregates without a
// FILTER) and a Projection (its expressions). Only subexpressions that the node evaluates for
// every input row are moved: an expression under a CASE branch, the right side of AND / OR or a
// later COALESCE argument may be guarded by what comes before it (CASE WHEN x <> 0 THEN y / x),
// so computing it for every row could raise an error the query never asked for. Expressions
// with a subquery, an aggregate, a window function or a volatile call inside stay where they are.
//
// The largest repeated subexpression is taken first, then the search repeats over the rewritten
// expressions, so a repeated expression is not also split into its repeated parts. The new
// projection passes every input column through under its own id; projection pruning, which runs
// after this rule, drops the columns nobody reads.
#include <cstddef>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "shoal/sql/optimizer/optimizer.h"
#include "shoal/sql/optimizer/plan_util.h"
#include "shoal/sql/session.h"

namespace shoal::sql::optimizer {

namespace {

// Whether `x` itself (not its children) may be computed by a projection: no subquery, aggregate,
// window, outer reference or volatile call.
bool LocallyMovable(const Expr& x) {
  switch (x.kind) {
    case ExprKind::kSubquery:
    case ExprKind::kAggregate:
    case ExprKind::kWindow: return false;
    case ExprKind::kColumnRef: return x.outer_depth == 0;
    case ExprKind::kCall: return !IsVolatileFunction(x.name);
    default: return true;
  }
}

// What Collect needs of every node, computed once, bottom-up: the search used to format, measure
// and walk each subtree again at every node, which made a 10,000-term expression quadratic.
struct NodeInfo {
  size_t hash = 0;  // equal for ExprEquals-equal trees (differing trees may collide)
  int size = 0;     // nodes in the tree (args only)
  bool movable = true;
};
using NodeInfos = std::unordered_map<const Expr*, NodeInfo>;

size_t Mix(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

const NodeInfo& Analyze(const ExprPtr& e, NodeInfos* infos);

bool SubtreeMovable(const ExprPtr& e, NodeInfos* infos) {
  return e == nullptr || Analyze(e, infos).movable;
}

const NodeInfo& Analyze(const ExprPtr& e, NodeInfos* infos) {
  auto found = infos->find(e.get());
  if (found != infos->end())
    return found->second;
  NodeInfo info;
  info.hash = Mix(static_cast<size_t>(e->kind), std::hash<std::string>{}(e->name));
  info.size = 1;
  info.movable = LocallyMovable(*e);
  for (const auto& a : e->args) {
    const NodeInfo& child = Analyze(a, infos);
    info.hash = Mix(info.hash, child.hash);
    info.size += child.size;
    info.movable = info.movable && child.movable;
  }
  // The parts VisitExpr walks besides the arguments (aggregates and windows are not movable
  // themselves, but a FILTER or ORDER BY can sit on other calls).
  info.movable = info.movable && SubtreeMovable(e->filter, infos);
  for (const auto& k : e->order_by)
    info.movable = info.movable && SubtreeMovable(k.expr, infos);
  for (const auto& p : e->partition_by)
    info.movable = info.movable && SubtreeMovable(p, infos);
  info.movable = info.movable && SubtreeMovable(e->frame.start_offset, infos) &&
                 SubtreeMovable(e->frame.end_offset, infos);
  return infos->emplace(e.get(), info).first->second;
}

// The argument positions of `e` that are evaluated for every row `e` is evaluated for.
bool ArgAlwaysEvaluated(const Expr& e, size_t i) {
  if (e.kind == ExprKind::kCase)
    return i == 0;
  if (e.kind == ExprKind::kCall && (e.name == "and" || e.name == "or" || e.name == "coalesce" ||
                                    e.name == "greatest" || e.name == "least"))
    return i == 0;
  return e.kind == ExprKind::kCall || e.kind == ExprKind::kCast;
}

struct Candidate {
  ExprPtr expr;
  int count = 0;
  int size = 0;
};

// Counts the movable compound subexpressions of `e` in positions evaluated for every row.
void Collect(const ExprPtr& e, NodeInfos* infos,
             std::unordered_map<size_t, std::vector<Candidate>>* seen) {
  if (e->kind == ExprKind::kColumnRef || e->kind == ExprKind::kLiteral)
    return;
  if (e->kind == ExprKind::kCall || e->kind == ExprKind::kCast) {
    const NodeInfo& info = Analyze(e, infos);
    if (info.movable) {
      auto& bucket = (*seen)[info.hash];
      bool found = false;
      for (auto& c : bucket) {
        if (ExprEquals(*c.expr, *e)) {
          ++c.count;
          found = true;
          break;
        }
      }
      if (!found)
        bucket.push_back(Candidate{e, 1, info.size});
    }
  }
  if (e->kind == ExprKind::kAggregate) {
    if (e->filter == nullptr) {
      for (const auto& a : e->args)
        Collect(a, infos, seen);
    }
    return;
  }
  if (e->kind == ExprKind::kSubquery || e->kind == ExprKind::kWindow)
    return;
  for (size_t i = 0; i < e->args.size(); ++i) {
    if (ArgAlwaysEvaluated(*e, i))
      Collect(e->args[i], infos, seen);
  }
}

// Replaces every occurrence of `target` in positions Collect would visit by `ref`.
ExprPtr Replace(const ExprPtr& e, const Expr& target, const ExprPtr& ref) {
  if (e->kind == ExprKind::kColumnRef || e->kind == ExprKind::kLiteral)
    return e;
  if (ExprEquals(*e, target))
    return ref;
  if (e->kind == ExprKind::kSubquery || e->kind == ExprKind::kWindow)
    return e;
  if (e->kind == ExprKind::kAggregate && e->filter != nullptr)
    return e;
  std::shared_ptr<Expr> copy;
  for (size_t i = 0; i < e->args.size(); ++i) {
    if (e->kind != ExprKind::kAggregate && !ArgAlwaysEvaluated(*e, i))
      continue;
    ExprPtr next = Replace(e->args[i], target, ref);
    if (next != e->args[i]) {
      if (!copy)
        copy = std::make_shared<Expr>(*e);
      copy->args[i] = std::move(next);
    }
  }
  return copy ? copy : e;
}

// Moves the repeated subexpressions of `roots` into `extracted` (new columns of a projection
// below), rewriting `roots` to read them. Returns whether anything moved.
bool Extract(const std::vector<ExprPtr*>& roots, ColumnIdAllocator* ids,
             std::vector<ColumnInfo>* columns, std::vector<ExprPtr>* extracted) {
  bool changed = false;
  for (;;) {
    NodeInfos infos;
    std::unordered_map<size_t, std::vector<Candidate>> seen;
    for (ExprPtr* root : roots)
      Collect(*root, &infos, &seen);
    // Only repeated candidates are compared by text (a stable choice among equal sizes).
    const Candidate* best = nullptr;
    for (const auto& [hash, bucket] : seen) {
      for (const auto& c : bucket) {
        if (c.count >= 2 && (best == nullptr || c.size > best->size ||
                             (c.size == best->size && c.expr->ToString() < best->expr->ToString())))
          best = &c;
      }
    }
    if (best == nullptr)
      return changed;
    ColumnInfo column;
    column.id = ids->Next();
    column.name = "$cse" + std::to_string(columns->size() + 1);
    column.type = best->expr->type;
    column.nullable = best->expr->nullable;
    ExprPtr ref = MakeRef(column);
    const ExprPtr target = best->expr;
    for (ExprPtr* root : roots)
      *root = Replace(*root, *target, ref);
    columns->push_back(column);
    extracted->push_back(target);
    changed = true;
  }
}

class CommonSubexpressionRule : public OptimizerRule {
 public:
  const char* name() const override { return "common subexpression elimination"; }

  Result<LogicalPlanPtr> Apply(const LogicalPlanPtr& plan,
                               OptimizerContext& context) const override {
    if (context.column_ids == nullptr)
      return plan;
    return Rewrite(plan, context.column_ids);
  }

 private:
  static LogicalPlanPtr Rewrite(const LogicalPlanPtr& plan, ColumnIdAllocator* ids) {
    std::shared_ptr<LogicalPlan> node;
    for (size_t i = 0; i < plan->children.size(); ++i) {
      LogicalPlanPtr child = Rewrite(plan->children[i], ids);
      if (child != plan->children[i]) {
        if (!node)
          node = plan->Clone();
        node->children[i] = std::move(child);
      }
    }
    const LogicalPlan& current = node ? *node : *plan;
    if (current.kind != LogicalKind::kAggregate && current.kind != LogicalKind::kProject)
      return node ? node : plan;

    auto edited = current.Clone();
    std::vector<ExprPtr*> roots;
    std::vector<std::shared_ptr<Expr>> aggregate_copies;
    if (edited->kind == LogicalKind::kProject) {
      for (auto& e : edited->exprs)
        roots.push_back(&e);
    } else {
      for (auto& g : edited->group_by)
        roots.push_back(&g);
      for (auto& a : edited->aggregates)
        roots.push_back(&a);
    }
    std::vector<ColumnInfo> columns;
    std::vector<ExprPtr> extracted;
    if (!Extract(roots, ids, &columns, &extracted))
      return node ? node : plan;

    // The projection below: every input column under its own id, then the extracted values.
    const LogicalPlanPtr& input = edited->children[0];
    auto project = std::make_shared<LogicalPlan>();
    project->kind = LogicalKind::kProject;
    project->children = {input};
    for (const ColumnInfo& c : input->output) {
      project->exprs.push_back(MakeRef(c));
      project->output.push_back(c);
    }
    for (size_t i = 0; i < extracted.size(); ++i) {
      project->exprs.push_back(extracted[i]);
      project->output.push_back(columns[i]);
    }
    project->estimated_rows = input->estimated_rows;
    edited->children[0] = project;
    return edited;
  }
};

}  // namespace

std::unique_ptr<OptimizerRule> MakeCommonSubexpressionRule() {
  return std::make_unique<CommonSubexpressionRule>();
}

}  // namespace shoal::sql::optimizer
