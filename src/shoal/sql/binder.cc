#include "shoal/sql/binder.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "shoal/common/edit_distance.h"
#include "shoal/io/copy_writer.h"
#include "shoal/sql/function_registry.h"
#include "shoal/sql/literal_parsing.h"
#include "shoal/sql/pg_query_proto/pg_query.pb.h"

namespace shoal::sql {

const char* StatementKindName(StatementKind kind) {
  switch (kind) {
    case StatementKind::kQuery: return "SELECT";
    case StatementKind::kExplain: return "EXPLAIN";
    case StatementKind::kCreateTable: return "CREATE TABLE";
    case StatementKind::kCreateTableAs: return "CREATE TABLE AS";
    case StatementKind::kCreateExternalTable: return "CREATE EXTERNAL TABLE";
    case StatementKind::kCopy: return "COPY";
    case StatementKind::kInsert: return "INSERT";
    case StatementKind::kCreateView: return "CREATE VIEW";
    case StatementKind::kDropTable: return "DROP TABLE";
    case StatementKind::kDropView: return "DROP VIEW";
    case StatementKind::kSet: return "SET";
    case StatementKind::kReset: return "RESET";
    case StatementKind::kResetAll: return "RESET";
    case StatementKind::kShow: return "SHOW";
    case StatementKind::kShowAll: return "SHOW";
  }
  return "?";
}

namespace {

using columnar::Field;
using columnar::Schema;
using columnar::TypeId;
using PgNode = pg_query::Node;
using NodeList = google::protobuf::RepeatedPtrField<pg_query::Node>;

// ---------------------------------------------------------------------------------------------
// Scopes

struct ScopeColumn {
  std::string qualifier;
  std::string name;
  ColumnId id = kInvalidColumnId;
  DataType type;
  bool nullable = true;
  bool hidden = false;  // merged away by USING / NATURAL: only reachable qualified
};

struct Scope {
  std::vector<ScopeColumn> columns;
  const Scope* outer = nullptr;
};

struct CteDefinition {
  const pg_query::CommonTableExpr* cte = nullptr;
};

/// CTEs visible to a query: its own WITH list, then those of the enclosing queries.
struct CteScope {
  std::map<std::string, CteDefinition> ctes;
  const CteScope* outer = nullptr;
};

struct BoundRelation {
  LogicalPlanPtr plan;
  std::vector<ScopeColumn> columns;
};

std::string Str(const PgNode& n) {
  if (n.has_string())
    return n.string().sval();
  return "";
}

std::string LastName(const NodeList& names) {
  return names.empty() ? std::string() : Str(names[names.size() - 1]);
}

std::shared_ptr<LogicalPlan> NewNode(LogicalKind kind) {
  auto n = std::make_shared<LogicalPlan>();
  n->kind = kind;
  return n;
}

bool IsAggregateName(std::string_view name) {
  return FunctionRegistry::Global().Find(name, FunctionKind::kAggregate) != nullptr;
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

void CollectKind(const ExprPtr& e, ExprKind kind, std::vector<ExprPtr>* out) {
  if (!e)
    return;
  if (e->kind == kind) {
    for (const auto& x : *out) {
      if (ExprEquals(*x, *e))
        return;
    }
    out->push_back(e);
    return;
  }
  for (const auto& a : e->args)
    CollectKind(a, kind, out);
  CollectKind(e->filter, kind, out);
}

/// Output name PostgreSQL gives an unnamed select-list expression.
std::string DeriveName(const PgNode& n) {
  switch (n.node_case()) {
    case PgNode::kColumnRef: {
      const auto& f = n.column_ref().fields();
      if (!f.empty() && f[f.size() - 1].has_string())
        return Str(f[f.size() - 1]);
      return "?column?";
    }
    case PgNode::kFuncCall: return LastName(n.func_call().funcname());
    case PgNode::kTypeCast: {
      std::string inner = DeriveName(n.type_cast().arg());
      if (inner != "?column?")
        return inner;
      return LastName(n.type_cast().type_name().names());
    }
    case PgNode::kCaseExpr: return "case";
    case PgNode::kGroupingFunc: return "grouping";
    case PgNode::kCoalesceExpr: return "coalesce";
    case PgNode::kMinMaxExpr:
      return n.min_max_expr().op() == pg_query::IS_GREATEST ? "greatest" : "least";
    case PgNode::kSubLink:
      if (n.sub_link().sub_link_type() == pg_query::EXISTS_SUBLINK)
        return "exists";
      if (n.sub_link().sub_link_type() == pg_query::EXPR_SUBLINK &&
          n.sub_link().subselect().has_select_stmt()) {
        const auto& targets = n.sub_link().subselect().select_stmt().target_list();
        if (targets.size() == 1 && targets[0].has_res_target()) {
          const auto& rt = targets[0].res_target();
          return rt.name().empty() ? DeriveName(rt.val()) : rt.name();
        }
      }
      return "?column?";
    case PgNode::kSqlvalueFunction:
      return n.sqlvalue_function().op() == pg_query::SVFOP_CURRENT_DATE ? "current_date"
                                                                        : "?column?";
    default: return "?column?";
  }
}

/// Canonical function name for PostgreSQL spellings.
std::string CanonicalFunctionName(std::string name) {
  static const std::map<std::string, std::string> kAliases = {
      {"substr", "substring"},   {"char_length", "length"}, {"character_length", "length"},
      {"date_part", "extract"},  {"ceiling", "ceil"},       {"pow", "power"},
      {"stddev", "stddev_samp"}, {"variance", "var_samp"},  {"btrim", "trim"},
      {"every", "bool_and"},     {"strpos", "position"},    {"textcat", "||"},
  };
  auto it = kAliases.find(name);
  return it == kAliases.end() ? name : it->second;
}

// ---------------------------------------------------------------------------------------------
// The binder proper

class StatementBinder {
 public:
  StatementBinder(Session* session, std::string_view text)
      : session_(session), catalog_(*session->catalog()), text_(text) {}

  Result<BoundStatement> BindStatement(const PgNode& node);

 private:
  struct QueryResult {
    LogicalPlanPtr plan;
    std::vector<std::string> names;
  };

  /// Everything expression binding needs to know about where it is.
  struct ExprContext {
    const Scope* scope = nullptr;
    const CteScope* ctes = nullptr;
    const char* clause = "";  // for errors: "WHERE", "GROUP BY", ...
    bool allow_aggregates = false;
    bool allow_windows = false;
    bool in_aggregate = false;
    bool in_window = false;  // inside a window function's arguments or window definition
    const NodeList* window_clause = nullptr;
  };

  // Positions -------------------------------------------------------------------------------
  int Pos(int location) const {
    if (!positions_valid_ || location < 0)
      return 0;
    return BytePositionToCharPosition(text_, location);
  }

  Status At(Status status, int location) const {
    if (status.ok() || status.position() != 0)
      return status;
    int pos = Pos(location);
    if (pos == 0)
      return status;
    return std::move(status).WithPosition(pos);
  }

  ColumnId NewId() { return session_->column_ids().Next(); }

  // Statements ------------------------------------------------------------------------------
  Result<QueryResult> BindQuery(const PgNode& node, const Scope* outer, const CteScope* ctes);
  Result<QueryResult> BindSelect(const pg_query::SelectStmt& s, const Scope* outer,
                                 const CteScope* ctes);
  Result<QueryResult> BindSetOp(const pg_query::SelectStmt& s, const Scope* outer,
                                const CteScope* ctes);
  Result<QueryResult> BindValues(const pg_query::SelectStmt& s, const Scope* outer,
                                 const CteScope* ctes, const std::vector<DataType>* target_types);
  Result<QueryResult> ApplySortLimit(QueryResult input, const pg_query::SelectStmt& s,
                                     const CteScope* ctes);
  Result<LogicalPlanPtr> ApplyLimit(LogicalPlanPtr plan, const pg_query::SelectStmt& s);
  Result<BoundStatement> BindCreateTable(const pg_query::CreateStmt& s);
  Result<BoundStatement> BindCreateTableAs(const pg_query::CreateTableAsStmt& s);
  Result<BoundStatement> BindInsert(const pg_query::InsertStmt& s);
  Result<BoundStatement> BindCreateView(const pg_query::ViewStmt& s);
  Result<BoundStatement> BindDrop(const pg_query::DropStmt& s);
  Result<BoundStatement> BindSet(const pg_query::VariableSetStmt& s);
  Result<BoundStatement> BindExplain(const pg_query::ExplainStmt& s);
  Result<BoundStatement> BindCopy(const pg_query::CopyStmt& s);

  // FROM --------------------------------------------------------------------------------------
  Result<BoundRelation> BindFromItem(const PgNode& node, const Scope* outer, const CteScope* ctes);
  Result<BoundRelation> BindRangeVar(const pg_query::RangeVar& rv, const CteScope* ctes);
  Result<BoundRelation> BindJoin(const pg_query::JoinExpr& j, const Scope* outer,
                                 const CteScope* ctes);
  BoundRelation Requalify(BoundRelation rel, const std::string& alias, const NodeList* colnames);
  Result<BoundRelation> RelationFromQuery(QueryResult q, const std::string& qualifier);

  // Expressions -------------------------------------------------------------------------------
  Result<ExprPtr> BindExpr(const PgNode& node, ExprContext& ctx);
  Result<ExprPtr> BindColumnRef(const pg_query::ColumnRef& ref, ExprContext& ctx);
  Result<ExprPtr> BindConst(const pg_query::A_Const& c);
  Result<ExprPtr> BindAExpr(const pg_query::A_Expr& e, ExprContext& ctx);
  Result<ExprPtr> BindFuncCall(const pg_query::FuncCall& f, ExprContext& ctx);
  Result<ExprPtr> BindWindow(const pg_query::FuncCall& f, std::vector<ExprPtr> args,
                             ExprContext& ctx);
  Result<ExprPtr> BindTypeCast(const pg_query::TypeCast& c, ExprContext& ctx);
  Result<ExprPtr> BindCase(const pg_query::CaseExpr& c, ExprContext& ctx);
  Result<ExprPtr> BindSubLink(const pg_query::SubLink& s, bool negated, ExprContext& ctx);
  Result<ExprPtr> BindBool(const pg_query::BoolExpr& b, ExprContext& ctx);
  Result<std::vector<SortKey>> BindSortList(const NodeList& list, ExprContext& ctx);

  /// Resolves a call of a scalar function / operator and inserts the casts.
  Result<ExprPtr> MakeResolvedCall(const std::string& name, std::vector<ExprPtr> args,
                                   int location);
  /// Casts `e` to `type`; unknown-typed and NULL literals are converted at bind time.
  Result<ExprPtr> Coerce(const ExprPtr& e, const DataType& type, int location = -1);
  Result<ExprPtr> CoerceToBoolean(ExprPtr e, const char* clause, int location);
  Result<DataType> ResolveTypeName(const pg_query::TypeName& t);
  bool IsUnknownLiteral(const ExprPtr& e) const {
    return e && e->kind == ExprKind::kLiteral && unknown_literals_.count(e.get()) > 0;
  }
  /// Common type of several expressions for CASE / COALESCE / VALUES / set operations, with the
  /// unknown-literal rule: all-unknown gives text.
  Result<DataType> CommonType(const std::vector<ExprPtr>& exprs, const char* context, int location);
  Result<LogicalPlanPtr> CastPlanColumns(LogicalPlanPtr plan, const std::vector<DataType>& types);

  // Aggregation -------------------------------------------------------------------------------
  Result<ExprPtr> ReplaceWithAggregateOutputs(const ExprPtr& e, const std::vector<ExprPtr>& keys,
                                              const std::vector<ColumnInfo>& key_cols,
                                              const std::vector<ExprPtr>& aggs,
                                              const std::vector<ColumnInfo>& agg_cols);

  Session* session_;
  Catalog& catalog_;
  std::string_view text_;
  bool positions_valid_ = true;
  // Holds the literals too: a freed node's address must never be mistaken for an unknown literal.
  std::unordered_map<const Expr*, ExprPtr> unknown_literals_;
  std::vector<std::shared_ptr<const ParsedScript>> keep_alive_;
  int view_depth_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Types and casts

Result<DataType> StatementBinder::ResolveTypeName(const pg_query::TypeName& t) {
  std::string name = LastName(t.names());
  std::vector<int> mods;
  for (const auto& m : t.typmods()) {
    if (m.has_a_const() && m.a_const().has_ival())
      mods.push_back(m.a_const().ival().ival());
  }
  if (!t.array_bounds().empty())
    return At(Status::NotImplemented("array types are not supported"), t.location());
  if (name == "int2" || name == "smallint")
    return DataType::Int16();
  if (name == "int4" || name == "int" || name == "integer")
    return DataType::Int32();
  if (name == "int8" || name == "bigint")
    return DataType::Int64();
  if (name == "float4" || name == "real")
    return DataType::Float32();
  if (name == "float8" || name == "double" || name == "float")
    return DataType::Float64();
  if (name == "numeric" || name == "decimal") {
    // PostgreSQL's unconstrained numeric has no fixed scale; we follow DuckDB's default.
    int precision = mods.size() >= 1 ? mods[0] : 18;
    int scale = mods.size() >= 2 ? mods[1] : (mods.empty() ? 3 : 0);
    auto type = DataType::MakeDecimal(precision, scale);
    if (!type.ok())
      return At(Status::InvalidArgument("invalid numeric type modifiers ({}, {})", precision, scale)
                    .WithSqlState("22023"),
                t.location());
    return *type;
  }
  if (name == "bool" || name == "boolean")
    return DataType::Boolean();
  if (name == "text" || name == "varchar" || name == "bpchar" || name == "char" ||
      name == "character" || name == "string" || name == "name")
    return DataType::Utf8();
  if (name == "bytea")
    return DataType::Binary();
  if (name == "date")
    return DataType::Date32();
  if (name == "timestamp")
    return DataType::Timestamp(columnar::TimeUnit::kMicro);
  if (name == "timestamptz")
    return DataType::Timestamp(columnar::TimeUnit::kMicro, "UTC");
  if (name == "interval")
    return DataType::Interval();
  return At(Status::NotFound("type \"{}\" does not exist", name).WithSqlState("42704"),
            t.location());
}

Result<ExprPtr> StatementBinder::Coerce(const ExprPtr& e, const DataType& type, int location) {
  if (e->type == type)
    return e;
  if (e->kind == ExprKind::kLiteral) {
    if (e->value.is_null())
      return MakeLiteral(Scalar(type));
    if (IsUnknownLiteral(e)) {
      auto v = CastTextToType(e->value.string_value(), type);
      if (!v.ok())
        return At(v.status(), location);
      return MakeLiteral(*v);
    }
    auto v = CastScalar(e->value, type);
    if (v.ok())
      return MakeLiteral(*v);
  }
  return MakeCast(e, type);
}

Result<ExprPtr> StatementBinder::CoerceToBoolean(ExprPtr e, const char* clause, int location) {
  if (e->type.id() == TypeId::kBoolean)
    return e;
  if (e->type.id() == TypeId::kNull || IsUnknownLiteral(e))
    return Coerce(e, DataType::Boolean(), location);
  return At(Status::TypeError("argument of {} must be type boolean, not type {}", clause,
                              SqlTypeName(e->type))
                .WithSqlState("42804"),
            location);
}

Result<DataType> StatementBinder::CommonType(const std::vector<ExprPtr>& exprs, const char* context,
                                             int location) {
  std::optional<DataType> common;
  bool any_unknown = false;
  for (const auto& e : exprs) {
    if (IsUnknownLiteral(e)) {
      any_unknown = true;
      continue;
    }
    if (!common) {
      common = e->type;
      continue;
    }
    auto next = CommonSuperType(*common, e->type);
    if (!next) {
      return At(Status::TypeError("{} types {} and {} cannot be matched", context,
                                  SqlTypeName(*common), SqlTypeName(e->type))
                    .WithSqlState("42804"),
                location);
    }
    common = *next;
  }
  if (!common || common->id() == TypeId::kNull)
    return any_unknown ? DataType::Utf8() : (common ? *common : DataType::Null());
  return *common;
}

Result<ExprPtr> StatementBinder::MakeResolvedCall(const std::string& name,
                                                  std::vector<ExprPtr> args, int location) {
  // Unknown-typed literals take the type of the first typed argument.
  std::optional<DataType> hint;
  for (const auto& a : args) {
    if (!IsUnknownLiteral(a) && a->type.id() != TypeId::kNull) {
      hint = a->type;
      break;
    }
  }
  std::vector<DataType> types;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    bool position_is_text = (name == "extract" || name == "date_trunc") && i == 0;
    if (IsUnknownLiteral(a) && hint && !position_is_text && name != "like" && name != "ilike" &&
        name != "concat")
      types.push_back(*hint);
    else if (IsUnknownLiteral(a))
      types.push_back(DataType::Utf8());
    else
      types.push_back(a->type);
  }
  auto resolution = FunctionRegistry::Global().Resolve(name, FunctionKind::kScalar, types);
  if (!resolution.ok())
    return At(resolution.status(), location);
  bool nullable = false;
  for (size_t i = 0; i < args.size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(args[i], Coerce(args[i], resolution->arg_types[i], location));
    nullable = nullable || args[i]->nullable;
  }
  return MakeCall(name, std::move(args), resolution->result_type,
                  resolution->nullable_result && nullable);
}

Result<LogicalPlanPtr> StatementBinder::CastPlanColumns(LogicalPlanPtr plan,
                                                        const std::vector<DataType>& types) {
  bool same = true;
  for (size_t i = 0; i < types.size(); ++i)
    same = same && plan->output[i].type == types[i];
  if (same)
    return plan;
  auto project = NewNode(LogicalKind::kProject);
  for (size_t i = 0; i < types.size(); ++i) {
    const auto& c = plan->output[i];
    ExprPtr ref = MakeColumnRef(c.id, c.name, c.type, c.nullable);
    SHOAL_ASSIGN_OR_RETURN(ExprPtr cast, Coerce(ref, types[i]));
    project->exprs.push_back(cast);
    project->output.push_back({NewId(), c.name, c.qualifier, types[i], cast->nullable});
  }
  project->children.push_back(std::move(plan));
  return LogicalPlanPtr(project);
}

// ---------------------------------------------------------------------------------------------
// Expressions

Result<ExprPtr> StatementBinder::BindConst(const pg_query::A_Const& c) {
  if (c.isnull())
    return MakeLiteral(Scalar());
  switch (c.val_case()) {
    case pg_query::A_Const::kIval: return MakeLiteral(Scalar::Int32(c.ival().ival()));
    case pg_query::A_Const::kFval: {
      auto v = ParseNumericLiteral(c.fval().fval());
      if (!v.ok())
        return At(v.status(), c.location());
      return MakeLiteral(*v);
    }
    case pg_query::A_Const::kBoolval: return MakeLiteral(Scalar::Boolean(c.boolval().boolval()));
    case pg_query::A_Const::kSval: {
      ExprPtr e = MakeLiteral(Scalar::Utf8(c.sval().sval()));
      unknown_literals_.emplace(e.get(), e);
      return e;
    }
    default: break;
  }
  return At(Status::NotImplemented("bit-string constants are not supported"), c.location());
}

Result<ExprPtr> StatementBinder::BindColumnRef(const pg_query::ColumnRef& ref, ExprContext& ctx) {
  std::vector<std::string> parts;
  for (const auto& f : ref.fields()) {
    if (f.has_a_star())
      return At(Status::InvalidArgument("\"*\" is not allowed here").WithSqlState("42601"),
                ref.location());
    parts.push_back(Str(f));
  }
  if (parts.empty() || parts.size() > 3)
    return At(Status::NotImplemented("column reference with {} parts", parts.size()),
              ref.location());
  std::string name = parts.back();
  std::string qualifier = parts.size() >= 2 ? parts[parts.size() - 2] : "";
  bool qualifier_seen = false;
  int depth = 0;
  for (const Scope* s = ctx.scope; s != nullptr; s = s->outer, ++depth) {
    const ScopeColumn* match = nullptr;
    int matches = 0;
    for (const auto& c : s->columns) {
      if (!qualifier.empty() && c.qualifier == qualifier)
        qualifier_seen = true;
      if (c.name != name)
        continue;
      if (qualifier.empty() ? c.hidden : c.qualifier != qualifier)
        continue;
      if (match != nullptr && match->id == c.id)
        continue;
      match = &c;
      ++matches;
    }
    if (matches > 1) {
      return At(Status::InvalidArgument("column reference \"{}\" is ambiguous",
                                        qualifier.empty() ? name : qualifier + "." + name)
                    .WithSqlState("42702"),
                ref.location());
    }
    if (match != nullptr)
      return MakeColumnRef(match->id, match->name, match->type, match->nullable, depth);
    if (qualifier_seen)
      break;
  }
  if (!qualifier.empty() && !qualifier_seen) {
    return At(Status::NotFound("missing FROM-clause entry for table \"{}\"", qualifier)
                  .WithSqlState("42P01"),
              ref.location());
  }
  std::vector<std::string> candidates;
  for (const Scope* s = ctx.scope; s != nullptr; s = s->outer) {
    for (const auto& c : s->columns) {
      if (qualifier.empty() || c.qualifier == qualifier)
        candidates.push_back(c.name);
    }
  }
  std::string shown = qualifier.empty() ? name : qualifier + "." + name;
  Status status = At(Status::NotFound("column \"{}\" does not exist", shown).WithSqlState("42703"),
                     ref.location());
  std::string close = ClosestMatch(name, candidates);
  if (!close.empty()) {
    return std::move(status).WithHint(
        fmt::format("Perhaps you meant to reference the column \"{}\".",
                    qualifier.empty() ? close : qualifier + "." + close));
  }
  return status;
}

Result<ExprPtr> StatementBinder::BindExpr(const PgNode& node, ExprContext& ctx) {
  switch (node.node_case()) {
    case PgNode::kColumnRef: return BindColumnRef(node.column_ref(), ctx);
    case PgNode::kAConst: return BindConst(node.a_const());
    case PgNode::kAExpr: return BindAExpr(node.a_expr(), ctx);
    case PgNode::kBoolExpr: return BindBool(node.bool_expr(), ctx);
    case PgNode::kFuncCall: return BindFuncCall(node.func_call(), ctx);
    case PgNode::kTypeCast: return BindTypeCast(node.type_cast(), ctx);
    case PgNode::kCaseExpr: return BindCase(node.case_expr(), ctx);
    case PgNode::kSubLink: return BindSubLink(node.sub_link(), false, ctx);
    case PgNode::kNullTest: {
      const auto& t = node.null_test();
      SHOAL_ASSIGN_OR_RETURN(ExprPtr arg, BindExpr(t.arg(), ctx));
      if (IsUnknownLiteral(arg))
        unknown_literals_.erase(arg.get());
      return MakeResolvedCall(t.nulltesttype() == pg_query::IS_NULL ? "is_null" : "is_not_null",
                              {arg}, t.location());
    }
    case PgNode::kBooleanTest: {
      const auto& t = node.boolean_test();
      SHOAL_ASSIGN_OR_RETURN(ExprPtr arg, BindExpr(t.arg(), ctx));
      SHOAL_ASSIGN_OR_RETURN(arg, CoerceToBoolean(arg, "IS TRUE", t.location()));
      std::string name;
      bool negate = false;
      switch (t.booltesttype()) {
        case pg_query::IS_TRUE: name = "is_true"; break;
        case pg_query::IS_NOT_TRUE:
          name = "is_true";
          negate = true;
          break;
        case pg_query::IS_FALSE: name = "is_false"; break;
        case pg_query::IS_NOT_FALSE:
          name = "is_false";
          negate = true;
          break;
        case pg_query::IS_UNKNOWN: name = "is_null"; break;
        default: name = "is_not_null"; break;
      }
      SHOAL_ASSIGN_OR_RETURN(ExprPtr call, MakeResolvedCall(name, {arg}, t.location()));
      if (negate)
        return MakeResolvedCall("not", {call}, t.location());
      return call;
    }
    case PgNode::kCoalesceExpr:
    case PgNode::kMinMaxExpr: {
      bool coalesce = node.has_coalesce_expr();
      const auto& list = coalesce ? node.coalesce_expr().args() : node.min_max_expr().args();
      int location = coalesce ? node.coalesce_expr().location() : node.min_max_expr().location();
      std::vector<ExprPtr> args;
      for (const auto& a : list) {
        SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(a, ctx));
        args.push_back(e);
      }
      SHOAL_ASSIGN_OR_RETURN(DataType type,
                             CommonType(args, coalesce ? "COALESCE" : "GREATEST", location));
      bool nullable = coalesce;
      for (auto& a : args) {
        SHOAL_ASSIGN_OR_RETURN(a, Coerce(a, type, location));
        nullable = coalesce ? nullable && a->nullable : nullable || a->nullable;
      }
      std::string name = coalesce                                            ? "coalesce"
                         : node.min_max_expr().op() == pg_query::IS_GREATEST ? "greatest"
                                                                             : "least";
      return MakeCall(name, std::move(args), type, nullable);
    }
    case PgNode::kSqlvalueFunction: {
      const auto& f = node.sqlvalue_function();
      if (f.op() == pg_query::SVFOP_CURRENT_DATE)
        return MakeCall("current_date", {}, DataType::Date32(), false);
      return At(Status::NotImplemented("this SQL value function is not supported"), f.location());
    }
    case PgNode::kParamRef:
      return At(Status::NotImplemented("query parameters ($n) are not supported"),
                node.param_ref().location());
    case PgNode::kAArrayExpr:
      return At(Status::NotImplemented("arrays are not supported"), node.a_array_expr().location());
    case PgNode::kRowExpr:
      return At(Status::NotImplemented("row constructors are not supported"),
                node.row_expr().location());
    case PgNode::kCollateClause:
      return At(Status::NotImplemented("COLLATE is not supported"),
                node.collate_clause().location());
    case PgNode::kGroupingFunc: {
      // Bound as a "grouping" call over the keys; BindSelect turns it into the set's bitmask
      // once the aggregate's grouping sets are known.
      const auto& g = node.grouping_func();
      if (!ctx.allow_aggregates)
        return At(Status::InvalidArgument("grouping operations are not allowed in {}", ctx.clause)
                      .WithSqlState("42803"),
                  g.location());
      if (g.args_size() > 31)
        return At(Status::InvalidArgument("GROUPING must have fewer than 32 arguments")
                      .WithSqlState("54011"),
                  g.location());
      ExprContext inner = ctx;
      inner.allow_aggregates = false;
      inner.allow_windows = false;
      std::vector<ExprPtr> args;
      for (const auto& a : g.args()) {
        SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(a, inner));
        args.push_back(std::move(e));
      }
      return MakeCall("grouping", std::move(args), DataType::Int32(), false);
    }
    default: break;
  }
  return Status::NotImplemented("expression of kind {} is not supported",
                                static_cast<int>(node.node_case()));
}

Result<ExprPtr> StatementBinder::BindBool(const pg_query::BoolExpr& b, ExprContext& ctx) {
  if (b.boolop() == pg_query::NOT_EXPR && b.args_size() == 1) {
    const PgNode& arg = b.args(0);
    // NOT IN (subquery) / NOT EXISTS stay one subquery node for the decorrelation rules.
    if (arg.has_sub_link()) {
      const auto& sl = arg.sub_link();
      if (sl.sub_link_type() == pg_query::EXISTS_SUBLINK ||
          (sl.sub_link_type() == pg_query::ANY_SUBLINK && sl.oper_name().empty()))
        return BindSubLink(sl, true, ctx);
    }
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(arg, ctx));
    SHOAL_ASSIGN_OR_RETURN(e, CoerceToBoolean(e, "NOT", b.location()));
    return MakeResolvedCall("not", {e}, b.location());
  }
  const char* name = b.boolop() == pg_query::AND_EXPR ? "and" : "or";
  std::vector<ExprPtr> args;
  for (const auto& a : b.args()) {
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(a, ctx));
    SHOAL_ASSIGN_OR_RETURN(
        e, CoerceToBoolean(e, b.boolop() == pg_query::AND_EXPR ? "AND" : "OR", b.location()));
    // Flatten nested ANDs / ORs: the rules see one conjunction.
    if (e->kind == ExprKind::kCall && e->name == name)
      args.insert(args.end(), e->args.begin(), e->args.end());
    else
      args.push_back(e);
  }
  return MakeResolvedCall(name, std::move(args), b.location());
}

Result<ExprPtr> StatementBinder::BindAExpr(const pg_query::A_Expr& e, ExprContext& ctx) {
  std::string op = LastName(e.name());
  int loc = e.location();
  auto bind = [&](const PgNode& n) { return BindExpr(n, ctx); };
  switch (e.kind()) {
    case pg_query::AEXPR_OP: {
      if (!e.has_lexpr()) {
        SHOAL_ASSIGN_OR_RETURN(ExprPtr r, bind(e.rexpr()));
        if (op == "+")
          return r;
        if (op == "-") {
          // Fold negative numeric literals right away so that -1 is a literal.
          if (r->kind == ExprKind::kLiteral && !r->value.is_null() && IsNumeric(r->type)) {
            const Scalar& v = r->value;
            if (r->type.is_integer())
              return MakeLiteral(Scalar::FromInt(r->type, -v.int_value()));
            if (r->type.id() == TypeId::kDecimal)
              return MakeLiteral(
                  Scalar::Decimal(-v.decimal_value(), r->type.precision(), r->type.scale()));
            return MakeLiteral(Scalar::FromFloat(r->type, -v.float_value()));
          }
          return MakeResolvedCall("negate", {r}, loc);
        }
        return At(Status::NotImplemented("prefix operator {} is not supported", op), loc);
      }
      SHOAL_ASSIGN_OR_RETURN(ExprPtr l, bind(e.lexpr()));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr r, bind(e.rexpr()));
      if (op == "||") {
        for (auto* x : {&l, &r}) {
          if (IsUnknownLiteral(*x))
            unknown_literals_.erase(x->get());
        }
        return MakeResolvedCall("||", {l, r}, loc);
      }
      if (op == "~~" || op == "!~~" || op == "~~*" || op == "!~~*") {
        SHOAL_ASSIGN_OR_RETURN(
            ExprPtr like,
            MakeResolvedCall(op.find('*') != std::string::npos ? "ilike" : "like", {l, r}, loc));
        return op[0] == '!' ? MakeResolvedCall("not", {like}, loc) : Result<ExprPtr>(like);
      }
      // date +/- interval with a time part is a timestamp operation.
      if ((op == "+" || op == "-") && l->type.id() == TypeId::kDate32 &&
          r->kind == ExprKind::kLiteral && r->type.id() == TypeId::kInterval &&
          !r->value.is_null() && r->value.interval_value().nanoseconds != 0) {
        l = MakeCast(l, DataType::Timestamp(columnar::TimeUnit::kMicro));
      }
      static const std::unordered_set<std::string> kKnown = {"+",  "-", "*",  "/", "%", "=",
                                                             "<>", "<", "<=", ">", ">="};
      if (kKnown.count(op) == 0)
        return At(Status::NotImplemented("operator {} is not supported", op).WithSqlState("42883"),
                  loc);
      return MakeResolvedCall(op, {l, r}, loc);
    }
    case pg_query::AEXPR_DISTINCT:
    case pg_query::AEXPR_NOT_DISTINCT: {
      SHOAL_ASSIGN_OR_RETURN(ExprPtr l, bind(e.lexpr()));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr r, bind(e.rexpr()));
      return MakeResolvedCall(
          e.kind() == pg_query::AEXPR_DISTINCT ? "is_distinct_from" : "is_not_distinct_from",
          {l, r}, loc);
    }
    case pg_query::AEXPR_NULLIF: {
      SHOAL_ASSIGN_OR_RETURN(ExprPtr l, bind(e.lexpr()));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr r, bind(e.rexpr()));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr call, MakeResolvedCall("nullif", {l, r}, loc));
      std::const_pointer_cast<Expr>(call)->nullable = true;
      return call;
    }
    case pg_query::AEXPR_IN: {
      SHOAL_ASSIGN_OR_RETURN(ExprPtr l, bind(e.lexpr()));
      std::vector<ExprPtr> args = {l};
      if (!e.rexpr().has_list())
        return At(Status::NotImplemented("IN over a non-list"), loc);
      for (const auto& item : e.rexpr().list().items()) {
        SHOAL_ASSIGN_OR_RETURN(ExprPtr x, bind(item));
        args.push_back(x);
      }
      SHOAL_ASSIGN_OR_RETURN(DataType type, CommonType(args, "IN", loc));
      bool nullable = false;
      for (auto& a : args) {
        SHOAL_ASSIGN_OR_RETURN(a, Coerce(a, type, loc));
        nullable = nullable || a->nullable;
      }
      ExprPtr in = MakeCall("in", std::move(args), DataType::Boolean(), nullable);
      if (op == "<>")
        return MakeResolvedCall("not", {in}, loc);
      return in;
    }
    case pg_query::AEXPR_LIKE:
    case pg_query::AEXPR_ILIKE: {
      SHOAL_ASSIGN_OR_RETURN(ExprPtr l, bind(e.lexpr()));
      std::vector<ExprPtr> args = {l};
      // LIKE ... ESCAPE arrives as a call of like_escape(pattern, escape).
      if (e.rexpr().has_func_call() &&
          LastName(e.rexpr().func_call().funcname()) == "like_escape") {
        for (const auto& a : e.rexpr().func_call().args()) {
          SHOAL_ASSIGN_OR_RETURN(ExprPtr x, bind(a));
          args.push_back(x);
        }
      } else {
        SHOAL_ASSIGN_OR_RETURN(ExprPtr r, bind(e.rexpr()));
        args.push_back(r);
      }
      SHOAL_ASSIGN_OR_RETURN(
          ExprPtr like,
          MakeResolvedCall(e.kind() == pg_query::AEXPR_LIKE ? "like" : "ilike", args, loc));
      if (op[0] == '!')
        return MakeResolvedCall("not", {like}, loc);
      return like;
    }
    case pg_query::AEXPR_BETWEEN:
    case pg_query::AEXPR_NOT_BETWEEN:
    case pg_query::AEXPR_BETWEEN_SYM:
    case pg_query::AEXPR_NOT_BETWEEN_SYM: {
      if (e.kind() == pg_query::AEXPR_BETWEEN_SYM || e.kind() == pg_query::AEXPR_NOT_BETWEEN_SYM)
        return At(Status::NotImplemented("BETWEEN SYMMETRIC is not supported"), loc);
      SHOAL_ASSIGN_OR_RETURN(ExprPtr x, bind(e.lexpr()));
      const auto& items = e.rexpr().list().items();
      if (items.size() != 2)
        return At(Status::InvalidArgument("malformed BETWEEN"), loc);
      SHOAL_ASSIGN_OR_RETURN(ExprPtr lo, bind(items[0]));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr hi, bind(items[1]));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr ge, MakeResolvedCall(">=", {x, lo}, loc));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr le, MakeResolvedCall("<=", {x, hi}, loc));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr both, MakeResolvedCall("and", {ge, le}, loc));
      if (e.kind() == pg_query::AEXPR_NOT_BETWEEN)
        return MakeResolvedCall("not", {both}, loc);
      return both;
    }
    case pg_query::AEXPR_OP_ANY:
    case pg_query::AEXPR_OP_ALL:
      return At(Status::NotImplemented("ANY / ALL over arrays is not supported"), loc);
    case pg_query::AEXPR_SIMILAR:
      return At(Status::NotImplemented("SIMILAR TO is not supported"), loc);
    default: break;
  }
  return At(Status::NotImplemented("operator expression of kind {}", static_cast<int>(e.kind())),
            loc);
}

Result<ExprPtr> StatementBinder::BindTypeCast(const pg_query::TypeCast& c, ExprContext& ctx) {
  SHOAL_ASSIGN_OR_RETURN(DataType type, ResolveTypeName(c.type_name()));
  // INTERVAL '90' DAY: the typmod names the unit of a bare number.
  if (type.id() == TypeId::kInterval && c.arg().has_a_const() && c.arg().a_const().has_sval()) {
    std::string unit = "second";
    if (!c.type_name().typmods().empty() && c.type_name().typmods(0).has_a_const() &&
        c.type_name().typmods(0).a_const().has_ival()) {
      int mask = c.type_name().typmods(0).a_const().ival().ival();
      if (mask & (1 << 12))
        unit = "second";
      else if (mask & (1 << 11))
        unit = "minute";
      else if (mask & (1 << 10))
        unit = "hour";
      else if (mask & (1 << 3))
        unit = "day";
      else if (mask & (1 << 1))
        unit = "month";
      else if (mask & (1 << 2))
        unit = "year";
    }
    auto v = ParseInterval(c.arg().a_const().sval().sval(), unit);
    if (!v.ok())
      return At(v.status(), c.location());
    return MakeLiteral(Scalar::Interval(*v));
  }
  SHOAL_ASSIGN_OR_RETURN(ExprPtr arg, BindExpr(c.arg(), ctx));
  if (arg->kind == ExprKind::kLiteral) {
    // Constant casts are done now, so that DATE '1998-12-01' is a date literal.
    auto v = IsUnknownLiteral(arg) ? CastTextToType(arg->value.string_value(), type)
                                   : CastScalar(arg->value, type);
    if (v.ok())
      return MakeLiteral(*v);
    if (v.status().code() != StatusCode::kNotImplemented)
      return At(v.status(), c.location());
  }
  if (arg->type == type)
    return arg;
  return MakeCast(arg, type);
}

Result<ExprPtr> StatementBinder::BindCase(const pg_query::CaseExpr& c, ExprContext& ctx) {
  ExprPtr operand;
  if (c.has_arg()) {
    SHOAL_ASSIGN_OR_RETURN(operand, BindExpr(c.arg(), ctx));
  }
  std::vector<ExprPtr> conditions;
  std::vector<ExprPtr> results;
  for (const auto& w : c.args()) {
    const auto& when = w.case_when();
    SHOAL_ASSIGN_OR_RETURN(ExprPtr cond, BindExpr(when.expr(), ctx));
    if (operand) {
      SHOAL_ASSIGN_OR_RETURN(cond, MakeResolvedCall("=", {operand, cond}, when.location()));
    } else {
      SHOAL_ASSIGN_OR_RETURN(cond, CoerceToBoolean(cond, "CASE/WHEN", when.location()));
    }
    conditions.push_back(cond);
    SHOAL_ASSIGN_OR_RETURN(ExprPtr result, BindExpr(when.result(), ctx));
    results.push_back(result);
  }
  ExprPtr else_result;
  if (c.has_defresult()) {
    SHOAL_ASSIGN_OR_RETURN(else_result, BindExpr(c.defresult(), ctx));
    results.push_back(else_result);
  }
  SHOAL_ASSIGN_OR_RETURN(DataType type, CommonType(results, "CASE", c.location()));
  bool nullable = !else_result;
  std::vector<ExprPtr> args;
  for (size_t i = 0; i < conditions.size(); ++i) {
    args.push_back(conditions[i]);
    SHOAL_ASSIGN_OR_RETURN(ExprPtr r, Coerce(results[i], type, c.location()));
    nullable = nullable || r->nullable;
    args.push_back(r);
  }
  if (else_result) {
    SHOAL_ASSIGN_OR_RETURN(ExprPtr r, Coerce(else_result, type, c.location()));
    nullable = nullable || r->nullable;
    args.push_back(r);
  }
  return MakeCase(std::move(args), else_result != nullptr, type, nullable);
}

Result<ExprPtr> StatementBinder::BindSubLink(const pg_query::SubLink& s, bool negated,
                                             ExprContext& ctx) {
  SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(s.subselect(), ctx.scope, ctx.ctes));
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kSubquery;
  e->negated = negated;
  e->type = DataType::Boolean();
  e->nullable = true;
  switch (s.sub_link_type()) {
    case pg_query::EXISTS_SUBLINK:
      e->subquery_kind = SubqueryKind::kExists;
      e->nullable = false;
      e->subquery = q.plan;
      return ExprPtr(e);
    case pg_query::EXPR_SUBLINK:
      if (q.plan->output.size() != 1)
        return At(
            Status::InvalidArgument("subquery must return only one column").WithSqlState("42601"),
            s.location());
      e->subquery_kind = SubqueryKind::kScalar;
      e->type = q.plan->output[0].type;
      e->subquery = q.plan;
      return ExprPtr(e);
    case pg_query::ANY_SUBLINK:
    case pg_query::ALL_SUBLINK: {
      if (q.plan->output.size() != 1)
        return At(Status::InvalidArgument("subquery has too many columns").WithSqlState("42601"),
                  s.location());
      std::string op = s.oper_name().empty() ? "=" : LastName(s.oper_name());
      SHOAL_ASSIGN_OR_RETURN(ExprPtr left, BindExpr(s.testexpr(), ctx));
      const DataType& right_type = q.plan->output[0].type;
      DataType type = right_type;
      if (!IsUnknownLiteral(left)) {
        auto common = CommonSuperType(left->type, right_type);
        if (!common)
          return At(Status::TypeError("operator does not exist: {} {} {}", SqlTypeName(left->type),
                                      op, SqlTypeName(right_type))
                        .WithSqlState("42883"),
                    s.location());
        type = *common;
      }
      SHOAL_ASSIGN_OR_RETURN(left, Coerce(left, type, s.location()));
      SHOAL_ASSIGN_OR_RETURN(e->subquery, CastPlanColumns(q.plan, {type}));
      e->args.push_back(left);
      if (s.sub_link_type() == pg_query::ANY_SUBLINK && s.oper_name().empty()) {
        e->subquery_kind = SubqueryKind::kIn;
      } else {
        e->subquery_kind =
            s.sub_link_type() == pg_query::ANY_SUBLINK ? SubqueryKind::kAny : SubqueryKind::kAll;
        e->comparison = op;
      }
      return ExprPtr(e);
    }
    default: break;
  }
  return At(Status::NotImplemented("this kind of subquery is not supported"), s.location());
}

Result<std::vector<SortKey>> StatementBinder::BindSortList(const NodeList& list, ExprContext& ctx) {
  std::vector<SortKey> keys;
  for (const auto& item : list) {
    const auto& sb = item.sort_by();
    SortKey key;
    SHOAL_ASSIGN_OR_RETURN(key.expr, BindExpr(sb.node(), ctx));
    key.ascending = sb.sortby_dir() != pg_query::SORTBY_DESC;
    if (sb.sortby_dir() == pg_query::SORTBY_USING)
      return At(Status::NotImplemented("ORDER BY USING is not supported"), sb.location());
    key.nulls_first = sb.sortby_nulls() == pg_query::SORTBY_NULLS_DEFAULT
                          ? !key.ascending
                          : sb.sortby_nulls() == pg_query::SORTBY_NULLS_FIRST;
    keys.push_back(std::move(key));
  }
  return keys;
}

Result<ExprPtr> StatementBinder::BindFuncCall(const pg_query::FuncCall& f, ExprContext& ctx) {
  std::string name = CanonicalFunctionName(LastName(f.funcname()));
  int loc = f.location();
  if (f.agg_within_group())
    return At(Status::NotImplemented("WITHIN GROUP is not supported"), loc);
  if (f.func_variadic())
    return At(Status::NotImplemented("VARIADIC is not supported"), loc);
  bool is_aggregate = IsAggregateName(name);
  bool is_window = f.has_over();
  if (is_window && ctx.in_window)
    return At(
        Status::InvalidArgument("window function calls cannot be nested").WithSqlState("42P20"),
        loc);
  if (is_window && ctx.in_aggregate)
    return At(Status::InvalidArgument("aggregate function calls cannot contain window function "
                                      "calls")
                  .WithSqlState("42803"),
              loc);
  if ((is_aggregate || is_window) && ctx.in_aggregate) {
    return At(
        Status::InvalidArgument("aggregate function calls cannot be nested").WithSqlState("42803"),
        loc);
  }
  if (is_window && !ctx.allow_windows) {
    return At(Status::InvalidArgument("window functions are not allowed in {}", ctx.clause)
                  .WithSqlState("42P20"),
              loc);
  }
  if (is_aggregate && !is_window && !ctx.allow_aggregates) {
    return At(Status::InvalidArgument("aggregate functions are not allowed in {}", ctx.clause)
                  .WithSqlState("42803"),
              loc);
  }
  ExprContext inner = ctx;
  if (is_window) {
    // A window function's arguments may hold aggregates (sum(sum(x)) OVER ...): they are
    // computed by the aggregate below the window.
    inner.in_window = true;
    inner.allow_windows = false;
  } else if (is_aggregate) {
    inner.in_aggregate = true;
    inner.allow_aggregates = false;
    inner.allow_windows = false;
  }
  std::vector<ExprPtr> args;
  for (const auto& a : f.args()) {
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(a, inner));
    args.push_back(e);
  }
  if (is_window)
    return BindWindow(f, std::move(args), ctx);
  if (is_aggregate) {
    if (f.agg_star() && name != "count")
      return At(Status::InvalidArgument("{}(*) is not allowed", name).WithSqlState("42809"), loc);
    std::vector<DataType> types;
    for (const auto& a : args)
      types.push_back(IsUnknownLiteral(a) ? DataType::Utf8() : a->type);
    auto res = FunctionRegistry::Global().Resolve(name, FunctionKind::kAggregate, types);
    if (!res.ok())
      return At(res.status(), loc);
    for (size_t i = 0; i < args.size(); ++i) {
      SHOAL_ASSIGN_OR_RETURN(args[i], Coerce(args[i], res->arg_types[i], loc));
    }
    ExprPtr filter;
    if (f.has_agg_filter()) {
      SHOAL_ASSIGN_OR_RETURN(filter, BindExpr(f.agg_filter(), inner));
      SHOAL_ASSIGN_OR_RETURN(filter, CoerceToBoolean(filter, "FILTER", loc));
    }
    // sum / min / max / avg of no rows is NULL; count never is.
    auto agg = std::const_pointer_cast<Expr>(MakeAggregate(
        name, std::move(args), res->result_type, res->nullable_result, f.agg_distinct(), filter));
    if (!f.agg_order().empty()) {
      SHOAL_ASSIGN_OR_RETURN(agg->order_by, BindSortList(f.agg_order(), inner));
    }
    return ExprPtr(agg);
  }
  if (f.agg_star() || f.agg_distinct() || f.has_agg_filter() || !f.agg_order().empty()) {
    return At(
        Status::InvalidArgument("{} is not an aggregate function", name).WithSqlState("42809"),
        loc);
  }
  if (name == "extract" && !args.empty() && IsUnknownLiteral(args[0])) {
    // Field names are case-insensitive; normalise them for the kernels.
    std::string field = args[0]->value.string_value();
    for (char& ch : field)
      ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    args[0] = MakeLiteral(Scalar::Utf8(field));
  }
  if (name == "concat") {
    for (auto& a : args) {
      if (IsUnknownLiteral(a))
        unknown_literals_.erase(a.get());
    }
  }
  if (name == "coalesce" || name == "greatest" || name == "least") {
    SHOAL_ASSIGN_OR_RETURN(DataType type, CommonType(args, "COALESCE", loc));
    for (auto& a : args) {
      SHOAL_ASSIGN_OR_RETURN(a, Coerce(a, type, loc));
    }
  }
  if (FunctionRegistry::Global().Find(name, FunctionKind::kScalar) == nullptr &&
      FunctionRegistry::Global().Find(name, FunctionKind::kWindow) != nullptr) {
    return At(Status::InvalidArgument("window function {} requires an OVER clause", name)
                  .WithSqlState("42809"),
              loc);
  }
  if (LastName(f.funcname()) == "date_part") {
    // PostgreSQL's date_part returns double precision where EXTRACT returns a number that
    // prints as an integer (numeric); both share the extract kernels.
    SHOAL_ASSIGN_OR_RETURN(ExprPtr call, MakeResolvedCall(name, std::move(args), loc));
    return MakeCast(std::move(call), DataType::Float64());
  }
  return MakeResolvedCall(name, std::move(args), loc);
}

Result<ExprPtr> StatementBinder::BindWindow(const pg_query::FuncCall& f, std::vector<ExprPtr> args,
                                            ExprContext& ctx) {
  std::string name = CanonicalFunctionName(LastName(f.funcname()));
  int loc = f.location();
  FunctionKind kind = IsAggregateName(name) ? FunctionKind::kAggregate : FunctionKind::kWindow;
  std::vector<DataType> types;
  for (const auto& a : args)
    types.push_back(IsUnknownLiteral(a) ? DataType::Utf8() : a->type);
  auto res = FunctionRegistry::Global().Resolve(name, kind, types);
  if (!res.ok())
    return At(res.status(), loc);
  for (size_t i = 0; i < args.size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(args[i], Coerce(args[i], res->arg_types[i], loc));
  }
  // A named window (OVER w) comes from the WINDOW clause.
  const pg_query::WindowDef* def = &f.over();
  if (!def->name().empty() && def->partition_clause().empty() && def->order_clause().empty() &&
      def->refname().empty()) {
    const pg_query::WindowDef* named = nullptr;
    if (ctx.window_clause != nullptr) {
      for (const auto& w : *ctx.window_clause) {
        if (w.window_def().name() == def->name())
          named = &w.window_def();
      }
    }
    if (named == nullptr)
      return At(Status::NotFound("window \"{}\" does not exist", def->name()).WithSqlState("42704"),
                loc);
    def = named;
  }
  // PARTITION BY / ORDER BY may hold aggregates of the query level, like the arguments.
  ExprContext inner = ctx;
  inner.in_window = true;
  inner.allow_windows = false;
  auto w = std::make_shared<Expr>();
  w->kind = ExprKind::kWindow;
  w->name = name;
  w->args = std::move(args);
  w->type = res->result_type;
  w->nullable = res->nullable_result;
  w->distinct = f.agg_distinct();
  if (f.has_agg_filter()) {
    SHOAL_ASSIGN_OR_RETURN(w->filter, BindExpr(f.agg_filter(), inner));
  }
  for (const auto& p : def->partition_clause()) {
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(p, inner));
    w->partition_by.push_back(e);
  }
  SHOAL_ASSIGN_OR_RETURN(w->order_by, BindSortList(def->order_clause(), inner));
  int o = def->frame_options();
  if (o & 0x1) {  // FRAMEOPTION_NONDEFAULT
    w->frame.units = (o & 0x4)   ? WindowFrame::Units::kRows
                     : (o & 0x8) ? WindowFrame::Units::kGroups
                                 : WindowFrame::Units::kRange;
    using BK = WindowFrame::BoundKind;
    w->frame.start = (o & 0x20)     ? BK::kUnboundedPreceding
                     : (o & 0x200)  ? BK::kCurrentRow
                     : (o & 0x800)  ? BK::kPreceding
                     : (o & 0x2000) ? BK::kFollowing
                                    : BK::kUnboundedPreceding;
    w->frame.end = (o & 0x100)    ? BK::kUnboundedFollowing
                   : (o & 0x400)  ? BK::kCurrentRow
                   : (o & 0x1000) ? BK::kPreceding
                   : (o & 0x4000) ? BK::kFollowing
                                  : BK::kCurrentRow;
    if (def->has_start_offset()) {
      SHOAL_ASSIGN_OR_RETURN(w->frame.start_offset, BindExpr(def->start_offset(), inner));
    }
    if (def->has_end_offset()) {
      SHOAL_ASSIGN_OR_RETURN(w->frame.end_offset, BindExpr(def->end_offset(), inner));
    }
    if (o & (0x8000 | 0x10000 | 0x20000))
      return At(Status::NotImplemented("frame EXCLUDE is not supported"), loc);
  }
  return ExprPtr(w);
}

// ---------------------------------------------------------------------------------------------
// FROM

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
                                                    const CteScope* ctes) {
  std::string alias = rv.has_alias() ? rv.alias().aliasname() : rv.relname();
  const NodeList* colnames = rv.has_alias() ? &rv.alias().colnames() : nullptr;
  if (rv.schemaname().empty()) {
    for (const CteScope* s = ctes; s != nullptr; s = s->outer) {
      auto it = s->ctes.find(rv.relname());
      if (it == s->ctes.end())
        continue;
      const auto* cte = it->second.cte;
      // Bound at each reference, so every use has its own column ids.
      SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(cte->ctequery(), nullptr, s));
      for (int i = 0; i < cte->aliascolnames_size() && i < static_cast<int>(q.names.size()); ++i)
        q.names[static_cast<size_t>(i)] = Str(cte->aliascolnames(i));
      SHOAL_ASSIGN_OR_RETURN(BoundRelation rel, RelationFromQuery(std::move(q), alias));
      return Requalify(std::move(rel), alias, colnames);
    }
  }
  auto object = catalog_.Lookup(rv.schemaname(), rv.relname());
  if (!object.ok())
    return At(object.status(), rv.location());
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
  SHOAL_ASSIGN_OR_RETURN(BoundRelation right, BindFromItem(j.rarg(), outer, ctes));
  auto join = NewNode(LogicalKind::kJoin);
  switch (j.jointype()) {
    case pg_query::JOIN_INNER: join->join_type = JoinType::kInner; break;
    case pg_query::JOIN_LEFT: join->join_type = JoinType::kLeft; break;
    case pg_query::JOIN_RIGHT: join->join_type = JoinType::kRight; break;
    case pg_query::JOIN_FULL: join->join_type = JoinType::kFull; break;
    default: return Status::NotImplemented("join type {}", static_cast<int>(j.jointype()));
  }
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
  if (!using_names.empty() && join->join_type == JoinType::kFull)
    return Status::NotImplemented("FULL JOIN with USING / NATURAL is not supported");
  std::vector<ExprPtr> conjuncts;
  for (const auto& name : using_names) {
    const ScopeColumn* l = nullptr;
    const ScopeColumn* r = nullptr;
    for (const auto& c : left.columns)
      if (!c.hidden && c.name == name)
        l = &c;
    for (const auto& c : right.columns)
      if (!c.hidden && c.name == name)
        r = &c;
    if (l == nullptr || r == nullptr)
      return Status::NotFound("column \"{}\" specified in USING clause does not exist in {} table",
                              name, l == nullptr ? "left" : "right")
          .WithSqlState("42703");
    SHOAL_ASSIGN_OR_RETURN(ExprPtr eq,
                           MakeResolvedCall("=",
                                            {MakeColumnRef(l->id, l->name, l->type, l->nullable),
                                             MakeColumnRef(r->id, r->name, r->type, r->nullable)},
                                            -1));
    conjuncts.push_back(eq);
    ColumnId hide = join->join_type == JoinType::kRight ? l->id : r->id;
    for (auto& c : rel.columns) {
      if (c.id == hide)
        c.hidden = true;
    }
  }
  if (j.has_quals()) {
    Scope scope{rel.columns, outer};
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
  join->children = {left.plan, right.plan};
  for (const auto& c : rel.columns)
    join->output.push_back({c.id, c.name, c.qualifier, c.type, c.nullable});
  rel.plan = join;
  if (j.has_alias())
    return Requalify(std::move(rel), j.alias().aliasname(), &j.alias().colnames());
  return rel;
}

Result<BoundRelation> StatementBinder::BindFromItem(const PgNode& node, const Scope* outer,
                                                    const CteScope* ctes) {
  switch (node.node_case()) {
    case PgNode::kRangeVar: return BindRangeVar(node.range_var(), ctes);
    case PgNode::kJoinExpr: return BindJoin(node.join_expr(), outer, ctes);
    case PgNode::kRangeSubselect: {
      const auto& rs = node.range_subselect();
      if (rs.lateral())
        return Status::NotImplemented("LATERAL subqueries are not supported");
      SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(rs.subquery(), nullptr, ctes));
      std::string alias = rs.has_alias() ? rs.alias().aliasname() : "";
      SHOAL_ASSIGN_OR_RETURN(BoundRelation rel, RelationFromQuery(std::move(q), alias));
      return Requalify(std::move(rel), alias, rs.has_alias() ? &rs.alias().colnames() : nullptr);
    }
    case PgNode::kRangeFunction:
      return Status::NotImplemented("functions in FROM are not supported");
    default: break;
  }
  return Status::NotImplemented("FROM item of kind {}", static_cast<int>(node.node_case()));
}

// ---------------------------------------------------------------------------------------------
// Queries

Result<StatementBinder::QueryResult> StatementBinder::BindQuery(const PgNode& node,
                                                                const Scope* outer,
                                                                const CteScope* ctes) {
  if (!node.has_select_stmt())
    return Status::NotImplemented("only SELECT / VALUES queries are supported here");
  return BindSelect(node.select_stmt(), outer, ctes);
}

Result<LogicalPlanPtr> StatementBinder::ApplyLimit(LogicalPlanPtr plan,
                                                   const pg_query::SelectStmt& s) {
  if (!s.has_limit_count() && !s.has_limit_offset())
    return plan;
  if (s.limit_option() == pg_query::LIMIT_OPTION_WITH_TIES)
    return Status::NotImplemented("FETCH ... WITH TIES is not supported");
  auto constant = [&](const PgNode& n, const char* what) -> Result<int64_t> {
    Scope empty;
    ExprContext ctx;
    ctx.scope = &empty;
    ctx.clause = what;
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(n, ctx));
    if (e->kind == ExprKind::kLiteral && e->value.is_null())
      return -1;
    if (e->kind != ExprKind::kLiteral || !e->type.is_integer())
      return Status::InvalidArgument("argument of {} must be an integer constant", what)
          .WithSqlState("42804");
    if (e->value.int_value() < 0)
      return Status::InvalidArgument("{} must not be negative", what).WithSqlState("2201W");
    return e->value.int_value();
  };
  auto limit = NewNode(LogicalKind::kLimit);
  if (s.has_limit_count()) {
    SHOAL_ASSIGN_OR_RETURN(limit->fetch, constant(s.limit_count(), "LIMIT"));
  }
  if (s.has_limit_offset()) {
    SHOAL_ASSIGN_OR_RETURN(int64_t offset, constant(s.limit_offset(), "OFFSET"));
    limit->offset = std::max<int64_t>(offset, 0);
  }
  limit->output = plan->output;
  limit->children.push_back(std::move(plan));
  return LogicalPlanPtr(limit);
}

Result<StatementBinder::QueryResult> StatementBinder::ApplySortLimit(QueryResult input,
                                                                     const pg_query::SelectStmt& s,
                                                                     const CteScope* ctes) {
  // ORDER BY over a set operation or VALUES: names and ordinals of the output only.
  if (!s.sort_clause().empty()) {
    Scope scope;
    for (size_t i = 0; i < input.plan->output.size(); ++i) {
      const auto& c = input.plan->output[i];
      scope.columns.push_back({"", input.names[i], c.id, c.type, c.nullable, false});
    }
    auto sort = NewNode(LogicalKind::kSort);
    for (const auto& item : s.sort_clause()) {
      const auto& sb = item.sort_by();
      SortKey key;
      if (sb.node().has_a_const() && sb.node().a_const().has_ival()) {
        int ordinal = sb.node().a_const().ival().ival();
        if (ordinal < 1 || ordinal > static_cast<int>(input.plan->output.size()))
          return At(Status::InvalidArgument("ORDER BY position {} is not in select list", ordinal)
                        .WithSqlState("42P10"),
                    sb.location());
        const auto& c = input.plan->output[static_cast<size_t>(ordinal - 1)];
        key.expr = MakeColumnRef(c.id, c.name, c.type, c.nullable);
      } else {
        ExprContext ctx;
        ctx.scope = &scope;
        ctx.ctes = ctes;
        ctx.clause = "ORDER BY";
        SHOAL_ASSIGN_OR_RETURN(key.expr, BindExpr(sb.node(), ctx));
      }
      key.ascending = sb.sortby_dir() != pg_query::SORTBY_DESC;
      key.nulls_first = sb.sortby_nulls() == pg_query::SORTBY_NULLS_DEFAULT
                            ? !key.ascending
                            : sb.sortby_nulls() == pg_query::SORTBY_NULLS_FIRST;
      sort->sort_keys.push_back(std::move(key));
    }
    sort->output = input.plan->output;
    sort->children.push_back(input.plan);
    input.plan = sort;
  }
  SHOAL_ASSIGN_OR_RETURN(input.plan, ApplyLimit(input.plan, s));
  return input;
}

Result<StatementBinder::QueryResult> StatementBinder::BindValues(
    const pg_query::SelectStmt& s, const Scope* outer, const CteScope* ctes,
    const std::vector<DataType>* target_types) {
  Scope empty;
  empty.outer = outer;
  ExprContext ctx;
  ctx.scope = &empty;
  ctx.ctes = ctes;
  ctx.clause = "VALUES";
  std::vector<std::vector<ExprPtr>> rows;
  size_t width = 0;
  for (const auto& list : s.values_lists()) {
    std::vector<ExprPtr> row;
    for (const auto& item : list.list().items()) {
      SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(item, ctx));
      row.push_back(e);
    }
    if (!rows.empty() && row.size() != width)
      return Status::InvalidArgument("VALUES lists must all be the same length")
          .WithSqlState("42601");
    width = row.size();
    rows.push_back(std::move(row));
  }
  auto values = NewNode(LogicalKind::kValues);
  QueryResult q;
  for (size_t c = 0; c < width; ++c) {
    DataType type;
    if (target_types != nullptr && c < target_types->size()) {
      type = (*target_types)[c];
    } else {
      std::vector<ExprPtr> column;
      for (const auto& row : rows)
        column.push_back(row[c]);
      SHOAL_ASSIGN_OR_RETURN(type, CommonType(column, "VALUES", -1));
    }
    bool nullable = false;
    for (auto& row : rows) {
      auto coerced = Coerce(row[c], type);
      if (!coerced.ok())
        return coerced.status();
      row[c] = *coerced;
      nullable = nullable || row[c]->nullable;
    }
    std::string name = fmt::format("column{}", c + 1);
    values->output.push_back({NewId(), name, "", type, nullable});
    q.names.push_back(name);
  }
  values->rows = std::move(rows);
  q.plan = values;
  return ApplySortLimit(std::move(q), s, ctes);
}

Result<StatementBinder::QueryResult> StatementBinder::BindSetOp(const pg_query::SelectStmt& s,
                                                                const Scope* outer,
                                                                const CteScope* ctes) {
  SHOAL_ASSIGN_OR_RETURN(QueryResult left, BindSelect(s.larg(), outer, ctes));
  SHOAL_ASSIGN_OR_RETURN(QueryResult right, BindSelect(s.rarg(), outer, ctes));
  const char* op_name = s.op() == pg_query::SETOP_UNION       ? "UNION"
                        : s.op() == pg_query::SETOP_INTERSECT ? "INTERSECT"
                                                              : "EXCEPT";
  if (left.plan->output.size() != right.plan->output.size()) {
    return Status::InvalidArgument("each {} query must have the same number of columns", op_name)
        .WithSqlState("42601");
  }
  std::vector<DataType> types;
  for (size_t i = 0; i < left.plan->output.size(); ++i) {
    const auto& l = left.plan->output[i].type;
    const auto& r = right.plan->output[i].type;
    auto common = CommonSuperType(l, r);
    if (!common) {
      return Status::TypeError("{} types {} and {} cannot be matched", op_name, SqlTypeName(l),
                               SqlTypeName(r))
          .WithSqlState("42804");
    }
    types.push_back(*common);
  }
  SHOAL_ASSIGN_OR_RETURN(LogicalPlanPtr lp, CastPlanColumns(left.plan, types));
  SHOAL_ASSIGN_OR_RETURN(LogicalPlanPtr rp, CastPlanColumns(right.plan, types));
  std::shared_ptr<LogicalPlan> node;
  if (s.op() == pg_query::SETOP_UNION) {
    node = NewNode(LogicalKind::kUnion);
  } else {
    node = NewNode(LogicalKind::kSetOp);
    node->set_op = s.op() == pg_query::SETOP_INTERSECT ? SetOpKind::kIntersect : SetOpKind::kExcept;
    node->all = s.all();
  }
  node->children = {lp, rp};
  for (size_t i = 0; i < types.size(); ++i) {
    node->output.push_back(
        {NewId(), left.names[i], "", types[i], lp->output[i].nullable || rp->output[i].nullable});
  }
  LogicalPlanPtr plan = node;
  if (s.op() == pg_query::SETOP_UNION && !s.all()) {
    auto distinct = NewNode(LogicalKind::kDistinct);
    distinct->output = node->output;
    distinct->children.push_back(plan);
    plan = distinct;
  }
  return ApplySortLimit(QueryResult{plan, left.names}, s, ctes);
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

Result<StatementBinder::QueryResult> StatementBinder::BindSelect(const pg_query::SelectStmt& s,
                                                                 const Scope* outer,
                                                                 const CteScope* outer_ctes) {
  // WITH: visible to this query and everything below it.
  CteScope cte_scope;
  const CteScope* ctes = outer_ctes;
  if (s.has_with_clause()) {
    if (s.with_clause().recursive())
      return At(Status::NotImplemented("WITH RECURSIVE is not supported"),
                s.with_clause().location());
    cte_scope.outer = outer_ctes;
    for (const auto& c : s.with_clause().ctes()) {
      const auto& cte = c.common_table_expr();
      if (cte_scope.ctes.count(cte.ctename()) > 0)
        return At(
            Status::AlreadyExists("WITH query name \"{}\" specified more than once", cte.ctename())
                .WithSqlState("42712"),
            cte.location());
      cte_scope.ctes[cte.ctename()] = CteDefinition{&cte};
    }
    ctes = &cte_scope;
  }
  if (s.op() != pg_query::SETOP_NONE && s.op() != pg_query::SET_OPERATION_UNDEFINED)
    return BindSetOp(s, outer, ctes);
  if (!s.values_lists().empty())
    return BindValues(s, outer, ctes, nullptr);
  if (s.has_into_clause())
    return Status::NotImplemented("SELECT INTO is not supported inside a query");
  if (!s.locking_clause().empty())
    return Status::NotImplemented("FOR UPDATE / FOR SHARE is not supported");

  // FROM: a comma list is a chain of cross joins (the optimizer turns them into equi-joins).
  BoundRelation from;
  if (s.from_clause().empty()) {
    auto values = NewNode(LogicalKind::kValues);
    values->rows.emplace_back();
    from.plan = values;
  } else {
    for (const auto& item : s.from_clause()) {
      SHOAL_ASSIGN_OR_RETURN(BoundRelation rel, BindFromItem(item, outer, ctes));
      if (!from.plan) {
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
      auto join = NewNode(LogicalKind::kJoin);
      join->join_type = JoinType::kInner;
      join->children = {from.plan, rel.plan};
      join->output = from.plan->output;
      join->output.insert(join->output.end(), rel.plan->output.begin(), rel.plan->output.end());
      from.columns.insert(from.columns.end(), rel.columns.begin(), rel.columns.end());
      from.plan = join;
    }
  }
  Scope scope{from.columns, outer};
  LogicalPlanPtr plan = from.plan;

  auto make_ctx = [&](const char* clause, bool aggregates, bool windows) {
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.ctes = ctes;
    ctx.clause = clause;
    ctx.allow_aggregates = aggregates;
    ctx.allow_windows = windows;
    ctx.window_clause = &s.window_clause();
    return ctx;
  };

  // WHERE.
  if (s.has_where_clause()) {
    ExprContext ctx = make_ctx("WHERE", false, false);
    SHOAL_ASSIGN_OR_RETURN(ExprPtr pred, BindExpr(s.where_clause(), ctx));
    SHOAL_ASSIGN_OR_RETURN(pred, CoerceToBoolean(pred, "WHERE", -1));
    auto filter = NewNode(LogicalKind::kFilter);
    filter->predicate = pred;
    filter->output = plan->output;
    filter->children.push_back(plan);
    plan = filter;
  }

  // Select list.
  std::vector<ExprPtr> targets;
  std::vector<std::string> names;
  for (const auto& t : s.target_list()) {
    const auto& rt = t.res_target();
    const PgNode& val = rt.val();
    if (val.has_column_ref() && !val.column_ref().fields().empty() &&
        val.column_ref().fields(val.column_ref().fields_size() - 1).has_a_star()) {
      const auto& fields = val.column_ref().fields();
      std::string qualifier = fields.size() >= 2 ? Str(fields[fields.size() - 2]) : "";
      bool any = false;
      for (const auto& c : from.columns) {
        if (qualifier.empty() ? c.hidden : c.qualifier != qualifier)
          continue;
        targets.push_back(MakeColumnRef(c.id, c.name, c.type, c.nullable));
        names.push_back(c.name);
        any = true;
      }
      if (!any && !qualifier.empty())
        return At(Status::NotFound("missing FROM-clause entry for table \"{}\"", qualifier)
                      .WithSqlState("42P01"),
                  val.column_ref().location());
      if (!any && s.from_clause().empty())
        return At(Status::InvalidArgument("SELECT * with no tables specified is not valid")
                      .WithSqlState("42601"),
                  val.column_ref().location());
      continue;
    }
    ExprContext ctx = make_ctx("SELECT", true, true);
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(val, ctx));
    if (IsUnknownLiteral(e)) {
      SHOAL_ASSIGN_OR_RETURN(e, Coerce(e, DataType::Utf8()));
    }
    targets.push_back(e);
    names.push_back(rt.name().empty() ? DeriveName(val) : rt.name());
  }

  // GROUP BY: input columns first, then output aliases and ordinals (PostgreSQL's order).
  std::vector<ExprPtr> group_keys;
  // Binds one grouping expression and returns its index in group_keys (duplicates share one).
  auto bind_key = [&](const PgNode& g) -> Result<int> {
    ExprPtr key;
    if (g.has_a_const() && g.a_const().has_ival()) {
      int ordinal = g.a_const().ival().ival();
      if (ordinal < 1 || ordinal > static_cast<int>(targets.size()))
        return At(Status::InvalidArgument("GROUP BY position {} is not in select list", ordinal)
                      .WithSqlState("42P10"),
                  g.a_const().location());
      key = targets[static_cast<size_t>(ordinal - 1)];
    } else {
      ExprContext ctx = make_ctx("GROUP BY", false, false);
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
    if (ContainsKind(key, ExprKind::kAggregate))
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
  std::vector<GroupingSet> grouping_sets{GroupingSet{}};
  bool has_grouping_sets = false;
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

  ExprPtr having;
  if (s.has_having_clause()) {
    ExprContext ctx = make_ctx("HAVING", true, false);
    SHOAL_ASSIGN_OR_RETURN(having, BindExpr(s.having_clause(), ctx));
    SHOAL_ASSIGN_OR_RETURN(having, CoerceToBoolean(having, "HAVING", -1));
  }

  // ORDER BY: output names and ordinals, else expressions over the input.
  struct OrderItem {
    SortKey key;
    int target = -1;  // index into targets, or -1 for a hidden expression
  };
  std::vector<OrderItem> order;
  bool distinct = !s.distinct_clause().empty();
  if (distinct &&
      !(s.distinct_clause_size() == 1 && s.distinct_clause(0).node_case() == PgNode::NODE_NOT_SET))
    return Status::NotImplemented("SELECT DISTINCT ON is not supported");
  for (const auto& item : s.sort_clause()) {
    const auto& sb = item.sort_by();
    OrderItem oi;
    oi.key.ascending = sb.sortby_dir() != pg_query::SORTBY_DESC;
    if (sb.sortby_dir() == pg_query::SORTBY_USING)
      return At(Status::NotImplemented("ORDER BY USING is not supported"), sb.location());
    oi.key.nulls_first = sb.sortby_nulls() == pg_query::SORTBY_NULLS_DEFAULT
                             ? !oi.key.ascending
                             : sb.sortby_nulls() == pg_query::SORTBY_NULLS_FIRST;
    const PgNode& n = sb.node();
    if (n.has_a_const() && n.a_const().has_ival()) {
      int ordinal = n.a_const().ival().ival();
      if (ordinal < 1 || ordinal > static_cast<int>(targets.size()))
        return At(Status::InvalidArgument("ORDER BY position {} is not in select list", ordinal)
                      .WithSqlState("42P10"),
                  n.a_const().location());
      oi.target = ordinal - 1;
    } else if (n.has_column_ref() && n.column_ref().fields_size() == 1 &&
               n.column_ref().fields(0).has_string()) {
      std::string name = Str(n.column_ref().fields(0));
      for (size_t i = 0; i < names.size(); ++i) {
        if (names[i] == name) {
          oi.target = static_cast<int>(i);
          break;
        }
      }
    }
    if (oi.target < 0) {
      ExprContext ctx = make_ctx("ORDER BY", true, true);
      SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(n, ctx));
      for (size_t i = 0; i < targets.size(); ++i) {
        if (ExprEquals(*targets[i], *e)) {
          oi.target = static_cast<int>(i);
          break;
        }
      }
      if (oi.target < 0) {
        if (distinct)
          return At(Status::InvalidArgument(
                        "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
                        .WithSqlState("42P10"),
                    sb.location());
        oi.key.expr = e;
      }
    }
    order.push_back(std::move(oi));
  }

  // Aggregation.
  std::vector<ExprPtr> aggregates;
  for (const auto& t : targets)
    CollectKind(t, ExprKind::kAggregate, &aggregates);
  CollectKind(having, ExprKind::kAggregate, &aggregates);
  for (const auto& o : order)
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
    for (const auto& a : aggregates)
      agg_cols.push_back({NewId(), a->ToString(), "", a->type, a->nullable});
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

  // Window functions: a Window node appends one column per distinct window expression.
  std::vector<ExprPtr> windows;
  for (const auto& t : targets)
    CollectKind(t, ExprKind::kWindow, &windows);
  for (const auto& o : order)
    CollectKind(o.key.expr, ExprKind::kWindow, &windows);
  if (!windows.empty()) {
    auto window = NewNode(LogicalKind::kWindow);
    window->exprs = windows;
    window->output = plan->output;
    std::vector<std::pair<ExprPtr, ColumnInfo>> replacements;
    for (const auto& w : windows) {
      ColumnInfo c{NewId(), w->ToString(), "", w->type, w->nullable};
      window->output.push_back(c);
      replacements.emplace_back(w, c);
    }
    window->children.push_back(plan);
    plan = window;
    auto replace = [&](const ExprPtr& e) -> ExprPtr {
      if (e->kind != ExprKind::kWindow)
        return nullptr;
      for (const auto& [w, c] : replacements) {
        if (ExprEquals(*w, *e))
          return MakeColumnRef(c.id, c.name, c.type, c.nullable);
      }
      return nullptr;
    };
    // Windows are leaves of the rewrite: their inner expressions stay as bound.
    std::function<ExprPtr(const ExprPtr&)> top_down = [&](const ExprPtr& e) -> ExprPtr {
      if (!e)
        return e;
      if (ExprPtr r = replace(e))
        return r;
      if (e->kind == ExprKind::kColumnRef || e->kind == ExprKind::kLiteral)
        return e;
      auto copy = std::make_shared<Expr>(*e);
      for (auto& a : copy->args)
        a = top_down(a);
      return copy;
    };
    for (auto& t : targets)
      t = top_down(t);
    for (auto& o : order)
      o.key.expr = top_down(o.key.expr);
  }

  // Projection: the select list, then hidden ORDER BY expressions.
  auto project = NewNode(LogicalKind::kProject);
  for (size_t i = 0; i < targets.size(); ++i) {
    project->exprs.push_back(targets[i]);
    project->output.push_back({NewId(), names[i], "", targets[i]->type, targets[i]->nullable});
  }
  for (auto& o : order) {
    if (o.target >= 0)
      continue;
    o.target = static_cast<int>(project->exprs.size());
    project->exprs.push_back(o.key.expr);
    project->output.push_back(
        {NewId(), o.key.expr->ToString(), "", o.key.expr->type, o.key.expr->nullable});
  }
  project->children.push_back(plan);
  plan = project;
  size_t visible = targets.size();

  if (distinct) {
    auto d = NewNode(LogicalKind::kDistinct);
    d->output = plan->output;
    d->children.push_back(plan);
    plan = d;
  }
  if (!order.empty()) {
    auto sort = NewNode(LogicalKind::kSort);
    for (const auto& o : order) {
      const auto& c = plan->output[static_cast<size_t>(o.target)];
      SortKey key = o.key;
      key.expr = MakeColumnRef(c.id, c.name, c.type, c.nullable);
      sort->sort_keys.push_back(key);
    }
    sort->output = plan->output;
    sort->children.push_back(plan);
    plan = sort;
  }
  SHOAL_ASSIGN_OR_RETURN(plan, ApplyLimit(plan, s));
  if (plan->output.size() > visible) {
    auto drop = NewNode(LogicalKind::kProject);
    for (size_t i = 0; i < visible; ++i) {
      const auto& c = plan->output[i];
      drop->exprs.push_back(MakeColumnRef(c.id, c.name, c.type, c.nullable));
      drop->output.push_back({NewId(), c.name, "", c.type, c.nullable});
    }
    drop->children.push_back(plan);
    plan = drop;
  }
  return QueryResult{plan, names};
}

// ---------------------------------------------------------------------------------------------
// Statements

std::pair<std::string, std::string> SchemaAndName(const pg_query::RangeVar& rv) {
  return {rv.schemaname().empty() ? std::string(kDefaultSchema) : rv.schemaname(), rv.relname()};
}

columnar::SchemaPtr SchemaOfPlan(const LogicalPlan& plan, const std::vector<std::string>& names) {
  std::vector<Field> fields;
  for (size_t i = 0; i < plan.output.size(); ++i)
    fields.emplace_back(names[i], plan.output[i].type, plan.output[i].nullable);
  return std::make_shared<const Schema>(std::move(fields));
}

Result<BoundStatement> StatementBinder::BindCreateTable(const pg_query::CreateStmt& s) {
  BoundStatement out;
  out.kind = StatementKind::kCreateTable;
  std::tie(out.schema_name, out.object_name) = SchemaAndName(s.relation());
  out.if_not_exists = s.if_not_exists();
  if (!s.inh_relations().empty() || s.has_partspec() || s.has_of_typename())
    return Status::NotImplemented("INHERITS / PARTITION BY / OF are not supported");
  if (!catalog_.HasSchema(out.schema_name))
    return Status::NotFound("schema \"{}\" does not exist", out.schema_name).WithSqlState("3F000");
  if (catalog_.Lookup(out.schema_name, out.object_name).ok() && !out.if_not_exists)
    return At(Status::AlreadyExists("relation \"{}\" already exists", out.object_name)
                  .WithSqlState("42P07"),
              s.relation().location());
  std::vector<Field> fields;
  std::vector<std::string> primary_key;
  for (const auto& c : s.table_elts()) {
    if (c.has_constraint() && c.constraint().contype() == pg_query::CONSTR_PRIMARY) {
      for (const auto& k : c.constraint().keys())
        primary_key.push_back(Str(k));
    }
  }
  for (const auto& elt : s.table_elts()) {
    if (!elt.has_column_def())
      continue;  // table constraints other than PRIMARY KEY are accepted and ignored
    const auto& def = elt.column_def();
    SHOAL_ASSIGN_OR_RETURN(DataType type, ResolveTypeName(def.type_name()));
    bool not_null = def.is_not_null();
    for (const auto& c : def.constraints()) {
      auto t = c.constraint().contype();
      if (t == pg_query::CONSTR_NOTNULL || t == pg_query::CONSTR_PRIMARY)
        not_null = true;
    }
    if (std::find(primary_key.begin(), primary_key.end(), def.colname()) != primary_key.end())
      not_null = true;
    for (const auto& f : fields) {
      if (f.name == def.colname())
        return At(Status::AlreadyExists("column \"{}\" specified more than once", def.colname())
                      .WithSqlState("42701"),
                  def.location());
    }
    fields.emplace_back(def.colname(), type, !not_null);
  }
  out.table_schema = std::make_shared<const Schema>(std::move(fields));
  return out;
}

Result<BoundStatement> StatementBinder::BindCreateTableAs(const pg_query::CreateTableAsStmt& s) {
  if (s.objtype() != pg_query::OBJECT_TABLE)
    return Status::NotImplemented("materialized views are not supported");
  BoundStatement out;
  out.kind = StatementKind::kCreateTableAs;
  std::tie(out.schema_name, out.object_name) = SchemaAndName(s.into().rel());
  out.if_not_exists = s.if_not_exists();
  if (catalog_.Lookup(out.schema_name, out.object_name).ok() && !out.if_not_exists)
    return At(Status::AlreadyExists("relation \"{}\" already exists", out.object_name)
                  .WithSqlState("42P07"),
              s.into().rel().location());
  SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(s.query(), nullptr, nullptr));
  for (int i = 0; i < s.into().col_names_size() && i < static_cast<int>(q.names.size()); ++i)
    q.names[static_cast<size_t>(i)] = Str(s.into().col_names(i));
  out.table_schema = SchemaOfPlan(*q.plan, q.names);
  out.plan = q.plan;
  return out;
}

Result<BoundStatement> StatementBinder::BindInsert(const pg_query::InsertStmt& s) {
  if (s.has_on_conflict_clause() || !s.returning_list().empty() || s.has_with_clause())
    return Status::NotImplemented("INSERT with ON CONFLICT / RETURNING / WITH is not supported");
  BoundStatement out;
  out.kind = StatementKind::kInsert;
  std::tie(out.schema_name, out.object_name) = SchemaAndName(s.relation());
  auto table = catalog_.LookupTable(out.schema_name, out.object_name);
  if (!table.ok())
    return At(table.status(), s.relation().location());
  if (!table->insertable)
    return At(Status::NotImplemented("table \"{}\" ({}) does not accept INSERT", out.object_name,
                                     table->provider->kind()),
              s.relation().location());
  out.target = *table;
  out.table_schema = table->provider->schema();
  const Schema& schema = *out.table_schema;
  // Target columns: listed ones in order, or all.
  std::vector<int> columns;
  for (const auto& c : s.cols()) {
    const auto& rt = c.res_target();
    auto index = schema.FieldIndex(rt.name());
    if (!index)
      return At(Status::NotFound("column \"{}\" of relation \"{}\" does not exist", rt.name(),
                                 out.object_name)
                    .WithSqlState("42703"),
                rt.location());
    if (std::find(columns.begin(), columns.end(), *index) != columns.end())
      return At(Status::InvalidArgument("column \"{}\" specified more than once", rt.name())
                    .WithSqlState("42701"),
                rt.location());
    columns.push_back(*index);
  }
  if (columns.empty()) {
    for (int i = 0; i < schema.num_fields(); ++i)
      columns.push_back(i);
  }
  std::vector<DataType> types;
  for (int c : columns)
    types.push_back(schema.field(c).type);
  QueryResult q;
  if (!s.has_select_stmt()) {
    return Status::NotImplemented("INSERT ... DEFAULT VALUES is not supported");
  }
  const auto& select = s.select_stmt().select_stmt();
  if (!select.values_lists().empty() &&
      (select.op() == pg_query::SETOP_NONE || select.op() == pg_query::SET_OPERATION_UNDEFINED)) {
    // VALUES rows take the target's types directly (string literals become dates, ...).
    for (const auto& row : select.values_lists()) {
      if (row.list().items_size() > static_cast<int>(columns.size()))
        return Status::InvalidArgument("INSERT has more expressions than target columns")
            .WithSqlState("42601");
      if (row.list().items_size() < static_cast<int>(columns.size()))
        return Status::InvalidArgument("INSERT has more target columns than expressions")
            .WithSqlState("42601");
    }
    SHOAL_ASSIGN_OR_RETURN(q, BindValues(select, nullptr, nullptr, &types));
  } else {
    SHOAL_ASSIGN_OR_RETURN(q, BindQuery(s.select_stmt(), nullptr, nullptr));
  }
  if (q.plan->output.size() != columns.size()) {
    return Status::InvalidArgument(
               "INSERT has more {} than {}",
               q.plan->output.size() > columns.size() ? "expressions" : "target columns",
               q.plan->output.size() > columns.size() ? "target columns" : "expressions")
        .WithSqlState("42601");
  }
  // Produce every table column in table order: the given ones cast, the others NULL.
  auto project = NewNode(LogicalKind::kProject);
  for (int i = 0; i < schema.num_fields(); ++i) {
    const Field& field = schema.field(i);
    auto pos = std::find(columns.begin(), columns.end(), i);
    ExprPtr e;
    if (pos == columns.end()) {
      if (!field.nullable)
        return Status::InvalidArgument(
                   "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                   field.name, out.object_name)
            .WithSqlState("23502");
      e = MakeLiteral(Scalar(field.type));
    } else {
      const auto& c = q.plan->output[static_cast<size_t>(pos - columns.begin())];
      ExprPtr ref = MakeColumnRef(c.id, c.name, c.type, c.nullable);
      if (c.type != field.type && !CanImplicitCast(c.type, field.type) &&
          !(IsNumeric(c.type) && IsNumeric(field.type)) && c.type.id() != TypeId::kUtf8)
        return Status::TypeError("column \"{}\" is of type {} but expression is of type {}",
                                 field.name, SqlTypeName(field.type), SqlTypeName(c.type))
            .WithSqlState("42804");
      SHOAL_ASSIGN_OR_RETURN(e, Coerce(ref, field.type));
    }
    project->exprs.push_back(e);
    project->output.push_back({NewId(), field.name, "", field.type, e->nullable});
  }
  project->children.push_back(q.plan);
  out.plan = project;
  return out;
}

Result<BoundStatement> StatementBinder::BindCreateView(const pg_query::ViewStmt& s) {
  BoundStatement out;
  out.kind = StatementKind::kCreateView;
  std::tie(out.schema_name, out.object_name) = SchemaAndName(s.view());
  out.or_replace = s.replace();
  auto existing = catalog_.Lookup(out.schema_name, out.object_name);
  if (existing.ok() && (existing->table || !out.or_replace))
    return At(Status::AlreadyExists("relation \"{}\" already exists", out.object_name)
                  .WithSqlState("42P07"),
              s.view().location());
  // Bind now to report errors at CREATE time and to fix the column names.
  SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(s.query(), nullptr, nullptr));
  if (s.aliases_size() > static_cast<int>(q.names.size()))
    return Status::InvalidArgument("CREATE VIEW specifies more column names than columns")
        .WithSqlState("42601");
  for (int i = 0; i < s.aliases_size(); ++i)
    q.names[static_cast<size_t>(i)] = Str(s.aliases(i));
  SHOAL_ASSIGN_OR_RETURN(std::string sql, DeparseStatement(s.query()));
  out.view.schema = out.schema_name;
  out.view.name = out.object_name;
  out.view.sql = std::move(sql);
  out.view.column_names = q.names;
  out.table_schema = SchemaOfPlan(*q.plan, q.names);
  return out;
}

Result<BoundStatement> StatementBinder::BindDrop(const pg_query::DropStmt& s) {
  BoundStatement out;
  if (s.remove_type() == pg_query::OBJECT_TABLE)
    out.kind = StatementKind::kDropTable;
  else if (s.remove_type() == pg_query::OBJECT_VIEW)
    out.kind = StatementKind::kDropView;
  else
    return Status::NotImplemented("only DROP TABLE and DROP VIEW are supported");
  out.if_exists = s.missing_ok();
  for (const auto& o : s.objects()) {
    std::vector<std::string> parts;
    for (const auto& p : o.list().items())
      parts.push_back(Str(p));
    if (parts.empty() || parts.size() > 2)
      return Status::NotImplemented("cross-database references are not implemented");
    std::string schema = parts.size() == 2 ? parts[0] : std::string(kDefaultSchema);
    auto object = catalog_.Lookup(schema, parts.back());
    if (!object.ok()) {
      if (!out.if_exists)
        return Status::NotFound("{} \"{}\" does not exist",
                                out.kind == StatementKind::kDropTable ? "table" : "view",
                                parts.back())
            .WithSqlState("42P01");
    } else if (out.kind == StatementKind::kDropTable && object->view) {
      return Status::InvalidArgument("\"{}\" is not a table", parts.back())
          .WithSqlState("42809")
          .WithHint("Use DROP VIEW to remove a view.");
    } else if (out.kind == StatementKind::kDropView && object->table) {
      return Status::InvalidArgument("\"{}\" is not a view", parts.back())
          .WithSqlState("42809")
          .WithHint("Use DROP TABLE to remove a table.");
    }
    out.drop_objects.emplace_back(schema, parts.back());
  }
  return out;
}

Result<BoundStatement> StatementBinder::BindSet(const pg_query::VariableSetStmt& s) {
  BoundStatement out;
  out.setting_name = s.name();
  switch (s.kind()) {
    case pg_query::VAR_RESET_ALL: out.kind = StatementKind::kResetAll; return out;
    case pg_query::VAR_RESET:
    case pg_query::VAR_SET_DEFAULT: out.kind = StatementKind::kReset; break;
    case pg_query::VAR_SET_VALUE: out.kind = StatementKind::kSet; break;
    default: return Status::NotImplemented("this form of SET is not supported");
  }
  SHOAL_ASSIGN_OR_RETURN(const SettingDefinition* def,
                         SettingsRegistry::Global().Find(out.setting_name));
  if (out.kind == StatementKind::kSet) {
    std::string value;
    for (const auto& a : s.args()) {
      if (!value.empty())
        value += ", ";
      const pg_query::A_Const* c = a.has_a_const() ? &a.a_const()
                                   : a.has_type_cast() && a.type_cast().arg().has_a_const()
                                       ? &a.type_cast().arg().a_const()
                                       : nullptr;
      if (c == nullptr)
        return Status::InvalidArgument("SET {} needs a constant value", out.setting_name)
            .WithSqlState("42601");
      switch (c->val_case()) {
        case pg_query::A_Const::kIval: value += std::to_string(c->ival().ival()); break;
        case pg_query::A_Const::kFval: value += c->fval().fval(); break;
        case pg_query::A_Const::kSval: value += c->sval().sval(); break;
        case pg_query::A_Const::kBoolval: value += c->boolval().boolval() ? "true" : "false"; break;
        default: break;
      }
    }
    SHOAL_ASSIGN_OR_RETURN(out.setting_value, SettingsRegistry::Normalize(*def, value));
  }
  out.setting_name = def->name;
  return out;
}

Result<BoundStatement> StatementBinder::BindExplain(const pg_query::ExplainStmt& s) {
  BoundStatement out;
  out.kind = StatementKind::kExplain;
  for (const auto& o : s.options()) {
    const auto& d = o.def_elem();
    bool value = true;
    if (d.has_arg()) {
      if (d.arg().has_string()) {
        std::string v = d.arg().string().sval();
        value = !(v == "false" || v == "off" || v == "0");
      } else if (d.arg().has_boolean()) {
        value = d.arg().boolean().boolval();
      } else if (d.arg().has_integer()) {
        value = d.arg().integer().ival() != 0;
      }
    }
    if (d.defname() == "analyze")
      out.analyze = value;
    else if (d.defname() == "verbose")
      out.verbose = value;
    else if (d.defname() != "costs" && d.defname() != "format")
      return Status::InvalidArgument("unrecognized EXPLAIN option \"{}\"", d.defname())
          .WithSqlState("42601");
  }
  SHOAL_ASSIGN_OR_RETURN(BoundStatement inner, BindStatement(s.query()));
  if (inner.kind == StatementKind::kExplain)
    return Status::SyntaxError("EXPLAIN of EXPLAIN is not allowed");
  out.plan = inner.plan;
  out.explained = std::make_shared<const BoundStatement>(std::move(inner));
  return out;
}

Result<BoundStatement> StatementBinder::BindCopy(const pg_query::CopyStmt& s) {
  if (s.is_from())
    return Status::NotImplemented("COPY FROM is not supported")
        .WithSqlState("0A000")
        .WithHint(
            "read files with CREATE EXTERNAL TABLE ... STORED AS CSV | TBL | PARQUET | ARROW "
            "LOCATION '...'");
  if (s.is_program())
    return Status::NotImplemented("COPY TO PROGRAM is not supported").WithSqlState("0A000");
  if (s.filename().empty())
    return Status::NotImplemented("COPY TO STDOUT is not supported")
        .WithSqlState("0A000")
        .WithHint("write to a file: COPY ... TO '/path/to/file.parquet'");
  BoundStatement out;
  out.kind = StatementKind::kCopy;
  out.copy_path = s.filename();
  for (const auto& o : s.options()) {
    const auto& d = o.def_elem();
    std::string value = "true";  // an option without a value, as in WITH (HEADER)
    if (d.has_arg()) {
      const PgNode& a = d.arg();
      if (a.has_string())
        value = a.string().sval();
      else if (a.has_integer())
        value = std::to_string(a.integer().ival());
      else if (a.has_float_())
        value = a.float_().fval();
      else if (a.has_boolean())
        value = a.boolean().boolval() ? "true" : "false";
      else if (a.has_type_name() && a.type_name().names_size() > 0)
        value = Str(a.type_name().names(a.type_name().names_size() - 1));
      else
        return Status::InvalidArgument("COPY option {} needs a simple value", d.defname())
            .WithSqlState("42601");
    }
    out.copy_options.emplace_back(d.defname(), value);
  }
  SHOAL_RETURN_IF_ERROR(io::ParseCopyOptions(out.copy_path, out.copy_options).status());
  PgNode query;
  if (s.has_query()) {
    query = s.query();
  } else {
    // COPY table [(columns)] TO ...: SELECT columns FROM table.
    auto* select = query.mutable_select_stmt();
    select->set_op(pg_query::SETOP_NONE);
    select->set_limit_option(pg_query::LIMIT_OPTION_DEFAULT);
    *select->add_from_clause()->mutable_range_var() = s.relation();
    if (s.attlist_size() == 0) {
      select->add_target_list()
          ->mutable_res_target()
          ->mutable_val()
          ->mutable_column_ref()
          ->add_fields()
          ->mutable_a_star();
    }
    for (const auto& column : s.attlist()) {
      *select->add_target_list()
           ->mutable_res_target()
           ->mutable_val()
           ->mutable_column_ref()
           ->add_fields() = column;
    }
  }
  SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(query, nullptr, nullptr));
  auto plan = q.plan->Clone();
  for (size_t i = 0; i < plan->output.size(); ++i)
    plan->output[i].name = q.names[i];
  out.plan = plan;
  return out;
}

Result<BoundStatement> StatementBinder::BindStatement(const PgNode& node) {
  switch (node.node_case()) {
    case PgNode::kSelectStmt: {
      const auto& s = node.select_stmt();
      if (s.has_into_clause()) {
        // SELECT ... INTO t is CREATE TABLE t AS SELECT ...
        pg_query::CreateTableAsStmt ctas;
        *ctas.mutable_into() = s.into_clause();
        *ctas.mutable_query() = node;
        ctas.mutable_query()->mutable_select_stmt()->clear_into_clause();
        ctas.set_objtype(pg_query::OBJECT_TABLE);
        return BindCreateTableAs(ctas);
      }
      SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(node, nullptr, nullptr));
      BoundStatement out;
      out.kind = StatementKind::kQuery;
      // The plan's output names are the user-visible ones.
      auto plan = q.plan->Clone();
      for (size_t i = 0; i < plan->output.size(); ++i)
        plan->output[i].name = q.names[i];
      out.plan = plan;
      return out;
    }
    case PgNode::kExplainStmt: return BindExplain(node.explain_stmt());
    case PgNode::kCopyStmt: return BindCopy(node.copy_stmt());
    case PgNode::kCreateStmt: return BindCreateTable(node.create_stmt());
    case PgNode::kCreateTableAsStmt: return BindCreateTableAs(node.create_table_as_stmt());
    case PgNode::kInsertStmt: return BindInsert(node.insert_stmt());
    case PgNode::kViewStmt: return BindCreateView(node.view_stmt());
    case PgNode::kDropStmt: return BindDrop(node.drop_stmt());
    case PgNode::kVariableSetStmt: return BindSet(node.variable_set_stmt());
    case PgNode::kVariableShowStmt: {
      BoundStatement out;
      const std::string& name = node.variable_show_stmt().name();
      if (name == "all") {
        out.kind = StatementKind::kShowAll;
        return out;
      }
      SHOAL_ASSIGN_OR_RETURN(const SettingDefinition* def, SettingsRegistry::Global().Find(name));
      out.kind = StatementKind::kShow;
      out.setting_name = def->name;
      return out;
    }
    default: break;
  }
  return Status::NotImplemented("statement type {} is not supported",
                                static_cast<int>(node.node_case()))
      .WithSqlState("0A000");
}

}  // namespace

Result<BoundStatement> Binder::Bind(const ParsedScript& script, const ParsedStatement& statement) {
  session_->column_ids().Reset();
  StatementBinder binder(session_, script.sql);
  SHOAL_ASSIGN_OR_RETURN(BoundStatement out, binder.BindStatement(*statement.node));
  out.text = statement.text;
  if (statement.external) {
    const ExternalTableClause& external = *statement.external;
    if (out.kind != StatementKind::kCreateTable)
      return Status::Internal("CREATE EXTERNAL TABLE was not rewritten to CREATE TABLE");
    int position = BytePositionToCharPosition(script.sql, external.format_location);
    if (external.format != "TBL" && external.format != "CSV" && external.format != "PARQUET" &&
        external.format != "ARROW")
      return Status::InvalidArgument(
                 "unknown file format \"{}\" (supported: TBL, CSV, PARQUET, ARROW)",
                 external.format)
          .WithSqlState("42601")
          .WithPosition(position);
    out.kind = StatementKind::kCreateExternalTable;
    out.external_format = external.format == "TBL"       ? "tbl"
                          : external.format == "PARQUET" ? "parquet"
                          : external.format == "ARROW"   ? "arrow"
                                                         : "csv";
    out.external_location = external.location;
    out.external_options = external.options;
  }
  if (out.explained) {
    auto inner = std::make_shared<BoundStatement>(*out.explained);
    inner->text = statement.text;
    out.explained = inner;
  }
  return out;
}

Result<std::vector<BoundStatement>> ParseAndBind(Session* session, std::string_view sql) {
  SHOAL_ASSIGN_OR_RETURN(ParsedScript script, ParseSql(sql));
  Binder binder(session);
  std::vector<BoundStatement> out;
  for (const auto& statement : script.statements) {
    SHOAL_ASSIGN_OR_RETURN(BoundStatement bound, binder.Bind(script, statement));
    out.push_back(std::move(bound));
  }
  return out;
}

Result<BoundStatement> BindSql(Session* session, std::string_view sql) {
  SHOAL_ASSIGN_OR_RETURN(ParsedScript script, ParseSql(sql));
  if (script.statements.size() != 1)
    return Status::InvalidArgument("expected one statement, got {}", script.statements.size())
        .WithSqlState("42601");
  return Binder(session).Bind(script, script.statements[0]);
}

}  // namespace shoal::sql
