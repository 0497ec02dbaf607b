// Subquery decorrelation: replaces every subquery expression in filters (WHERE, HAVING) and
// projections (select lists) — and inner joins' conditions, as filters over the join, grouping
// keys and aggregate arguments, as a projection below the aggregate — by a join of the node's
// input with the subquery's plan, using the per-form rewrites declared in decorrelation.h.
// Subqueries nested inside subqueries are rewritten first, so an inner correlated subquery is
// already a join when its enclosing one is pulled into the outer query. Filters whose rewrite added
// columns (a mark, a scalar result) are topped with a projection that restores their original
// columns.
#include <algorithm>

#include "shoal/sql/optimizer/decorrelation.h"
#include "shoal/sql/optimizer/optimizer.h"
#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::optimizer {

namespace {

class Decorrelator {
 public:
  explicit Decorrelator(ColumnIdSource& ids) : ids_(ids) {}

  Result<LogicalPlanPtr> Run(const LogicalPlanPtr& plan) {
    SHOAL_ASSIGN_OR_RETURN(
        std::shared_ptr<LogicalPlan> node,
        MapSubqueryPlansIfChanged(*plan, [this](const auto& p) { return Run(p); }));
    for (size_t i = 0; i < plan->children.size(); ++i) {
      SHOAL_ASSIGN_OR_RETURN(LogicalPlanPtr child, Run(plan->children[i]));
      if (child != plan->children[i]) {
        if (!node)
          node = plan->Clone();
        node->children[i] = std::move(child);
      }
    }
    // Every rewrite below removes a subquery of this node's expressions or a LATERAL: a node
    // without either stays as it is (most nodes of most plans).
    if (const LogicalPlan& current = node ? *node : *plan;
        !(current.kind == LogicalKind::kJoin && current.lateral) && !HasSubqueryExpr(current))
      return node ? LogicalPlanPtr(node) : plan;
    if (!node)
      node = plan->Clone();
    if (node->kind == LogicalKind::kJoin && node->lateral)
      return RewriteLateralJoin(*node);
    if (node->kind == LogicalKind::kJoin &&
        (node->join_type == JoinType::kLeft || node->join_type == JoinType::kRight ||
         node->join_type == JoinType::kFull) &&
        node->predicate && ContainsSubquery(node->predicate))
      return RewriteOuterJoinCondition(*node);
    if (node->kind == LogicalKind::kJoin && node->join_type == JoinType::kInner &&
        node->predicate && ContainsSubquery(node->predicate)) {
      // An inner join's condition is a filter over the cross product: the filter rewrite applies.
      auto join = node->Clone();
      join->predicate = nullptr;
      auto filter = std::make_shared<LogicalPlan>();
      filter->kind = LogicalKind::kFilter;
      filter->predicate = node->predicate;
      filter->children = {join};
      filter->output = join->output;
      return RewriteFilter(*filter);
    }
    if (node->kind == LogicalKind::kAggregate)
      return RewriteAggregate(node);
    if (node->kind == LogicalKind::kWindow)
      return RewriteWindow(node);
    if (node->kind == LogicalKind::kValues)
      return RewriteValues(*node);
    if (node->kind == LogicalKind::kFilter)
      return RewriteFilter(*node);
    if (node->kind == LogicalKind::kProject)
      return RewriteProjection(*node);
    return LogicalPlanPtr(node);
  }

 private:
  LogicalPlanPtr RewriteFilter(const LogicalPlan& filter) {
    LogicalPlanPtr input = filter.children[0];
    std::vector<ExprPtr> kept;
    for (const auto& conjunct : SplitConjunction(filter.predicate)) {
      if (!ContainsSubquery(conjunct)) {
        kept.push_back(conjunct);
        continue;
      }
      const Expr* sub = nullptr;
      bool negated = false;
      if (conjunct->kind == ExprKind::kSubquery) {
        sub = conjunct.get();
        negated = sub->negated;
      } else if (conjunct->kind == ExprKind::kCall && conjunct->name == "not" &&
                 conjunct->args.size() == 1 && conjunct->args[0]->kind == ExprKind::kSubquery) {
        sub = conjunct->args[0].get();
        negated = !sub->negated;
      }
      if (sub && sub->subquery_kind != SubqueryKind::kScalar) {
        auto rewrite = sub->subquery_kind == SubqueryKind::kExists
                           ? RewriteExistsSubquery(input, *sub, negated, true, ids_)
                           : RewriteInSubquery(input, *sub, negated, true, ids_);
        if (rewrite) {
          input = rewrite->input;
          if (rewrite->replacement)
            kept.push_back(rewrite->replacement);
          continue;
        }
      }
      kept.push_back(RewriteNested(conjunct, &input));
    }
    auto node = filter.Clone();
    node->children[0] = input;
    node->predicate = MakeConjunction(kept);
    node->output = input->output;
    if (!node->predicate)
      return SameColumnIds(input->output, filter.output)
                 ? input
                 : MakeIdentityProjection(input, filter.output);
    if (SameColumnIds(node->output, filter.output))
      return node;
    return MakeIdentityProjection(node, filter.output);
  }

  /// A LATERAL join: the right side (which reads the left side's columns as outer references) is
  /// decorrelated against the left side like any correlated subquery, and joined to it on the
  /// correlation conditions plus the join's own ON condition.
  Result<LogicalPlanPtr> RewriteLateralJoin(const LogicalPlan& join) {
    const LogicalPlanPtr& left = join.children[0];
    const LogicalPlanPtr& right = join.children[1];
    std::set<ColumnId> refs;
    CollectOuterRefs(*right, 1, &refs);
    const std::set<ColumnId> left_ids = OutputIds(*left);
    const bool reads_left =
        std::any_of(refs.begin(), refs.end(), [&](ColumnId id) { return left_ids.count(id) > 0; });
    auto node = join.Clone();
    node->lateral = false;
    if (!reads_left) {
      node->children[1] = DecrementPlanDepth(right, 0);
      return RewriteJoinCondition(node);
    }
    if (join.join_type == JoinType::kInner && !join.predicate && join.left_keys.empty() &&
        right->kind == LogicalKind::kTableFunction && right->function_name == "unnest" &&
        right->children.empty()) {
      // FROM t, unnest(t.a): the arrays are evaluated per row of t by the Unnest operator itself,
      // which repeats t's columns for each element; no domain of distinct arrays is needed.
      auto unnest = DecrementPlanDepth(right, 0)->Clone();
      unnest->children = {left};
      unnest->output.insert(unnest->output.end(), left->output.begin(), left->output.end());
      return MakeIdentityProjection(unnest, join.output);
    }
    if (join.join_type != JoinType::kInner && join.join_type != JoinType::kLeft)
      return Status::InvalidArgument(
                 "a LATERAL reference needs an INNER or LEFT join (the right side of a {} join "
                 "cannot read its left side)",
                 JoinTypeName(join.join_type))
          .WithSqlState("42P10");
    auto pulled = Decorrelate(right, left, ids_);
    if (!pulled)
      return Status::NotImplemented(
          "this LATERAL subquery cannot be turned into a join yet (its references to the "
          "preceding FROM items sit where decorrelation cannot reach them); write it as a "
          "subquery in the select list or a join");
    std::vector<ExprPtr> conditions = pulled->conditions;
    if (join.predicate)
      conditions.push_back(join.predicate);
    JoinCondition on = SplitJoinCondition(conditions, left_ids, OutputIds(*pulled->plan));
    auto rewritten = MakeJoinNode(join.join_type, left, pulled->plan, std::move(on))->Clone();
    rewritten->left_keys.insert(rewritten->left_keys.begin(), join.left_keys.begin(),
                                join.left_keys.end());
    rewritten->right_keys.insert(rewritten->right_keys.begin(), join.right_keys.begin(),
                                 join.right_keys.end());
    // The ON condition may hold subqueries of its own.
    SHOAL_ASSIGN_OR_RETURN(LogicalPlanPtr top, RewriteJoinCondition(rewritten));
    return MakeIdentityProjection(top, join.output);
  }

  Result<LogicalPlanPtr> RewriteJoinCondition(const std::shared_ptr<LogicalPlan>& join) {
    if (!join->predicate || !ContainsSubquery(join->predicate))
      return LogicalPlanPtr(join);
    if (join->join_type == JoinType::kInner) {
      auto inner = join->Clone();
      inner->predicate = nullptr;
      auto filter = std::make_shared<LogicalPlan>();
      filter->kind = LogicalKind::kFilter;
      filter->predicate = join->predicate;
      filter->children = {inner};
      filter->output = inner->output;
      return RewriteFilter(*filter);
    }
    return RewriteOuterJoinCondition(*join);
  }

  /// A subquery in an outer join's ON condition that reads the columns of one side only (or
  /// none) is a function of that side's row: it is computed on that side (joined into it, as in a
  /// projection) and the condition reads the result. PostgreSQL evaluates it per pair of rows,
  /// which gives the same values.
  Result<LogicalPlanPtr> RewriteOuterJoinCondition(const LogicalPlan& join) {
    LogicalPlanPtr left = join.children[0];
    LogicalPlanPtr right = join.children[1];
    if (join.join_type != JoinType::kFull && ReadsBothSides(join))
      return RewriteAsLateral(join);
    Status error;
    ExprPtr predicate = TransformExpr(join.predicate, [&](const ExprPtr& e) -> ExprPtr {
      if (e->kind != ExprKind::kSubquery || !error.ok())
        return nullptr;
      const std::set<ColumnId> reads = ExprColumns(e);
      const std::set<ColumnId> left_ids = OutputIds(*left);
      const std::set<ColumnId> right_ids = OutputIds(*right);
      auto within = [&](const std::set<ColumnId>& ids) {
        return std::all_of(reads.begin(), reads.end(),
                           [&](ColumnId id) { return ids.count(id) > 0; });
      };
      const bool on_left = within(left_ids);
      const bool on_right = within(right_ids);
      if (!on_left && !on_right) {
        error = Status::NotImplemented(
            "a subquery in the ON condition of a {} join that reads columns of both sides is "
            "not supported yet: {}",
            JoinTypeName(join.join_type), e->ToString());
        return nullptr;
      }
      // The side whose rows the join drops when unmatched is the cheaper place: fewer rows
      // reach the output, but any side gives the same values.
      const bool use_right = on_right && (join.join_type != JoinType::kRight || !on_left);
      LogicalPlanPtr* side = use_right ? &right : &left;
      ExprPtr replaced = RewriteNested(e, side);
      if (ContainsSubquery(replaced)) {
        error = Status::NotImplemented(
            "this form of subquery is not supported yet in the ON "
            "condition of a {} join: {}",
            JoinTypeName(join.join_type), e->ToString());
        return nullptr;
      }
      return replaced;
    });
    SHOAL_RETURN_IF_ERROR(error);
    JoinCondition on;
    on.left_keys = join.left_keys;
    on.right_keys = join.right_keys;
    if (predicate)
      on.residual.push_back(predicate);
    auto rewritten = MakeJoinNode(join.join_type, left, right, std::move(on));
    return MakeIdentityProjection(rewritten, join.output);
  }

  /// Whether a subquery of the join's condition reads columns of both of its sides.
  static bool ReadsBothSides(const LogicalPlan& join) {
    const std::set<ColumnId> left_ids = OutputIds(*join.children[0]);
    const std::set<ColumnId> right_ids = OutputIds(*join.children[1]);
    bool both = false;
    VisitExpr(join.predicate, [&](const Expr& e) {
      if (e.kind != ExprKind::kSubquery)
        return;
      auto copy = std::make_shared<Expr>(e);
      const std::set<ColumnId> reads = ExprColumns(copy);
      const bool l = std::any_of(reads.begin(), reads.end(),
                                 [&](ColumnId id) { return left_ids.count(id) > 0; });
      const bool r = std::any_of(reads.begin(), reads.end(),
                                 [&](ColumnId id) { return right_ids.count(id) > 0; });
      both = both || (l && r);
    });
    return both;
  }

  /// `l LEFT JOIN r ON p` is `l LEFT JOIN LATERAL (SELECT * FROM r WHERE p) ON true` (and a RIGHT
  /// join the same with the sides swapped): the condition's subqueries that read both sides
  /// become subqueries of a filter over r, correlated to l, which the LATERAL rewrite joins.
  Result<LogicalPlanPtr> RewriteAsLateral(const LogicalPlan& join) {
    const bool left_join = join.join_type == JoinType::kLeft;
    const LogicalPlanPtr& preserved = join.children[left_join ? 0 : 1];
    const LogicalPlanPtr& other = join.children[left_join ? 1 : 0];
    const std::set<ColumnId> preserved_ids = OutputIds(*preserved);
    std::vector<ExprPtr> conditions = {join.predicate};
    for (size_t i = 0; i < join.left_keys.size(); ++i) {
      conditions.push_back(
          MakeCall("=", {join.left_keys[i], join.right_keys[i]}, DataType::Boolean(), true));
    }
    auto filter = std::make_shared<LogicalPlan>();
    filter->kind = LogicalKind::kFilter;
    filter->predicate = DeepenExpr(MakeConjunction(conditions), 0, preserved_ids);
    filter->children = {DeepenPlan(other, 0, preserved_ids)};
    filter->output = other->output;
    SHOAL_ASSIGN_OR_RETURN(LogicalPlanPtr filtered, Run(filter));
    auto lateral = std::make_shared<LogicalPlan>();
    lateral->kind = LogicalKind::kJoin;
    lateral->join_type = JoinType::kLeft;
    lateral->lateral = true;
    lateral->children = {preserved, filtered};
    lateral->output = preserved->output;
    for (auto c : other->output) {
      c.nullable = true;
      lateral->output.push_back(c);
    }
    SHOAL_ASSIGN_OR_RETURN(LogicalPlanPtr rewritten, RewriteLateralJoin(*lateral));
    return MakeIdentityProjection(rewritten, join.output);
  }

  /// Moves an expression one query level in: references beyond it (depth > nesting) and to the
  /// `moved` columns of its own level (depth == nesting) point one level further out.
  static ExprPtr DeepenExpr(const ExprPtr& expr, int nesting, const std::set<ColumnId>& moved) {
    return TransformExpr(expr, [&](const ExprPtr& e) -> ExprPtr {
      if (e->kind == ExprKind::kColumnRef &&
          (e->outer_depth > nesting || (e->outer_depth == nesting && moved.count(e->column) > 0))) {
        auto copy = std::make_shared<Expr>(*e);
        copy->outer_depth += 1;
        return copy;
      }
      if (e->kind == ExprKind::kSubquery && e->subquery) {
        auto copy = std::make_shared<Expr>(*e);
        copy->subquery = DeepenPlan(e->subquery, nesting + 1, moved);
        return copy;
      }
      return nullptr;
    });
  }

  static LogicalPlanPtr DeepenPlan(const LogicalPlanPtr& plan, int nesting,
                                   const std::set<ColumnId>& moved) {
    auto node =
        MapNodeExprs(*plan, [&](const ExprPtr& e) { return DeepenExpr(e, nesting, moved); });
    for (auto& child : node->children)
      child = DeepenPlan(child, nesting, moved);
    return node;
  }

  /// A projection of `input` passing every column through, for LiftSubquery to add to.
  static std::shared_ptr<LogicalPlan> PassThrough(const LogicalPlanPtr& input) {
    auto project = std::make_shared<LogicalPlan>();
    project->kind = LogicalKind::kProject;
    project->children = {input};
    for (const auto& c : input->output) {
      project->exprs.push_back(MakeRef(c));
      project->output.push_back(c);
    }
    return project;
  }

  /// `e` itself when it holds no subquery; else a reference to a new column of `project`
  /// computing it (per input row), which the projection rewrite then joins.
  ExprPtr LiftSubquery(const ExprPtr& e, LogicalPlan* project) {
    if (!e || !ContainsSubquery(e))
      return e;
    ColumnInfo column{ids_.Next(), "subquery", "", e->type, e->nullable};
    project->exprs.push_back(e);
    project->output.push_back(column);
    return MakeRef(column);
  }

  /// Subqueries in grouping keys or aggregate arguments are computed by a projection below the
  /// aggregate (per input row, as SQL evaluates them), which the projection rewrite then joins.
  LogicalPlanPtr RewriteAggregate(const std::shared_ptr<LogicalPlan>& aggregate) {
    const LogicalPlanPtr& input = aggregate->children[0];
    auto project = PassThrough(input);
    auto lift = [&](const ExprPtr& e) { return LiftSubquery(e, project.get()); };
    for (auto& k : aggregate->group_by)
      k = lift(k);
    for (auto& a : aggregate->aggregates) {
      if (!ContainsSubquery(a))
        continue;
      auto copy = std::make_shared<Expr>(*a);
      for (auto& arg : copy->args)
        arg = lift(arg);
      copy->filter = lift(copy->filter);
      a = copy;
    }
    if (project->exprs.size() == input->output.size())
      return aggregate;
    aggregate->children[0] = RewriteProjection(*project);
    return aggregate;
  }

  /// Subqueries in window functions' arguments, PARTITION BY or ORDER BY: computed by a
  /// projection below the window (per input row), which the projection rewrite joins.
  LogicalPlanPtr RewriteWindow(const std::shared_ptr<LogicalPlan>& window) {
    if (std::none_of(window->exprs.begin(), window->exprs.end(), ContainsSubquery))
      return window;
    const LogicalPlanPtr& input = window->children[0];
    auto project = PassThrough(input);
    auto lift = [&](const ExprPtr& e) { return LiftSubquery(e, project.get()); };
    const std::vector<ColumnInfo> original = window->output;
    for (auto& w : window->exprs) {
      auto copy = std::make_shared<Expr>(*w);
      for (auto& a : copy->args)
        a = lift(a);
      for (auto& p : copy->partition_by)
        p = lift(p);
      for (auto& k : copy->order_by)
        k.expr = lift(k.expr);
      copy->filter = lift(copy->filter);
      w = copy;
    }
    // The window passes its input through: the lifted columns come along, dropped above.
    const size_t added = window->exprs.size();
    window->children[0] = RewriteProjection(*project);
    window->output = project->output;
    window->output.insert(window->output.end(), original.end() - static_cast<long>(added),
                          original.end());
    return MakeIdentityProjection(window, original);
  }

  /// VALUES rows with subqueries (INSERT ... VALUES ((SELECT ...)), FROM (VALUES ...)): each such
  /// row is a projection of one empty row, which the projection rewrite joins the subqueries
  /// into; the rows without subqueries stay one VALUES; several parts are their UNION ALL.
  LogicalPlanPtr RewriteValues(const LogicalPlan& values) {
    bool any = false;
    for (const auto& row : values.rows) {
      for (const auto& e : row)
        any = any || ContainsSubquery(e);
    }
    if (!any)
      return values.Clone();
    auto fresh_columns = [&]() {
      std::vector<ColumnInfo> columns;
      for (const auto& c : values.output)
        columns.push_back(ColumnInfo{ids_.Next(), c.name, "", c.type, c.nullable});
      return columns;
    };
    std::vector<LogicalPlanPtr> parts;
    auto plain = std::make_shared<LogicalPlan>();
    plain->kind = LogicalKind::kValues;
    for (const auto& row : values.rows) {
      const bool has_subquery = std::any_of(row.begin(), row.end(), ContainsSubquery);
      if (!has_subquery) {
        plain->rows.push_back(row);
        continue;
      }
      auto one = std::make_shared<LogicalPlan>();
      one->kind = LogicalKind::kValues;
      one->rows.emplace_back();
      auto project = std::make_shared<LogicalPlan>();
      project->kind = LogicalKind::kProject;
      project->children = {one};
      project->exprs = row;
      project->output = values.rows.size() == 1 ? values.output : fresh_columns();
      parts.push_back(RewriteProjection(*project));
    }
    if (!plain->rows.empty()) {
      plain->output = fresh_columns();
      parts.push_back(plain);
    }
    if (parts.size() == 1)
      return parts[0];
    auto all = std::make_shared<LogicalPlan>();
    all->kind = LogicalKind::kUnion;
    all->output = values.output;
    all->children = std::move(parts);
    return all;
  }

  LogicalPlanPtr RewriteProjection(const LogicalPlan& projection) {
    auto node = projection.Clone();
    LogicalPlanPtr input = node->children[0];
    for (auto& e : node->exprs)
      e = RewriteNested(e, &input);
    node->children[0] = input;
    return node;
  }

  /// Joins every subquery inside `expr` into `*input` and returns `expr` reading the joins'
  /// columns instead; subqueries that cannot be rewritten stay.
  ExprPtr RewriteNested(const ExprPtr& expr, LogicalPlanPtr* input) {
    return TransformExpr(expr, [&](const ExprPtr& e) -> ExprPtr {
      if (e->kind != ExprKind::kSubquery)
        return nullptr;
      std::optional<SubqueryRewrite> rewrite;
      switch (e->subquery_kind) {
        case SubqueryKind::kScalar: rewrite = RewriteScalarSubquery(*input, *e, ids_); break;
        case SubqueryKind::kExists:
          rewrite = RewriteExistsSubquery(*input, *e, e->negated, false, ids_);
          break;
        default: rewrite = RewriteInSubquery(*input, *e, e->negated, false, ids_); break;
      }
      if (!rewrite || !rewrite->replacement)
        return nullptr;
      *input = rewrite->input;
      return rewrite->replacement;
    });
  }

  ColumnIdSource& ids_;
};

class SubqueryDecorrelationRule : public OptimizerRule {
 public:
  const char* name() const override { return "subquery_decorrelation"; }

  Result<LogicalPlanPtr> Apply(const LogicalPlanPtr& plan,
                               OptimizerContext& context) const override {
    ColumnIdSource ids(context.column_ids, *plan);
    Decorrelator decorrelator(ids);
    return decorrelator.Run(plan);
  }
};

}  // namespace

std::unique_ptr<OptimizerRule> MakeSubqueryDecorrelationRule() {
  return std::make_unique<SubqueryDecorrelationRule>();
}

}  // namespace shoal::sql::optimizer
