#include "shoal/columnar/sql_type_name.h"

#include <fmt/format.h>

namespace shoal::columnar {

std::string SqlTypeName(const DataType& t) {
  switch (t.id()) {
    case TypeId::kNull: return "unknown";
    case TypeId::kBoolean: return "boolean";
    case TypeId::kInt8: return "tinyint";
    case TypeId::kInt16: return "smallint";
    case TypeId::kInt32: return "integer";
    case TypeId::kInt64: return "bigint";
    case TypeId::kFloat32: return "real";
    case TypeId::kFloat64: return "double precision";
    case TypeId::kDecimal: return fmt::format("numeric({},{})", t.precision(), t.scale());
    case TypeId::kDate32: return "date";
    case TypeId::kTimestamp:
      return t.timezone().empty() ? "timestamp without time zone" : "timestamp with time zone";
    case TypeId::kInterval: return "interval";
    case TypeId::kUtf8: return "text";
    case TypeId::kBinary: return "bytea";
    case TypeId::kDictionary: return SqlTypeName(t.value_type());
    // PostgreSQL spells arrays "integer[]" (a fixed size is "integer[3]"); records and maps have
    // no PostgreSQL name, so DuckDB's shape is used with PostgreSQL's type names.
    case TypeId::kList:
    case TypeId::kLargeList: return SqlTypeName(t.item_type()) + "[]";
    case TypeId::kFixedSizeList:
      return fmt::format("{}[{}]", SqlTypeName(t.item_type()), t.list_size());
    case TypeId::kStruct: {
      std::string s = "struct(";
      for (int i = 0; i < t.num_fields(); ++i)
        s += (i > 0 ? ", " : "") + t.field(i).name + " " + SqlTypeName(t.field(i).type);
      return s + ")";
    }
    case TypeId::kMap:
      return fmt::format("map({}, {})", SqlTypeName(t.key_field().type),
                         SqlTypeName(t.value_field().type));
    default: return t.ToString();
  }
}

}  // namespace shoal::columnar
