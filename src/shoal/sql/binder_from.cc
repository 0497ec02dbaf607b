// Binding of the FROM clause: tables, views (parsed and bound at each reference), CTE
// references, joins with ON / USING / NATURAL, derived tables, and the comma list that chains
// them as cross joins.

#include <algorithm>
#include <set>

#include "shoal/common/stack_depth.h"
#include "shoal/sql/binder_internal.h"
#include "shoal/sql/function_registry.h"
#include "shoal/sql/optimizer/decorrelation.h"
#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::internal {

BoundRelation StatementBinder::Requalify(BoundRelation rel, const std::string& alias,
                                         const NodeList* colnames) {
  for (size_t i = 0; i < rel.columns.size(); ++i) {
    if (!alias.empty())
      rel.columns[i].qualifier = alias;
    if (colnames != nullptr && static_cast<int>(i) < colnames->size())
      rel.columns[i].name = Str((*colnames)[static_cast<int>(i)]);
  }
  return rel;
}

Result<BoundRelation> StatementBinder::RelationFromQuery(QueryResult q,
                                                         const std::string& qualifier) {
  BoundRelation rel;
  rel.plan = q.plan;
  for (size_t i = 0; i < q.plan->output.size(); ++i) {
    const auto& c = q.plan->output[i];
    rel.columns.push_back({qualifier, q.names[i], c.id, c.type, c.nullable, false});
  }
  return rel;
}

Result<BoundRelation> StatementBinder::BindRangeVar(const pg_query::RangeVar& rv,
                                                    const CteScope* ctes, const Scope* outer) {
  std::string alias = rv.has_alias() ? rv.alias().aliasname() : rv.relname();
  const NodeList* colnames = rv.has_alias() ? &rv.alias().colnames() : nullptr;
  if (rv.schemaname().empty()) {
    for (const CteScope* s = ctes; s != nullptr; s = s->outer) {
      auto it = s->ctes.find(rv.relname());
      if (it == s->ctes.end())
        continue;
      const auto* cte = it->second.cte;
      // Bound at each reference, so every use has its own column ids. Its body reads the queries
      // around the one that defines it: referenced from a subquery `levels` deeper, its
      // references to them count that many levels further out.
      int levels = 0;
      const Scope* at = outer;
      while (at != it->second.outer && at != nullptr) {
        at = at->outer;
        ++levels;
      }
      if (at != it->second.outer)
        levels = 0;  // not reached: the body has no enclosing query to read
      SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(cte->ctequery(), it->second.outer, s));
      if (levels > 0)
        q.plan = ShiftOuterRefs(q.plan, 1, -levels);
      for (int i = 0; i < cte->aliascolnames_size() && i < static_cast<int>(q.names.size()); ++i)
        q.names[static_cast<size_t>(i)] = Str(cte->aliascolnames(i));
      SHOAL_ASSIGN_OR_RETURN(BoundRelation rel, RelationFromQuery(std::move(q), alias));
      return Requalify(std::move(rel), alias, colnames);
    }
  }
  if (auto system = BindSystemRelation(rv, alias, colnames))
    return std::move(*system);
  auto object = catalog_.Lookup(rv.schemaname(), rv.relname());
  if (!object.ok())
    return At(object.status(), rv.location());
  if (view_depth_ == 0) {  // what the statement itself names: a CREATE VIEW's dependencies
    const std::string& schema = object->table ? object->table->schema : object->view->schema;
    referenced_relations_.emplace_back(schema,
                                       object->table ? object->table->name : object->view->name);
  }
  if (object->view) {
    const ViewEntry& view = *object->view;
    if (view_depth_ > 32)
      return Status::InvalidArgument("views nested too deeply (a view refers to itself?)");
    SHOAL_ASSIGN_OR_RETURN(ParsedScript parsed, ParseSql(view.sql));
    if (parsed.statements.size() != 1)
      return Status::InvalidData("view \"{}\" does not hold one query", view.name);
    auto keep = std::make_shared<const ParsedScript>(std::move(parsed));
    keep_alive_.push_back(keep);
    bool saved_positions = positions_valid_;
    positions_valid_ = false;
    ++view_depth_;
    auto q = BindQuery(*keep->statements[0].node, nullptr, nullptr);
    --view_depth_;
    positions_valid_ = saved_positions;
    if (!q.ok())
      return q.status().WithContext(fmt::format("in view \"{}\"", view.name));
    for (size_t i = 0; i < view.column_names.size() && i < q->names.size(); ++i)
      q->names[i] = view.column_names[i];
    SHOAL_ASSIGN_OR_RETURN(BoundRelation rel, RelationFromQuery(std::move(*q), alias));
    return Requalify(std::move(rel), alias, colnames);
  }
  const TableEntry& table = *object->table;
  if (table.storage != nullptr)
    reusable_ = false;  // the provider is the rows committed now
  auto scan = NewNode(LogicalKind::kScan);
  scan->table = table.provider;
  scan->table_name = table.schema == kDefaultSchema ? table.name : table.schema + "." + table.name;
  BoundRelation rel;
  const auto& schema = *table.provider->schema();
  for (int i = 0; i < schema.num_fields(); ++i) {
    const Field& field = schema.field(i);
    ColumnId id = NewId();
    scan->projection.push_back(i);
    scan->output.push_back({id, field.name, alias, field.type, field.nullable});
    rel.columns.push_back({alias, field.name, id, field.type, field.nullable, false});
  }
  rel.plan = scan;
  return Requalify(std::move(rel), alias, colnames);
}

Result<BoundRelation> StatementBinder::BindJoin(const pg_query::JoinExpr& j, const Scope* outer,
                                                const CteScope* ctes) {
  SHOAL_ASSIGN_OR_RETURN(BoundRelation left, BindFromItem(j.larg(), outer, ctes));
  if (left.lateral) {  // nothing before it to read: its references further out move in
    left.plan = optimizer::DecrementPlanDepth(left.plan, 0);
    left.lateral = false;
  }
  SHOAL_ASSIGN_OR_RETURN(BoundRelation right, BindFromItem(j.rarg(), outer, ctes, &left.columns));
  JoinType type = JoinType::kInner;
  switch (j.jointype()) {
    case pg_query::JOIN_INNER: type = JoinType::kInner; break;
    case pg_query::JOIN_LEFT: type = JoinType::kLeft; break;
    case pg_query::JOIN_RIGHT: type = JoinType::kRight; break;
    case pg_query::JOIN_FULL: type = JoinType::kFull; break;
    default: return Status::NotImplemented("join type {}", static_cast<int>(j.jointype()));
  }
  SHOAL_ASSIGN_OR_RETURN(auto join, MakeFromJoin(type, left, right));
  bool left_nullable = join->join_type == JoinType::kRight || join->join_type == JoinType::kFull;
  bool right_nullable = join->join_type == JoinType::kLeft || join->join_type == JoinType::kFull;
  BoundRelation rel;
  for (auto c : left.columns) {
    c.nullable = c.nullable || left_nullable;
    rel.columns.push_back(c);
  }
  for (auto c : right.columns) {
    c.nullable = c.nullable || right_nullable;
    rel.columns.push_back(c);
  }
  // USING / NATURAL: equalities on the shared names; the duplicate is reachable only qualified.
  std::vector<std::string> using_names;
  if (j.is_natural()) {
    for (const auto& l : left.columns) {
      if (l.hidden)
        continue;
      for (const auto& r : right.columns) {
        if (!r.hidden && r.name == l.name &&
            std::find(using_names.begin(), using_names.end(), l.name) == using_names.end())
          using_names.push_back(l.name);
      }
    }
  }
  for (const auto& u : j.using_clause())
    using_names.push_back(Str(u));
  // Each USING name merges the two columns into one, as PostgreSQL does: the left one for INNER
  // and LEFT joins, the right one for RIGHT, COALESCE(left, right) for FULL, in their common type.
  // The merged columns come first in the join's column list (SELECT * order), in USING order;
  // the two originals stay reachable qualified only.
  std::vector<ExprPtr> conjuncts;
  std::vector<ScopeColumn> merged;
  std::vector<ExprPtr> merged_exprs;  // per merged column; null where it is an input column
  for (const auto& name : using_names) {
    if (std::any_of(merged.begin(), merged.end(),
                    [&](const ScopeColumn& m) { return m.name == name; }))
      return Status::InvalidArgument("column name \"{}\" appears more than once in USING clause",
                                     name)
          .WithSqlState("42701");
    const ScopeColumn* l = nullptr;
    const ScopeColumn* r = nullptr;
    int l_count = 0;
    int r_count = 0;
    for (const auto& c : left.columns)
      if (!c.hidden && c.name == name && (l == nullptr || l->id != c.id)) {
        l = &c;
        ++l_count;
      }
    for (const auto& c : right.columns)
      if (!c.hidden && c.name == name && (r == nullptr || r->id != c.id)) {
        r = &c;
        ++r_count;
      }
    if (l == nullptr || r == nullptr)
      return Status::NotFound("column \"{}\" specified in USING clause does not exist in {} table",
                              name, l == nullptr ? "left" : "right")
          .WithSqlState("42703");
    if (l_count > 1 || r_count > 1)
      return Status::InvalidArgument("common column name \"{}\" appears more than once in {} table",
                                     name, l_count > 1 ? "left" : "right")
          .WithSqlState("42702");
    ExprPtr lref = MakeColumnRef(l->id, l->name, l->type, l->nullable);
    ExprPtr rref = MakeColumnRef(r->id, r->name, r->type, r->nullable);
    auto common = CommonSuperType(l->type, r->type);
    if (!common)
      return Status::TypeError("JOIN/USING types {} and {} cannot be matched", SqlTypeName(l->type),
                               SqlTypeName(r->type))
          .WithSqlState("42804");
    SHOAL_ASSIGN_OR_RETURN(ExprPtr lcast, Coerce(lref, *common));
    SHOAL_ASSIGN_OR_RETURN(ExprPtr rcast, Coerce(rref, *common));
    SHOAL_ASSIGN_OR_RETURN(ExprPtr eq, MakeResolvedCall("=", {lcast, rcast}, -1));
    conjuncts.push_back(eq);
    ExprPtr value;
    bool nullable = false;
    switch (join->join_type) {
      case JoinType::kRight:
        value = rcast;
        nullable = r->nullable;
        break;
      case JoinType::kFull:
        nullable = l->nullable && r->nullable;
        value = MakeCall("coalesce", {lcast, rcast}, *common, nullable);
        break;
      default:
        value = lcast;
        nullable = l->nullable;
        break;
    }
    const bool plain = value->kind == ExprKind::kColumnRef;
    merged.push_back({"", name, plain ? value->column : NewId(), *common, nullable, false});
    merged_exprs.push_back(plain ? nullptr : value);
    for (auto& c : rel.columns) {
      if (c.id == l->id || c.id == r->id)
        c.hidden = true;
    }
  }
  if (j.has_quals()) {
    QueryLevel level;  // a subquery's outer aggregate here is refused (not allowed in JOIN)
    Scope scope{rel.columns, outer, &level};
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.ctes = ctes;
    ctx.clause = "JOIN conditions";
    SHOAL_ASSIGN_OR_RETURN(ExprPtr cond, BindExpr(j.quals(), ctx));
    SHOAL_ASSIGN_OR_RETURN(cond, CoerceToBoolean(cond, "JOIN/ON", -1));
    conjuncts.push_back(cond);
  }
  if (conjuncts.size() == 1) {
    join->predicate = conjuncts[0];
  } else if (conjuncts.size() > 1) {
    SHOAL_ASSIGN_OR_RETURN(join->predicate, MakeResolvedCall("and", conjuncts, -1));
  }
  for (const auto& c : rel.columns)
    join->output.push_back({c.id, c.name, c.qualifier, c.type, c.nullable});
  rel.plan = join;
  if (std::any_of(merged_exprs.begin(), merged_exprs.end(), [](const ExprPtr& e) { return e; })) {
    // Cast or COALESCEd merged columns are computed above the join, beside its own columns.
    auto project = NewNode(LogicalKind::kProject);
    for (size_t i = 0; i < merged.size(); ++i) {
      if (!merged_exprs[i])
        continue;
      project->exprs.push_back(merged_exprs[i]);
      project->output.push_back(
          {merged[i].id, merged[i].name, "", merged[i].type, merged[i].nullable});
    }
    for (const auto& c : join->output) {
      project->exprs.push_back(MakeColumnRef(c.id, c.name, c.type, c.nullable));
      project->output.push_back(c);
    }
    project->children.push_back(join);
    rel.plan = project;
  }
  rel.columns.insert(rel.columns.begin(), merged.begin(), merged.end());
  if (j.has_alias()) {
    // An alias names the join's own columns only: the merged ones and the others, not the two
    // originals of a merged column.
    std::erase_if(rel.columns, [](const ScopeColumn& c) { return c.hidden; });
    return Requalify(std::move(rel), j.alias().aliasname(), &j.alias().colnames());
  }
  return rel;
}

Result<std::shared_ptr<LogicalPlan>> StatementBinder::MakeFromJoin(JoinType type,
                                                                   const BoundRelation& left,
                                                                   BoundRelation& right) {
  auto join = NewNode(LogicalKind::kJoin);
  join->join_type = type;
  if (right.lateral) {
    // Which of the left side's columns the LATERAL subquery reads: none makes it an ordinary
    // derived table (its references further out move one level in).
    std::set<ColumnId> refs;
    optimizer::CollectOuterRefs(*right.plan, 1, &refs);
    const ScopeColumn* read = nullptr;
    for (const auto& c : left.columns) {
      if (refs.count(c.id) > 0 && read == nullptr)
        read = &c;
    }
    if (read == nullptr) {
      right.plan = optimizer::DecrementPlanDepth(right.plan, 0);
    } else if (type == JoinType::kRight || type == JoinType::kFull) {
      return Status::InvalidArgument("invalid reference to FROM-clause entry for table \"{}\"",
                                     read->qualifier)
          .WithSqlState("42P10")
          .WithHint("The combining JOIN type must be INNER or LEFT for a LATERAL reference.");
    } else {
      join->lateral = true;
    }
  }
  join->children = {left.plan, right.plan};
  return join;
}

Result<BoundRelation> StatementBinder::BindFromItem(const PgNode& node, const Scope* outer,
                                                    const CteScope* ctes,
                                                    const std::vector<ScopeColumn>* lateral) {
  SHOAL_CHECK_STACK_DEPTH();
  switch (node.node_case()) {
    case PgNode::kRangeVar: return BindRangeVar(node.range_var(), ctes, outer);
    case PgNode::kJoinExpr: return BindJoin(node.join_expr(), outer, ctes);
    case PgNode::kRangeSubselect: {
      const auto& rs = node.range_subselect();
      if (rs.lateral()) {
        // LATERAL: the subquery sees the FROM items before it, one level out (as a subquery of
        // the join would); MakeFromJoin makes the join a LATERAL one when it reads them.
        QueryLevel level;  // an aggregate of the FROM items before it is refused, as in PG
        level.clause = "FROM clause of their own query level";
        Scope before{lateral != nullptr ? *lateral : std::vector<ScopeColumn>{}, outer, &level};
        SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(rs.subquery(), &before, ctes));
        std::string alias = rs.has_alias() ? rs.alias().aliasname() : "";
        SHOAL_ASSIGN_OR_RETURN(BoundRelation rel, RelationFromQuery(std::move(q), alias));
        rel.lateral = true;
        return Requalify(std::move(rel), alias, rs.has_alias() ? &rs.alias().colnames() : nullptr);
      }
      // A derived table is part of this query's plan: it sees the queries this one is nested in
      // (the same depths), not its FROM siblings (that would be LATERAL).
      SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(rs.subquery(), outer, ctes));
      std::string alias = rs.has_alias() ? rs.alias().aliasname() : "";
      SHOAL_ASSIGN_OR_RETURN(BoundRelation rel, RelationFromQuery(std::move(q), alias));
      return Requalify(std::move(rel), alias, rs.has_alias() ? &rs.alias().colnames() : nullptr);
    }
    case PgNode::kRangeFunction:
      return BindRangeFunction(node.range_function(), outer, ctes, lateral);
    default: break;
  }
  return Status::NotImplemented("FROM item of kind {}", static_cast<int>(node.node_case()));
}

Result<BoundRelation> StatementBinder::BindFromList(const pg_query::SelectStmt& s,
                                                    const Scope* outer, const CteScope* ctes) {
  // FROM: a comma list is a chain of cross joins (the optimizer turns them into equi-joins).
  BoundRelation from;
  if (s.from_clause().empty()) {
    auto values = NewNode(LogicalKind::kValues);
    values->rows.emplace_back();
    from.plan = values;
  } else {
    for (const auto& item : s.from_clause()) {
      SHOAL_ASSIGN_OR_RETURN(BoundRelation rel, BindFromItem(item, outer, ctes, &from.columns));
      if (!from.plan) {
        if (rel.lateral)  // nothing before it to read: its references further out move in
          rel.plan = optimizer::DecrementPlanDepth(rel.plan, 0);
        rel.lateral = false;
        from = std::move(rel);
        continue;
      }
      // Two FROM items with the same name would make every qualified reference ambiguous.
      for (const auto& c : rel.columns) {
        for (const auto& d : from.columns) {
          if (!c.qualifier.empty() && c.qualifier == d.qualifier && c.id != d.id &&
              c.name == d.name)
            return Status::InvalidArgument("table name \"{}\" specified more than once",
                                           c.qualifier)
                .WithSqlState("42712");
        }
      }
      SHOAL_ASSIGN_OR_RETURN(auto join, MakeFromJoin(JoinType::kInner, from, rel));
      join->output = from.plan->output;
      join->output.insert(join->output.end(), rel.plan->output.begin(), rel.plan->output.end());
      from.columns.insert(from.columns.end(), rel.columns.begin(), rel.columns.end());
      from.plan = join;
    }
  }
  return from;
}

}  // namespace shoal::sql::internal
