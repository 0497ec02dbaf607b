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
    default: return t.ToString();
  }
}

}  // namespace shoal::columnar
