// IN / NOT IN / ANY / ALL subqueries as joins (see decorrelation.h).
//
// `x IN (S)` as a whole conjunct keeps the rows with a match: a semi join on x = S's column plus
// the correlation keys (a NULL result and FALSE both drop the row, so NULLs need no care).
// `x NOT IN (S)` is TRUE only when S is empty or x differs from every value and S has no NULL:
// that is the null-aware anti join (a NULL x drops the row unless S is empty, any NULL in S drops
// every row). When neither x nor S's column can be NULL it is a plain anti join. A correlated
// NOT IN over nullable columns would need the NULL check per correlation value and stays a
// subquery. Inside larger expressions an uncorrelated IN becomes a mark join, whose mark carries
// IN's three-valued result.
//
// `= ANY` is IN and `<> ALL` is NOT IN. Other comparisons have no hash keys: `x op ANY (S)` is a
// semi join on `x op y`, `x op ALL (S)` an anti join on the rows that make `x op y` not TRUE.
#include "shoal/sql/optimizer/decorrelation.h"
#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::optimizer {

namespace {

std::string NegatedComparison(const std::string& op) {
  if (op == "=")
    return "<>";
  if (op == "<>")
    return "=";
  if (op == "<")
    return ">=";
  if (op == "<=")
    return ">";
  if (op == ">")
    return "<=";
  if (op == ">=")
    return "<";
  return "";
}

ExprPtr Not(ExprPtr e) {
  bool nullable = e->nullable;
  return MakeCall("not", {std::move(e)}, DataType::Boolean(), nullable);
}

}  // namespace

std::optional<SubqueryRewrite> RewriteInSubquery(const LogicalPlanPtr& input, const Expr& subquery,
                                                 bool negated, bool top_level,
                                                 ColumnIdSource& ids) {
  if (subquery.args.empty() || ContainsSubquery(subquery.args[0]))
    return std::nullopt;
  SubqueryKind kind = subquery.subquery_kind;
  std::string op = subquery.comparison;
  if (kind != SubqueryKind::kIn && negated) {
    // NOT (x op ANY S) = x (not op) ALL S under three-valued logic, and the reverse.
    op = NegatedComparison(op);
    kind = kind == SubqueryKind::kAny ? SubqueryKind::kAll : SubqueryKind::kAny;
    negated = false;
  }
  bool in_form = kind == SubqueryKind::kIn || (kind == SubqueryKind::kAny && op == "=") ||
                 (kind == SubqueryKind::kAll && op == "<>");
  if (kind == SubqueryKind::kAll && op == "<>")
    negated = true;
  if (!in_form && (op.empty() || !top_level))
    return std::nullopt;

  auto pulled = PullUpCorrelation(subquery.subquery, /*allow_scalar_aggregate=*/false, ids);
  if (!pulled || pulled->plan->output.empty())
    return std::nullopt;
  const ExprPtr& x = subquery.args[0];
  ExprPtr y = MakeRef(pulled->plan->output[0]);
  JoinCondition condition =
      SplitJoinCondition(pulled->conditions, OutputIds(*input), OutputIds(*pulled->plan));
  bool correlated = !pulled->conditions.empty();

  if (!in_form) {
    ExprPtr cmp = MakeCall(op, {x, y}, DataType::Boolean(), x->nullable || y->nullable);
    if (kind == SubqueryKind::kAny) {
      condition.residual.push_back(cmp);
      return SubqueryRewrite{
          MakeJoinNode(JoinType::kSemi, input, pulled->plan, std::move(condition)), nullptr};
    }
    condition.residual.push_back(
        Not(MakeCall("is_true", {cmp}, DataType::Boolean(), /*nullable=*/false)));
    return SubqueryRewrite{MakeJoinNode(JoinType::kAnti, input, pulled->plan, std::move(condition)),
                           nullptr};
  }

  condition.left_keys.insert(condition.left_keys.begin(), x);
  condition.right_keys.insert(condition.right_keys.begin(), y);
  if (!top_level) {
    if (correlated)
      return std::nullopt;
    ColumnId mark = ids.Next();
    auto join = MakeJoinNode(JoinType::kMark, input, pulled->plan, std::move(condition), mark);
    ExprPtr value = MakeColumnRef(mark, "mark", DataType::Boolean(), true);
    return SubqueryRewrite{join, negated ? Not(value) : value};
  }
  if (!negated) {
    return SubqueryRewrite{MakeJoinNode(JoinType::kSemi, input, pulled->plan, std::move(condition)),
                           nullptr};
  }
  if (!x->nullable && !y->nullable) {
    return SubqueryRewrite{MakeJoinNode(JoinType::kAnti, input, pulled->plan, std::move(condition)),
                           nullptr};
  }
  if (correlated)
    return std::nullopt;
  return SubqueryRewrite{
      MakeJoinNode(JoinType::kNullAwareAnti, input, pulled->plan, std::move(condition)), nullptr};
}

}  // namespace shoal::sql::optimizer
