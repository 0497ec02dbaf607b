// Short text of a physical expression for EXPLAIN lines, where column references are input
// positions (#3) rather than ColumnIds. Kept in exec so that plan printing does not depend on the
// SQL layer's formatter, whose references mean something else. The text states everything the
// expression computes (a FILTER, TRY_CAST, quotes inside a string): shared subplans are found by
// comparing these lines (shared_subplans.h), so two expressions that print alike must be alike.
#pragma once

#include <string>
#include <vector>

#include "shoal/sql/expr.h"

namespace shoal::exec {

std::string ExprText(const sql::Expr& expr);
/// "a, b, c" of ExprText over a list.
std::string ExprListText(const std::vector<sql::ExprPtr>& exprs);

}  // namespace shoal::exec
