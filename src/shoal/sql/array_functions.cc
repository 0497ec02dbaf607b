// Type rules of the array, record and map functions: PostgreSQL's array functions (int[] is a
// list of int; a list of lists is a multidimensional array), array_agg, and DuckDB's map
// functions. ARRAY[...], subscripts, slices, ROW(...), field access and op ANY/ALL (array) are
// typed by the binder itself (binder_arrays.cc), which knows their element types.

#include <string>
#include <utility>
#include <vector>

#include "shoal/sql/function_registry_internal.h"

namespace shoal::sql::internal {

namespace {

bool IsArray(const DataType& t) {
  return t.id() == TypeId::kList;
}

DataType Item(const DataType& t) {
  return t.item_field().type;
}

/// An argument of an array parameter: an array, or NULL (typed as the other array).
std::optional<DataType> ArrayOf(const DataType& t, const std::optional<DataType>& other) {
  if (IsArray(t))
    return t;
  if (t.id() == TypeId::kNull && other && IsArray(*other))
    return *other;
  return std::nullopt;
}

/// (array, array) of a common array type -> result (array_cat, @>, <@, &&).
TypeRule TwoArrays(bool result_is_array) {
  return [result_is_array](const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
    if (args.size() != 2)
      return std::nullopt;
    auto a = ArrayOf(args[0], args[1]);
    auto b = ArrayOf(args[1], args[0]);
    if (!a || !b)
      return std::nullopt;
    auto common = CommonSuperType(*a, *b);
    if (!common)
      return std::nullopt;
    return Res({*common, *common}, result_is_array ? *common : DataType::Boolean());
  };
}

/// (array, element) or (element, array) -> the array (array_append, array_prepend) or int
/// (array_position).
TypeRule ArrayAndElement(size_t array_at, const std::optional<DataType>& result) {
  return
      [array_at, result](const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
        if (args.size() != 2)
          return std::nullopt;
        const size_t element_at = 1 - array_at;
        const DataType& el = args[element_at];
        std::optional<DataType> item;
        if (IsArray(args[array_at]))
          item = CommonSuperType(Item(args[array_at]), el);
        else if (args[array_at].id() == TypeId::kNull && el.id() != TypeId::kNull)
          item = el;
        if (!item)
          return std::nullopt;
        std::vector<DataType> types(2);
        types[array_at] = DataType::List(*item);
        types[element_at] = *item;
        return Res(types, result ? *result : DataType::List(*item));
      };
}

}  // namespace

void RegisterArrayBuiltins(FunctionRegistry& r) {
  auto scalar = [&r](std::string name, TypeRule rule, std::string sig) {
    r.Register({std::move(name), FunctionKind::kScalar, std::move(rule), std::move(sig)});
  };
  const DataType kInt = DataType::Int32();
  const DataType kText = DataType::Utf8();
  for (const char* name : {"array_length", "array_upper", "array_lower"}) {
    scalar(
        name,
        [kInt](const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
          if (args.size() != 2 || !IsArray(args[0]) || !CanImplicitCast(args[1], kInt))
            return std::nullopt;
          return Res({args[0], kInt}, kInt);
        },
        std::string(name) + "(anyarray, integer)");
  }
  scalar(
      "cardinality",
      [kInt](const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
        if (args.size() != 1 || !IsArray(args[0]))
          return std::nullopt;
        return Res({args[0]}, kInt);
      },
      "cardinality(anyarray)");
  scalar(
      "array_position",
      [kInt, element = ArrayAndElement(0, kInt)](
          const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
        if (args.size() == 3) {
          if (!CanImplicitCast(args[2], kInt))
            return std::nullopt;
          auto r = element({args[0], args[1]});
          if (r)
            r->arg_types.push_back(kInt);
          return r;
        }
        return element(args);
      },
      "array_position(anyarray, anyelement[, integer])");
  scalar("array_append", ArrayAndElement(0, std::nullopt), "array_append(anyarray, anyelement)");
  scalar("array_prepend", ArrayAndElement(1, std::nullopt), "array_prepend(anyelement, anyarray)");
  scalar("array_cat", TwoArrays(true), "array_cat(anyarray, anyarray)");
  for (const char* op : {"@>", "<@", "&&"})
    scalar(op, TwoArrays(false), std::string("anyarray ") + op + " anyarray");
  scalar(
      "array_to_string",
      [kText](const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
        if ((args.size() != 2 && args.size() != 3) || !IsArray(args[0]))
          return std::nullopt;
        for (size_t i = 1; i < args.size(); ++i) {
          if (!CanImplicitCast(args[i], kText))
            return std::nullopt;
        }
        std::vector<DataType> types(args.size(), kText);
        types[0] = args[0];
        return Res(types, kText);
      },
      "array_to_string(anyarray, text[, text])");
  scalar(
      "string_to_array",
      [kText](const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
        if (args.size() != 2 && args.size() != 3)
          return std::nullopt;
        for (const auto& a : args) {
          if (!CanImplicitCast(a, kText))
            return std::nullopt;
        }
        return Res(std::vector<DataType>(args.size(), kText), DataType::List(kText));
      },
      "string_to_array(text, text[, text])");
  // Maps, as DuckDB spells them.
  scalar(
      "map_keys",
      [](const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
        if (args.size() != 1 || args[0].id() != TypeId::kMap)
          return std::nullopt;
        return Res(args, DataType::List(args[0].key_field().type));
      },
      "map_keys(map)");
  scalar(
      "map_values",
      [](const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
        if (args.size() != 1 || args[0].id() != TypeId::kMap)
          return std::nullopt;
        return Res(args, DataType::List(args[0].value_field().type));
      },
      "map_values(map)");
  scalar(
      "map_extract_value",
      [](const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
        if (args.size() != 2 || args[0].id() != TypeId::kMap)
          return std::nullopt;
        const DataType& key = args[0].key_field().type;
        if (!CanImplicitCast(args[1], key))
          return std::nullopt;
        return Res({args[0], key}, args[0].value_field().type);
      },
      "map_extract_value(map, key)");
  scalar(
      "map",
      [](const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
        if (args.size() != 2 || !IsArray(args[0]) || !IsArray(args[1]))
          return std::nullopt;
        DataType type = DataType::Map(columnar::Field("key", Item(args[0]), false),
                                      columnar::Field("value", Item(args[1]), true));
        return Res(args, type);
      },
      "map(anyarray, anyarray)");
  // unnest(array) in a select list (binder_arrays.cc turns the call into an Unnest operator).
  scalar(
      "unnest",
      [](const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
        if (args.size() != 1 || !IsArray(args[0]))
          return std::nullopt;
        return Res(args, Item(args[0]));
      },
      "unnest(anyarray)");
  // array_agg(x): the non-null inputs' values, NULL elements kept; NULL for no rows.
  r.Register({"array_agg", FunctionKind::kAggregate,
              [](const std::vector<DataType>& args) -> std::optional<FunctionResolution> {
                if (args.size() != 1)
                  return std::nullopt;
                DataType item = args[0].id() == TypeId::kNull ? DataType::Utf8() : args[0];
                return Res({item}, DataType::List(item));
              },
              "array_agg(anyelement)"});
}

}  // namespace shoal::sql::internal
