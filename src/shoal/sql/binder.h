// Binder: PostgreSQL parse trees (parser.h) to bound statements (bound_statement.h) — logical
// plans whose expressions are typed, name-resolved and cast-explicit.
//
// Name resolution follows PostgreSQL: unqualified names search the FROM clause of the current
// query, then the enclosing queries (a hit there is a correlated reference, outer_depth > 0);
// ambiguous names are refused (42702); unknown columns get 42703 with the position of the
// reference and a "did you mean" hint; unknown tables 42P01. GROUP BY accepts input columns,
// output ordinals and output aliases; ORDER BY output aliases, ordinals and expressions (which
// become hidden projection columns that a final projection drops). Aggregation rewrites the
// select list in terms of the Aggregate's outputs and refuses ungrouped columns (42803).
//
// String literals without a type start as "unknown" and take the type of the other operand (as in
// PostgreSQL), so `l_shipdate <= '1998-09-02'` compares dates and costs nothing at run time.
//
// One Binder binds one statement at a time; it allocates ColumnIds from the session's allocator,
// which Bind resets per statement.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "shoal/sql/bound_statement.h"
#include "shoal/sql/parser.h"
#include "shoal/sql/session.h"

namespace shoal::sql {

class Binder {
 public:
  explicit Binder(Session* session) : session_(session) {}

  /// Binds one statement of `script` (positions in errors are relative to script.sql).
  Result<BoundStatement> Bind(const ParsedScript& script, const ParsedStatement& statement);

 private:
  Session* session_;
};

/// Parses and binds every statement of `sql` (binding stops at the first error). Statements are
/// bound one after another without executing them, so a script whose later statements depend on
/// an earlier CREATE must be bound statement by statement (bind, execute, bind the next).
Result<std::vector<BoundStatement>> ParseAndBind(Session* session, std::string_view sql);

/// Parses and binds exactly one statement.
Result<BoundStatement> BindSql(Session* session, std::string_view sql);

}  // namespace shoal::sql
