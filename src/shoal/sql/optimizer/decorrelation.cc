#include "shoal/sql/optimizer/decorrelation.h"

#include <algorithm>

#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::optimizer {

namespace {

void MaxColumnId(const LogicalPlan& plan, ColumnId* max) {
  for (const auto& c : plan.output)
    *max = std::max(*max, c.id);
  auto visit = [max](const ExprPtr& e) {
    VisitExpr(e, [max](const Expr& x) {
      if (x.kind == ExprKind::kSubquery && x.subquery)
        MaxColumnId(*x.subquery, max);
    });
  };
  // Subquery plans hide their own columns inside expressions.
  MapNodeExprs(plan, [&](const ExprPtr& e) {
    visit(e);
    return e;
  });
  for (const auto& child : plan.children)
    MaxColumnId(*child, max);
}

bool IsCorrelated(const ExprPtr& e) {
  std::set<ColumnId> refs;
  CollectExprOuterRefs(e, 1, &refs);
  return !refs.empty();
}

bool PlanIsCorrelated(const LogicalPlan& plan) {
  std::set<ColumnId> refs;
  CollectOuterRefs(plan, 1, &refs);
  return !refs.empty();
}

/// `inner = outer` where one side reads only the subquery and the other only the enclosing query.
/// Returns {inner side, outer side}.
std::optional<std::pair<ExprPtr, ExprPtr>> CorrelatedEquality(const ExprPtr& cond) {
  if (cond->kind != ExprKind::kCall || cond->name != "=" || cond->args.size() != 2)
    return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    const ExprPtr& inner = cond->args[i];
    const ExprPtr& outer = cond->args[1 - i];
    if (!IsCorrelated(inner) && !ExprColumns(inner).empty() && IsCorrelated(outer) &&
        ExprColumns(outer).empty() && !ContainsSubquery(cond))
      return std::make_pair(inner, outer);
  }
  return std::nullopt;
}

class PullUp {
 public:
  PullUp(bool allow_scalar_aggregate, ColumnIdSource& ids)
      : allow_scalar_aggregate_(allow_scalar_aggregate), ids_(ids) {}

  /// The plan with the correlated conjuncts below its root removed and appended to `conds`;
  /// nullptr when that is not possible.
  LogicalPlanPtr Pull(const LogicalPlanPtr& plan, std::vector<ExprPtr>* conds);

 private:
  LogicalPlanPtr PullAggregate(const LogicalPlan& plan, std::vector<ExprPtr>* conds);
  LogicalPlanPtr PullJoin(const LogicalPlan& plan, std::vector<ExprPtr>* conds);

  bool allow_scalar_aggregate_;
  ColumnIdSource& ids_;
};

LogicalPlanPtr PullUp::Pull(const LogicalPlanPtr& plan, std::vector<ExprPtr>* conds) {
  if (!PlanIsCorrelated(*plan))
    return plan;
  switch (plan->kind) {
    case LogicalKind::kFilter: {
      auto child = Pull(plan->children[0], conds);
      if (!child)
        return nullptr;
      std::vector<ExprPtr> keep;
      for (const auto& c : SplitConjunction(plan->predicate)) {
        if (IsCorrelated(c) && !ContainsSubquery(c))
          conds->push_back(c);
        else
          keep.push_back(c);
      }
      if (keep.empty())
        return child;
      auto node = plan->Clone();
      node->children[0] = child;
      node->predicate = MakeConjunction(keep);
      node->output = child->output;
      return node;
    }
    case LogicalKind::kProject: {
      for (const auto& e : plan->exprs) {
        if (IsCorrelated(e))
          return nullptr;
      }
      std::vector<ExprPtr> local;
      auto child = Pull(plan->children[0], &local);
      if (!child)
        return nullptr;
      auto node = plan->Clone();
      node->children[0] = child;
      // The pulled conditions read columns of the child; pass them through.
      std::set<ColumnId> have = OutputIds(*node);
      for (const auto& c : local) {
        for (ColumnId id : ExprColumns(c)) {
          if (have.count(id) > 0)
            continue;
          for (const auto& info : child->output) {
            if (info.id == id) {
              node->exprs.push_back(MakeRef(info));
              node->output.push_back(info);
              have.insert(id);
            }
          }
        }
      }
      conds->insert(conds->end(), local.begin(), local.end());
      return node;
    }
    case LogicalKind::kAggregate: return PullAggregate(*plan, conds);
    case LogicalKind::kJoin: return PullJoin(*plan, conds);
    case LogicalKind::kSort:
    case LogicalKind::kDistinct: {
      std::vector<ExprPtr> local;
      auto child = Pull(plan->children[0], &local);
      // A top-k keeps k rows over all correlation values, not k per value.
      if (!child || (plan->fetch >= 0 && !local.empty()))
        return nullptr;
      for (const auto& k : plan->sort_keys) {
        if (IsCorrelated(k.expr))
          return nullptr;
      }
      auto node = plan->Clone();
      node->children[0] = child;
      node->output = child->output;
      conds->insert(conds->end(), local.begin(), local.end());
      return node;
    }
    default: return nullptr;  // limits, windows, set operations, values
  }
}

LogicalPlanPtr PullUp::PullAggregate(const LogicalPlan& plan, std::vector<ExprPtr>* conds) {
  for (const auto& e : plan.group_by) {
    if (IsCorrelated(e))
      return nullptr;
  }
  for (const auto& e : plan.aggregates) {
    if (IsCorrelated(e))
      return nullptr;
  }
  std::vector<ExprPtr> local;
  auto child = Pull(plan.children[0], &local);
  if (!child || !plan.grouping_sets.empty())
    return nullptr;
  if (plan.group_by.empty() && !allow_scalar_aggregate_)
    return nullptr;
  auto node = plan.Clone();
  node->children[0] = child;
  for (const auto& cond : local) {
    // Only an equality can be answered per group: its inner side becomes a grouping key.
    auto eq = CorrelatedEquality(cond);
    if (!eq)
      return nullptr;
    const auto& [inner, outer] = *eq;
    size_t keys = node->group_by.size();
    ColumnInfo key;
    bool found = false;
    for (size_t i = 0; i < keys; ++i) {
      if (ExprEquals(*node->group_by[i], *inner)) {
        key = node->output[i];
        found = true;
      }
    }
    if (!found) {
      key = ColumnInfo{ids_.Next(), inner->ToString(), "", inner->type, inner->nullable};
      node->group_by.push_back(inner);
      node->output.insert(node->output.begin() + static_cast<long>(keys), key);
    }
    conds->push_back(
        MakeCall("=", {MakeRef(key), outer}, DataType::Boolean(), key.nullable || outer->nullable));
  }
  return node;
}

LogicalPlanPtr PullUp::PullJoin(const LogicalPlan& plan, std::vector<ExprPtr>* conds) {
  for (const auto& k : plan.left_keys) {
    if (IsCorrelated(k))
      return nullptr;
  }
  for (const auto& k : plan.right_keys) {
    if (IsCorrelated(k))
      return nullptr;
  }
  std::vector<ExprPtr> left_conds;
  std::vector<ExprPtr> right_conds;
  auto left = Pull(plan.children[0], &left_conds);
  auto right = Pull(plan.children[1], &right_conds);
  if (!left || !right)
    return nullptr;
  JoinType type = plan.join_type;
  // Conditions may only leave a side whose rows the join never invents (NULL-extends).
  bool left_ok = type != JoinType::kRight && type != JoinType::kFull;
  bool right_ok = type == JoinType::kInner || type == JoinType::kRight;
  if ((!left_ok && !left_conds.empty()) || (!right_ok && !right_conds.empty()))
    return nullptr;
  std::vector<ExprPtr> residual;
  for (const auto& c : SplitConjunction(plan.predicate)) {
    if (!IsCorrelated(c)) {
      residual.push_back(c);
      continue;
    }
    if (type != JoinType::kInner || ContainsSubquery(c))
      return nullptr;
    conds->push_back(c);
  }
  auto node = plan.Clone();
  node->children = {left, right};
  node->predicate = MakeConjunction(residual);
  // Keep the join's own columns and append what the pulled conditions need from the children.
  std::set<ColumnId> have = OutputIds(*node);
  bool right_visible = type == JoinType::kInner || type == JoinType::kLeft ||
                       type == JoinType::kRight || type == JoinType::kFull;
  auto append = [&](const LogicalPlanPtr& child, bool nullable) {
    for (auto info : child->output) {
      if (have.count(info.id) == 0) {
        info.nullable = info.nullable || nullable;
        node->output.push_back(info);
        have.insert(info.id);
      }
    }
  };
  append(left, type == JoinType::kRight || type == JoinType::kFull);
  if (right_visible)
    append(right, type == JoinType::kLeft || type == JoinType::kFull);
  conds->insert(conds->end(), left_conds.begin(), left_conds.end());
  conds->insert(conds->end(), right_conds.begin(), right_conds.end());
  return node;
}

bool SubsetOf(const std::set<ColumnId>& a, const std::set<ColumnId>& b) {
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

/// A non-NULL constant of `type`, to stand for NULL in a null-safe hash key.
std::optional<Scalar> SomeValueOf(const DataType& type) {
  switch (type.id()) {
    case columnar::TypeId::kInt8:
    case columnar::TypeId::kInt16:
    case columnar::TypeId::kInt32:
    case columnar::TypeId::kInt64:
    case columnar::TypeId::kUInt8:
    case columnar::TypeId::kUInt16:
    case columnar::TypeId::kUInt32:
    case columnar::TypeId::kUInt64: return Scalar::FromInt(type, 0);
    case columnar::TypeId::kFloat64: return Scalar::Float64(0);
    case columnar::TypeId::kUtf8: return Scalar::Utf8("");
    case columnar::TypeId::kBoolean: return Scalar::Boolean(false);
    case columnar::TypeId::kDate32: return Scalar::Date32(0);
    case columnar::TypeId::kDecimal: return Scalar::Decimal(0, type.precision(), type.scale());
    default: return std::nullopt;
  }
}

ExprPtr MakeNullable(const ExprPtr& e) {
  if (e->nullable)
    return e;
  auto copy = std::make_shared<Expr>(*e);
  copy->nullable = true;
  return copy;
}

/// The hash keys of a null-safe equality over one side: (coalesce(e, z), e IS NULL).
std::vector<ExprPtr> NullSafeKeys(const ExprPtr& e, const Scalar& z) {
  if (!e->nullable)
    return {e};
  return {MakeCall("coalesce", {e, MakeLiteral(z)}, e->type, false),
          MakeCall("is_null", {e}, DataType::Boolean(), false)};
}

}  // namespace

ColumnIdSource::ColumnIdSource(ColumnIdAllocator* allocator, const LogicalPlan& plan)
    : allocator_(allocator) {
  if (!allocator_) {
    ColumnId max = 0;
    MaxColumnId(plan, &max);
    next_ = max + 1;
  }
}

LogicalPlanPtr DecrementPlanDepth(const LogicalPlanPtr& plan, int level) {
  auto node =
      MapNodeExprs(*plan, [level](const ExprPtr& e) { return DecrementExprDepth(e, level); });
  for (auto& child : node->children)
    child = DecrementPlanDepth(child, level);
  return node;
}

ExprPtr DecrementExprDepth(const ExprPtr& expr, int level) {
  return TransformExpr(expr, [level](const ExprPtr& e) -> ExprPtr {
    if (e->kind == ExprKind::kColumnRef && e->outer_depth > level) {
      auto copy = std::make_shared<Expr>(*e);
      copy->outer_depth -= 1;
      return copy;
    }
    if (e->kind == ExprKind::kSubquery && e->subquery) {
      auto copy = std::make_shared<Expr>(*e);
      copy->subquery = DecrementPlanDepth(e->subquery, level + 1);
      return copy;
    }
    return nullptr;
  });
}

std::optional<DecorrelatedSubquery> PullUpCorrelation(const LogicalPlanPtr& subquery,
                                                      bool allow_scalar_aggregate,
                                                      ColumnIdSource& ids) {
  PullUp pull(allow_scalar_aggregate, ids);
  std::vector<ExprPtr> conds;
  LogicalPlanPtr plan = pull.Pull(subquery, &conds);
  if (!plan || PlanIsCorrelated(*plan))
    return std::nullopt;
  DecorrelatedSubquery out;
  out.plan = DecrementPlanDepth(plan, 0);
  for (const auto& c : conds)
    out.conditions.push_back(DecrementExprDepth(c, 0));
  return out;
}

/// Whether `plan` yields at most one row whatever its input: an aggregate without GROUP BY, a
/// LIMIT 1, a single VALUES row, and what filters, projects or sorts one of those.
bool AtMostOneRow(const LogicalPlan& plan) {
  switch (plan.kind) {
    case LogicalKind::kAggregate: return plan.group_by.empty() && plan.grouping_sets.empty();
    case LogicalKind::kValues: return plan.rows.size() <= 1;
    case LogicalKind::kLimit:
    case LogicalKind::kSort:
      if (plan.fetch >= 0 && plan.fetch <= 1)
        return true;
      return AtMostOneRow(*plan.children[0]);
    case LogicalKind::kFilter:
    case LogicalKind::kProject:
    case LogicalKind::kDistinct:
    case LogicalKind::kWindow: return AtMostOneRow(*plan.children[0]);
    case LogicalKind::kJoin:
      if (plan.join_type == JoinType::kSemi || plan.join_type == JoinType::kAnti ||
          plan.join_type == JoinType::kMark || plan.join_type == JoinType::kNullAwareAnti)
        return AtMostOneRow(*plan.children[0]);
      if (plan.join_type == JoinType::kInner || plan.join_type == JoinType::kLeft)
        return AtMostOneRow(*plan.children[0]) && AtMostOneRow(*plan.children[1]);
      return false;
    default: return false;
  }
}

std::optional<DecorrelatedSubquery> Decorrelate(const LogicalPlanPtr& subquery,
                                                const LogicalPlanPtr& outer, ColumnIdSource& ids) {
  if (auto pulled = PullUpCorrelation(subquery, /*allow_scalar_aggregate=*/false, ids))
    return pulled;
  auto unnested = UnnestWithDomain(subquery, outer, ids);
  if (!unnested)
    return std::nullopt;
  return DecorrelatedSubquery{unnested->plan, unnested->conditions};
}

JoinCondition SplitJoinCondition(const std::vector<ExprPtr>& conditions,
                                 const std::set<ColumnId>& left, const std::set<ColumnId>& right) {
  JoinCondition out;
  for (const auto& c : conditions) {
    if (c->kind == ExprKind::kCall && c->name == "is_not_distinct_from" && c->args.size() == 2 &&
        !ContainsSubquery(c) && c->args[0]->type == c->args[1]->type) {
      auto z = SomeValueOf(c->args[0]->type);
      auto a = ExprColumns(c->args[0]);
      auto b = ExprColumns(c->args[1]);
      if (z && !a.empty() && !b.empty()) {
        bool forward = SubsetOf(a, left) && SubsetOf(b, right);
        bool backward = SubsetOf(a, right) && SubsetOf(b, left);
        if (forward || backward) {
          const ExprPtr& l = forward ? c->args[0] : c->args[1];
          const ExprPtr& r = forward ? c->args[1] : c->args[0];
          // Both sides need the same number of keys: the NULL flag goes on both or neither.
          bool nullable = l->nullable || r->nullable;
          auto lk = nullable ? NullSafeKeys(MakeNullable(l), *z) : std::vector<ExprPtr>{l};
          auto rk = nullable ? NullSafeKeys(MakeNullable(r), *z) : std::vector<ExprPtr>{r};
          out.left_keys.insert(out.left_keys.end(), lk.begin(), lk.end());
          out.right_keys.insert(out.right_keys.end(), rk.begin(), rk.end());
          continue;
        }
      }
    }
    if (c->kind == ExprKind::kCall && c->name == "=" && c->args.size() == 2 &&
        !ContainsSubquery(c)) {
      auto a = ExprColumns(c->args[0]);
      auto b = ExprColumns(c->args[1]);
      if (!a.empty() && !b.empty()) {
        if (SubsetOf(a, left) && SubsetOf(b, right)) {
          out.left_keys.push_back(c->args[0]);
          out.right_keys.push_back(c->args[1]);
          continue;
        }
        if (SubsetOf(a, right) && SubsetOf(b, left)) {
          out.left_keys.push_back(c->args[1]);
          out.right_keys.push_back(c->args[0]);
          continue;
        }
      }
    }
    out.residual.push_back(c);
  }
  return out;
}

LogicalPlanPtr MakeJoinNode(JoinType type, LogicalPlanPtr left, LogicalPlanPtr right,
                            JoinCondition condition, ColumnId mark) {
  auto join = std::make_shared<LogicalPlan>();
  join->kind = LogicalKind::kJoin;
  join->join_type = type;
  join->left_keys = std::move(condition.left_keys);
  join->right_keys = std::move(condition.right_keys);
  join->predicate = MakeConjunction(condition.residual);
  join->output = left->output;
  if (type == JoinType::kRight || type == JoinType::kFull) {
    for (auto& c : join->output)
      c.nullable = true;
  }
  if (type == JoinType::kInner || type == JoinType::kLeft || type == JoinType::kRight ||
      type == JoinType::kFull) {
    for (auto c : right->output) {
      c.nullable = c.nullable || type == JoinType::kLeft || type == JoinType::kFull;
      join->output.push_back(c);
    }
  }
  if (type == JoinType::kMark) {
    join->mark_column = mark;
    join->output.push_back(ColumnInfo{mark, "mark", "", DataType::Boolean(), true});
  }
  join->children = {std::move(left), std::move(right)};
  return join;
}

}  // namespace shoal::sql::optimizer
