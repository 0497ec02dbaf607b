// The binder's arrays and records: ARRAY[...] (a list; nested ARRAY[[...]] a list of lists,
// where PostgreSQL would build one rectangular multidimensional array), subscripts and slices,
// field access (s).f, ROW(...), op ANY / ALL (array) and the array operators (@>, <@, &&, ||).

#include <string>
#include <vector>

#include "shoal/sql/binder_internal.h"
#include "shoal/sql/function_registry.h"

namespace shoal::sql::internal {

Result<ExprPtr> StatementBinder::BindArrayConstructor(const pg_query::A_ArrayExpr& a,
                                                      ExprContext& ctx, const DataType* target) {
  std::vector<ExprPtr> elements;
  for (const auto& n : a.elements()) {
    if (n.has_a_array_expr()) {
      // ARRAY[[1,2],[3,4]]: the inner brackets are arrays too.
      const DataType* inner =
          target != nullptr && target->id() == TypeId::kList ? &target->item_field().type : nullptr;
      SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindArrayConstructor(n.a_array_expr(), ctx, inner));
      elements.push_back(std::move(e));
      continue;
    }
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(n, ctx));
    elements.push_back(std::move(e));
  }
  DataType item;
  if (target != nullptr && target->id() == TypeId::kList) {
    item = target->item_field().type;
  } else if (elements.empty()) {
    return At(Status::InvalidArgument("cannot determine type of empty array")
                  .WithSqlState("42P18")
                  .WithHint("Explicitly cast to the desired type, for example ARRAY[]::integer[]."),
              a.location());
  } else {
    SHOAL_ASSIGN_OR_RETURN(item, CommonType(elements, "ARRAY", a.location()));
    if (item.id() == TypeId::kNull)
      item = DataType::Utf8();
  }
  for (auto& e : elements) {
    SHOAL_ASSIGN_OR_RETURN(e, Coerce(e, item, a.location()));
  }
  return MakeCall("make_array", std::move(elements), DataType::List(item), false);
}

Result<ExprPtr> StatementBinder::BindIndirection(const pg_query::A_Indirection& ind,
                                                 ExprContext& ctx) {
  SHOAL_ASSIGN_OR_RETURN(ExprPtr value, BindExpr(ind.arg(), ctx));
  for (const auto& step : ind.indirection()) {
    if (step.has_a_indices()) {
      const auto& idx = step.a_indices();
      if (value->type.id() == TypeId::kUtf8 && !idx.is_slice() && idx.has_uidx()) {
        // arr[i] over a system catalog array (text): its i-th element, as an integer (the
        // arrays clients subscript are of OIDs and column numbers).
        SHOAL_ASSIGN_OR_RETURN(ExprPtr index, BindExpr(idx.uidx(), ctx));
        SHOAL_ASSIGN_OR_RETURN(value, BindSqlExpression(kArrayTextElement, {value, index}, ctx));
        continue;
      }
      if (value->type.id() == TypeId::kMap && !idx.is_slice() && idx.has_uidx()) {
        SHOAL_ASSIGN_OR_RETURN(ExprPtr key, BindExpr(idx.uidx(), ctx));
        SHOAL_ASSIGN_OR_RETURN(value, MakeResolvedCall("map_extract_value", {value, key}, -1));
        continue;
      }
      if (value->type.id() != TypeId::kList) {
        return At(Status::TypeError("cannot subscript type {} because it does not support "
                                    "subscripting",
                                    SqlTypeName(value->type))
                      .WithSqlState("42804"),
                  -1);
      }
      auto bound = [&](const PgNode& n, int64_t absent) -> Result<ExprPtr> {
        if (n.node_case() == PgNode::NODE_NOT_SET)
          return MakeLiteral(Scalar::Int64(absent));
        SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(n, ctx));
        if (!e->type.is_integer() && e->type.id() != TypeId::kNull && !IsUnknownLiteral(e))
          return At(
              Status::TypeError("array subscript must have type integer").WithSqlState("42804"),
              -1);
        return Coerce(e, DataType::Int64());
      };
      if (!idx.is_slice()) {
        SHOAL_ASSIGN_OR_RETURN(ExprPtr i, bound(idx.uidx(), 0));
        const DataType item = value->type.item_field().type;
        value = MakeCall("array_subscript", {value, i}, item, true);
      } else {
        SHOAL_ASSIGN_OR_RETURN(ExprPtr lo, bound(idx.lidx(), 1));
        SHOAL_ASSIGN_OR_RETURN(ExprPtr hi, bound(idx.uidx(), INT32_MAX));
        const DataType type = value->type;
        const bool nullable = value->nullable || lo->nullable || hi->nullable;
        value = MakeCall("array_slice", {value, lo, hi}, type, nullable);
      }
      continue;
    }
    if (step.has_string()) {
      const std::string name = step.string().sval();
      if (value->type.id() != TypeId::kStruct) {
        return At(Status::TypeError("column notation .{} applied to type {}, which is not a "
                                    "composite type",
                                    name, SqlTypeName(value->type))
                      .WithSqlState("42809"),
                  -1);
      }
      int found = -1;
      for (int i = 0; i < value->type.num_fields(); ++i) {
        if (value->type.field(i).name == name) {
          found = i;
          break;
        }
      }
      if (found < 0)
        return At(Status::NotFound("column \"{}\" not found in data type {}", name,
                                   SqlTypeName(value->type))
                      .WithSqlState("42703"),
                  -1);
      const DataType type = value->type.field(found).type;
      value = MakeCall("struct_field", {value, MakeLiteral(Scalar::Int32(found))}, type, true);
      continue;
    }
    return At(Status::NotImplemented("this indirection is not supported").WithSqlState("0A000"),
              -1);
  }
  return value;
}

Result<ExprPtr> StatementBinder::BindRowConstructor(const pg_query::RowExpr& row,
                                                    ExprContext& ctx) {
  std::vector<ExprPtr> args;
  std::vector<columnar::Field> fields;
  for (const auto& n : row.args()) {
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(n, ctx));
    if (IsUnknownLiteral(e) || e->type.id() == TypeId::kNull) {
      SHOAL_ASSIGN_OR_RETURN(e, Coerce(e, DataType::Utf8(), row.location()));
    }
    // PostgreSQL names an anonymous record's fields f1, f2, ...
    fields.emplace_back("f" + std::to_string(fields.size() + 1), e->type, true);
    args.push_back(std::move(e));
  }
  if (args.empty())
    return At(
        Status::NotImplemented("a ROW() without fields is not supported").WithSqlState("0A000"),
        row.location());
  return MakeCall("row", std::move(args), DataType::Struct(std::move(fields)), false);
}

std::optional<Result<ExprPtr>> StatementBinder::BindArrayQuantified(const std::string& op, bool all,
                                                                    const ExprPtr& l,
                                                                    const ExprPtr& r,
                                                                    int location) {
  static const std::unordered_set<std::string> kOps = {"=", "<>", "!=", "<", "<=", ">", ">="};
  if (kOps.count(op) == 0 || r->type.id() == TypeId::kUtf8)
    return std::nullopt;
  ExprPtr left = l;
  ExprPtr right = r;
  if (IsUnknownLiteral(right) || right->type.id() == TypeId::kNull) {
    // x = ANY('{1,2}'): the literal is an array of x's type.
    DataType item = IsUnknownLiteral(left) ? DataType::Utf8() : left->type;
    auto coerced = Coerce(right, DataType::List(item), location);
    if (!coerced.ok())
      return Result<ExprPtr>(coerced.status());
    right = *coerced;
  }
  if (right->type.id() != TypeId::kList)
    return Result<ExprPtr>(At(
        Status::TypeError("op ANY/ALL (array) requires array on right side").WithSqlState("42809"),
        location));
  DataType item = right->type.item_field().type;
  if (IsUnknownLiteral(left)) {
    auto c = Coerce(left, item, location);
    if (!c.ok())
      return Result<ExprPtr>(c.status());
    left = *c;
  } else {
    auto common = CommonSuperType(left->type, item);
    if (!common)
      return Result<ExprPtr>(At(Status::TypeError("operator does not exist: {} {} {}",
                                                  SqlTypeName(left->type), op, SqlTypeName(item))
                                    .WithSqlState("42883"),
                                location));
    auto cl = Coerce(left, *common, location);
    if (!cl.ok())
      return Result<ExprPtr>(cl.status());
    left = *cl;
    auto cr = Coerce(right, DataType::List(*common), location);
    if (!cr.ok())
      return Result<ExprPtr>(cr.status());
    right = *cr;
  }
  const std::string name = (op == "!=" ? std::string("<>") : op) + (all ? " all" : " any");
  return Result<ExprPtr>(MakeCall(name, {left, right}, DataType::Boolean(),
                                  left->nullable || right->nullable || true));
}

std::optional<Result<ExprPtr>> StatementBinder::BindArrayOperator(const std::string& op,
                                                                  const ExprPtr& l,
                                                                  const ExprPtr& r, int location) {
  const bool l_array = l->type.id() == TypeId::kList;
  const bool r_array = r->type.id() == TypeId::kList;
  if (!l_array && !r_array)
    return std::nullopt;
  if (op == "@>" || op == "<@" || op == "&&")
    return MakeResolvedCall(op, {l, r}, location);
  if (op == "||") {
    // array || array, array || element, element || array, as PostgreSQL resolves them.
    if (l_array && r_array)
      return MakeResolvedCall("array_cat", {l, r}, location);
    if (l_array && IsUnknownLiteral(r)) {
      auto as_array = Coerce(r, l->type, location);
      if (as_array.ok())
        return MakeResolvedCall("array_cat", {l, *as_array}, location);
    }
    if (r_array && IsUnknownLiteral(l)) {
      auto as_array = Coerce(l, r->type, location);
      if (as_array.ok())
        return MakeResolvedCall("array_cat", {*as_array, r}, location);
    }
    if (l_array)
      return MakeResolvedCall("array_append", {l, r}, location);
    return MakeResolvedCall("array_prepend", {l, r}, location);
  }
  return std::nullopt;
}

Status StatementBinder::PlanSelectListUnnest(SelectState& st) {
  std::vector<ExprPtr> arrays;
  std::vector<ColumnInfo> columns;
  bool nested = false;
  auto replace = [&](const ExprPtr& e) -> ExprPtr {
    if (e->kind != ExprKind::kCall || e->name != "unnest" || e->args.size() != 1)
      return nullptr;
    for (const ColumnId id : ReferencedColumns(e->args[0])) {
      for (const auto& c : columns)
        nested = nested || c.id == id;
    }
    ColumnInfo c{NewId(), "unnest", "", e->type, true};
    arrays.push_back(e->args[0]);
    columns.push_back(c);
    return MakeColumnRef(c.id, c.name, c.type, true);
  };
  for (auto& t : st.targets)
    t = TransformExpr(t, replace);
  if (arrays.empty())
    return Status::OK();
  if (nested)
    return Status::NotImplemented("unnest of an unnest in the select list is not supported")
        .WithSqlState("0A000");
  for (const auto& o : st.order) {
    bool uses = false;
    if (o.target < 0 && o.key.expr)
      VisitExpr(o.key.expr, [&](const Expr& e) {
        uses = uses || (e.kind == ExprKind::kCall && e.name == "unnest");
      });
    if (uses)
      return Status::NotImplemented(
                 "unnest in ORDER BY is not supported: order by its select "
                 "list position")
          .WithSqlState("0A000");
  }
  auto node = NewNode(LogicalKind::kTableFunction);
  node->function_name = "unnest";
  node->exprs = std::move(arrays);
  node->output = columns;
  node->output.insert(node->output.end(), st.plan->output.begin(), st.plan->output.end());
  node->children.push_back(st.plan);
  st.plan = node;
  return Status::OK();
}

}  // namespace shoal::sql::internal
