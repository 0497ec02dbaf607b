// Predicate pushdown: moves each conjunct of a filter as close to the scans as it can go —
// through projections (substituting the projected expressions), sorts, DISTINCT, UNION ALL and
// aggregates (conjuncts on grouping keys only), and into the sides of joins. Across an inner or
// cross join, an equality between an expression of the left side and one of the right becomes an
// equi-join key, so comma-list FROM clauses turn into hash joins; other two-sided conjuncts become
// the join's residual condition. Outer joins only receive conjuncts on their preserved side, and
// their ON conditions only on the other side. At a scan, conjuncts of the form
// column <op> constant are also handed to the provider as pruning hints; the Filter stays.
//
// Conjuncts that contain subqueries stay where they are (decorrelation moves them later).
#include <algorithm>
#include <map>

#include "shoal/sql/optimizer/optimizer.h"
#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::optimizer {

namespace {

bool SubsetOf(const std::set<ColumnId>& a, const std::set<ColumnId>& b) {
  for (ColumnId id : a) {
    if (b.count(id) == 0)
      return false;
  }
  return true;
}

LogicalPlanPtr AddFilter(LogicalPlanPtr plan, const std::vector<ExprPtr>& conjuncts) {
  if (conjuncts.empty())
    return plan;
  auto filter = std::make_shared<LogicalPlan>();
  filter->kind = LogicalKind::kFilter;
  filter->predicate = MakeConjunction(conjuncts);
  filter->output = plan->output;
  filter->children.push_back(std::move(plan));
  return filter;
}

std::optional<io::PredicateOp> ScanOp(const std::string& name, bool flipped) {
  if (name == "=")
    return io::PredicateOp::kEq;
  if (name == "<>")
    return io::PredicateOp::kNe;
  if (name == "<")
    return flipped ? io::PredicateOp::kGt : io::PredicateOp::kLt;
  if (name == "<=")
    return flipped ? io::PredicateOp::kGe : io::PredicateOp::kLe;
  if (name == ">")
    return flipped ? io::PredicateOp::kLt : io::PredicateOp::kGt;
  if (name == ">=")
    return flipped ? io::PredicateOp::kLe : io::PredicateOp::kGe;
  return std::nullopt;
}

/// column <op> literal over a scan column, as a provider hint.
std::optional<io::ColumnPredicate> ToScanPredicate(const LogicalPlan& scan, const ExprPtr& e) {
  auto column_index = [&](const ExprPtr& x) -> int {
    if (x->kind != ExprKind::kColumnRef || x->outer_depth != 0)
      return -1;
    for (size_t i = 0; i < scan.output.size(); ++i) {
      if (scan.output[i].id == x->column)
        return scan.projection[i];
    }
    return -1;
  };
  if (e->kind != ExprKind::kCall)
    return std::nullopt;
  const auto& a = e->args;
  if ((e->name == "is_null" || e->name == "is_not_null") && a.size() == 1) {
    int c = column_index(a[0]);
    if (c < 0)
      return std::nullopt;
    return io::ColumnPredicate{
        c, e->name == "is_null" ? io::PredicateOp::kIsNull : io::PredicateOp::kIsNotNull, {}};
  }
  if (e->name == "in" && a.size() >= 2) {
    int c = column_index(a[0]);
    if (c < 0)
      return std::nullopt;
    io::ColumnPredicate p{c, io::PredicateOp::kIn, {}};
    for (size_t i = 1; i < a.size(); ++i) {
      if (a[i]->kind != ExprKind::kLiteral || a[i]->value.is_null())
        return std::nullopt;
      p.values.push_back(a[i]->value);
    }
    return p;
  }
  if (a.size() != 2)
    return std::nullopt;
  bool flipped = a[0]->kind == ExprKind::kLiteral;
  const ExprPtr& col = flipped ? a[1] : a[0];
  const ExprPtr& lit = flipped ? a[0] : a[1];
  auto op = ScanOp(e->name, flipped);
  int c = column_index(col);
  if (!op || c < 0 || lit->kind != ExprKind::kLiteral || lit->value.is_null())
    return std::nullopt;
  // The hint compares in the column's own type; the binder cast the literal to it.
  if (lit->type != col->type)
    return std::nullopt;
  return io::ColumnPredicate{c, *op, {lit->value}};
}

class Pushdown {
 public:
  Result<LogicalPlanPtr> Push(const LogicalPlanPtr& input, std::vector<ExprPtr> preds);

 private:
  Result<LogicalPlanPtr> PushJoin(const LogicalPlan& join, const std::vector<ExprPtr>& preds);
  Result<LogicalPlanPtr> Recurse(const LogicalPlan& plan, const std::vector<ExprPtr>& preds) {
    // Default: push nothing through this node; optimise below it.
    auto node = plan.Clone();
    for (auto& c : node->children) {
      SHOAL_ASSIGN_OR_RETURN(c, Push(c, {}));
    }
    return AddFilter(node, preds);
  }
};

Result<LogicalPlanPtr> Pushdown::Push(const LogicalPlanPtr& input, std::vector<ExprPtr> preds) {
  // Subquery plans are optimised on their own.
  SHOAL_ASSIGN_OR_RETURN(
      auto with_subqueries,
      MapSubqueryPlansIfChanged(*input, [this](const auto& p) { return Push(p, {}); }));
  const LogicalPlanPtr plan = with_subqueries ? LogicalPlanPtr(with_subqueries) : input;
  switch (plan->kind) {
    case LogicalKind::kFilter: {
      for (const auto& c : SplitConjunction(plan->predicate))
        preds.push_back(c);
      return Push(plan->children[0], std::move(preds));
    }
    case LogicalKind::kProject: {
      std::map<ColumnId, ExprPtr> map;
      bool movable = true;
      for (size_t i = 0; i < plan->exprs.size(); ++i) {
        map[plan->output[i].id] = plan->exprs[i];
        if (ContainsSubquery(plan->exprs[i]))
          movable = false;
      }
      std::vector<ExprPtr> below;
      std::vector<ExprPtr> above;
      for (const auto& p : preds) {
        if (movable && !ContainsSubquery(p))
          below.push_back(SubstituteColumns(p, map));
        else
          above.push_back(p);
      }
      auto node = plan->Clone();
      SHOAL_ASSIGN_OR_RETURN(node->children[0], Push(plan->children[0], std::move(below)));
      return AddFilter(node, above);
    }
    case LogicalKind::kSort:
    case LogicalKind::kDistinct: {
      std::vector<ExprPtr> below;
      std::vector<ExprPtr> above;
      for (const auto& p : preds)
        (ContainsSubquery(p) ? above : below).push_back(p);
      auto node = plan->Clone();
      SHOAL_ASSIGN_OR_RETURN(node->children[0], Push(plan->children[0], std::move(below)));
      return AddFilter(node, above);
    }
    case LogicalKind::kUnion: {
      std::vector<ExprPtr> movable;
      std::vector<ExprPtr> above;
      for (const auto& p : preds)
        (ContainsSubquery(p) ? above : movable).push_back(p);
      auto node = plan->Clone();
      for (auto& child : node->children) {
        std::map<ColumnId, ExprPtr> map;
        for (size_t i = 0; i < plan->output.size(); ++i) {
          const auto& c = child->output[i];
          map[plan->output[i].id] = MakeColumnRef(c.id, c.name, c.type, c.nullable);
        }
        std::vector<ExprPtr> mapped;
        mapped.reserve(movable.size());
        for (const auto& p : movable)
          mapped.push_back(SubstituteColumns(p, map));
        SHOAL_ASSIGN_OR_RETURN(child, Push(child, std::move(mapped)));
      }
      return AddFilter(node, above);
    }
    case LogicalKind::kAggregate: {
      // With grouping sets only a key of every set may be filtered below the aggregate: the
      // others are NULL in the rows of the sets without them.
      std::map<ColumnId, ExprPtr> keys;
      for (size_t i = 0; i < plan->group_by.size(); ++i) {
        bool in_every_set = true;
        for (const auto& set : plan->grouping_sets) {
          in_every_set =
              in_every_set && std::find(set.begin(), set.end(), static_cast<int>(i)) != set.end();
        }
        if (in_every_set)
          keys[plan->output[i].id] = plan->group_by[i];
      }
      std::vector<ExprPtr> below;
      std::vector<ExprPtr> above;
      for (const auto& p : preds) {
        bool on_keys = !ContainsSubquery(p);
        for (ColumnId id : ExprColumns(p))
          on_keys = on_keys && keys.count(id) > 0;
        if (on_keys)
          below.push_back(SubstituteColumns(p, keys));
        else
          above.push_back(p);
      }
      auto node = plan->Clone();
      SHOAL_ASSIGN_OR_RETURN(node->children[0], Push(plan->children[0], std::move(below)));
      return AddFilter(node, above);
    }
    case LogicalKind::kJoin: return PushJoin(*plan, preds);
    case LogicalKind::kScan: {
      auto node = plan->Clone();
      for (const auto& p : preds) {
        auto hint = ToScanPredicate(*node, p);
        if (!hint)
          continue;
        bool duplicate = false;
        for (const auto& h : node->pushed_predicates) {
          duplicate = duplicate ||
                      (h.column == hint->column && h.op == hint->op && h.values == hint->values);
        }
        if (!duplicate)
          node->pushed_predicates.push_back(*hint);
      }
      return AddFilter(node, preds);
    }
    default: return Recurse(*plan, preds);
  }
}

Result<LogicalPlanPtr> Pushdown::PushJoin(const LogicalPlan& join,
                                          const std::vector<ExprPtr>& preds) {
  auto node = join.Clone();
  std::set<ColumnId> left = OutputIds(*join.children[0]);
  std::set<ColumnId> right = OutputIds(*join.children[1]);
  JoinType type = join.join_type;
  bool inner = type == JoinType::kInner;
  // Which sides conjuncts from above may enter (the preserved sides of outer joins).
  bool above_to_left = inner || type == JoinType::kLeft || type == JoinType::kSemi ||
                       type == JoinType::kAnti || type == JoinType::kNullAwareAnti ||
                       type == JoinType::kMark;
  bool above_to_right = inner || type == JoinType::kRight;
  // Which sides ON conjuncts may enter (the non-preserved sides).
  bool on_to_left = inner || type == JoinType::kRight || type == JoinType::kSemi;
  bool on_to_right = inner || type == JoinType::kLeft || type == JoinType::kSemi ||
                     type == JoinType::kAnti || type == JoinType::kMark;
  if (type == JoinType::kNullAwareAnti || type == JoinType::kMark) {
    on_to_right = false;  // NULL semantics depend on the whole right side
  }
  std::vector<ExprPtr> to_left;
  std::vector<ExprPtr> to_right;
  std::vector<ExprPtr> above;
  std::vector<ExprPtr> residual;
  auto try_key = [&](const ExprPtr& p) {
    if (p->kind != ExprKind::kCall || p->name != "=" || p->args.size() != 2 || ContainsSubquery(p))
      return false;
    auto a = ExprColumns(p->args[0]);
    auto b = ExprColumns(p->args[1]);
    if (a.empty() || b.empty())
      return false;
    if (SubsetOf(a, left) && SubsetOf(b, right)) {
      node->left_keys.push_back(p->args[0]);
      node->right_keys.push_back(p->args[1]);
      return true;
    }
    if (SubsetOf(a, right) && SubsetOf(b, left)) {
      node->left_keys.push_back(p->args[1]);
      node->right_keys.push_back(p->args[0]);
      return true;
    }
    return false;
  };
  for (const auto& p : preds) {
    auto cols = ExprColumns(p);
    bool sub = ContainsSubquery(p);
    if (!sub && above_to_left && SubsetOf(cols, left))
      to_left.push_back(p);
    else if (!sub && above_to_right && SubsetOf(cols, right))
      to_right.push_back(p);
    else if (inner && !sub && try_key(p))
      continue;
    else if (inner && !sub && SubsetOf(cols, OutputIds(join)))
      residual.push_back(p);
    else
      above.push_back(p);
  }
  for (const auto& p : SplitConjunction(join.predicate)) {
    auto cols = ExprColumns(p);
    bool sub = ContainsSubquery(p);
    if (!sub && on_to_left && !cols.empty() && SubsetOf(cols, left))
      to_left.push_back(p);
    else if (!sub && on_to_right && !cols.empty() && SubsetOf(cols, right))
      to_right.push_back(p);
    else if (try_key(p))
      continue;
    else
      residual.push_back(p);
  }
  node->predicate = MakeConjunction(residual);
  SHOAL_ASSIGN_OR_RETURN(node->children[0], Push(join.children[0], std::move(to_left)));
  SHOAL_ASSIGN_OR_RETURN(node->children[1], Push(join.children[1], std::move(to_right)));
  return AddFilter(node, above);
}

class PredicatePushdownRule : public OptimizerRule {
 public:
  const char* name() const override { return "predicate_pushdown"; }

  Result<LogicalPlanPtr> Apply(const LogicalPlanPtr& plan, OptimizerContext&) const override {
    Pushdown pushdown;
    return pushdown.Push(plan, {});
  }
};

}  // namespace

std::unique_ptr<OptimizerRule> MakePredicatePushdownRule() {
  return std::make_unique<PredicatePushdownRule>();
}

}  // namespace shoal::sql::optimizer
