// What the pieces of the binder share: the name scopes, the helpers over parse trees, and the
// StatementBinder class that binder.cc drives (one object per statement). The class's methods are
// defined by clause, one file each:
//   binder.cc             statement dispatch and the public entry points (binder.h)
//   binder_types.cc       type names, coercion to a type, common types, resolved calls
//   binder_expr.cc        expressions: columns, constants, operators, CASE, casts, subqueries
//   binder_function.cc    function calls: scalar, aggregate and window (OVER) calls
//   binder_from.cc        FROM: tables, views, CTE references, joins, derived tables
//   binder_select.cc      SELECT, step by step in clause order (WHERE ... ORDER BY / LIMIT)
//   binder_grouping.cc    GROUP BY / grouping sets and the aggregation they imply
//   binder_set_ops.cc     UNION / INTERSECT / EXCEPT, VALUES, and ORDER BY / LIMIT over them
//   binder_recursive.cc   WITH RECURSIVE: which CTEs recurse, PostgreSQL's checks, the
//                         RecursiveCte node and its working table
//   binder_statements.cc  DDL, INSERT, COPY, EXPLAIN, SET
// Private to the sql layer (libpg_query's classes must not leak out of it).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "shoal/sql/binder.h"
#include "shoal/sql/pg_query_proto/pg_query.pb.h"
#include "shoal/sql/system_catalog/system_catalog.h"

namespace shoal::sql::internal {

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

/// An aggregate a subquery wrote whose variables all belong to an enclosing query: it is that
/// query's aggregate (PostgreSQL's rule, the level of an aggregate is the lowest level of its
/// variables) and the subquery reads it as an outer reference to `column`.
struct OuterAggregate {
  ExprPtr aggregate;  // rebased: its references are relative to the query that computes it
  ColumnInfo column;
};

/// What a subquery nested in a query needs to know of that query: where (which clause) the
/// subquery is written, whether aggregates may appear there, and the aggregates the subqueries
/// hand up to it.
struct QueryLevel {
  bool hosts_aggregates = false;  // a SELECT, which can become an aggregate query
  const char* clause = "";        // the clause the subquery being bound is written in
  bool allow_aggregates = false;
  bool in_aggregate = false;
  std::vector<OuterAggregate> outer_aggregates;
};

struct Scope {
  std::vector<ScopeColumn> columns;
  const Scope* outer = nullptr;
  QueryLevel* level = nullptr;  // the query this scope's columns belong to, when it tracks one
};

struct CteDefinition {
  const pg_query::CommonTableExpr* cte = nullptr;
  // The scope of the queries around the one whose WITH defines it: what its body may read.
  const Scope* outer = nullptr;
};

/// A CTE of a WITH RECURSIVE that reads itself. Its body is bound like any CTE's, at each
/// reference (BindQuery recognises the body); while its recursive term is bound, the reference
/// to itself there becomes the working table (a kWorkingTable leaf).
struct RecursiveCteBinding {
  const pg_query::CommonTableExpr* cte = nullptr;
  bool in_recursive_term = false;
  ColumnId working_table = kInvalidColumnId;
  std::vector<ColumnInfo> columns;  // the working table's names and types (the CTE's columns)
};

/// CTEs visible to a query: its own WITH list, then those of the enclosing queries.
struct CteScope {
  std::map<std::string, CteDefinition> ctes;
  const CteScope* outer = nullptr;
};

struct BoundRelation {
  LogicalPlanPtr plan;
  std::vector<ScopeColumn> columns;
  // A LATERAL subquery: its plan reads the FROM items before it as outer references (depth 1).
  bool lateral = false;
};

inline std::string Str(const PgNode& n) {
  if (n.has_string())
    return n.string().sval();
  return "";
}

inline std::string LastName(const NodeList& names) {
  return names.empty() ? std::string() : Str(names[names.size() - 1]);
}

inline std::shared_ptr<LogicalPlan> NewNode(LogicalKind kind) {
  auto n = std::make_shared<LogicalPlan>();
  n->kind = kind;
  return n;
}

inline void CollectKind(const ExprPtr& e, ExprKind kind, std::vector<ExprPtr>* out) {
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

/// `e` (written `nesting` subquery levels below some query) with its references to that query or
/// further out (depth >= nesting) moved `shift` levels in (a negative shift moves them out).
ExprPtr ShiftOuterRefs(const ExprPtr& e, int nesting, int shift);
LogicalPlanPtr ShiftOuterRefs(const LogicalPlanPtr& plan, int nesting, int shift);

// ---------------------------------------------------------------------------------------------
// The binder proper

class StatementBinder {
 public:
  StatementBinder(Session* session, std::string_view text)
      : session_(session), catalog_(*session->catalog()), text_(text) {}

  Result<BoundStatement> BindStatement(const PgNode& node);

  /// Whether binding the same text again would give the same plan while the catalog stays as it
  /// is: false once the statement read something else (sql/statement_cache.h).
  bool reusable() const { return reusable_ && !statement_micros_; }

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

  /// One ORDER BY item of a SELECT.
  struct OrderItem {
    SortKey key;
    int target = -1;  // index into targets, or -1 for a hidden expression
  };

  /// One SELECT while its clauses are bound: BindSelect hands it from step to step, in the
  /// order PostgreSQL binds the clauses (so errors are reported in the same order).
  struct SelectState {
    SelectState(const pg_query::SelectStmt& stmt, const CteScope* cte_scope)
        : s(stmt), ctes(cte_scope) {}

    /// The context for expressions of `clause` of this SELECT.
    ExprContext Context(const char* clause, bool aggregates, bool windows) const {
      ExprContext ctx;
      ctx.scope = &scope;
      ctx.ctes = ctes;
      ctx.clause = clause;
      ctx.allow_aggregates = aggregates;
      ctx.allow_windows = windows;
      ctx.window_clause = &s.window_clause();
      return ctx;
    }

    const pg_query::SelectStmt& s;
    const CteScope* ctes;
    BoundRelation from;
    Scope scope;  // the FROM columns, then the enclosing queries'
    LogicalPlanPtr plan;
    std::vector<ExprPtr> targets;  // the select list
    std::vector<std::string> names;
    std::vector<ExprPtr> group_keys;
    std::vector<GroupingSet> grouping_sets{GroupingSet{}};
    bool has_grouping_sets = false;
    ExprPtr having;
    QueryLevel level;  // aggregates of this query written inside its subqueries
    bool distinct = false;
    std::vector<OrderItem> order;
    // SELECT DISTINCT ON (...): its expressions (ascending keys) and where each is written.
    bool has_distinct_on = false;
    std::vector<OrderItem> distinct_on;
    std::vector<int> distinct_on_locations;
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

  /// The index of select-list position `ordinal` (GROUP BY 2, ORDER BY 1) among `num_outputs`
  /// columns; 42P10 when there is no such column.
  Result<size_t> OutputOrdinal(int ordinal, size_t num_outputs, const char* clause,
                               int location) const {
    if (ordinal < 1 || ordinal > static_cast<int>(num_outputs))
      return At(Status::InvalidArgument("{} position {} is not in select list", clause, ordinal)
                    .WithSqlState("42P10"),
                location);
    return static_cast<size_t>(ordinal - 1);
  }

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
  // DELETE and UPDATE (binder_dml.cc).
  Result<BoundStatement> BindDelete(const pg_query::DeleteStmt& s);
  Result<BoundStatement> BindUpdate(const pg_query::UpdateStmt& s);
  /// The table a DELETE / UPDATE changes: one with a storage (0A000 for views, external tables).
  Result<TableEntry> DmlTarget(const pg_query::RangeVar& relation, const char* command);
  /// A column's DEFAULT: the expression's SQL text (kept by the table's storage), and that text
  /// bound as a value of `field`'s type (it may not read columns).
  Result<std::string> DefaultText(const PgNode& expr);
  Result<ExprPtr> BindDefault(const std::string& sql, const Field& field, const std::string& table);
  // ALTER TABLE (binder_dml.cc).
  Result<BoundStatement> BindRename(const pg_query::RenameStmt& s);
  Result<BoundStatement> BindAlterTable(const pg_query::AlterTableStmt& s);
  // Indexes (binder_indexes.cc).
  Result<BoundStatement> BindCreateIndex(const pg_query::IndexStmt& s);
  Result<BoundStatement> BindDropIndex(const pg_query::DropStmt& s);
  /// The unique indexes a CREATE TABLE's PRIMARY KEY and UNIQUE constraints imply.
  Result<std::vector<IndexEntry>> ConstraintIndexes(const pg_query::CreateStmt& s,
                                                    const columnar::Schema& table,
                                                    const std::string& schema_name,
                                                    const std::string& table_name);
  Result<BoundStatement> BindSet(const pg_query::VariableSetStmt& s);
  Result<BoundStatement> BindExplain(const pg_query::ExplainStmt& s);
  Result<BoundStatement> BindCopy(const pg_query::CopyStmt& s);

  // WITH RECURSIVE (binder_recursive.cc) -----------------------------------------------------
  /// Finds the CTEs of a WITH RECURSIVE that read themselves and checks them as PostgreSQL does
  /// (mutual recursion, the UNION form, where the self-reference may appear: 42P19 / 0A000).
  Status PrepareRecursiveWith(const pg_query::WithClause& with);
  /// The body of a recursive CTE: the RecursiveCte node, or, inside its own recursive term,
  /// the working table.
  Result<QueryResult> BindRecursiveCte(RecursiveCteBinding& binding, const Scope* outer,
                                       const CteScope* ctes);
  /// 42P19 for an aggregate in a SELECT of a recursive term that reads the working table.
  Status CheckRecursiveTermAggregates(const pg_query::SelectStmt& s) const;

  // FROM --------------------------------------------------------------------------------------
  /// `lateral`: the columns a LATERAL subquery here may read (the FROM items before it).
  Result<BoundRelation> BindFromItem(const PgNode& node, const Scope* outer, const CteScope* ctes,
                                     const std::vector<ScopeColumn>* lateral = nullptr);
  /// The join of `left` and `right` (a LATERAL one when `right` reads `left`'s columns).
  Result<std::shared_ptr<LogicalPlan>> MakeFromJoin(JoinType type, const BoundRelation& left,
                                                    BoundRelation& right);
  /// A function in FROM (binder_table_functions.cc); like a LATERAL subquery it may read
  /// `lateral`, the FROM items before it.
  Result<BoundRelation> BindRangeFunction(const pg_query::RangeFunction& rf, const Scope* outer,
                                          const CteScope* ctes,
                                          const std::vector<ScopeColumn>* lateral);
  Result<BoundRelation> BindRangeVar(const pg_query::RangeVar& rv, const CteScope* ctes,
                                     const Scope* outer = nullptr);
  Result<BoundRelation> BindJoin(const pg_query::JoinExpr& j, const Scope* outer,
                                 const CteScope* ctes);
  BoundRelation Requalify(BoundRelation rel, const std::string& alias, const NodeList* colnames);

  // The system catalogs (binder_system_catalog.cc) ---------------------------------------------
  /// A pg_catalog / information_schema relation, built now from the catalog; nullopt when `rv`
  /// names none (an unqualified name resolves there first when pg_catalog has it).
  std::optional<Result<BoundRelation>> BindSystemRelation(const pg_query::RangeVar& rv,
                                                          const std::string& alias,
                                                          const NodeList* colnames);
  /// What the system catalog builders read (the catalog, the session, how to type a view).
  SystemCatalogContext CatalogContext();
  /// A function clients call on the catalog (pg_get_userbyid, format_type, pg_table_is_visible,
  /// ...), bound as an SQL expression over its arguments; nullopt when `name` is none.
  std::optional<Result<ExprPtr>> BindCatalogFunction(const std::string& name,
                                                     const pg_query::FuncCall& f, ExprContext& ctx);
  /// `arg::regclass`, `::regtype`, `::regnamespace`: a name in a constant becomes its OID, an
  /// OID its name (text).
  /// With `as_name`, the cast is itself cast to text: the object's name either way.
  Result<ExprPtr> BindRegCast(const std::string& type, const pg_query::TypeCast& c,
                              ExprContext& ctx, bool as_name = false);
  /// The system catalogs' arrays are text (system_catalog.h): `$1 = ANY($2)` and `$2[$1]`
  /// over that form, {a,b} (1-based) or an int2vector's "1 2" (0-based).
  static constexpr const char* kArrayTextContains =
      "position(',' || CAST($1 AS text) || ',' IN ',' || "
      "replace(btrim(CAST($2 AS text), '{}'), ' ', ',') || ',') > 0";
  static constexpr const char* kArrayTextElement =
      "CAST(NULLIF(split_part(replace(btrim($1, '{}'), ' ', ','), ',', CAST($2 AS int) + "
      "CASE WHEN position('{' IN $1) = 1 THEN 0 ELSE 1 END), '') AS int)";
  /// Binds `sql`, an expression whose $1..$n are `args` (already bound).
  Result<ExprPtr> BindSqlExpression(const std::string& sql, std::vector<ExprPtr> args,
                                    ExprContext& ctx);
  Result<BoundRelation> RelationFromQuery(QueryResult q, const std::string& qualifier);

  // Expressions -------------------------------------------------------------------------------
  Result<ExprPtr> BindExpr(const PgNode& node, ExprContext& ctx);
  Result<ExprPtr> BindColumnRef(const pg_query::ColumnRef& ref, ExprContext& ctx);
  Result<ExprPtr> BindConst(const pg_query::A_Const& c);
  Result<ExprPtr> BindAExpr(const pg_query::A_Expr& e, ExprContext& ctx);
  Result<ExprPtr> BindFuncCall(const pg_query::FuncCall& f, ExprContext& ctx);
  /// percentile_cont / percentile_disc / mode(...) WITHIN GROUP (ORDER BY ...).
  Result<ExprPtr> BindOrderedSetAggregate(const pg_query::FuncCall& f, const std::string& name,
                                          ExprContext& inner);
  /// An aggregate call just bound in `ctx`: checked where PostgreSQL checks it (the level of the
  /// aggregate is the lowest query level of its variables) and, when that is an enclosing query,
  /// handed up to it and replaced by an outer reference to its result.
  Result<ExprPtr> PlaceAggregate(ExprPtr agg, const ExprContext& ctx, int location);
  Result<ExprPtr> BindWindow(const pg_query::FuncCall& f, std::vector<ExprPtr> args,
                             ExprContext& ctx);
  Result<ExprPtr> BindTypeCast(const pg_query::TypeCast& c, ExprContext& ctx);
  // Arrays and records (binder_arrays.cc).
  /// ARRAY[...]; `target` (may be null) is the array type of an enclosing cast.
  Result<ExprPtr> BindArrayConstructor(const pg_query::A_ArrayExpr& a, ExprContext& ctx,
                                       const DataType* target);
  /// a[i], a[i:j], m[k], (s).f, in sequence.
  Result<ExprPtr> BindIndirection(const pg_query::A_Indirection& ind, ExprContext& ctx);
  Result<ExprPtr> BindRowConstructor(const pg_query::RowExpr& row, ExprContext& ctx);
  Result<BoundRelation> BindUnnestFunction(const pg_query::RangeFunction& rf,
                                           const pg_query::FuncCall& f, ExprContext& ctx,
                                           const std::string& qualifier);
  /// unnest(...) calls of the select list: replaced by the columns of a TableFunction "unnest"
  /// over `plan` (PostgreSQL's set-returning functions in the target list, zipped).
  Status PlanSelectListUnnest(SelectState& st);
  /// x op ANY / ALL (array); nullopt when `op` is not a comparison or `r` is catalog text.
  std::optional<Result<ExprPtr>> BindArrayQuantified(const std::string& op, bool all,
                                                     const ExprPtr& l, const ExprPtr& r,
                                                     int location);
  /// @>, <@, && and || when an operand is an array; nullopt otherwise.
  std::optional<Result<ExprPtr>> BindArrayOperator(const std::string& op, const ExprPtr& l,
                                                   const ExprPtr& r, int location);
  Result<ExprPtr> BindCase(const pg_query::CaseExpr& c, ExprContext& ctx);
  Result<ExprPtr> BindSubLink(const pg_query::SubLink& s, bool negated, ExprContext& ctx);
  Result<ExprPtr> BindRowSubLink(const pg_query::SubLink& s, const std::string& op,
                                 const QueryResult& q, std::shared_ptr<Expr> e, ExprContext& ctx);
  /// `left` cast to the type it and a subquery column of `right_type` compare in (`op`, for the
  /// 42883 error at `location`); the type in `*type`.
  Result<ExprPtr> CoerceSubqueryOperand(const ExprPtr& left, const DataType& right_type,
                                        const std::string& op, int location, DataType* type);
  Result<ExprPtr> BindBool(const pg_query::BoolExpr& b, ExprContext& ctx);
  // Row constructors in comparisons (binder_rows.cc).
  static bool IsRowComparison(const pg_query::A_Expr& e);
  Result<std::vector<ExprPtr>> BindRowFields(const pg_query::RowExpr& row, ExprContext& ctx);
  /// `op` over two rows of fields: = and <> field by field, <, <=, >, >= lexicographically.
  Result<ExprPtr> CompareRows(const std::string& op, const std::vector<ExprPtr>& l,
                              const std::vector<ExprPtr>& r, int location);
  Result<ExprPtr> BindRowComparison(const pg_query::A_Expr& e, ExprContext& ctx);
  Result<ExprPtr> BindRowIn(const pg_query::A_Expr& e, ExprContext& ctx);
  Result<ExprPtr> BindRowNullTest(const pg_query::NullTest& t, ExprContext& ctx);
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

  // SELECT, step by step ----------------------------------------------------------------------
  /// WITH: the CTE scope of the query (kept in *storage), or `outer` without a WITH clause.
  Result<const CteScope*> BindWith(const pg_query::SelectStmt& s, const Scope* outer_scope,
                                   const CteScope* outer, CteScope* storage);
  Result<BoundRelation> BindFromList(const pg_query::SelectStmt& s, const Scope* outer,
                                     const CteScope* ctes);
  Status BindWhere(SelectState& st);
  Status BindSelectList(SelectState& st);
  Status BindGroupBy(SelectState& st);
  Status BindHaving(SelectState& st);
  Status BindDistinct(SelectState& st);
  /// 42P10 unless the ORDER BY starts with the DISTINCT ON expressions (PostgreSQL's rule).
  Status CheckDistinctOnOrder(const SelectState& st) const;
  /// Keeps the first row of each DISTINCT ON group (after the projection, before the sort).
  void PlanDistinctOn(SelectState& st);
  Status BindOrderBy(SelectState& st);
  /// The Aggregate node (and HAVING's filter) when the query groups or aggregates.
  Status PlanAggregate(SelectState& st);
  void PlanWindows(SelectState& st);
  /// The projection, DISTINCT, ORDER BY, LIMIT and the drop of hidden ORDER BY columns.
  Result<QueryResult> PlanOutput(SelectState& st);

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
  /// now(), current_timestamp, localtimestamp: the statement's start, taken at the first use so
  /// that every use in the statement agrees (microseconds since the epoch, UTC).
  Scalar StatementTimestamp(bool zoned);
  std::optional<int64_t> statement_micros_;
  /// Parse nodes the binder makes itself (row = (SELECT ...) as a ROWCOMPARE sublink), kept for
  /// the statement's lifetime because bound state may point into them.
  std::vector<std::unique_ptr<pg_query::SubLink>> synthetic_sublinks_;
  std::vector<std::shared_ptr<const ParsedScript>> keep_alive_;
  int view_depth_ = 0;
  // The arguments of the SQL expressions BindSqlExpression binds ($n reads the innermost).
  std::vector<std::vector<ExprPtr>> expression_args_;
  // While the columns of views are found for a system catalog (CatalogContext).
  bool typing_views_ = false;
  // Recursive CTEs of the statement, by the address of their body (CommonTableExpr::ctequery).
  std::map<const PgNode*, RecursiveCteBinding> recursive_ctes_;
  // While a SELECT's FROM is bound: how many working tables it reads directly (aggregates are
  // not allowed in such a SELECT).
  int* working_tables_in_from_ = nullptr;
  // (schema, name) of each table and view the statement names outside views, in order.
  std::vector<std::pair<std::string, std::string>> referenced_relations_;
  // Cleared where the plan takes in more than the statement's text and the catalog's entries: a
  // snapshot of a table Shoal writes (later commits change it), a system catalog's rows, a
  // catalog function's value, a function in FROM (it may read files), a $n value.
  bool reusable_ = true;
  // The statement reads a system catalog relation (pg_catalog, information_schema): their array
  // columns are text, and psql's queries cast them to arrays (BindTypeCast keeps them text).
  bool reads_system_catalog_ = false;
};

}  // namespace shoal::sql::internal
