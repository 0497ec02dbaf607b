#include "shoal/cli/sql_output.h"

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
  std::string text = columnar::FormatValue(array, i);
  if (type.id() == TypeId::kBoolean) {
    return text == "t" ? "true" : "false";
  }
  if (IsJsonNumber(type) && text != "NaN" && text != "Infinity" && text != "-Infinity") {
    return text;
  }
  return JsonString(text);
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

std::string RenderSqlResult(const engine::QueryResult& result, SqlOutputFormat format) {
  if (result.schema == nullptr) {
    return format == SqlOutputFormat::kTable ? result.command_tag + "\n" : "";
  }
  const auto& schema = *result.schema;
  std::string out;
  switch (format) {
    case SqlOutputFormat::kTable:
      out = columnar::FormatTable(schema, result.batches);
      if (!out.empty() && out.back() != '\n') {
        out += '\n';
      }
      out += '\n';
      return out;
    case SqlOutputFormat::kCsv: {
      for (int c = 0; c < schema.num_fields(); ++c) {
        out += (c ? "," : "") + io::CsvField(schema.field(c).name);
      }
      out += '\n';
      for (const auto& batch : result.batches) {
        for (int64_t r = 0; r < batch->num_rows(); ++r) {
          for (int c = 0; c < batch->num_columns(); ++c) {
            if (c) {
              out += ',';
            }
            const auto& array = *batch->column(c);
            if (!array.IsNull(r)) {
              out += io::CsvField(columnar::FormatValue(array, r));
            }
          }
          out += '\n';
        }
      }
      return out;
    }
    case SqlOutputFormat::kJson: {
      out = "[";
      bool first = true;
      for (const auto& batch : result.batches) {
        for (int64_t r = 0; r < batch->num_rows(); ++r) {
          out += first ? "\n" : ",\n";
          first = false;
          out += "{";
          for (int c = 0; c < batch->num_columns(); ++c) {
            out += (c ? "," : "") + JsonString(schema.field(c).name) + ":" +
                   JsonValue(*batch->column(c), r);
          }
          out += "}";
        }
      }
      out += first ? "]\n" : "\n]\n";
      return out;
    }
  }
  return out;
}

}  // namespace shoal::cli
