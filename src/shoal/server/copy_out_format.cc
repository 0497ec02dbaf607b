#include "shoal/server/copy_out_format.h"

#include <algorithm>
#include <cctype>

#include "shoal/columnar/pretty_print.h"
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
      SHOAL_ASSIGN_OR_RETURN(o.header, truth(value));  // text and csv, as PostgreSQL 15
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
  if (o.binary)
    return o;
  // PostgreSQL's checks, in its order: a delimiter or NULL text that a reader could not tell
  // apart from the data is refused.
  if (o.delimiter == '\n' || o.delimiter == '\r') {
    return Status::InvalidArgument("COPY delimiter cannot be newline or carriage return")
        .WithSqlState("22023");
  }
  if (o.null_text.find_first_of("\r\n") != std::string::npos) {
    return Status::InvalidArgument("COPY null representation cannot use newline or carriage return")
        .WithSqlState("22023");
  }
  // In text format these characters begin escapes or are written by them.
  if (!o.csv && std::string_view("\\.abcdefghijklmnopqrstuvwxyz0123456789").find(o.delimiter) !=
                    std::string_view::npos) {
    return Status::InvalidArgument("COPY delimiter cannot be \"{}\"", o.delimiter)
        .WithSqlState("22023");
  }
  if (o.csv && o.delimiter == o.quote) {
    return Status::InvalidArgument("COPY delimiter and quote must be different")
        .WithSqlState("22023");
  }
  if (o.null_text.find(o.delimiter) != std::string::npos) {
    return Status::InvalidArgument("COPY delimiter must not appear in the NULL specification")
        .WithSqlState("0A000");
  }
  return o;
}

namespace {

bool NeedsTextEscape(const CopyOutOptions& o, char c) {
  return c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == o.delimiter;
}

bool NeedsCsvQuotes(const CopyOutOptions& o, std::string_view value) {
  if (value == o.null_text)
    return true;
  for (char c : value) {
    if (c == o.delimiter || c == o.quote || c == '\n' || c == '\r' || c == o.escape)
      return true;
  }
  return false;
}

// Appends `value`, which needs escaping or quoting, in the text or csv format.
void AppendEscaped(const CopyOutOptions& o, std::string_view value, std::string* out) {
  if (!o.csv) {
    size_t run = 0;  // start of the characters not yet copied
    for (size_t k = 0; k < value.size(); ++k) {
      const char c = value[k];
      if (!NeedsTextEscape(o, c))
        continue;
      out->append(value.substr(run, k - run));
      out->push_back('\\');
      switch (c) {
        case '\n': out->push_back('n'); break;
        case '\r': out->push_back('r'); break;
        case '\t': out->push_back('t'); break;
        default: out->push_back(c);  // the backslash itself, or the delimiter
      }
      run = k + 1;
    }
    out->append(value.substr(run));
    return;
  }
  out->push_back(o.quote);
  for (char c : value) {
    if (c == o.quote || c == o.escape)
      out->push_back(o.escape);
    out->push_back(c);
  }
  out->push_back(o.quote);
}

bool NeedsEscape(const CopyOutOptions& o, std::string_view value) {
  if (o.csv)
    return NeedsCsvQuotes(o, value);
  for (char c : value) {
    if (NeedsTextEscape(o, c))
      return true;
  }
  return false;
}

}  // namespace

void AppendCopyField(const CopyOutOptions& o, std::string_view value, bool is_null,
                     std::string* out) {
  if (is_null) {
    out->append(o.null_text);
  } else if (NeedsEscape(o, value)) {
    AppendEscaped(o, value, out);
  } else {
    out->append(value);
  }
}

void AppendCopyValue(const CopyOutOptions& o, const columnar::Array& column, int64_t row,
                     std::string* out, std::string* scratch) {
  if (column.IsNull(row)) {
    out->append(o.null_text);
    return;
  }
  // Written in place, then checked: almost every value (numbers, dates, most text) goes out as
  // written, and only the rare one that needs escaping is copied aside and written again.
  const size_t at = out->size();
  columnar::AppendValue(column, row, out);
  const std::string_view written(out->data() + at, out->size() - at);
  if (!NeedsEscape(o, written))
    return;
  scratch->assign(written);
  out->resize(at);
  AppendEscaped(o, *scratch, out);
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
