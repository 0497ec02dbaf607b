// Domain unnesting: the general decorrelation of Neumann and Kemper ("Unnesting Arbitrary
// Queries", BTW 2015), as DuckDB implements it, for the subqueries whose correlated conjuncts
// cannot simply be pulled up (decorrelation.cc): non-equality correlations under an aggregate,
// outer references in a select list or an aggregate's arguments, correlations under DISTINCT,
// set operations, windows, outer joins.
//
// The domain is the duplicate-free set of values of the outer columns the subquery reads,
// computed from the enclosing query's input. The dependent join "domain x subquery(domain)" is
// pushed down the subquery's operators until it meets a part that reads no outer column, where it
// becomes an ordinary cross join with the domain; on the way, each operator carries the domain
// columns along and reads them instead of the outer references: a filter or projection evaluates
// per domain value, an aggregate or window also groups / partitions by them, a set operation
// compares them as part of each row, and a join whose both sides depend on the domain joins on it.
// An aggregate without GROUP BY yields one row per domain value even when no input row reaches it
// (left-joined from the domain, with COUNT's 0 restored), so `(SELECT count(*) ...)` is 0 and not
// NULL for outer rows without matches. The result is joined back to the enclosing query on
// `outer column IS NOT DISTINCT FROM domain column` (a NULL outer value has its own domain row).
//
// A correlated VALUES list is one projection of the domain per row.
//
// LIMIT / OFFSET / ORDER BY ... LIMIT over input that depends on the domain keep their rows per
// domain value: row_number() partitioned by the domain columns, in the sort order.
//
// A correlated WITH RECURSIVE runs per domain value: its working table's rows carry the domain
// columns, which its recursive term reads instead of the outer references.
#include "shoal/sql/optimizer/decorrelation.h"
#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::optimizer {

namespace {

bool PlanReadsOuter(const LogicalPlan& plan) {
  std::set<ColumnId> refs;
  CollectOuterRefs(plan, 1, &refs);
  return !refs.empty();
}

/// One copy of the domain (each copy gets its own column ids, one per outer column).
struct Domain {
  LogicalPlanPtr plan;
  std::vector<ColumnInfo> columns;
};

/// A subtree computed per domain value: its original columns plus the domain's.
struct Pushed {
  LogicalPlanPtr plan;
  std::vector<ColumnInfo> domain;
};

ExprPtr NullSafeEquals(const ColumnInfo& a, const ColumnInfo& b) {
  bool nullable = a.nullable || b.nullable;
  return MakeCall(nullable ? "is_not_distinct_from" : "=", {MakeRef(a), MakeRef(b)},
                  DataType::Boolean(), false);
}

/// The value an aggregate has over no rows: 0 for counts, NULL for the others.
ExprPtr EmptyValue(const Expr& aggregate) {
  if (aggregate.name == "count")
    return MakeLiteral(Scalar::FromInt(aggregate.type, 0));
  return nullptr;
}

class DomainUnnester {
 public:
  DomainUnnester(const LogicalPlanPtr& outer, ColumnIdSource& ids) : outer_(outer), ids_(ids) {}

  /// Records the outer columns `subquery` reads; false when one is not an output of the outer
  /// input (it belongs to a query further out).
  bool Init(const LogicalPlan& subquery) {
    std::set<ColumnId> refs;
    CollectOuterRefs(subquery, 1, &refs);
    if (refs.empty())
      return false;
    for (ColumnId id : refs) {
      bool found = false;
      for (const auto& info : outer_->output) {
        if (info.id == id) {
          index_[id] = outer_columns_.size();
          outer_columns_.push_back(info);
          found = true;
          break;
        }
      }
      if (!found)
        return false;
    }
    return true;
  }

  const std::vector<ColumnInfo>& outer_columns() const { return outer_columns_; }

  std::optional<Pushed> Push(const LogicalPlanPtr& plan) {
    if (!DependsOnDomain(*plan)) {
      Domain domain = MakeDomain();
      // References to queries further out now count from the enclosing query.
      auto join = MakeJoinNode(JoinType::kInner, domain.plan, DecrementPlanDepth(plan, 0), {});
      return Pushed{join, domain.columns};
    }
    switch (plan->kind) {
      case LogicalKind::kFilter: {
        auto child = Push(plan->children[0]);
        if (!child)
          return std::nullopt;
        auto node = plan->Clone();
        node->children = {child->plan};
        node->predicate = Substitute(plan->predicate, child->domain);
        node->output = child->plan->output;
        return Finish(node, child->domain);
      }
      case LogicalKind::kProject: {
        auto child = Push(plan->children[0]);
        if (!child)
          return std::nullopt;
        auto node = plan->Clone();
        node->children = {child->plan};
        for (auto& e : node->exprs)
          e = Substitute(e, child->domain);
        for (const auto& d : child->domain) {
          node->exprs.push_back(MakeRef(d));
          node->output.push_back(d);
        }
        return Finish(node, child->domain);
      }
      case LogicalKind::kDistinct: {
        auto child = Push(plan->children[0]);
        if (!child)
          return std::nullopt;
        auto node = plan->Clone();
        node->children = {child->plan};
        node->output = child->plan->output;
        return Finish(node, child->domain);
      }
      case LogicalKind::kLimit: return PushLimit(*plan);
      case LogicalKind::kSort: {
        if (plan->fetch >= 0)
          return PushLimit(*plan);
        auto child = Push(plan->children[0]);
        if (!child)
          return std::nullopt;
        auto node = plan->Clone();
        node->children = {child->plan};
        for (auto& k : node->sort_keys)
          k.expr = Substitute(k.expr, child->domain);
        node->output = child->plan->output;
        return Finish(node, child->domain);
      }
      case LogicalKind::kAggregate: return PushAggregate(*plan);
      case LogicalKind::kWindow: return PushWindow(*plan);
      case LogicalKind::kJoin: return PushJoin(*plan);
      case LogicalKind::kUnion:
      case LogicalKind::kSetOp: return PushSetOperation(*plan);
      case LogicalKind::kValues: return PushValues(*plan);
      case LogicalKind::kTableFunction: return PushTableFunction(*plan);
      case LogicalKind::kRecursiveCte: return PushRecursiveCte(*plan);
      case LogicalKind::kWorkingTable: {
        // The working table of a recursive CTE computed per domain value: its rows carry their
        // domain value (DependsOnDomain sends only those here).
        const auto& domain = working_domains_.at(plan->working_table);
        auto node = plan->Clone();
        node->output.insert(node->output.end(), domain.begin(), domain.end());
        return Finish(node, domain);
      }
      default: return std::nullopt;
    }
  }

 private:
  Domain MakeDomain() {
    auto project = std::make_shared<LogicalPlan>();
    project->kind = LogicalKind::kProject;
    project->children = {outer_};
    Domain domain;
    for (const auto& info : outer_columns_) {
      ColumnInfo column{ids_.Next(), info.name, "", info.type, info.nullable};
      project->exprs.push_back(MakeRef(info));
      project->output.push_back(column);
      domain.columns.push_back(column);
    }
    auto distinct = std::make_shared<LogicalPlan>();
    distinct->kind = LogicalKind::kDistinct;
    distinct->output = project->output;
    distinct->children = {project};
    domain.plan = distinct;
    return domain;
  }

  /// `expr` reading the domain columns instead of the outer references (and references further
  /// out one level in); sets failed_ on a nested subquery.
  ExprPtr Substitute(const ExprPtr& expr, const std::vector<ColumnInfo>& domain) {
    if (!expr)
      return expr;
    return TransformExpr(expr, [&](const ExprPtr& e) -> ExprPtr {
      if (e->kind == ExprKind::kSubquery) {
        failed_ = true;
        return nullptr;
      }
      if (e->kind != ExprKind::kColumnRef || e->outer_depth == 0)
        return nullptr;
      if (e->outer_depth > 1) {
        auto copy = std::make_shared<Expr>(*e);
        copy->outer_depth -= 1;
        return copy;
      }
      auto it = index_.find(e->column);
      if (it == index_.end()) {
        failed_ = true;
        return nullptr;
      }
      return MakeRef(domain[it->second]);
    });
  }

  std::optional<Pushed> Finish(LogicalPlanPtr plan, std::vector<ColumnInfo> domain) {
    if (failed_)
      return std::nullopt;
    return Pushed{std::move(plan), std::move(domain)};
  }

  std::optional<Pushed> PushAggregate(const LogicalPlan& plan) {
    if (!plan.grouping_sets.empty() || plan.grouping_id_column != kInvalidColumnId)
      return std::nullopt;
    auto child = Push(plan.children[0]);
    if (!child)
      return std::nullopt;
    auto node = plan.Clone();
    node->children = {child->plan};
    const size_t keys = plan.group_by.size();
    for (auto& e : node->group_by)
      e = Substitute(e, child->domain);
    for (auto& e : node->aggregates) {
      auto copy = std::make_shared<Expr>(*e);
      for (auto& a : copy->args)
        a = Substitute(a, child->domain);
      copy->filter = Substitute(copy->filter, child->domain);
      for (auto& k : copy->order_by)
        k.expr = Substitute(k.expr, child->domain);
      e = copy;
    }
    for (const auto& d : child->domain)
      node->group_by.push_back(MakeRef(d));
    node->output.insert(node->output.begin() + static_cast<long>(keys), child->domain.begin(),
                        child->domain.end());
    if (keys > 0)
      return Finish(node, child->domain);

    // Without GROUP BY every domain value has a row, also those no input row reaches: left-join
    // the grouped result to the domain and give the missing groups the empty aggregates' values.
    // The aggregates get new ids below the projection that restores the original ones.
    std::map<ColumnId, ExprPtr> empty;
    std::vector<ColumnInfo> original(plan.output.begin(), plan.output.end());
    for (size_t i = 0; i < plan.aggregates.size(); ++i) {
      ColumnInfo& out = node->output[child->domain.size() + i];
      out.id = ids_.Next();
      if (auto value = EmptyValue(*plan.aggregates[i]))
        empty[original[i].id] = value;
    }
    ColumnInfo count{ids_.Next(), "count", "", DataType::Int64(), false};
    if (!empty.empty()) {
      node->aggregates.push_back(MakeAggregate("count", {}, DataType::Int64(), false));
      node->output.push_back(count);
    }
    Domain domain = MakeDomain();
    JoinCondition on;
    for (size_t i = 0; i < domain.columns.size(); ++i)
      on.residual.push_back(NullSafeEquals(domain.columns[i], child->domain[i]));
    on = SplitJoinCondition(on.residual, OutputIds(*domain.plan), OutputIds(*node));
    auto join = MakeJoinNode(JoinType::kLeft, domain.plan, node, std::move(on));
    auto project = std::make_shared<LogicalPlan>();
    project->kind = LogicalKind::kProject;
    project->children = {join};
    for (size_t i = 0; i < original.size(); ++i) {
      const ColumnInfo& grouped = node->output[child->domain.size() + i];
      ExprPtr value = MakeColumnRef(grouped.id, grouped.name, grouped.type, true);
      auto it = empty.find(original[i].id);
      if (it != empty.end()) {
        ExprPtr missing =
            MakeCall("is_null", {MakeColumnRef(count.id, count.name, count.type, true)},
                     DataType::Boolean(), false);
        ExprPtr fill = it->second;
        if (fill->type != grouped.type)
          fill = MakeCast(fill, grouped.type);
        value = MakeCase({missing, fill, value}, true, grouped.type, original[i].nullable);
      }
      project->exprs.push_back(value);
      project->output.push_back(original[i]);
    }
    for (const auto& d : domain.columns) {
      project->exprs.push_back(MakeRef(d));
      project->output.push_back(d);
    }
    return Finish(project, domain.columns);
  }

  /// LIMIT / OFFSET / top-k per domain value: the rows numbered (offset, offset + fetch] in the
  /// sort order (row_number partitioned by the domain columns).
  std::optional<Pushed> PushLimit(const LogicalPlan& plan) {
    const int64_t offset = plan.kind == LogicalKind::kLimit ? plan.offset : 0;
    const int64_t fetch = plan.fetch;
    std::vector<SortKey> keys;
    LogicalPlanPtr input = plan.children[0];
    if (plan.kind == LogicalKind::kSort) {
      keys = plan.sort_keys;
    } else if (input->kind == LogicalKind::kSort && input->fetch < 0) {
      keys = input->sort_keys;
      input = input->children[0];
    }
    auto child = Push(input);
    if (!child)
      return std::nullopt;
    auto number = std::make_shared<Expr>();
    number->kind = ExprKind::kWindow;
    number->name = "row_number";
    number->type = DataType::Int64();
    number->nullable = false;
    for (const auto& d : child->domain)
      number->partition_by.push_back(MakeRef(d));
    for (auto k : keys) {
      k.expr = Substitute(k.expr, child->domain);
      number->order_by.push_back(k);
    }
    auto window = std::make_shared<LogicalPlan>();
    window->kind = LogicalKind::kWindow;
    window->exprs = {number};
    window->children = {child->plan};
    window->output = child->plan->output;
    ColumnInfo row{ids_.Next(), "row_number", "", DataType::Int64(), false};
    window->output.push_back(row);
    std::vector<ExprPtr> bounds;
    if (offset > 0) {
      bounds.push_back(MakeCall(">", {MakeRef(row), MakeLiteral(Scalar::Int64(offset))},
                                DataType::Boolean(), false));
    }
    if (fetch >= 0) {
      bounds.push_back(MakeCall("<=", {MakeRef(row), MakeLiteral(Scalar::Int64(offset + fetch))},
                                DataType::Boolean(), false));
    }
    LogicalPlanPtr top = window;
    if (!bounds.empty()) {
      auto filter = std::make_shared<LogicalPlan>();
      filter->kind = LogicalKind::kFilter;
      filter->predicate = MakeConjunction(bounds);
      filter->children = {window};
      filter->output = window->output;
      top = filter;
    }
    return Finish(MakeIdentityProjection(top, child->plan->output), child->domain);
  }

  std::optional<Pushed> PushWindow(const LogicalPlan& plan) {
    auto child = Push(plan.children[0]);
    if (!child)
      return std::nullopt;
    auto node = plan.Clone();
    node->children = {child->plan};
    for (auto& e : node->exprs) {
      auto copy = std::make_shared<Expr>(*e);
      for (auto& a : copy->args)
        a = Substitute(a, child->domain);
      for (auto& p : copy->partition_by)
        p = Substitute(p, child->domain);
      for (auto& k : copy->order_by)
        k.expr = Substitute(k.expr, child->domain);
      copy->filter = Substitute(copy->filter, child->domain);
      for (const auto& d : child->domain)
        copy->partition_by.push_back(MakeRef(d));
      e = copy;
    }
    const size_t added = plan.exprs.size();
    node->output = child->plan->output;
    node->output.insert(node->output.end(), plan.output.end() - static_cast<long>(added),
                        plan.output.end());
    return Finish(node, child->domain);
  }

  std::optional<Pushed> PushJoin(const LogicalPlan& plan) {
    const JoinType type = plan.join_type;
    const bool left_reads = DependsOnDomain(*plan.children[0]);
    const bool right_reads = DependsOnDomain(*plan.children[1]);
    // A side that reads no outer column may stay as it is only when the join never emits its
    // rows on their own (they would carry no domain value).
    bool push_left = left_reads || type == JoinType::kRight || type == JoinType::kFull;
    bool push_right = right_reads || type == JoinType::kFull;
    if (push_right &&
        (type == JoinType::kLeft || type == JoinType::kSemi || type == JoinType::kAnti ||
         type == JoinType::kMark || type == JoinType::kNullAwareAnti))
      push_left = true;
    if (push_left && type == JoinType::kRight)
      push_right = true;
    if (!push_left && !push_right)
      push_left = type != JoinType::kRight;  // only the condition reads the outer query
    if (!push_left && !push_right)
      push_right = true;
    // A null-aware anti join's NULL rule is over the whole right side.
    if (type == JoinType::kNullAwareAnti && push_right)
      return std::nullopt;
    std::optional<Pushed> left, right;
    if (push_left && !(left = Push(plan.children[0])))
      return std::nullopt;
    if (push_right && !(right = Push(plan.children[1])))
      return std::nullopt;
    const std::vector<ColumnInfo>& domain = left ? left->domain : right->domain;
    auto node = plan.Clone();
    node->children = {left ? left->plan : DecrementPlanDepth(plan.children[0], 0),
                      right ? right->plan : DecrementPlanDepth(plan.children[1], 0)};
    for (auto& k : node->left_keys)
      k = Substitute(k, domain);
    for (auto& k : node->right_keys)
      k = Substitute(k, domain);
    node->predicate = Substitute(plan.predicate, domain);
    if (left && right) {
      std::vector<ExprPtr> same;
      for (size_t i = 0; i < left->domain.size(); ++i)
        same.push_back(NullSafeEquals(left->domain[i], right->domain[i]));
      JoinCondition on = SplitJoinCondition(same, OutputIds(*left->plan), OutputIds(*right->plan));
      node->left_keys.insert(node->left_keys.end(), on.left_keys.begin(), on.left_keys.end());
      node->right_keys.insert(node->right_keys.end(), on.right_keys.begin(), on.right_keys.end());
      std::vector<ExprPtr> residual = on.residual;
      if (node->predicate)
        residual.insert(residual.begin(), node->predicate);
      node->predicate = MakeConjunction(residual);
    }
    if (type == JoinType::kFull) {
      // Either side's rows may come alone: the domain value is whichever side has one (both
      // agree where they matched).
      auto project = std::make_shared<LogicalPlan>();
      project->kind = LogicalKind::kProject;
      for (const auto& c : plan.output) {
        project->exprs.push_back(MakeRef(c));
        project->output.push_back(c);
      }
      std::vector<ColumnInfo> domain;
      for (size_t i = 0; i < left->domain.size(); ++i) {
        ColumnInfo l = left->domain[i];
        ColumnInfo r = right->domain[i];
        l.nullable = r.nullable = true;
        node->output.push_back(l);
        node->output.push_back(r);
        ColumnInfo d{ids_.Next(), l.name, "", l.type, left->domain[i].nullable};
        project->exprs.push_back(
            MakeCall("coalesce", {MakeRef(l), MakeRef(r)}, l.type, d.nullable));
        project->output.push_back(d);
        domain.push_back(d);
      }
      project->children = {node};
      return Finish(project, domain);
    }
    // The domain columns come from the side whose rows the join always emits.
    const bool from_left = left && type != JoinType::kRight;
    const std::vector<ColumnInfo>& out = from_left ? left->domain : right->domain;
    node->output.insert(node->output.end(), out.begin(), out.end());
    return Finish(node, out);
  }

  /// A correlated VALUES list: each row is a projection of the domain (its expressions evaluated
  /// per domain value), several rows the UNION ALL of theirs.
  /// A table function whose arguments read the outer columns runs once per domain value, with
  /// the domain as its input (its rows carry the domain columns along).
  std::optional<Pushed> PushTableFunction(const LogicalPlan& plan) {
    Pushed input;
    if (!plan.children.empty()) {
      auto child = Push(plan.children[0]);
      if (!child)
        return std::nullopt;
      input = *child;
    } else {
      Domain domain = MakeDomain();
      input = Pushed{domain.plan, domain.columns};
    }
    auto node = plan.Clone();
    node->children = {input.plan};
    for (auto& e : node->exprs)
      e = Substitute(e, input.domain);
    // The function's own columns come first (unnest has one per array).
    const size_t own =
        plan.output.size() - (plan.children.empty() ? 0 : plan.children[0]->output.size());
    node->output.assign(plan.output.begin(), plan.output.begin() + static_cast<long>(own));
    node->output.insert(node->output.end(), input.plan->output.begin(), input.plan->output.end());
    return Finish(node, input.domain);
  }

  std::optional<Pushed> PushValues(const LogicalPlan& plan) {
    auto row_plan = [&](const std::vector<ExprPtr>& row, const std::vector<ColumnInfo>& output) {
      Domain domain = MakeDomain();
      auto project = std::make_shared<LogicalPlan>();
      project->kind = LogicalKind::kProject;
      project->children = {domain.plan};
      for (size_t i = 0; i < row.size(); ++i) {
        project->exprs.push_back(Substitute(row[i], domain.columns));
        project->output.push_back(output[i]);
      }
      for (const auto& d : domain.columns) {
        project->exprs.push_back(MakeRef(d));
        project->output.push_back(d);
      }
      return Pushed{project, domain.columns};
    };
    if (plan.rows.size() == 1) {
      Pushed one = row_plan(plan.rows[0], plan.output);
      return Finish(one.plan, one.domain);
    }
    auto node = std::make_shared<LogicalPlan>();
    node->kind = LogicalKind::kUnion;
    node->output = plan.output;
    std::vector<ColumnInfo> domain;
    for (const auto& info : outer_columns_) {
      domain.push_back(ColumnInfo{ids_.Next(), info.name, "", info.type, info.nullable});
      node->output.push_back(domain.back());
    }
    for (const auto& row : plan.rows) {
      std::vector<ColumnInfo> columns;
      for (const auto& c : plan.output)
        columns.push_back(ColumnInfo{ids_.Next(), c.name, "", c.type, c.nullable});
      node->children.push_back(row_plan(row, columns).plan);
    }
    return Finish(node, domain);
  }

  std::optional<Pushed> PushSetOperation(const LogicalPlan& plan) {
    auto node = plan.Clone();
    std::vector<ColumnInfo> domain;
    for (const auto& info : outer_columns_)
      domain.push_back(ColumnInfo{ids_.Next(), info.name, "", info.type, info.nullable});
    for (auto& child : node->children) {
      auto pushed = Push(child);
      if (!pushed)
        return std::nullopt;
      // Line the domain columns up behind the child's original columns.
      std::vector<ColumnInfo> columns = child->output;
      columns.insert(columns.end(), pushed->domain.begin(), pushed->domain.end());
      child = MakeIdentityProjection(pushed->plan, columns);
    }
    node->output.insert(node->output.end(), domain.begin(), domain.end());
    return Finish(node, domain);
  }

  /// Whether `plan` must be computed per domain value: it reads an outer column, or the working
  /// table of a recursive CTE that is.
  bool DependsOnDomain(const LogicalPlan& plan) const {
    return PlanReadsOuter(plan) || ReadsCarriedWorkingTable(plan);
  }

  bool ReadsCarriedWorkingTable(const LogicalPlan& plan) const {
    if (plan.kind == LogicalKind::kWorkingTable)
      return working_domains_.count(plan.working_table) > 0;
    for (const auto& c : plan.children) {
      if (ReadsCarriedWorkingTable(*c))
        return true;
    }
    return false;
  }

  /// A correlated WITH RECURSIVE: both terms per domain value, the working table's rows carrying
  /// theirs, so each outer row's recursion runs apart from the others' (and UNION compares the
  /// domain value as part of each row).
  std::optional<Pushed> PushRecursiveCte(const LogicalPlan& plan) {
    auto start = Push(plan.children[0]);
    if (!start)
      return std::nullopt;
    std::vector<ColumnInfo> carried;
    std::vector<ColumnInfo> domain;
    for (const auto& info : outer_columns_) {
      carried.push_back(ColumnInfo{ids_.Next(), info.name, "", info.type, true});
      domain.push_back(ColumnInfo{ids_.Next(), info.name, "", info.type, true});
    }
    working_domains_[plan.working_table] = carried;
    auto step = Push(plan.children[1]);
    working_domains_.erase(plan.working_table);
    if (!step)
      return std::nullopt;
    auto node = plan.Clone();
    auto line_up = [](const LogicalPlanPtr& term, const Pushed& pushed) {
      std::vector<ColumnInfo> columns = term->output;
      columns.insert(columns.end(), pushed.domain.begin(), pushed.domain.end());
      return MakeIdentityProjection(pushed.plan, columns);
    };
    node->children = {line_up(plan.children[0], *start), line_up(plan.children[1], *step)};
    node->output.insert(node->output.end(), domain.begin(), domain.end());
    return Finish(node, domain);
  }

  LogicalPlanPtr outer_;
  ColumnIdSource& ids_;
  // Recursive CTEs being computed per domain value: the domain columns of their working tables.
  std::map<ColumnId, std::vector<ColumnInfo>> working_domains_;
  std::vector<ColumnInfo> outer_columns_;
  std::map<ColumnId, size_t> index_;
  bool failed_ = false;
};

}  // namespace

std::optional<DomainUnnested> UnnestWithDomain(const LogicalPlanPtr& subquery,
                                               const LogicalPlanPtr& outer, ColumnIdSource& ids) {
  DomainUnnester unnester(outer, ids);
  if (!unnester.Init(*subquery))
    return std::nullopt;
  auto pushed = unnester.Push(subquery);
  if (!pushed)
    return std::nullopt;
  std::vector<ColumnInfo> columns = subquery->output;
  columns.insert(columns.end(), pushed->domain.begin(), pushed->domain.end());
  DomainUnnested out;
  out.plan = MakeIdentityProjection(pushed->plan, columns);
  out.one_row_per_value = AtMostOneRow(*subquery);
  out.domain = pushed->domain;
  for (size_t i = 0; i < pushed->domain.size(); ++i)
    out.conditions.push_back(NullSafeEquals(unnester.outer_columns()[i], pushed->domain[i]));
  return out;
}

}  // namespace shoal::sql::optimizer
