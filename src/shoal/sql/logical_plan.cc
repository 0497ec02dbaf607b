#include "shoal/sql/logical_plan.h"

#include "shoal/sql/literal_parsing.h"

namespace shoal::sql {

const char* LogicalKindName(LogicalKind kind) {
  switch (kind) {
    case LogicalKind::kScan: return "Scan";
    case LogicalKind::kValues: return "Values";
    case LogicalKind::kFilter: return "Filter";
    case LogicalKind::kProject: return "Projection";
    case LogicalKind::kAggregate: return "Aggregate";
    case LogicalKind::kJoin: return "Join";
    case LogicalKind::kSort: return "Sort";
    case LogicalKind::kLimit: return "Limit";
    case LogicalKind::kUnion: return "Union";
    case LogicalKind::kSetOp: return "SetOp";
    case LogicalKind::kWindow: return "Window";
    case LogicalKind::kDistinct: return "Distinct";
    case LogicalKind::kTableFunction: return "TableFunction";
    case LogicalKind::kRecursiveCte: return "RecursiveCte";
    case LogicalKind::kWorkingTable: return "WorkingTable";
  }
  return "?";
}

namespace {

std::string List(const std::vector<ExprPtr>& exprs) {
  std::string out;
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (i > 0)
      out += ", ";
    out += exprs[i]->ToString();
  }
  return out;
}

std::string SortList(const std::vector<SortKey>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i > 0)
      out += ", ";
    out += keys[i].expr->ToString();
    out += keys[i].ascending ? " ASC" : " DESC";
    out += keys[i].nulls_first ? " NULLS FIRST" : " NULLS LAST";
  }
  return out;
}

const char* PredicateOpName(io::PredicateOp op) {
  switch (op) {
    case io::PredicateOp::kEq: return "=";
    case io::PredicateOp::kNe: return "<>";
    case io::PredicateOp::kLt: return "<";
    case io::PredicateOp::kLe: return "<=";
    case io::PredicateOp::kGt: return ">";
    case io::PredicateOp::kGe: return ">=";
    case io::PredicateOp::kIsNull: return "IS NULL";
    case io::PredicateOp::kIsNotNull: return "IS NOT NULL";
    case io::PredicateOp::kIn: return "IN";
  }
  return "?";
}

std::string ScanColumnName(const LogicalPlan& plan, int column) {
  if (plan.table && column >= 0 && column < plan.table->schema()->num_fields())
    return plan.table->schema()->field(column).name;
  return fmt::format("#{}", column);
}

std::string NodeLine(const LogicalPlan& plan, bool verbose) {
  std::string line = LogicalKindName(plan.kind);
  switch (plan.kind) {
    case LogicalKind::kScan: {
      line += ": " + plan.table_name + " projection=[";
      for (size_t i = 0; i < plan.projection.size(); ++i) {
        if (i > 0)
          line += ", ";
        line += ScanColumnName(plan, plan.projection[i]);
        if (i < plan.field_paths.size() && plan.table && plan.projection[i] >= 0 &&
            plan.projection[i] < plan.table->schema()->num_fields())
          line += io::FormatFieldPaths(plan.table->schema()->field(plan.projection[i]).type,
                                       plan.field_paths[i]);
      }
      line += "]";
      if (!plan.pushed_predicates.empty()) {
        line += " predicates=[";
        for (size_t i = 0; i < plan.pushed_predicates.size(); ++i) {
          const auto& p = plan.pushed_predicates[i];
          if (i > 0)
            line += ", ";
          line += ScanColumnName(plan, p.column) + " " + PredicateOpName(p.op);
          if (p.op == io::PredicateOp::kIn) {
            line += " (";
            for (size_t j = 0; j < p.values.size(); ++j)
              line += (j > 0 ? ", " : "") + LiteralToSql(p.values[j]);
            line += ")";
          } else if (!p.values.empty()) {
            line += " " + LiteralToSql(p.values[0]);
          }
        }
        line += "]";
      }
      break;
    }
    case LogicalKind::kValues: {
      line += fmt::format(": rows={}", plan.rows.size());
      if (verbose) {
        for (const auto& row : plan.rows)
          line += " (" + List(row) + ")";
      }
      break;
    }
    case LogicalKind::kFilter: line += ": " + plan.predicate->ToString(); break;
    case LogicalKind::kProject: {
      line += ": ";
      for (size_t i = 0; i < plan.exprs.size(); ++i) {
        if (i > 0)
          line += ", ";
        std::string text = plan.exprs[i]->ToString();
        line += text;
        if (i < plan.output.size() && plan.output[i].name != text)
          line += " AS " + plan.output[i].name;
      }
      break;
    }
    case LogicalKind::kAggregate:
      line += ": groupBy=[" + List(plan.group_by) + "], aggr=[" + List(plan.aggregates) + "]";
      if (!plan.grouping_sets.empty())
        line += fmt::format(", groupingSets={}", plan.grouping_sets.size());
      break;
    case LogicalKind::kJoin: {
      bool cross = plan.join_type == JoinType::kInner && plan.left_keys.empty() && !plan.predicate;
      line = cross ? std::string("CrossJoin") : std::string(JoinTypeName(plan.join_type)) + "Join";
      if (plan.lateral)
        line += " LATERAL";
      std::string cond;
      for (size_t i = 0; i < plan.left_keys.size(); ++i) {
        if (i > 0)
          cond += ", ";
        cond += plan.left_keys[i]->ToString() + " = " + plan.right_keys[i]->ToString();
      }
      if (!cond.empty())
        line += ": keys=[" + cond + "]";
      if (plan.predicate)
        line += std::string(cond.empty() ? ": " : ", ") + "filter=" + plan.predicate->ToString();
      if (plan.join_type == JoinType::kMark)
        line += fmt::format(" mark=#{}", plan.mark_column);
      break;
    }
    case LogicalKind::kSort:
      line += ": " + SortList(plan.sort_keys);
      if (plan.fetch >= 0)
        line += fmt::format(" fetch={}", plan.fetch);
      break;
    case LogicalKind::kLimit:
      line += fmt::format(": offset={}, fetch={}", plan.offset, plan.fetch);
      break;
    case LogicalKind::kUnion: break;
    case LogicalKind::kSetOp:
      line = plan.set_op == SetOpKind::kIntersect ? "Intersect" : "Except";
      if (plan.all)
        line += " All";
      break;
    case LogicalKind::kWindow: line += ": " + List(plan.exprs); break;
    case LogicalKind::kDistinct: break;
    case LogicalKind::kTableFunction:
      line += fmt::format(": {}({}){}", plan.function_name, List(plan.exprs),
                          plan.with_ordinality ? " WITH ORDINALITY" : "");
      break;
    case LogicalKind::kRecursiveCte:
      line += fmt::format(": {} working_table=#{}", plan.all ? "UNION ALL" : "UNION",
                          plan.working_table);
      break;
    case LogicalKind::kWorkingTable: line += fmt::format(": #{}", plan.working_table); break;
  }
  if (verbose) {
    line += " output=[";
    for (size_t i = 0; i < plan.output.size(); ++i) {
      const auto& c = plan.output[i];
      if (i > 0)
        line += ", ";
      line += fmt::format("#{} {}: {}{}", c.id, c.name, c.type.ToString(),
                          c.nullable ? "" : " not null");
    }
    line += "]";
    if (plan.estimated_rows >= 0)
      line += fmt::format(" rows={:.0f}", plan.estimated_rows);
    if (plan.shared_subplan >= 0)
      line += fmt::format(" shared_subplan={}", plan.shared_subplan);
  }
  return line;
}

/// Subquery expressions used by the node, for printing them under it.
std::vector<const Expr*> Subqueries(const LogicalPlan& plan) {
  std::vector<const Expr*> out;
  auto collect = [&out](const ExprPtr& e) {
    VisitExpr(e, [&out](const Expr& x) {
      if (x.kind == ExprKind::kSubquery)
        out.push_back(&x);
    });
  };
  collect(plan.predicate);
  for (const auto& e : plan.exprs)
    collect(e);
  for (const auto& e : plan.group_by)
    collect(e);
  for (const auto& e : plan.aggregates)
    collect(e);
  for (const auto& k : plan.sort_keys)
    collect(k.expr);
  for (const auto& row : plan.rows) {
    for (const auto& e : row)
      collect(e);
  }
  return out;
}

void Print(const LogicalPlan& plan, bool verbose, int indent, std::string* out) {
  out->append(static_cast<size_t>(indent), ' ');
  out->append(NodeLine(plan, verbose));
  out->push_back('\n');
  for (const Expr* sub : Subqueries(plan)) {
    out->append(static_cast<size_t>(indent) + 2, ' ');
    out->append("Subquery: " + sub->ToString() + "\n");
    if (sub->subquery)
      Print(*sub->subquery, verbose, indent + 4, out);
  }
  for (const auto& child : plan.children)
    Print(*child, verbose, indent + 2, out);
}

}  // namespace

std::string FormatLogicalPlan(const LogicalPlan& plan, bool verbose) {
  std::string out;
  Print(plan, verbose, 0, &out);
  return out;
}

}  // namespace shoal::sql
