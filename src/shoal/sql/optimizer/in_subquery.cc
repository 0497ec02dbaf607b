// IN / NOT IN / ANY / ALL subqueries as joins (see decorrelation.h).
//
// `x IN (S)` as a whole conjunct keeps the rows with a match: a semi join on x = S's column plus
// the correlation keys (a NULL result and FALSE both drop the row, so NULLs need no care).
// `x NOT IN (S)` is TRUE only when S is empty or x differs from every value and S has no NULL:
// that is the null-aware anti join (a NULL x drops the row unless S is empty, any NULL in S drops
// every row). When neither x nor S's column can be NULL it is a plain anti join. Inside larger
// expressions an uncorrelated IN becomes a mark join, whose mark carries IN's three-valued result.
//
// `= ANY` is IN and `<> ALL` is NOT IN. Other comparisons have no hash keys: `x op ANY (S)` is a
// semi join on `x op y`, `x op ALL (S)` an anti join on the rows that make `x op y` not TRUE.
//
// A row on the left, (a, b) IN (S), compares pairwise: a semi join on all pairs as a conjunct, an
// anti join on the rows whose comparison is not FALSE for NOT IN, the two marks elsewhere.
//
// Correlated NOT IN as a conjunct is an anti join on the rows whose comparison is not FALSE (the
// NULL rule per outer row). Everywhere else — correlated IN inside OR or a select list, ANY / ALL
// inside expressions — the three-valued result comes from two mark joins: whether some row of
// the subquery compares TRUE, and whether some row compares NULL.
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

/// (x1, x2, ...) op (y1, y2, ...) for an ordering op, lexicographically as PostgreSQL compares
/// rows: the first pair that is not equal decides and a NULL in a pair reached gives NULL, which
/// is (x1 < y1) OR (x1 = y1 AND (rest)) under three-valued logic, the last pair taking op itself.
/// So NOT (row op row') is row (negated op) row', as ALL needs.
ExprPtr CompareRows(const std::string& op, const std::vector<ExprPtr>& xs,
                    const std::vector<ExprPtr>& ys) {
  auto call = [](const std::string& name, std::vector<ExprPtr> args) {
    return MakeCall(name, std::move(args), DataType::Boolean(), true);
  };
  if (op == "=" || op == "<>") {
    std::vector<ExprPtr> terms;
    for (size_t i = 0; i < xs.size(); ++i)
      terms.push_back(call(op, {xs[i], ys[i]}));
    return terms.size() == 1 ? terms[0] : call(op == "=" ? "and" : "or", std::move(terms));
  }
  const std::string strict = op.substr(0, 1);
  ExprPtr result = call(op, {xs.back(), ys.back()});
  for (size_t k = xs.size() - 1; k-- > 0;) {
    result = call("or",
                  {call(strict, {xs[k], ys[k]}), call("and", {call("=", {xs[k], ys[k]}), result})});
  }
  return result;
}

ExprPtr Not(ExprPtr e) {
  bool nullable = e->nullable;
  return MakeCall("not", {std::move(e)}, DataType::Boolean(), nullable);
}

/// The two mark joins of a three-valued IN inside an expression: TRUE when some row of the
/// subquery compares TRUE, else NULL when some row compares NULL, else FALSE.
SubqueryRewrite TwoMarks(const LogicalPlanPtr& input, const LogicalPlanPtr& plan,
                         JoinCondition some_true, JoinCondition some_null, bool negated,
                         ColumnIdSource& ids) {
  ColumnId true_mark = ids.Next();
  ColumnId null_mark = ids.Next();
  auto first = MakeJoinNode(JoinType::kMark, input, plan, std::move(some_true), true_mark);
  auto second = MakeJoinNode(JoinType::kMark, first, plan, std::move(some_null), null_mark);
  auto read = [](ColumnId mark) {
    return MakeCall("coalesce",
                    {MakeColumnRef(mark, "mark", DataType::Boolean(), true),
                     MakeLiteral(Scalar::Boolean(false))},
                    DataType::Boolean(), false);
  };
  ExprPtr value =
      MakeCase({read(true_mark), MakeLiteral(Scalar::Boolean(true)), read(null_mark),
                MakeLiteral(Scalar(DataType::Boolean())), MakeLiteral(Scalar::Boolean(false))},
               /*has_else=*/true, DataType::Boolean(), true);
  return SubqueryRewrite{second, negated ? Not(value) : value};
}

/// (x1, x2, ...) IN (S): the row equals some row of S, x1 = y1 AND x2 = y2 AND ... (three-valued:
/// a NULL in a compared pair makes the comparison NULL unless another pair differs). As a whole
/// conjunct a semi join on all pairs; NOT IN an anti join on the rows whose comparison is not
/// FALSE; elsewhere the two marks.
SubqueryRewrite RewriteRowIn(const LogicalPlanPtr& input, const Expr& subquery,
                             const DecorrelatedSubquery& pulled, bool negated, bool top_level,
                             ColumnIdSource& ids) {
  JoinCondition condition =
      SplitJoinCondition(pulled.conditions, OutputIds(*input), OutputIds(*pulled.plan));
  std::vector<ExprPtr> equalities;
  JoinCondition keyed = condition;
  for (size_t i = 0; i < subquery.args.size(); ++i) {
    const ExprPtr& x = subquery.args[i];
    ExprPtr y = MakeRef(pulled.plan->output[i]);
    equalities.push_back(MakeCall("=", {x, y}, DataType::Boolean(), x->nullable || y->nullable));
    keyed.left_keys.insert(keyed.left_keys.begin() + static_cast<long>(i), x);
    keyed.right_keys.insert(keyed.right_keys.begin() + static_cast<long>(i), y);
  }
  ExprPtr cmp = MakeCall("and", equalities, DataType::Boolean(), true);
  if (top_level && !negated)
    return SubqueryRewrite{MakeJoinNode(JoinType::kSemi, input, pulled.plan, std::move(keyed)),
                           nullptr};
  if (top_level) {
    condition.residual.push_back(
        MakeCall("is_not_false", {cmp}, DataType::Boolean(), /*nullable=*/false));
    return SubqueryRewrite{MakeJoinNode(JoinType::kAnti, input, pulled.plan, std::move(condition)),
                           nullptr};
  }
  JoinCondition some_null = condition;
  some_null.residual.push_back(MakeCall("is_null", {cmp}, DataType::Boolean(), false));
  return TwoMarks(input, pulled.plan, std::move(keyed), std::move(some_null), negated, ids);
}

}  // namespace

std::optional<SubqueryRewrite> RewriteInSubquery(const LogicalPlanPtr& input, const Expr& subquery,
                                                 bool negated, bool top_level,
                                                 ColumnIdSource& ids) {
  if (subquery.args.empty())
    return std::nullopt;
  for (const auto& a : subquery.args) {
    if (ContainsSubquery(a))
      return std::nullopt;
  }
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
  if (!in_form && op.empty())
    return std::nullopt;

  const size_t width = subquery.args.size();
  auto pulled = Decorrelate(subquery.subquery, input, ids);
  if (!pulled || pulled->plan->output.size() < width)
    return std::nullopt;
  if (width > 1 && in_form)
    return RewriteRowIn(input, subquery, *pulled, negated, top_level, ids);
  const ExprPtr& x = subquery.args[0];
  ExprPtr y = MakeRef(pulled->plan->output[0]);
  std::vector<ExprPtr> ys;
  for (size_t i = 0; i < width; ++i)
    ys.push_back(MakeRef(pulled->plan->output[i]));
  // A row on the left compares lexicographically; one value compares as itself.
  auto compare = [&](const std::string& with) {
    return width == 1 ? MakeCall(with, {x, y}, DataType::Boolean(), x->nullable || y->nullable)
                      : CompareRows(with, subquery.args, ys);
  };
  JoinCondition condition =
      SplitJoinCondition(pulled->conditions, OutputIds(*input), OutputIds(*pulled->plan));
  bool correlated = !pulled->conditions.empty();

  if (!in_form && top_level) {
    ExprPtr cmp = compare(op);
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

  if (in_form) {
    if (top_level && !negated) {
      condition.left_keys.insert(condition.left_keys.begin(), x);
      condition.right_keys.insert(condition.right_keys.begin(), y);
      return SubqueryRewrite{
          MakeJoinNode(JoinType::kSemi, input, pulled->plan, std::move(condition)), nullptr};
    }
    if (top_level && !x->nullable && !y->nullable) {
      condition.left_keys.insert(condition.left_keys.begin(), x);
      condition.right_keys.insert(condition.right_keys.begin(), y);
      return SubqueryRewrite{
          MakeJoinNode(JoinType::kAnti, input, pulled->plan, std::move(condition)), nullptr};
    }
    if (!correlated) {
      condition.left_keys.insert(condition.left_keys.begin(), x);
      condition.right_keys.insert(condition.right_keys.begin(), y);
      if (top_level) {
        return SubqueryRewrite{
            MakeJoinNode(JoinType::kNullAwareAnti, input, pulled->plan, std::move(condition)),
            nullptr};
      }
      ColumnId mark = ids.Next();
      auto join = MakeJoinNode(JoinType::kMark, input, pulled->plan, std::move(condition), mark);
      ExprPtr value = MakeColumnRef(mark, "mark", DataType::Boolean(), true);
      return SubqueryRewrite{join, negated ? Not(value) : value};
    }
    if (top_level) {
      // Correlated NOT IN: no row of the outer row's subquery result may compare TRUE or NULL.
      ExprPtr eq = MakeCall("=", {x, y}, DataType::Boolean(), true);
      condition.residual.push_back(
          MakeCall("is_not_false", {eq}, DataType::Boolean(), /*nullable=*/false));
      return SubqueryRewrite{
          MakeJoinNode(JoinType::kAnti, input, pulled->plan, std::move(condition)), nullptr};
    }
    op = "=";
    kind = SubqueryKind::kAny;
  }

  // Inside a larger expression, per outer row: TRUE when some row compares TRUE, else NULL when
  // some row compares NULL, else FALSE (x op ALL S is NOT (x (not op) ANY S)). Two mark joins
  // with two-valued marks: "some row compares TRUE", "some row compares NULL".
  if (kind == SubqueryKind::kAll) {
    op = NegatedComparison(op);
    negated = !negated;
  }
  if (op.empty())
    return std::nullopt;
  ExprPtr cmp = width == 1 ? MakeCall(op, {x, y}, DataType::Boolean(), true) : compare(op);
  JoinCondition some_true = condition;
  if (op == "=" && width == 1) {
    some_true.left_keys.insert(some_true.left_keys.begin(), x);
    some_true.right_keys.insert(some_true.right_keys.begin(), y);
  } else {
    some_true.residual.push_back(cmp);
  }
  JoinCondition some_null = condition;
  some_null.residual.push_back(MakeCall("is_null", {cmp}, DataType::Boolean(), false));
  return TwoMarks(input, pulled->plan, std::move(some_true), std::move(some_null), negated, ids);
}

}  // namespace shoal::sql::optimizer
