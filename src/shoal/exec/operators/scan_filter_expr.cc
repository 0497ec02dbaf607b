#include "shoal/exec/operators/scan_filter_expr.h"

#include <vector>

#include "shoal/exec/expr/evaluator.h"

namespace shoal::exec {

namespace {

void Flatten(const sql::ExprPtr& e, std::vector<sql::ExprPtr>* out) {
  if (e->kind == sql::ExprKind::kCall && e->name == "and") {
    for (const auto& a : e->args)
      Flatten(a, out);
    return;
  }
  out->push_back(e);
}

sql::ExprPtr Conjunction(const std::vector<sql::ExprPtr>& conjuncts) {
  if (conjuncts.empty())
    return nullptr;
  if (conjuncts.size() == 1)
    return conjuncts.front();
  bool nullable = false;
  for (const auto& c : conjuncts)
    nullable = nullable || c->nullable;
  return sql::MakeCall("and", conjuncts, columnar::DataType::Boolean(), nullable);
}

bool ReadsColumn(const sql::ExprPtr& e) {
  bool reads = false;
  sql::VisitExpr(e, [&](const sql::Expr& node) {
    reads = reads || (node.kind == sql::ExprKind::kColumnRef && node.outer_depth == 0);
  });
  return reads;
}

}  // namespace

std::string ScanFilterExpr::ToString() const {
  return expr_->ToString();
}

Result<sql::ExprPtr> ScanFilterExpression(const io::ScanRequest& request) {
  if (request.filter == nullptr)
    return sql::ExprPtr();
  const auto* filter = dynamic_cast<const ScanFilterExpr*>(request.filter.get());
  if (filter == nullptr)
    return Status::Internal("a scan's filter is not the engine's");
  return filter->expr();
}

ScanFilterSplit SplitScanFilter(const sql::ExprPtr& predicate) {
  ScanFilterSplit split;
  if (predicate == nullptr)
    return split;
  std::vector<sql::ExprPtr> conjuncts;
  Flatten(predicate, &conjuncts);
  std::vector<sql::ExprPtr> pushed;
  std::vector<sql::ExprPtr> kept;
  for (const auto& c : conjuncts) {
    const bool boolean = c->type.id() == columnar::TypeId::kBoolean;
    (boolean && ExprCannotFail(*c) && ReadsColumn(c) ? pushed : kept).push_back(c);
  }
  split.pushed = Conjunction(pushed);
  split.kept = Conjunction(kept);
  return split;
}

sql::ExprPtr ConjoinFilters(sql::ExprPtr a, sql::ExprPtr b) {
  if (a == nullptr)
    return b;
  if (b == nullptr)
    return a;
  std::vector<sql::ExprPtr> conjuncts;
  Flatten(a, &conjuncts);
  Flatten(b, &conjuncts);
  return Conjunction(conjuncts);
}

}  // namespace shoal::exec
