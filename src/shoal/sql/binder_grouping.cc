// Binding of GROUP BY (input columns, output ordinals and aliases; ROLLUP, CUBE and GROUPING
// SETS expanded to their sets) and the aggregation of a SELECT: the Aggregate node, the rewrite
// of the select list, HAVING and ORDER BY over its outputs (ungrouped columns are refused), and
// GROUPING() turned into the set's bitmask.

#include <algorithm>
#include <functional>
#include <set>

#include "shoal/sql/binder_internal.h"
#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::internal {

namespace {

using OuterRefFn = std::function<ExprPtr(const Expr&)>;

LogicalPlanPtr MapOuterRefs(const LogicalPlanPtr& plan, int depth, const OuterRefFn& fn);

ExprPtr MapOuterRefs(const ExprPtr& e, int depth, const OuterRefFn& fn) {
  return TransformExpr(e, [&](const ExprPtr& x) -> ExprPtr {
    if (x->kind == ExprKind::kColumnRef && x->outer_depth == depth)
      return fn(*x);
    if (x->kind == ExprKind::kSubquery && x->subquery) {
      auto copy = std::make_shared<Expr>(*x);
      copy->subquery = MapOuterRefs(x->subquery, depth + 1, fn);
      return copy;
    }
    return nullptr;
  });
}

/// A subquery plan (nested `depth` levels below the grouped query) with its references to the
/// grouped query mapped by `fn`.
LogicalPlanPtr MapOuterRefs(const LogicalPlanPtr& plan, int depth, const OuterRefFn& fn) {
  auto node = optimizer::MapNodeExprs(
      *plan, [&](const ExprPtr& e) { return e ? MapOuterRefs(e, depth, fn) : e; });
  for (auto& child : node->children)
    child = MapOuterRefs(child, depth, fn);
  return node;
}

void MinVariableLevel(const LogicalPlan& plan, int nesting, int* level);

/// The lowest query level (0: the level the expression is written at; -1: none yet) of the
/// variables of `e`, which is written `nesting` subquery levels below that level.
void MinVariableLevel(const ExprPtr& e, int nesting, int* level) {
  VisitExpr(e, [&](const Expr& x) {
    if (x.kind == ExprKind::kColumnRef && x.outer_depth >= nesting) {
      const int l = x.outer_depth - nesting;
      *level = *level < 0 ? l : std::min(*level, l);
    }
    if (x.kind == ExprKind::kSubquery && x.subquery)
      MinVariableLevel(*x.subquery, nesting + 1, level);
  });
}

void MinVariableLevel(const LogicalPlan& plan, int nesting, int* level) {
  optimizer::MapNodeExprs(plan, [&](const ExprPtr& e) {
    MinVariableLevel(e, nesting, level);
    return e;
  });
  for (const auto& child : plan.children)
    MinVariableLevel(*child, nesting, level);
}

bool ContainsKind(const ExprPtr& e, ExprKind kind) {
  bool found = false;
  VisitExpr(e, [&](const Expr& x) {
    if (x.kind == kind)
      found = true;
  });
  return found;
}

bool ContainsGrouping(const ExprPtr& e) {
  bool found = false;
  VisitExpr(e, [&](const Expr& x) {
    found = found || (x.kind == ExprKind::kCall && x.name == "grouping");
  });
  return found;
}

}  // namespace

/// `e` (written `nesting` subquery levels below the level it is moved from) with its references
/// to that level or above moved `shift` levels closer: the expression now sits in that query.
ExprPtr ShiftOuterRefs(const ExprPtr& e, int nesting, int shift) {
  return TransformExpr(e, [&](const ExprPtr& x) -> ExprPtr {
    if (x->kind == ExprKind::kColumnRef && x->outer_depth >= nesting) {
      auto copy = std::make_shared<Expr>(*x);
      copy->outer_depth -= shift;
      return copy;
    }
    if (x->kind == ExprKind::kSubquery && x->subquery) {
      // Its arguments (IN's left operand) are already shifted: TransformExpr works bottom-up.
      auto copy = std::make_shared<Expr>(*x);
      copy->subquery = ShiftOuterRefs(x->subquery, nesting + 1, shift);
      return copy;
    }
    return nullptr;
  });
}

LogicalPlanPtr ShiftOuterRefs(const LogicalPlanPtr& plan, int nesting, int shift) {
  auto node = optimizer::MapNodeExprs(
      *plan, [&](const ExprPtr& e) { return e ? ShiftOuterRefs(e, nesting, shift) : e; });
  for (auto& child : node->children)
    child = ShiftOuterRefs(child, nesting, shift);
  return node;
}

Result<ExprPtr> StatementBinder::PlaceAggregate(ExprPtr agg, const ExprContext& ctx, int location) {
  int level = -1;
  MinVariableLevel(agg, 0, &level);
  // count(*) and aggregates of constants have no variables: they belong to the query they are
  // written in, as do those that read any of its columns.
  const Scope* scope = ctx.scope;
  for (int l = 0; l < level && scope != nullptr; ++l)
    scope = scope->outer;
  if (level <= 0 || scope == nullptr) {
    if (ctx.in_aggregate)
      return At(Status::InvalidArgument("aggregate function calls cannot be nested")
                    .WithSqlState("42803"),
                location);
    if (!ctx.allow_aggregates)
      return At(Status::InvalidArgument("aggregate functions are not allowed in {}", ctx.clause)
                    .WithSqlState("42803"),
                location);
    return agg;
  }
  // An aggregate of an enclosing query: checked against the clause the subquery stands in there,
  // computed by that query's Aggregate and read here as an outer reference.
  QueryLevel* owner = scope->level;
  if (owner == nullptr)  // a scope of output names (ORDER BY over a set operation, LIMIT)
    return At(
        Status::InvalidArgument("aggregate functions are not allowed here").WithSqlState("42803"),
        location);
  if (owner->in_aggregate)
    return At(
        Status::InvalidArgument("aggregate function calls cannot be nested").WithSqlState("42803"),
        location);
  if (!owner->allow_aggregates || !owner->hosts_aggregates)
    return At(Status::InvalidArgument("aggregate functions are not allowed in {}", owner->clause)
                  .WithSqlState("42803"),
              location);
  ExprPtr moved = ShiftOuterRefs(agg, 0, level);
  for (const auto& o : owner->outer_aggregates) {
    if (ExprEquals(*o.aggregate, *moved))
      return MakeColumnRef(o.column.id, o.column.name, o.column.type, o.column.nullable, level);
  }
  ColumnInfo column{NewId(), moved->ToString(), "", moved->type, moved->nullable};
  owner->outer_aggregates.push_back({moved, column});
  return MakeColumnRef(column.id, column.name, column.type, column.nullable, level);
}

Status StatementBinder::BindGroupBy(SelectState& st) {
  const pg_query::SelectStmt& s = st.s;
  const std::vector<ExprPtr>& targets = st.targets;
  const std::vector<std::string>& names = st.names;
  std::vector<ExprPtr>& group_keys = st.group_keys;
  std::vector<GroupingSet>& grouping_sets = st.grouping_sets;
  bool& has_grouping_sets = st.has_grouping_sets;
  // GROUP BY: input columns first, then output aliases and ordinals (PostgreSQL's order).
  // Binds one grouping expression and returns its index in group_keys (duplicates share one).
  auto bind_key = [&](const PgNode& g) -> Result<int> {
    ExprPtr key;
    if (g.has_a_const() && g.a_const().has_ival()) {
      SHOAL_ASSIGN_OR_RETURN(size_t index, OutputOrdinal(g.a_const().ival().ival(), targets.size(),
                                                         "GROUP BY", g.a_const().location()));
      key = targets[index];
    } else {
      ExprContext ctx = st.Context("GROUP BY", false, false);
      auto bound = BindExpr(g, ctx);
      if (!bound.ok() && g.has_column_ref() && g.column_ref().fields_size() == 1 &&
          bound.status().sqlstate() == "42703") {
        std::string name = Str(g.column_ref().fields(0));
        for (size_t i = 0; i < names.size(); ++i) {
          if (names[i] == name) {
            key = targets[i];
            break;
          }
        }
      }
      if (!key) {
        if (!bound.ok())
          return bound.status();
        key = *bound;
      }
    }
    // An aggregate of this query, written here or (through an output alias) inside a subquery.
    std::set<ColumnId> reads;
    optimizer::CollectExprOuterRefs(key, 0, &reads);
    const bool reads_outer_aggregate =
        std::any_of(st.level.outer_aggregates.begin(), st.level.outer_aggregates.end(),
                    [&](const OuterAggregate& o) { return reads.count(o.column.id) > 0; });
    if (ContainsKind(key, ExprKind::kAggregate) || reads_outer_aggregate)
      return Status::InvalidArgument("aggregate functions are not allowed in GROUP BY")
          .WithSqlState("42803");
    for (size_t k = 0; k < group_keys.size(); ++k) {
      if (ExprEquals(*group_keys[k], *key))
        return static_cast<int>(k);
    }
    group_keys.push_back(key);
    return static_cast<int>(group_keys.size() - 1);
  };
  // The keys of one item of ROLLUP / CUBE / GROUPING SETS: a parenthesized list is one unit.
  auto bind_unit = [&](const PgNode& item) -> Result<GroupingSet> {
    GroupingSet unit;
    if (item.has_row_expr()) {
      for (const auto& a : item.row_expr().args()) {
        SHOAL_ASSIGN_OR_RETURN(int k, bind_key(a));
        unit.push_back(k);
      }
    } else if (item.has_grouping_set() &&
               (item.grouping_set().kind() == pg_query::GROUPING_SET_SIMPLE ||
                item.grouping_set().kind() == pg_query::GROUPING_SET_EMPTY)) {
      for (const auto& a : item.grouping_set().content()) {
        SHOAL_ASSIGN_OR_RETURN(int k, bind_key(a));
        unit.push_back(k);
      }
    } else if (item.has_grouping_set()) {
      return At(Status::InvalidArgument("ROLLUP and CUBE items must be expressions or lists")
                    .WithSqlState("42601"),
                item.grouping_set().location());
    } else {
      SHOAL_ASSIGN_OR_RETURN(int k, bind_key(item));
      unit.push_back(k);
    }
    return unit;
  };
  std::function<Result<std::vector<GroupingSet>>(const pg_query::GroupingSet&)> expand_sets =
      [&](const pg_query::GroupingSet& gs) -> Result<std::vector<GroupingSet>> {
    std::vector<GroupingSet> sets;
    std::vector<GroupingSet> units;
    switch (gs.kind()) {
      case pg_query::GROUPING_SET_EMPTY: return std::vector<GroupingSet>{GroupingSet{}};
      case pg_query::GROUPING_SET_SIMPLE: {
        GroupingSet set;
        for (const auto& a : gs.content()) {
          SHOAL_ASSIGN_OR_RETURN(int k, bind_key(a));
          set.push_back(k);
        }
        return std::vector<GroupingSet>{set};
      }
      case pg_query::GROUPING_SET_ROLLUP:
      case pg_query::GROUPING_SET_CUBE:
        for (const auto& item : gs.content()) {
          SHOAL_ASSIGN_OR_RETURN(GroupingSet unit, bind_unit(item));
          units.push_back(std::move(unit));
        }
        if (gs.kind() == pg_query::GROUPING_SET_ROLLUP) {
          for (size_t n = units.size() + 1; n-- > 0;) {
            GroupingSet set;
            for (size_t u = 0; u < n; ++u)
              set.insert(set.end(), units[u].begin(), units[u].end());
            sets.push_back(std::move(set));
          }
        } else {
          if (units.size() > 12)
            return At(
                Status::InvalidArgument("CUBE is limited to 12 elements").WithSqlState("54011"),
                gs.location());
          const size_t full = (size_t{1} << units.size()) - 1;
          for (size_t mask = full + 1; mask-- > 0;) {
            GroupingSet set;
            for (size_t u = 0; u < units.size(); ++u) {
              if (mask & (size_t{1} << (units.size() - 1 - u)))
                set.insert(set.end(), units[u].begin(), units[u].end());
            }
            sets.push_back(std::move(set));
          }
        }
        return sets;
      case pg_query::GROUPING_SET_SETS:
        for (const auto& item : gs.content()) {
          if (item.has_grouping_set()) {
            SHOAL_ASSIGN_OR_RETURN(auto inner, expand_sets(item.grouping_set()));
            sets.insert(sets.end(), inner.begin(), inner.end());
          } else {
            SHOAL_ASSIGN_OR_RETURN(GroupingSet unit, bind_unit(item));
            sets.push_back(std::move(unit));
          }
          if (sets.size() > 4096)
            return Status::InvalidArgument("too many grouping sets present (maximum 4096)")
                .WithSqlState("54001");
        }
        return sets;
      default: return Status::Internal("unknown grouping set kind {}", static_cast<int>(gs.kind()));
    }
  };
  // The GROUP BY list is the cross product of its items' sets.
  for (const auto& g : s.group_clause()) {
    std::vector<GroupingSet> item_sets;
    if (g.has_grouping_set()) {
      has_grouping_sets = true;
      SHOAL_ASSIGN_OR_RETURN(item_sets, expand_sets(g.grouping_set()));
    } else {
      SHOAL_ASSIGN_OR_RETURN(int k, bind_key(g));
      item_sets.push_back(GroupingSet{k});
    }
    if (grouping_sets.size() * item_sets.size() > 4096)
      return Status::InvalidArgument("too many grouping sets present (maximum 4096)")
          .WithSqlState("54001");
    std::vector<GroupingSet> product;
    for (const auto& left : grouping_sets) {
      for (const auto& right : item_sets) {
        GroupingSet set = left;
        set.insert(set.end(), right.begin(), right.end());
        product.push_back(std::move(set));
      }
    }
    grouping_sets = std::move(product);
  }
  for (auto& set : grouping_sets) {
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
  }
  return Status::OK();
}

Status StatementBinder::PlanAggregate(SelectState& st) {
  std::vector<ExprPtr>& targets = st.targets;
  ExprPtr& having = st.having;
  std::vector<OrderItem>& order = st.order;
  const std::vector<ExprPtr>& group_keys = st.group_keys;
  const std::vector<GroupingSet>& grouping_sets = st.grouping_sets;
  const bool has_grouping_sets = st.has_grouping_sets;
  LogicalPlanPtr& plan = st.plan;
  // Aggregation.
  std::vector<ExprPtr> aggregates;
  for (const auto& t : targets)
    CollectKind(t, ExprKind::kAggregate, &aggregates);
  CollectKind(having, ExprKind::kAggregate, &aggregates);
  for (const auto& o : order)
    CollectKind(o.key.expr, ExprKind::kAggregate, &aggregates);
  for (const auto& o : st.distinct_on)
    CollectKind(o.key.expr, ExprKind::kAggregate, &aggregates);
  // Aggregates inside window expressions (sum(sum(x)) OVER ...) are collected above through
  // the window's args; those in partition / order lists too.
  for (const auto& t : targets) {
    VisitExpr(t, [&](const Expr& x) {
      if (x.kind != ExprKind::kWindow)
        return;
      for (const auto& p : x.partition_by)
        CollectKind(p, ExprKind::kAggregate, &aggregates);
      for (const auto& k : x.order_by)
        CollectKind(k.expr, ExprKind::kAggregate, &aggregates);
    });
  }
  // Aggregates of this query written inside its subqueries: computed here like the others,
  // under the column ids the subqueries read them by.
  const size_t num_own_aggregates = aggregates.size();
  for (const auto& o : st.level.outer_aggregates)
    aggregates.push_back(o.aggregate);
  const bool uses_grouping =
      std::any_of(targets.begin(), targets.end(), ContainsGrouping) || ContainsGrouping(having) ||
      std::any_of(order.begin(), order.end(),
                  [](const OrderItem& o) { return ContainsGrouping(o.key.expr); });
  if (!group_keys.empty() || !aggregates.empty() || having || has_grouping_sets) {
    auto agg = NewNode(LogicalKind::kAggregate);
    agg->group_by = group_keys;
    agg->aggregates = aggregates;
    std::vector<ColumnInfo> key_cols;
    std::vector<ColumnInfo> agg_cols;
    for (const auto& k : group_keys) {
      std::string name = k->kind == ExprKind::kColumnRef ? k->name : k->ToString();
      key_cols.push_back({NewId(), name, "", k->type, k->nullable || has_grouping_sets});
    }
    agg_cols.reserve(aggregates.size());
    for (size_t i = 0; i < num_own_aggregates; ++i) {
      const ExprPtr& a = aggregates[i];
      agg_cols.push_back({NewId(), a->ToString(), "", a->type, a->nullable});
    }
    for (const auto& o : st.level.outer_aggregates)
      agg_cols.push_back(o.column);
    agg->output = key_cols;
    // With grouping sets the output is keys, the set number (GROUPING()), then aggregates.
    ColumnInfo set_col{NewId(), "$grouping_set", "", DataType::Int64(), false};
    if (has_grouping_sets) {
      agg->grouping_sets = grouping_sets;
      agg->grouping_id_column = set_col.id;
      agg->output.push_back(set_col);
    }
    agg->output.insert(agg->output.end(), agg_cols.begin(), agg_cols.end());
    agg->children.push_back(plan);
    plan = agg;
    auto rewrite = [&](ExprPtr& e, const char* clause) -> Status {
      if (!e)
        return Status::OK();
      auto r = ReplaceWithAggregateOutputs(e, group_keys, key_cols, aggregates, agg_cols);
      if (!r.ok())
        return r.status().WithContext(clause);
      e = *r;
      return Status::OK();
    };
    for (auto& t : targets)
      SHOAL_RETURN_IF_ERROR(rewrite(t, "in SELECT"));
    SHOAL_RETURN_IF_ERROR(rewrite(having, "in HAVING"));
    for (auto& o : order)
      SHOAL_RETURN_IF_ERROR(rewrite(o.key.expr, "in ORDER BY"));
    for (auto& o : st.distinct_on)
      SHOAL_RETURN_IF_ERROR(rewrite(o.key.expr, "in DISTINCT ON"));
    if (uses_grouping) {
      // GROUPING(a, b): bit i (from the right) set when argument n-1-i is not in the row's set.
      auto replace_grouping = [&](ExprPtr& e) -> Status {
        if (!e)
          return Status::OK();
        Status error;
        e = TransformExpr(e, [&](const ExprPtr& x) -> ExprPtr {
          if (x->kind != ExprKind::kCall || x->name != "grouping")
            return nullptr;
          std::vector<int> arg_keys;
          for (const auto& a : x->args) {
            int found = -1;
            for (size_t k = 0; k < key_cols.size(); ++k) {
              if (a->kind == ExprKind::kColumnRef && a->column == key_cols[k].id)
                found = static_cast<int>(k);
            }
            if (found < 0) {
              error = Status::InvalidArgument(
                          "arguments to GROUPING must be grouping expressions of the associated "
                          "query level")
                          .WithSqlState("42803");
              return nullptr;
            }
            arg_keys.push_back(found);
          }
          std::vector<int32_t> masks;
          for (const auto& set :
               has_grouping_sets ? grouping_sets : std::vector<GroupingSet>{GroupingSet{}}) {
            int32_t mask = 0;
            for (int key : arg_keys) {
              const bool absent =
                  has_grouping_sets && std::find(set.begin(), set.end(), key) == set.end();
              mask = (mask << 1) | (absent ? 1 : 0);
            }
            masks.push_back(mask);
          }
          if (std::all_of(masks.begin(), masks.end(), [&](int32_t m) { return m == masks[0]; }))
            return MakeLiteral(Scalar::Int32(masks[0]));
          auto set_ref = MakeColumnRef(set_col.id, set_col.name, set_col.type, false);
          std::vector<ExprPtr> case_args;
          for (size_t i = 0; i < masks.size(); ++i) {
            case_args.push_back(
                MakeCall("=", {set_ref, MakeLiteral(Scalar::Int64(static_cast<int64_t>(i)))},
                         DataType::Boolean(), false));
            case_args.push_back(MakeLiteral(Scalar::Int32(masks[i])));
          }
          case_args.push_back(MakeLiteral(Scalar::Int32(0)));
          return MakeCase(std::move(case_args), true, DataType::Int32(), false);
        });
        return error;
      };
      for (auto& t : targets)
        SHOAL_RETURN_IF_ERROR(replace_grouping(t));
      SHOAL_RETURN_IF_ERROR(replace_grouping(having));
      for (auto& o : order)
        SHOAL_RETURN_IF_ERROR(replace_grouping(o.key.expr));
      for (auto& o : st.distinct_on)
        SHOAL_RETURN_IF_ERROR(replace_grouping(o.key.expr));
    }
    if (having) {
      auto filter = NewNode(LogicalKind::kFilter);
      filter->predicate = having;
      filter->output = plan->output;
      filter->children.push_back(plan);
      plan = filter;
    }
  }

  if (uses_grouping && group_keys.empty() && !has_grouping_sets)
    return Status::InvalidArgument(
               "arguments to GROUPING must be grouping expressions of the associated query level")
        .WithSqlState("42803");
  return Status::OK();
}

Result<ExprPtr> StatementBinder::ReplaceWithAggregateOutputs(
    const ExprPtr& e, const std::vector<ExprPtr>& keys, const std::vector<ColumnInfo>& key_cols,
    const std::vector<ExprPtr>& aggs, const std::vector<ColumnInfo>& agg_cols) {
  for (size_t i = 0; i < keys.size(); ++i) {
    if (ExprEquals(*e, *keys[i]))
      return MakeColumnRef(key_cols[i].id, key_cols[i].name, key_cols[i].type,
                           key_cols[i].nullable);
  }
  if (e->kind == ExprKind::kAggregate) {
    for (size_t i = 0; i < aggs.size(); ++i) {
      if (ExprEquals(*e, *aggs[i]))
        return MakeColumnRef(agg_cols[i].id, agg_cols[i].name, agg_cols[i].type,
                             agg_cols[i].nullable);
    }
    return Status::Internal("aggregate {} was not collected", e->ToString());
  }
  if (e->kind == ExprKind::kColumnRef && e->outer_depth == 0) {
    return Status::InvalidArgument(
               "column \"{}\" must appear in the GROUP BY clause or be used in an aggregate "
               "function",
               e->name)
        .WithSqlState("42803");
  }
  if (e->kind == ExprKind::kColumnRef || e->kind == ExprKind::kLiteral)
    return e;
  auto copy = std::make_shared<Expr>(*e);
  if (e->kind == ExprKind::kSubquery && e->subquery) {
    // A subquery in HAVING or the select list sees the grouped rows: its references to this
    // query read the aggregate's key columns (PostgreSQL refuses ungrouped columns too).
    Status error;
    copy->subquery = MapOuterRefs(e->subquery, 1, [&](const Expr& ref) -> ExprPtr {
      for (size_t i = 0; i < keys.size(); ++i) {
        if (keys[i]->kind == ExprKind::kColumnRef && keys[i]->outer_depth == 0 &&
            keys[i]->column == ref.column) {
          return MakeColumnRef(key_cols[i].id, key_cols[i].name, key_cols[i].type,
                               key_cols[i].nullable, ref.outer_depth);
        }
      }
      for (const auto& c : key_cols) {
        if (c.id == ref.column)
          return nullptr;
      }
      for (const auto& c : agg_cols) {  // an aggregate of this query the subquery wrote
        if (c.id == ref.column)
          return nullptr;
      }
      if (error.ok()) {
        error = Status::InvalidArgument("subquery uses ungrouped column \"{}\" from outer query",
                                        ref.name)
                    .WithSqlState("42803");
      }
      return nullptr;
    });
    SHOAL_RETURN_IF_ERROR(error);
  }
  for (auto& a : copy->args) {
    SHOAL_ASSIGN_OR_RETURN(a, ReplaceWithAggregateOutputs(a, keys, key_cols, aggs, agg_cols));
  }
  if (copy->filter) {
    SHOAL_ASSIGN_OR_RETURN(
        copy->filter, ReplaceWithAggregateOutputs(copy->filter, keys, key_cols, aggs, agg_cols));
  }
  for (auto& p : copy->partition_by) {
    SHOAL_ASSIGN_OR_RETURN(p, ReplaceWithAggregateOutputs(p, keys, key_cols, aggs, agg_cols));
  }
  for (auto& k : copy->order_by) {
    SHOAL_ASSIGN_OR_RETURN(k.expr,
                           ReplaceWithAggregateOutputs(k.expr, keys, key_cols, aggs, agg_cols));
  }
  return ExprPtr(copy);
}

}  // namespace shoal::sql::internal
