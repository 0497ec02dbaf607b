// Binding of row-valued comparisons: (a, b) < (c, d), ROW(...) IS [NOT] DISTINCT FROM ROW(...),
// (a, b) [NOT] IN ((1, 2), ...) and ROW(...) IS [NOT] NULL. Shoal has no row values, so each
// form expands into a boolean expression over the fields with PostgreSQL's three-valued result
// (row comparisons with a subquery are BindRowSubLink's). Each field is bound once and shared by
// the terms that read it, so a field holding a subquery or a parameter is not bound twice.

#include <memory>
#include <string>
#include <vector>

#include "shoal/sql/binder_internal.h"
#include "shoal/sql/function_registry.h"

namespace shoal::sql::internal {

namespace {

const pg_query::RowExpr* AsRow(const PgNode& node) {
  return node.has_row_expr() ? &node.row_expr() : nullptr;
}

}  // namespace

Result<std::vector<ExprPtr>> StatementBinder::BindRowFields(const pg_query::RowExpr& row,
                                                            ExprContext& ctx) {
  std::vector<ExprPtr> fields;
  fields.reserve(static_cast<size_t>(row.args_size()));
  for (const auto& a : row.args()) {
    if (a.has_row_expr())
      return At(Status::NotImplemented("a row constructor nested in another is not supported")
                    .WithSqlState("0A000"),
                a.row_expr().location());
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(a, ctx));
    fields.push_back(std::move(e));
  }
  return fields;
}

bool StatementBinder::IsRowComparison(const pg_query::A_Expr& e) {
  if (!e.has_lexpr() || !e.has_rexpr() || AsRow(e.lexpr()) == nullptr)
    return false;
  if (e.kind() == pg_query::AEXPR_OP && e.rexpr().has_sub_link() &&
      e.rexpr().sub_link().sub_link_type() == pg_query::EXPR_SUBLINK)
    return true;
  return AsRow(e.rexpr()) != nullptr;
}

Result<ExprPtr> StatementBinder::CompareRows(const std::string& op, const std::vector<ExprPtr>& l,
                                             const std::vector<ExprPtr>& r, int location) {
  if (l.size() != r.size())
    return At(Status::InvalidArgument("unequal number of entries in row expressions")
                  .WithSqlState("42601"),
              location);
  const bool ordering = op == "<" || op == "<=" || op == ">" || op == ">=";
  if (op != "=" && op != "<>" && !ordering)
    return At(
        Status::TypeError("could not determine interpretation of row comparison operator {}", op)
            .WithSqlState("42883")
            .WithHint("Row comparison operators must be associated with btree operator "
                      "families."),
        location);
  if (l.empty())  // ROW() = ROW(): the fields are all equal.
    return MakeLiteral(Scalar::Boolean(op == "=" || op == "<=" || op == ">="));
  if (op == "=" || op == "<>") {
    // Equal when every field is; different when some field is (NULL where that is unknown).
    std::vector<ExprPtr> terms;
    for (size_t i = 0; i < l.size(); ++i) {
      SHOAL_ASSIGN_OR_RETURN(ExprPtr t, MakeResolvedCall(op, {l[i], r[i]}, location));
      terms.push_back(std::move(t));
    }
    if (terms.size() == 1)
      return terms[0];
    return MakeResolvedCall(op == "=" ? "and" : "or", std::move(terms), location);
  }
  // Lexicographic: the first pair of fields that is not equal decides, and a NULL in a pair
  // reached makes the result NULL. (l1 < r1) OR (l1 = r1 AND (rest)) gives exactly that under
  // three-valued logic; the last pair uses the operator itself, so <= and >= hold on equal rows.
  const std::string strict = op.substr(0, 1);
  SHOAL_ASSIGN_OR_RETURN(ExprPtr result, MakeResolvedCall(op, {l.back(), r.back()}, location));
  for (size_t k = l.size() - 1; k-- > 0;) {
    SHOAL_ASSIGN_OR_RETURN(ExprPtr less, MakeResolvedCall(strict, {l[k], r[k]}, location));
    SHOAL_ASSIGN_OR_RETURN(ExprPtr equal, MakeResolvedCall("=", {l[k], r[k]}, location));
    SHOAL_ASSIGN_OR_RETURN(ExprPtr then, MakeResolvedCall("and", {equal, result}, location));
    SHOAL_ASSIGN_OR_RETURN(result, MakeResolvedCall("or", {less, then}, location));
  }
  return result;
}

Result<ExprPtr> StatementBinder::BindRowComparison(const pg_query::A_Expr& e, ExprContext& ctx) {
  const int loc = e.location();
  if (e.rexpr().has_sub_link()) {
    // row op (SELECT ...): PostgreSQL's parser turns this into a ROWCOMPARE sublink.
    auto sublink = std::make_unique<pg_query::SubLink>(e.rexpr().sub_link());
    sublink->set_sub_link_type(pg_query::ROWCOMPARE_SUBLINK);
    *sublink->mutable_testexpr() = e.lexpr();
    *sublink->mutable_oper_name() = e.name();
    sublink->set_location(loc);
    const pg_query::SubLink& ref = *sublink;
    synthetic_sublinks_.push_back(std::move(sublink));
    return BindSubLink(ref, false, ctx);
  }
  SHOAL_ASSIGN_OR_RETURN(std::vector<ExprPtr> l, BindRowFields(*AsRow(e.lexpr()), ctx));
  SHOAL_ASSIGN_OR_RETURN(std::vector<ExprPtr> r, BindRowFields(*AsRow(e.rexpr()), ctx));
  switch (e.kind()) {
    case pg_query::AEXPR_OP: return CompareRows(LastName(e.name()), l, r, loc);
    case pg_query::AEXPR_DISTINCT:
    case pg_query::AEXPR_NOT_DISTINCT: {
      // Distinct when some pair of fields is distinct (never NULL).
      const bool distinct = e.kind() == pg_query::AEXPR_DISTINCT;
      if (l.size() != r.size())
        return At(Status::InvalidArgument("unequal number of entries in row expressions")
                      .WithSqlState("42601"),
                  loc);
      if (l.empty())
        return MakeLiteral(Scalar::Boolean(!distinct));
      std::vector<ExprPtr> terms;
      for (size_t i = 0; i < l.size(); ++i) {
        SHOAL_ASSIGN_OR_RETURN(
            ExprPtr t, MakeResolvedCall(distinct ? "is_distinct_from" : "is_not_distinct_from",
                                        {l[i], r[i]}, loc));
        terms.push_back(std::move(t));
      }
      if (terms.size() == 1)
        return terms[0];
      return MakeResolvedCall(distinct ? "or" : "and", std::move(terms), loc);
    }
    default: break;
  }
  return At(Status::NotImplemented("this operator is not supported between row constructors")
                .WithSqlState("0A000"),
            loc);
}

Result<ExprPtr> StatementBinder::BindRowIn(const pg_query::A_Expr& e, ExprContext& ctx) {
  // (a, b) IN ((1, 2), (3, 4)) is (a, b) = (1, 2) OR (a, b) = (3, 4); NOT IN is its negation.
  const int loc = e.location();
  SHOAL_ASSIGN_OR_RETURN(std::vector<ExprPtr> l, BindRowFields(*AsRow(e.lexpr()), ctx));
  std::vector<ExprPtr> alternatives;
  for (const auto& item : e.rexpr().list().items()) {
    const pg_query::RowExpr* row = AsRow(item);
    if (row == nullptr) {
      SHOAL_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(item, ctx));
      return At(Status::TypeError("operator does not exist: record = {}", SqlTypeName(x->type))
                    .WithSqlState("42883")
                    .WithHint("With a row on the left of IN, every item of the list must be a "
                              "row constructor of as many values."),
                loc);
    }
    SHOAL_ASSIGN_OR_RETURN(std::vector<ExprPtr> r, BindRowFields(*row, ctx));
    SHOAL_ASSIGN_OR_RETURN(ExprPtr eq, CompareRows("=", l, r, loc));
    alternatives.push_back(std::move(eq));
  }
  SHOAL_ASSIGN_OR_RETURN(ExprPtr any, alternatives.size() == 1
                                          ? Result<ExprPtr>(alternatives[0])
                                          : MakeResolvedCall("or", std::move(alternatives), loc));
  if (LastName(e.name()) == "<>")
    return MakeResolvedCall("not", {any}, loc);
  return any;
}

Result<ExprPtr> StatementBinder::BindRowNullTest(const pg_query::NullTest& t, ExprContext& ctx) {
  // ROW(...) IS NULL holds when every field is NULL, and IS NOT NULL when none is, so a row with
  // some NULL fields is neither.
  SHOAL_ASSIGN_OR_RETURN(std::vector<ExprPtr> fields, BindRowFields(t.arg().row_expr(), ctx));
  const char* test = t.nulltesttype() == pg_query::IS_NULL ? "is_null" : "is_not_null";
  if (fields.empty())
    return MakeLiteral(Scalar::Boolean(true));
  std::vector<ExprPtr> terms;
  for (ExprPtr& f : fields) {
    if (IsUnknownLiteral(f))
      unknown_literals_.erase(f.get());
    SHOAL_ASSIGN_OR_RETURN(ExprPtr term, MakeResolvedCall(test, {f}, t.location()));
    terms.push_back(std::move(term));
  }
  if (terms.size() == 1)
    return terms[0];
  return MakeResolvedCall("and", std::move(terms), t.location());
}

}  // namespace shoal::sql::internal
