#include "shoal/cli/sql_output.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/io/csv_field.h"

namespace shoal::cli {

namespace {

using columnar::TypeId;

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

bool IsJsonNumber(const columnar::DataType& type) {
  return type.is_integer() || type.id() == TypeId::kFloat32 || type.id() == TypeId::kFloat64 ||
         type.id() == TypeId::kDecimal;
}

std::string JsonValue(const columnar::Array& array, int64_t i) {
  if (array.IsNull(i)) {
    return "null";
  }
  const auto& type = array.type();
  // Arrays are JSON arrays, records JSON objects of their fields, maps JSON objects keyed by the
  // keys' text (DuckDB's JSON of a map).
  if (type.id() == TypeId::kList || type.id() == TypeId::kLargeList ||
      type.id() == TypeId::kFixedSizeList) {
    const columnar::Array& items = *array.child(0);
    std::string out = "[";
    for (int64_t j = array.ListStart(i); j < array.ListEnd(i); ++j)
      out += (j > array.ListStart(i) ? "," : "") + JsonValue(items, j);
    return out + "]";
  }
  if (type.id() == TypeId::kStruct) {
    std::string out = "{";
    for (int f = 0; f < type.num_fields(); ++f) {
      const columnar::Array& field = *array.child(f);
      out += (f > 0 ? "," : "") + JsonString(type.field(f).name) + ":" +
             JsonValue(field, array.ChildRow(i));
    }
    return out + "}";
  }
  if (type.id() == TypeId::kMap) {
    const columnar::Array& entries = *array.child(0);
    std::string out = "{";
    for (int64_t j = array.ListStart(i); j < array.ListEnd(i); ++j) {
      const int64_t row = entries.ChildRow(j);
      const columnar::Array& keys = *entries.child(0);
      const columnar::Array& values = *entries.child(1);
      out += (j > array.ListStart(i) ? "," : "") + JsonString(columnar::FormatValue(keys, row)) +
             ":" + JsonValue(values, row);
    }
    return out + "}";
  }
  std::string text = columnar::FormatValue(array, i);
  if (type.id() == TypeId::kBoolean) {
    return text == "t" ? "true" : "false";
  }
  if (IsJsonNumber(type) && text != "NaN" && text != "Infinity" && text != "-Infinity") {
    return text;
  }
  return JsonString(text);
}

size_t DisplayWidth(std::string_view text) {
  size_t n = 0;
  for (unsigned char c : text)
    n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t nl = text.find('\n'); nl != std::string_view::npos; nl = text.find('\n', start)) {
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  out.push_back(text.substr(start));
  return out;
}

// psql's expanded output (print_aligned_vertical): the record header fills the name column and
// the value column when it fits in the first, and the whole width otherwise; a value of several
// lines continues under an empty name, its lines ending in '+'.
// Records numbered from first_record + 1; widths are those of these rows (a window of a streamed
// result: each window is aligned on its own, as psql's FETCH_COUNT does).
std::string RenderExpanded(const columnar::Schema& schema,
                           const std::vector<columnar::RecordBatchPtr>& batches,
                           int64_t first_record) {
  size_t name_width = 0;
  for (int c = 0; c < schema.num_fields(); ++c)
    name_width = std::max(name_width, DisplayWidth(schema.field(c).name));
  size_t value_width = 0;
  int64_t rows = 0;
  for (const auto& batch : batches) {
    rows += batch->num_rows();
    for (int c = 0; c < batch->num_columns(); ++c) {
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        if (batch->column(c)->IsNull(r))
          continue;
        const std::string value = columnar::FormatValue(*batch->column(c), r);
        for (std::string_view line : Lines(value))
          value_width = std::max(value_width, DisplayWidth(line));
      }
    }
  }
  if (rows == 0)
    return "";
  std::string out;
  int64_t record = first_record;
  for (const auto& batch : batches) {
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string header = fmt::format("-[ RECORD {} ]", ++record);
      if (header.size() <= name_width + 1) {
        header += std::string(name_width + 1 - header.size(), '-') + "+" +
                  std::string(value_width + 1, '-');
      } else if (header.size() < name_width + 3 + value_width) {
        header += std::string(name_width + 3 + value_width - header.size(), '-');
      }
      out += header + "\n";
      for (int c = 0; c < batch->num_columns(); ++c) {
        const std::string& name = schema.field(c).name;
        const auto& array = *batch->column(c);
        std::string value = array.IsNull(r) ? "" : columnar::FormatValue(array, r);
        const auto lines = Lines(value);
        for (size_t l = 0; l < lines.size(); ++l) {
          std::string_view shown = l == 0 ? std::string_view(name) : std::string_view();
          out += std::string(shown) + std::string(name_width - DisplayWidth(shown), ' ') + " |";
          out += " " + std::string(lines[l]);
          if (l + 1 < lines.size())
            out += std::string(value_width - DisplayWidth(lines[l]), ' ') + "+";
          out += "\n";
        }
      }
    }
  }
  return out;
}

}  // namespace

std::string FormatSqlError(const Status& status, const std::string& sql) {
  std::string out = "ERROR:  " + status.UserMessage() + "\n";
  if (status.position() > 0 && !sql.empty()) {
    // Find the line holding the position'th character (UTF-8 code points, 1-based).
    int chars = 0;
    size_t line_start = 0;
    int line_no = 1;
    int column = 0;  // characters before the error on its line
    size_t i = 0;
    for (; i < sql.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(sql[i]);
      if ((c & 0xC0) == 0x80) {
        continue;
      }
      if (++chars == status.position()) {
        break;
      }
      if (c == '\n') {
        ++line_no;
        line_start = i + 1;
        column = 0;
      } else {
        ++column;
      }
    }
    if (i < sql.size()) {
      size_t line_end = sql.find('\n', line_start);
      std::string prefix = fmt::format("LINE {}: ", line_no);
      out += prefix + sql.substr(line_start, line_end == std::string::npos ? std::string::npos
                                                                           : line_end - line_start);
      out += "\n" + std::string(prefix.size() + static_cast<size_t>(column), ' ') + "^\n";
    }
  }
  if (!status.hint().empty()) {
    out += "HINT:  " + status.hint() + "\n";
  }
  return out;
}

std::string RenderSqlRows(const columnar::Schema& schema,
                          const std::vector<columnar::RecordBatchPtr>& batches,
                          SqlOutputFormat format, int64_t first_row, bool header) {
  std::string out;
  switch (format) {
    case SqlOutputFormat::kExpanded: return RenderExpanded(schema, batches, first_row);
    case SqlOutputFormat::kTable: {
      columnar::PrintOptions options;
      options.show_header = header;
      options.show_row_count = false;
      return columnar::FormatTable(schema, batches, options);
    }
    case SqlOutputFormat::kCsv: {
      if (header) {
        for (int c = 0; c < schema.num_fields(); ++c)
          out += (c ? "," : "") + io::CsvField(schema.field(c).name);
        out += '\n';
      }
      for (const auto& batch : batches) {
        for (int64_t r = 0; r < batch->num_rows(); ++r) {
          for (int c = 0; c < batch->num_columns(); ++c) {
            if (c)
              out += ',';
            const auto& array = *batch->column(c);
            if (!array.IsNull(r))
              out += io::CsvField(columnar::FormatValue(array, r));
          }
          out += '\n';
        }
      }
      return out;
    }
    case SqlOutputFormat::kJson: {
      int64_t row = first_row;
      for (const auto& batch : batches) {
        for (int64_t r = 0; r < batch->num_rows(); ++r) {
          out += row++ == 0 ? "\n{" : ",\n{";
          for (int c = 0; c < batch->num_columns(); ++c) {
            out += (c ? "," : "") + JsonString(schema.field(c).name) + ":" +
                   JsonValue(*batch->column(c), r);
          }
          out += "}";
        }
      }
      return out;
    }
  }
  return out;
}

}  // namespace shoal::cli
