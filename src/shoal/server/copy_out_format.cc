#include "shoal/server/copy_out_format.h"

#include <algorithm>
#include <cctype>

#include "shoal/server/pg_types.h"

namespace shoal::server {

Result<CopyOutOptions> ParseCopyOutOptions(
    const std::vector<std::pair<std::string, std::string>>& options) {
  CopyOutOptions o;
  auto truth = [](const std::string& v) -> Result<bool> {
    std::string l = v;
    std::transform(l.begin(), l.end(), l.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (l == "true" || l == "on" || l == "1")
      return true;
    if (l == "false" || l == "off" || l == "0")
      return false;
    return Status::InvalidArgument("{} requires a Boolean value", v).WithSqlState("22023");
  };
  auto one_char = [](const std::string& name, const std::string& v) -> Result<char> {
    if (v.size() != 1) {
      return Status::InvalidArgument("COPY {} must be a single one-byte character", name)
          .WithSqlState("0A000");
    }
    return v[0];
  };
  // FORMAT first: it sets the defaults the others override.
  for (const auto& [name, value] : options) {
    if (name == "format") {
      if (value == "csv") {
        o.csv = true;
        o.delimiter = ',';
        o.null_text = "";
      } else if (value == "binary") {
        o.binary = true;
      } else if (value != "text") {
        return Status::InvalidArgument("COPY format \"{}\" not recognized", value)
            .WithSqlState("22023");
      }
    }
  }
  for (const auto& [name, value] : options) {
    if (name == "format") {
      continue;
    }
    if (o.binary && (name == "delimiter" || name == "null" || name == "header")) {
      // PostgreSQL's words: "cannot specify DELIMITER in BINARY mode".
      std::string upper = name;
      std::transform(upper.begin(), upper.end(), upper.begin(),
                     [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
      return Status::SyntaxError("cannot specify {} in BINARY mode", upper);
    }
    if (name == "delimiter") {
      SHOAL_ASSIGN_OR_RETURN(o.delimiter, one_char("delimiter", value));
    } else if (name == "null") {
      o.null_text = value;
    } else if (name == "header") {
      SHOAL_ASSIGN_OR_RETURN(o.header, truth(value));
      if (o.header && !o.csv) {
        return Status::InvalidArgument("COPY HEADER available only in CSV mode")
            .WithSqlState("0A000");
      }
    } else if (name == "quote" || name == "escape") {
      if (!o.csv) {
        return Status::InvalidArgument("COPY {} available only in CSV mode", name)
            .WithSqlState("0A000");
      }
      SHOAL_ASSIGN_OR_RETURN(char c, one_char(name, value));
      (name == "quote" ? o.quote : o.escape) = c;
    } else {
      return Status::NotImplemented("COPY TO STDOUT option \"{}\" is not supported", name)
          .WithSqlState("0A000");
    }
  }
  return o;
}

void AppendCopyField(const CopyOutOptions& o, std::string_view value, bool is_null,
                     std::string* out) {
  if (is_null) {
    out->append(o.null_text);
    return;
  }
  if (!o.csv) {
    for (char c : value) {
      switch (c) {
        case '\\': out->append("\\\\"); break;
        case '\n': out->append("\\n"); break;
        case '\r': out->append("\\r"); break;
        case '\t': out->append("\\t"); break;
        default:
          if (c == o.delimiter) {
            out->push_back('\\');
          }
          out->push_back(c);
      }
    }
    return;
  }
  bool quote = value == o.null_text ||
               value.find_first_of(std::string{o.delimiter, o.quote, '\n', '\r'}) !=
                   std::string_view::npos ||
               (o.escape != o.quote && value.find(o.escape) != std::string_view::npos);
  if (!quote) {
    out->append(value);
    return;
  }
  out->push_back(o.quote);
  for (char c : value) {
    if (c == o.quote || c == o.escape) {
      out->push_back(o.escape);
    }
    out->push_back(c);
  }
  out->push_back(o.quote);
}

namespace {

void PutCopyInt16(std::string* out, int16_t v) {
  auto u = static_cast<uint16_t>(v);
  out->push_back(static_cast<char>(u >> 8));
  out->push_back(static_cast<char>(u & 0xFF));
}

void PutCopyInt32(std::string* out, int32_t v) {
  auto u = static_cast<uint32_t>(v);
  for (int shift = 24; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((u >> shift) & 0xFF));
  }
}

}  // namespace

void AppendCopyBinaryHeader(std::string* out) {
  static constexpr char kSignature[] = "PGCOPY\n\377\r\n";  // and its terminating NUL
  out->append(kSignature, sizeof(kSignature));
  PutCopyInt32(out, 0);  // flags: no OIDs
  PutCopyInt32(out, 0);  // header extension length
}

void AppendCopyBinaryTuple(const columnar::RecordBatch& batch, int64_t row, std::string* out) {
  const int n = batch.num_columns();
  PutCopyInt16(out, static_cast<int16_t>(n));
  for (int c = 0; c < n; ++c) {
    const columnar::Array& column = *batch.column(c);
    if (column.IsNull(row)) {
      PutCopyInt32(out, -1);
      continue;
    }
    const size_t length_at = out->size();
    PutCopyInt32(out, 0);
    AppendBinaryValue(column, row, out);
    const auto length = static_cast<uint32_t>(out->size() - length_at - 4);
    for (int k = 0; k < 4; ++k) {
      (*out)[length_at + static_cast<size_t>(k)] =
          static_cast<char>((length >> (24 - 8 * k)) & 0xFF);
    }
  }
}

void AppendCopyBinaryTrailer(std::string* out) {
  PutCopyInt16(out, -1);
}

}  // namespace shoal::server
