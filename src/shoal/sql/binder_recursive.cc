// WITH RECURSIVE. A CTE of a WITH RECURSIVE list that reads itself becomes a RecursiveCte node:
// its non-recursive term, then its recursive term re-run over the rows the previous round
// produced (the working table) until a round produces none. The checks follow PostgreSQL's
// parse_cte.c, in its order: mutual recursion between the CTEs of one WITH (0A000), then for each
// recursive CTE the form `non-recursive term UNION [ALL] recursive term`, the place of its
// self-reference (exactly once, not in the non-recursive term, a subquery, an outer join's
// nullable side, INTERSECT ALL or EXCEPT: 42P19), no ORDER BY / LIMIT / OFFSET on the UNION
// (0A000); then, while binding, no aggregate in a SELECT reading the working table (42P19) and
// the recursive term's column types those of the non-recursive term (42804).

#include <algorithm>
#include <functional>
#include <set>

#include "shoal/common/stack_depth.h"
// The protobuf reflection walks below come with libpg_query's generated parse tree classes.
#include "shoal/sql/binder_internal.h"
#include "shoal/sql/function_registry.h"

namespace shoal::sql::internal {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

template <typename T>
const T* MessageAs(const Message& m) {
  return m.GetDescriptor() == T::descriptor() ? static_cast<const T*>(&m) : nullptr;
}

/// Calls `fn` on every message directly inside `m` (fields and repeated fields).
template <typename Fn>
void ForEachChild(const Message& m, Fn&& fn) {
  const auto* descriptor = m.GetDescriptor();
  const auto* reflection = m.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE)
      continue;
    if (field->is_repeated()) {
      const int n = reflection->FieldSize(m, field);
      for (int k = 0; k < n; ++k)
        fn(reflection->GetRepeatedMessage(m, field, k));
    } else if (reflection->HasField(m, field)) {
      fn(reflection->GetMessage(m, field));
    }
  }
}

bool DefinesName(const pg_query::SelectStmt& s, const std::string& name) {
  if (!s.has_with_clause())
    return false;
  for (const auto& c : s.with_clause().ctes()) {
    if (c.common_table_expr().ctename() == name)
      return true;
  }
  return false;
}

/// The unqualified relation names in `m` (outside inner WITHs that define them again).
void CollectNames(const Message& m, std::set<std::string>* shadowed, std::set<std::string>* out) {
  if (const auto* rv = MessageAs<pg_query::RangeVar>(m)) {
    if (rv->schemaname().empty() && shadowed->count(rv->relname()) == 0)
      out->insert(rv->relname());
    return;
  }
  std::vector<std::string> added;
  if (const auto* s = MessageAs<pg_query::SelectStmt>(m); s != nullptr && s->has_with_clause()) {
    for (const auto& c : s->with_clause().ctes()) {
      if (shadowed->insert(c.common_table_expr().ctename()).second)
        added.push_back(c.common_table_expr().ctename());
    }
  }
  ForEachChild(m, [&](const Message& child) { CollectNames(child, shadowed, out); });
  for (const auto& a : added)
    shadowed->erase(a);
}

/// Where a reference to the recursive CTE is being looked for (PostgreSQL's RecursionContext).
enum class Place { kOk, kNonRecursiveTerm, kSubquery, kOuterJoin, kIntersect, kExcept };

/// Checks the self-references of recursive CTE `name` (checkWellFormedRecursionWalker).
class SelfReferenceCheck {
 public:
  SelfReferenceCheck(const std::string& name, std::function<Status(Status, int)> at)
      : name_(name), at_(std::move(at)) {}

  int references() const { return references_; }

  Status Walk(const Message& m, Place place) {
    SHOAL_CHECK_STACK_DEPTH();
    if (const auto* rv = MessageAs<pg_query::RangeVar>(m)) {
      if (!rv->schemaname().empty() || rv->relname() != name_)
        return Status::OK();
      const char* what = nullptr;
      switch (place) {
        case Place::kOk: break;
        case Place::kNonRecursiveTerm: what = "within its non-recursive term"; break;
        case Place::kSubquery: what = "within a subquery"; break;
        case Place::kOuterJoin: what = "within an outer join"; break;
        case Place::kIntersect: what = "within INTERSECT"; break;
        case Place::kExcept: what = "within EXCEPT"; break;
      }
      if (what == nullptr && ++references_ > 1)
        what = "more than once";
      if (what != nullptr)
        return at_(Status::InvalidArgument("recursive reference to query \"{}\" must not appear {}",
                                           name_, what)
                       .WithSqlState("42P19"),
                   rv->location());
      return Status::OK();
    }
    if (const auto* s = MessageAs<pg_query::SelectStmt>(m)) {
      if (DefinesName(*s, name_))
        return Status::OK();  // the name means the inner CTE here
      if (s->has_with_clause())
        SHOAL_RETURN_IF_ERROR(Walk(s->with_clause(), place));
      switch (s->op()) {
        case pg_query::SETOP_UNION:
          SHOAL_RETURN_IF_ERROR(Walk(s->larg(), place));
          return Walk(s->rarg(), place);
        case pg_query::SETOP_INTERSECT: {
          const Place arms = s->all() ? Place::kIntersect : place;
          SHOAL_RETURN_IF_ERROR(Walk(s->larg(), arms));
          return Walk(s->rarg(), arms);
        }
        case pg_query::SETOP_EXCEPT:
          SHOAL_RETURN_IF_ERROR(Walk(s->larg(), s->all() ? Place::kExcept : place));
          return Walk(s->rarg(), Place::kExcept);
        default: break;
      }
      Status status;
      ForEachChild(*s, [&](const Message& child) {
        if (status.ok() && &child != &s->with_clause())
          status = Walk(child, place);
      });
      return status;
    }
    if (const auto* j = MessageAs<pg_query::JoinExpr>(m)) {
      Place left = place;
      Place right = place;
      switch (j->jointype()) {
        case pg_query::JOIN_LEFT: right = Place::kOuterJoin; break;
        case pg_query::JOIN_RIGHT: left = Place::kOuterJoin; break;
        case pg_query::JOIN_FULL: left = right = Place::kOuterJoin; break;
        default: break;
      }
      SHOAL_RETURN_IF_ERROR(Walk(j->larg(), left));
      SHOAL_RETURN_IF_ERROR(Walk(j->rarg(), right));
      return Walk(j->quals(), place);
    }
    if (const auto* sub = MessageAs<pg_query::SubLink>(m)) {
      SHOAL_RETURN_IF_ERROR(Walk(sub->testexpr(), place));
      return Walk(sub->subselect(), Place::kSubquery);
    }
    Status status;
    ForEachChild(m, [&](const Message& child) {
      if (status.ok())
        status = Walk(child, place);
    });
    return status;
  }

 private:
  const std::string& name_;
  std::function<Status(Status, int)> at_;
  int references_ = 0;
};

/// The location PostgreSQL reports for an expression (its leftmost token where it knows it).
int NodeLocation(const PgNode& node) {
  if (node.has_a_expr()) {
    int op = node.a_expr().location();
    int left = node.a_expr().has_lexpr() ? NodeLocation(node.a_expr().lexpr()) : -1;
    return left >= 0 && (op < 0 || left < op) ? left : op;
  }
  if (node.has_sort_by())
    return NodeLocation(node.sort_by().node());
  if (node.has_type_cast()) {
    int arg = NodeLocation(node.type_cast().arg());
    return arg >= 0 ? arg : node.type_cast().location();
  }
  const auto* reflection = PgNode::GetReflection();
  const auto* oneof = PgNode::GetDescriptor()->FindOneofByName("node");
  if (oneof == nullptr)
    return -1;
  const FieldDescriptor* field = reflection->GetOneofFieldDescriptor(node, oneof);
  if (field == nullptr || field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE)
    return -1;
  const Message& inner = reflection->GetMessage(node, field);
  const FieldDescriptor* location = inner.GetDescriptor()->FindFieldByName("location");
  if (location == nullptr || location->cpp_type() != FieldDescriptor::CPPTYPE_INT32)
    return -1;
  return inner.GetReflection()->GetInt32(inner, location);
}

/// PostgreSQL's name of a set operation's type, which carries no typmod: numeric, not
/// numeric(12,1).
std::string TypeNameWithoutModifier(const DataType& type) {
  return type.id() == TypeId::kDecimal ? std::string("numeric") : SqlTypeName(type);
}

/// The first aggregate call of this query level in `m` (not in subqueries), or null.
const pg_query::FuncCall* FindAggregate(const Message& m) {
  if (MessageAs<pg_query::SubLink>(m) != nullptr || MessageAs<pg_query::SelectStmt>(m) != nullptr)
    return nullptr;
  if (const auto* f = MessageAs<pg_query::FuncCall>(m)) {
    if (!f->has_over() && (f->agg_within_group() ||
                           FunctionRegistry::Global().Find(LastName(f->funcname()),
                                                           FunctionKind::kAggregate) != nullptr))
      return f;
  }
  const pg_query::FuncCall* found = nullptr;
  ForEachChild(m, [&](const Message& child) {
    if (found == nullptr)
      found = FindAggregate(child);
  });
  return found;
}

}  // namespace

Status StatementBinder::PrepareRecursiveWith(const pg_query::WithClause& with) {
  std::vector<const pg_query::CommonTableExpr*> ctes;
  std::map<std::string, size_t> index;
  for (const auto& c : with.ctes()) {
    index[c.common_table_expr().ctename()] = ctes.size();
    ctes.push_back(&c.common_table_expr());
  }
  // Which siblings each CTE reads (any CTE of a WITH RECURSIVE sees all of them).
  const size_t n = ctes.size();
  std::vector<std::vector<size_t>> reads(n);
  std::vector<bool> self(n, false);
  for (size_t i = 0; i < n; ++i) {
    std::set<std::string> shadowed;
    std::set<std::string> names;
    CollectNames(ctes[i]->ctequery(), &shadowed, &names);
    for (const auto& name : names) {
      auto it = index.find(name);
      if (it == index.end())
        continue;
      if (it->second == i)
        self[i] = true;
      else
        reads[i].push_back(it->second);
    }
  }
  // Mutual recursion: a cycle through two or more CTEs (PostgreSQL sorts the CTEs by their
  // references and fails at the first that cannot be placed).
  std::vector<int> state(n, 0);  // 0 unvisited, 1 on the path, 2 done
  std::function<bool(size_t)> cyclic = [&](size_t i) {
    state[i] = 1;
    for (size_t j : reads[i]) {
      if (state[j] == 1 || (state[j] == 0 && cyclic(j)))
        return true;
    }
    state[i] = 2;
    return false;
  };
  for (size_t i = 0; i < n; ++i) {
    if (state[i] == 0 && cyclic(i))
      return At(Status::NotImplemented("mutual recursion between WITH items is not implemented")
                    .WithSqlState("0A000"),
                ctes[i]->location());
  }
  auto at = [this](Status status, int location) { return At(std::move(status), location); };
  for (size_t i = 0; i < n; ++i) {
    const pg_query::CommonTableExpr& cte = *ctes[i];
    if (cte.has_search_clause() || cte.has_cycle_clause())
      return At(Status::NotImplemented("SEARCH and CYCLE clauses of WITH RECURSIVE are not "
                                       "supported")
                    .WithSqlState("0A000"),
                cte.location());
    if (!self[i])
      continue;  // an ordinary CTE
    const std::string& name = cte.ctename();
    if (!cte.ctequery().has_select_stmt() ||
        cte.ctequery().select_stmt().op() != pg_query::SETOP_UNION)
      return At(Status::InvalidArgument("recursive query \"{}\" does not have the form "
                                        "non-recursive-term UNION [ALL] recursive-term",
                                        name)
                    .WithSqlState("42P19"),
                cte.location());
    const pg_query::SelectStmt& s = cte.ctequery().select_stmt();
    SelfReferenceCheck non_recursive(name, at);
    SHOAL_RETURN_IF_ERROR(non_recursive.Walk(s.larg(), Place::kNonRecursiveTerm));
    SelfReferenceCheck recursive(name, at);
    SHOAL_RETURN_IF_ERROR(recursive.Walk(s.rarg(), Place::kOk));
    if (s.has_with_clause()) {
      SelfReferenceCheck with(name, at);
      SHOAL_RETURN_IF_ERROR(with.Walk(s.with_clause(), Place::kSubquery));
    }
    auto not_implemented = [&](const char* what, const PgNode& node) {
      return At(Status::NotImplemented("{} in a recursive query is not implemented", what)
                    .WithSqlState("0A000"),
                NodeLocation(node));
    };
    if (!s.sort_clause().empty())
      return not_implemented("ORDER BY", s.sort_clause(0));
    if (s.has_limit_offset())
      return not_implemented("OFFSET", s.limit_offset());
    if (s.has_limit_count())
      return not_implemented("LIMIT", s.limit_count());
    if (!s.locking_clause().empty())
      return not_implemented("FOR UPDATE/SHARE", s.locking_clause(0));
    // A WITH bound again (a CTE body or view bound at each reference) keeps its entry.
    RecursiveCteBinding binding;
    binding.cte = &cte;
    recursive_ctes_.emplace(&cte.ctequery(), std::move(binding));
  }
  return Status::OK();
}

Status StatementBinder::CheckRecursiveTermAggregates(const pg_query::SelectStmt& s) const {
  const pg_query::FuncCall* agg = nullptr;
  for (const auto& t : s.target_list()) {
    if (agg == nullptr)
      agg = FindAggregate(t);
  }
  if (agg == nullptr && s.has_having_clause())
    agg = FindAggregate(s.having_clause());
  for (const auto& o : s.sort_clause()) {
    if (agg == nullptr)
      agg = FindAggregate(o);
  }
  if (agg == nullptr)
    return Status::OK();
  return At(Status::InvalidArgument(
                "aggregate functions are not allowed in a recursive query's recursive term")
                .WithSqlState("42P19"),
            agg->location());
}

Result<StatementBinder::QueryResult> StatementBinder::BindRecursiveCte(RecursiveCteBinding& binding,
                                                                       const Scope* outer,
                                                                       const CteScope* ctes) {
  const pg_query::CommonTableExpr& cte = *binding.cte;
  if (binding.in_recursive_term) {
    // The reference to itself in its recursive term: the rows of the previous round.
    auto working = NewNode(LogicalKind::kWorkingTable);
    working->working_table = binding.working_table;
    QueryResult q;
    for (const auto& c : binding.columns) {
      working->output.push_back({NewId(), c.name, "", c.type, c.nullable});
      q.names.push_back(c.name);
    }
    q.plan = working;
    if (working_tables_in_from_ != nullptr)
      ++*working_tables_in_from_;
    return q;
  }
  const pg_query::SelectStmt& s = cte.ctequery().select_stmt();
  CteScope inner_storage;
  SHOAL_ASSIGN_OR_RETURN(const CteScope* inner, BindWith(s, outer, ctes, &inner_storage));
  SHOAL_ASSIGN_OR_RETURN(QueryResult start, BindSelect(s.larg(), outer, inner));
  const size_t width = start.plan->output.size();
  if (cte.aliascolnames_size() > static_cast<int>(width))
    return At(Status::InvalidArgument("WITH query \"{}\" has {} columns available but {} columns "
                                      "specified",
                                      cte.ctename(), width, cte.aliascolnames_size())
                  .WithSqlState("42P10"),
              cte.location());
  std::vector<ColumnInfo> columns;
  std::vector<DataType> types;
  for (size_t i = 0; i < width; ++i) {
    ColumnInfo c = start.plan->output[i];
    if (c.type.id() == TypeId::kDictionary)
      c.type = c.type.value_type();
    // PostgreSQL's numeric has no fixed precision: later rounds may hold larger values.
    if (c.type.id() == TypeId::kDecimal)
      c.type = DataType::Decimal(DataType::kMaxDecimalPrecision, c.type.scale());
    if (static_cast<int>(i) < cte.aliascolnames_size())
      c.name = Str(cte.aliascolnames(static_cast<int>(i)));
    else
      c.name = start.names[i];
    c.qualifier.clear();
    // Rows of later rounds may be NULL where the first round's are not.
    c.nullable = true;
    types.push_back(c.type);
    columns.push_back(std::move(c));
  }
  SHOAL_ASSIGN_OR_RETURN(LogicalPlanPtr start_plan, CastPlanColumns(start.plan, types));

  // The recursive term, reading the working table where it names the CTE. A numeric column
  // whose scale the recursive term raises (n + 0.25 over a numeric(38,1)) is bound again at
  // that scale, as PostgreSQL's unconstrained numeric would carry it.
  const ColumnId working_table = NewId();
  LogicalPlanPtr step_plan;
  for (int attempt = 0;; ++attempt) {
    binding.working_table = working_table;
    binding.columns = columns;
    binding.in_recursive_term = true;
    auto step = BindSelect(s.rarg(), outer, inner);
    binding.in_recursive_term = false;
    SHOAL_RETURN_IF_ERROR(step.status());
    step_plan = step->plan;
    if (step_plan->output.size() != width)
      break;  // reported below
    bool rebind = false;
    for (size_t i = 0; i < width; ++i) {
      const DataType& got = step_plan->output[i].type;
      if (types[i].id() == TypeId::kDecimal && got.id() == TypeId::kDecimal &&
          got.scale() > types[i].scale()) {
        if (attempt > 0)
          return Status::NotImplemented(
                     "the scale of numeric column {} of recursive query \"{}\" grows with every "
                     "round",
                     i + 1, cte.ctename())
              .WithSqlState("0A000")
              .WithHint("Cast the column to a numeric of fixed scale in both terms.");
        types[i] = DataType::Decimal(DataType::kMaxDecimalPrecision, got.scale());
        columns[i].type = types[i];
        rebind = true;
      }
    }
    if (!rebind)
      break;
    SHOAL_ASSIGN_OR_RETURN(start_plan, CastPlanColumns(start.plan, types));
  }
  if (step_plan->output.size() != width) {
    int location = -1;
    if (s.rarg().op() == pg_query::SETOP_NONE && !s.rarg().target_list().empty() &&
        s.rarg().target_list(0).has_res_target())
      location = s.rarg().target_list(0).res_target().location();
    return At(Status::InvalidArgument("each UNION query must have the same number of columns")
                  .WithSqlState("42601"),
              location);
  }
  for (size_t i = 0; i < width; ++i) {
    const DataType& want = types[i];
    DataType got = step_plan->output[i].type;
    if (got.id() == TypeId::kDictionary)
      got = got.value_type();
    if (got == want || (got.id() == TypeId::kDecimal && want.id() == TypeId::kDecimal))
      continue;
    auto common = CommonSuperType(want, got);
    if (!common)
      return Status::TypeError("UNION types {} and {} cannot be matched",
                               TypeNameWithoutModifier(want), TypeNameWithoutModifier(got))
          .WithSqlState("42804");
    if (common->id() == TypeId::kDecimal && want.id() == TypeId::kDecimal)
      continue;
    if (*common != want) {
      int location = -1;
      const pg_query::SelectStmt& l = s.larg();
      if (l.op() == pg_query::SETOP_NONE && l.values_lists().empty() &&
          static_cast<int>(i) < l.target_list_size() &&
          l.target_list(static_cast<int>(i)).has_res_target()) {
        const auto& rt = l.target_list(static_cast<int>(i)).res_target();
        location = rt.has_val() ? NodeLocation(rt.val()) : rt.location();
        if (location < 0)
          location = rt.location();
      }
      return At(Status::TypeError("recursive query \"{}\" column {} has type {} in non-recursive "
                                  "term but type {} overall",
                                  cte.ctename(), i + 1, TypeNameWithoutModifier(want),
                                  TypeNameWithoutModifier(*common))
                    .WithSqlState("42804")
                    .WithHint("Cast the output of the non-recursive term to the correct type."),
                location);
    }
  }
  SHOAL_ASSIGN_OR_RETURN(LogicalPlanPtr step_cast, CastPlanColumns(step_plan, types));

  auto node = NewNode(LogicalKind::kRecursiveCte);
  node->working_table = working_table;
  node->all = s.all();
  node->children = {start_plan, step_cast};
  QueryResult q;
  for (const auto& c : columns) {
    node->output.push_back({NewId(), c.name, "", c.type, c.nullable});
    q.names.push_back(c.name);
  }
  q.plan = node;
  return q;
}

}  // namespace shoal::sql::internal
