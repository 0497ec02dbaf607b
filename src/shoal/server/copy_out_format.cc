#include "shoal/server/copy_out_format.h"

#include <algorithm>
#include <cctype>

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
        return Status::NotImplemented("COPY TO STDOUT in binary format is not supported yet")
            .WithSqlState("0A000")
            .WithHint("use FORMAT text or FORMAT csv");
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

}  // namespace shoal::server
