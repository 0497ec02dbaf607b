#include "tests/slt/value_render.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "shoal/columnar/pretty_print.h"

namespace shoal::slt {

using columnar::DataType;
using columnar::TypeId;

std::string RenderFloat(double v, int significant_digits) {
  if (std::isnan(v))
    return "NaN";
  if (std::isinf(v))
    return v > 0 ? "Infinity" : "-Infinity";
  // Rounding absorbs the last-bit differences that summation order causes (parallel and
  // distributed aggregation), so expected results do not depend on the plan.
  std::string rounded = fmt::format("{:.{}g}", v, significant_digits);
  double r = std::strtod(rounded.c_str(), nullptr);
  if (r == 0)
    return "0";  // also -0
  return fmt::format("{}", r);
}

std::string RenderValue(const columnar::Array& array, int64_t i) {
  if (array.IsNull(i))
    return "NULL";
  switch (array.type_id()) {
    case TypeId::kBoolean: return array.BoolValue(i) ? "true" : "false";
    case TypeId::kFloat32: return RenderFloat(array.Value<float>(i), 6);
    case TypeId::kFloat64: return RenderFloat(array.Value<double>(i), 12);
    case TypeId::kUtf8: {
      std::string_view s = array.StringValue(i);
      if (s.empty())
        return "(empty)";
      std::string out;
      out.reserve(s.size());
      for (char c : s) {
        switch (c) {
          case '\t': out += "\\t"; break;
          case '\n': out += "\\n"; break;
          case '\r': out += "\\r"; break;
          default: out += c;
        }
      }
      return out;
    }
    case TypeId::kDictionary: {
      int64_t k = array.DictionaryIndex(i);
      return RenderValue(*array.dictionary(), k);
    }
    default: return columnar::FormatValue(array, i);
  }
}

Result<std::vector<Row>> RenderRows(const QueryResult& result) {
  std::vector<Row> rows;
  if (result.schema == nullptr) {
    for (const auto& batch : result.batches) {
      if (batch->num_rows() > 0)
        return Status::InvalidData("result has rows but no schema");
    }
    return rows;
  }
  const columnar::Schema& schema = *result.schema;
  for (const auto& batch : result.batches) {
    if (batch->num_columns() != schema.num_fields())
      return Status::InvalidData("a result batch has {} columns but the schema has {}",
                                 batch->num_columns(), schema.num_fields());
    for (int c = 0; c < batch->num_columns(); ++c) {
      if (batch->column(c)->type() != schema.field(c).type)
        return Status::InvalidData("result column {} is {} in a batch but {} in the schema", c + 1,
                                   batch->column(c)->type().ToString(),
                                   schema.field(c).type.ToString());
    }
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      Row row;
      row.reserve(static_cast<size_t>(batch->num_columns()));
      for (int c = 0; c < batch->num_columns(); ++c)
        row.push_back(RenderValue(*batch->column(c), r));
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

bool TypeCharAccepts(char c, const DataType& type) {
  if (type.id() == TypeId::kNull || c == '?')
    return true;
  if (type.id() == TypeId::kDictionary)
    return TypeCharAccepts(c, type.value_type());
  switch (c) {
    case 'I': return type.is_integer();
    case 'R':
      return type.id() == TypeId::kFloat32 || type.id() == TypeId::kFloat64 ||
             type.id() == TypeId::kDecimal;
    case 'T': return type.is_binary_like() || type.is_nested();
    case 'B': return type.id() == TypeId::kBoolean;
    case 'D':
      return type.id() == TypeId::kDate32 || type.id() == TypeId::kTimestamp ||
             type.id() == TypeId::kInterval;
    case 'P': return type.id() == TypeId::kTimestamp;
    default: return false;
  }
}

char CanonicalTypeChar(const DataType& type) {
  for (char c : std::string_view("IRTBD")) {
    if (type.id() != TypeId::kNull && TypeCharAccepts(c, type))
      return c;
  }
  return '?';
}

}  // namespace shoal::slt
