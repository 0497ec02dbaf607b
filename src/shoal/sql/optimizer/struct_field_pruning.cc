// Struct field pruning: a scanned struct column that the plan only reads through field accesses
// ((s).a, s.b.c) is read with only those fields, as DuckDB's and DataFusion's projection pushdown
// do — a Parquet scan then reads only those fields' leaf column chunks.
//
// Runs after projection pruning. Every use of a struct column of a scan whose table
// ReadsStructFieldsAlone() is collected over the whole plan (column ids are query-wide unique):
// a maximal chain of struct_field calls over the column names a field path; any other reference
// — the column as a value in an expression, in the root's output, or in the input of an operator
// that takes its input's columns by position (set operations, DISTINCT, VALUES, table functions,
// recursive CTEs) — needs the whole column. A column only read through paths gets the pruned type
// io::SelectStructFields gives; the scan carries the paths (LogicalPlan::field_paths), and every
// node that passes the column on (filters, sorts, joins, windows) and every field access over it
// are rewritten to that type, the accesses' field indexes renumbered to the pruned struct. Plans
// with subqueries left in expressions are not touched.
//
// Lists of structs are read whole: (l[1]).a reads the list, not a path.
#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <unordered_map>

#include "shoal/io/struct_field_selection.h"
#include "shoal/sql/optimizer/optimizer.h"
#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::optimizer {

namespace {

using columnar::TypeId;

// The kept fields of one struct level (as io::SelectStructFields keeps them).
struct Selection {
  bool whole = false;
  std::map<int, Selection> fields;
};

void AddPath(Selection* root, const io::FieldPath& path) {
  Selection* at = root;
  for (int index : path) {
    if (at->whole)
      return;
    at = &at->fields[index];
  }
  at->whole = true;
  at->fields.clear();
}

void LeafPaths(const Selection& s, io::FieldPath* prefix, std::vector<io::FieldPath>* out) {
  if (s.whole) {
    out->push_back(*prefix);
    return;
  }
  for (const auto& [index, child] : s.fields) {
    prefix->push_back(index);
    LeafPaths(child, prefix, out);
    prefix->pop_back();
  }
}

bool IsFieldAccess(const Expr& e) {
  return e.kind == ExprKind::kCall && e.name == "struct_field" && e.args.size() == 2 &&
         e.args[0] != nullptr && e.args[0]->type.id() == TypeId::kStruct && IsLiteral(e.args[1]) &&
         !e.args[1]->value.is_null() && e.args[1]->value.type().id() == TypeId::kInt32;
}

struct Usage {
  DataType type;  // the column's full type
  bool whole = false;
  Selection selection;
};

class StructFieldPruning {
 public:
  Result<LogicalPlanPtr> Run(const LogicalPlanPtr& plan) {
    bool subqueries = false;
    FindCandidates(*plan, &subqueries);
    if (subqueries || usage_.empty())
      return plan;
    for (ColumnId id : OutputIds(*plan))
      MarkWhole(id);
    CollectPlan(*plan);
    for (auto& [id, u] : usage_) {
      if (u.whole || u.selection.fields.empty())
        continue;
      std::vector<io::FieldPath> paths;
      io::FieldPath prefix;
      LeafPaths(u.selection, &prefix, &paths);
      SHOAL_ASSIGN_OR_RETURN(DataType pruned, io::SelectStructFields(u.type, paths));
      if (pruned == u.type)
        continue;
      pruned_.emplace(id, Pruned{std::move(pruned), std::move(paths), &u.selection});
    }
    if (pruned_.empty())
      return plan;
    return RewritePlan(plan);
  }

 private:
  struct Pruned {
    DataType type;
    std::vector<io::FieldPath> paths;
    const Selection* selection;
  };

  void FindCandidates(const LogicalPlan& node, bool* subqueries) {
    if (!visited_.insert(&node).second)
      return;
    *subqueries = *subqueries || HasSubqueryExpr(node);
    if (node.kind == LogicalKind::kScan && node.table && node.table->ReadsStructFieldsAlone() &&
        node.field_paths.empty()) {
      for (const ColumnInfo& c : node.output) {
        if (c.type.id() == TypeId::kStruct)
          usage_[c.id].type = c.type;
      }
    }
    for (const auto& child : node.children)
      FindCandidates(*child, subqueries);
  }

  void MarkWhole(ColumnId id) {
    auto it = usage_.find(id);
    if (it != usage_.end())
      it->second.whole = true;
  }

  void CollectPlan(const LogicalPlan& node) {
    if (!collected_.insert(&node).second)
      return;
    MapNodeExprsIfChanged(node, [&](const ExprPtr& e) {
      CollectExpr(e);
      return e;
    });
    switch (node.kind) {
      case LogicalKind::kProject:
      case LogicalKind::kAggregate:
      case LogicalKind::kFilter:
      case LogicalKind::kSort:
      case LogicalKind::kLimit:
      case LogicalKind::kJoin:
      case LogicalKind::kWindow: break;
      default:
        // Takes its children's columns by position: each one is used whole.
        for (const auto& child : node.children) {
          for (const ColumnInfo& c : child->output)
            MarkWhole(c.id);
        }
        break;
    }
    for (const auto& child : node.children)
      CollectPlan(*child);
  }

  // The column a maximal chain of field accesses starting at `e` reads, with its path; null when
  // `e` is no such chain over a candidate column.
  const Expr* Chain(const Expr& e, io::FieldPath* path) const {
    const Expr* x = &e;
    path->clear();
    while (IsFieldAccess(*x)) {
      path->push_back(static_cast<int>(x->args[1]->value.int_value()));
      x = x->args[0].get();
    }
    if (path->empty() || x->kind != ExprKind::kColumnRef || x->outer_depth != 0 ||
        usage_.count(x->column) == 0)
      return nullptr;
    std::reverse(path->begin(), path->end());
    return x;
  }

  void CollectExpr(const ExprPtr& e) {
    if (!e)
      return;
    io::FieldPath path;
    if (const Expr* column = Chain(*e, &path)) {
      AddPath(&usage_[column->column].selection, path);
      return;
    }
    if (e->kind == ExprKind::kColumnRef) {
      MarkWhole(e->column);
      return;
    }
    for (const auto& a : e->args)
      CollectExpr(a);
    CollectExpr(e->filter);
    for (const auto& k : e->order_by)
      CollectExpr(k.expr);
    for (const auto& p : e->partition_by)
      CollectExpr(p);
    CollectExpr(e->frame.start_offset);
    CollectExpr(e->frame.end_offset);
  }

  ExprPtr RewriteExpr(const ExprPtr& e) const {
    if (!e)
      return e;
    io::FieldPath path;
    if (const Expr* column = Chain(*e, &path)) {
      auto it = pruned_.find(column->column);
      if (it == pruned_.end())
        return e;
      // Rebuild the chain from the column up: indexes into the pruned structs, their types.
      auto ref = std::make_shared<Expr>(*column);
      ref->type = it->second.type;
      ExprPtr value = ref;
      std::vector<const Expr*> calls;
      for (const Expr* x = e.get(); x != column; x = x->args[0].get())
        calls.push_back(x);
      const Selection* at = it->second.selection;
      for (size_t k = calls.size(); k-- > 0;) {
        const Expr& call = *calls[k];
        const int index = static_cast<int>(call.args[1]->value.int_value());
        auto copy = std::make_shared<Expr>(call);
        if (at != nullptr && !at->whole) {
          auto field = at->fields.find(index);
          const int renumbered = static_cast<int>(std::distance(at->fields.begin(), field));
          at = &field->second;
          // The field's type in the pruned struct (itself pruned below when `at` is not whole).
          copy->type = value->type.field(renumbered).type;
          copy->args = {value, MakeLiteral(Scalar::Int32(renumbered))};
        } else {
          at = nullptr;
          copy->args = {value, call.args[1]};
        }
        value = copy;
      }
      return value;
    }
    bool changed = false;
    auto sub = [&](const ExprPtr& child) {
      ExprPtr out = RewriteExpr(child);
      changed = changed || out != child;
      return out;
    };
    auto copy = std::make_shared<Expr>(*e);
    for (auto& a : copy->args)
      a = sub(a);
    copy->filter = sub(copy->filter);
    for (auto& k : copy->order_by)
      k.expr = sub(k.expr);
    for (auto& p : copy->partition_by)
      p = sub(p);
    copy->frame.start_offset = sub(copy->frame.start_offset);
    copy->frame.end_offset = sub(copy->frame.end_offset);
    return changed ? ExprPtr(copy) : e;
  }

  Result<LogicalPlanPtr> RewritePlan(const LogicalPlanPtr& plan) {
    auto done = rewritten_.find(plan.get());
    if (done != rewritten_.end())
      return done->second;
    auto node = MapNodeExprs(*plan, [&](const ExprPtr& e) { return RewriteExpr(e); });
    for (auto& child : node->children) {
      SHOAL_ASSIGN_OR_RETURN(child, RewritePlan(child));
    }
    bool scan_pruned = false;
    for (ColumnInfo& c : node->output) {
      auto it = pruned_.find(c.id);
      if (it != pruned_.end()) {
        c.type = it->second.type;
        scan_pruned = scan_pruned || node->kind == LogicalKind::kScan;
      }
    }
    if (scan_pruned) {
      node->field_paths.assign(node->projection.size(), {});
      for (size_t i = 0; i < node->output.size() && i < node->projection.size(); ++i) {
        auto it = pruned_.find(node->output[i].id);
        if (it != pruned_.end())
          node->field_paths[i] = it->second.paths;
      }
    }
    LogicalPlanPtr out = node;
    rewritten_.emplace(plan.get(), out);
    return out;
  }

  std::unordered_map<ColumnId, Usage> usage_;
  std::unordered_map<ColumnId, Pruned> pruned_;
  std::set<const LogicalPlan*> visited_;
  std::set<const LogicalPlan*> collected_;
  std::unordered_map<const LogicalPlan*, LogicalPlanPtr> rewritten_;
};

class StructFieldPruningRule : public OptimizerRule {
 public:
  const char* name() const override { return "struct_field_pruning"; }

  Result<LogicalPlanPtr> Apply(const LogicalPlanPtr& plan, OptimizerContext&) const override {
    StructFieldPruning pruning;
    return pruning.Run(plan);
  }
};

}  // namespace

std::unique_ptr<OptimizerRule> MakeStructFieldPruningRule() {
  return std::make_unique<StructFieldPruningRule>();
}

}  // namespace shoal::sql::optimizer
