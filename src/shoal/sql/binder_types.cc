// The binder's type work: SQL type names to DataTypes, coercion of an expression to a type
// (unknown literals are converted at bind time), the common type of several expressions, and
// calls resolved against the function registry with the casts they need.

#include <optional>

#include "shoal/sql/binder_internal.h"
#include "shoal/sql/function_registry.h"
#include "shoal/sql/literal_parsing.h"

namespace shoal::sql::internal {

Result<DataType> StatementBinder::ResolveTypeName(const pg_query::TypeName& t) {
  std::string name = LastName(t.names());
  std::vector<int> mods;
  for (const auto& m : t.typmods()) {
    if (m.has_a_const() && m.a_const().has_ival())
      mods.push_back(m.a_const().ival().ival());
  }
  if (!t.array_bounds().empty()) {
    // int[] is a list of int; each further [] nests a list (PostgreSQL's int[][] is the same
    // type as int[], any number of dimensions, rectangular).
    pg_query::TypeName element = t;
    element.clear_array_bounds();
    SHOAL_ASSIGN_OR_RETURN(DataType item, ResolveTypeName(element));
    for (int i = 0; i < t.array_bounds_size(); ++i)
      item = DataType::List(item);
    return item;
  }
  if (name == "int2" || name == "smallint")
    return DataType::Int16();
  if (name == "int4" || name == "int" || name == "integer")
    return DataType::Int32();
  // oid and the reg* types: the system catalogs hold OIDs as bigint (system_catalog.h).
  if (name == "int8" || name == "bigint" || name == "oid" || name == "regclass" ||
      name == "regtype" || name == "regnamespace" || name == "regproc" || name == "xid")
    return DataType::Int64();
  if (name == "float4" || name == "real")
    return DataType::Float32();
  if (name == "float8" || name == "double" || name == "float")
    return DataType::Float64();
  if (name == "numeric" || name == "decimal") {
    // PostgreSQL's unconstrained numeric has no fixed scale; we follow DuckDB's default.
    int precision = !mods.empty() ? mods[0] : 18;
    int scale = mods.size() >= 2 ? mods[1] : (mods.empty() ? 3 : 0);
    auto type = DataType::MakeDecimal(precision, scale);
    if (!type.ok())
      return At(Status::InvalidArgument("invalid numeric type modifiers ({}, {})", precision, scale)
                    .WithSqlState("22023"),
                t.location());
    return *type;
  }
  if (name == "bool" || name == "boolean")
    return DataType::Boolean();
  if (name == "text" || name == "varchar" || name == "bpchar" || name == "char" ||
      name == "character" || name == "string" || name == "name")
    return DataType::Utf8();
  if (name == "bytea")
    return DataType::Binary();
  if (name == "date")
    return DataType::Date32();
  if (name == "timestamp")
    return DataType::Timestamp(columnar::TimeUnit::kMicro);
  if (name == "timestamptz")
    return DataType::Timestamp(columnar::TimeUnit::kMicro, "UTC");
  if (name == "interval")
    return DataType::Interval();
  return At(Status::NotFound("type \"{}\" does not exist", name).WithSqlState("42704"),
            t.location());
}

Result<ExprPtr> StatementBinder::Coerce(const ExprPtr& e, const DataType& type, int location) {
  if (e->type == type)
    return e;
  if (e->kind == ExprKind::kLiteral) {
    if (e->value.is_null())
      return MakeLiteral(Scalar(type));
    if (IsUnknownLiteral(e)) {
      auto v = CastTextToType(e->value.string_value(), type);
      if (!v.ok() && v.status().code() == StatusCode::kNotImplemented && type.is_nested()) {
        // '{1,2}' as an array: parsed by the cast kernel (exec/expr/array_casts.h).
        auto text = std::make_shared<Expr>(*e);
        return MakeCast(text, type);
      }
      if (!v.ok())
        return At(v.status(), location);
      return MakeLiteral(*v);
    }
    auto v = CastScalar(e->value, type);
    if (v.ok())
      return MakeLiteral(*v);
  }
  return MakeCast(e, type);
}

Result<ExprPtr> StatementBinder::CoerceToBoolean(ExprPtr e, const char* clause, int location) {
  if (e->type.id() == TypeId::kBoolean)
    return e;
  if (e->type.id() == TypeId::kNull || IsUnknownLiteral(e))
    return Coerce(e, DataType::Boolean(), location);
  return At(Status::TypeError("argument of {} must be type boolean, not type {}", clause,
                              SqlTypeName(e->type))
                .WithSqlState("42804"),
            location);
}

Result<DataType> StatementBinder::CommonType(const std::vector<ExprPtr>& exprs, const char* context,
                                             int location) {
  std::optional<DataType> common;
  bool any_unknown = false;
  for (const auto& e : exprs) {
    if (IsUnknownLiteral(e)) {
      any_unknown = true;
      continue;
    }
    if (!common) {
      common = e->type;
      continue;
    }
    auto next = CommonSuperType(*common, e->type);
    if (!next) {
      return At(Status::TypeError("{} types {} and {} cannot be matched", context,
                                  SqlTypeName(*common), SqlTypeName(e->type))
                    .WithSqlState("42804"),
                location);
    }
    common = *next;
  }
  if (!common || common->id() == TypeId::kNull)
    return any_unknown ? DataType::Utf8() : (common ? *common : DataType::Null());
  return *common;
}

Result<ExprPtr> StatementBinder::MakeResolvedCall(const std::string& name,
                                                  std::vector<ExprPtr> args, int location) {
  // Unknown-typed literals take the type of the first typed argument.
  std::optional<DataType> hint;
  for (const auto& a : args) {
    if (!IsUnknownLiteral(a) && a->type.id() != TypeId::kNull) {
      hint = a->type;
      break;
    }
  }
  std::vector<DataType> types;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    bool position_is_text = (name == "extract" || name == "date_trunc") && i == 0;
    const bool element_position =
        ((name == "array_append" || name == "array_position" || name == "map_extract_value") &&
         i == 1) ||
        (name == "array_prepend" && i == 0);
    if (IsUnknownLiteral(a) && hint && element_position && hint->is_nested())
      types.push_back(name == "map_extract_value" ? hint->key_field().type
                                                  : hint->item_field().type);
    else if (IsUnknownLiteral(a) && hint && !position_is_text && name != "like" &&
             name != "ilike" && name != "concat")
      types.push_back(*hint);
    else if (IsUnknownLiteral(a))
      types.push_back(DataType::Utf8());
    else
      types.push_back(a->type);
  }
  auto resolution = FunctionRegistry::Global().Resolve(name, FunctionKind::kScalar, types);
  if (!resolution.ok() && hint) {
    // No signature takes the hinted type there (to_char(timestamp, 'YYYY'),
    // concat_ws('-', 1, 2)): PostgreSQL would match the literal to a text parameter.
    std::vector<DataType> as_text = types;
    bool changed = false;
    for (size_t i = 0; i < args.size(); ++i) {
      if (IsUnknownLiteral(args[i]) && as_text[i] != DataType::Utf8()) {
        as_text[i] = DataType::Utf8();
        changed = true;
      }
    }
    if (changed) {
      auto retry = FunctionRegistry::Global().Resolve(name, FunctionKind::kScalar, as_text);
      if (retry.ok()) {
        types = std::move(as_text);
        resolution = std::move(retry);
      }
    }
  }
  if (!resolution.ok())
    return At(resolution.status(), location);
  bool nullable = false;
  for (size_t i = 0; i < args.size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(args[i], Coerce(args[i], resolution->arg_types[i], location));
    nullable = nullable || args[i]->nullable;
  }
  return MakeCall(name, std::move(args), resolution->result_type,
                  resolution->nullable_result && nullable);
}

Result<LogicalPlanPtr> StatementBinder::CastPlanColumns(LogicalPlanPtr plan,
                                                        const std::vector<DataType>& types) {
  bool same = true;
  for (size_t i = 0; i < types.size(); ++i)
    same = same && plan->output[i].type == types[i];
  if (same)
    return plan;
  auto project = NewNode(LogicalKind::kProject);
  for (size_t i = 0; i < types.size(); ++i) {
    const auto& c = plan->output[i];
    ExprPtr ref = MakeColumnRef(c.id, c.name, c.type, c.nullable);
    SHOAL_ASSIGN_OR_RETURN(ExprPtr cast, Coerce(ref, types[i]));
    project->exprs.push_back(cast);
    project->output.push_back({NewId(), c.name, c.qualifier, types[i], cast->nullable});
  }
  project->children.push_back(std::move(plan));
  return LogicalPlanPtr(project);
}

}  // namespace shoal::sql::internal
