#include "shoal/server/statement_shape.h"

#include <algorithm>
#include <cctype>
#include <memory>

namespace shoal::server {

bool ReturnsRows(sql::StatementKind kind) {
  switch (kind) {
    case sql::StatementKind::kQuery:
    case sql::StatementKind::kExplain:
    case sql::StatementKind::kShow:
    case sql::StatementKind::kShowAll: return true;
    default: return false;
  }
}

bool IsWrite(sql::StatementKind kind) {
  switch (kind) {
    case sql::StatementKind::kQuery:
    case sql::StatementKind::kExplain:
    case sql::StatementKind::kShow:
    case sql::StatementKind::kShowAll:
    case sql::StatementKind::kSet:
    case sql::StatementKind::kReset:
    case sql::StatementKind::kResetAll: return false;
    default: return true;
  }
}

columnar::SchemaPtr ResultSchemaOf(const sql::BoundStatement& bound) {
  auto text_columns = [](std::initializer_list<std::string> names) {
    std::vector<columnar::Field> fields;
    for (const auto& n : names) {
      fields.emplace_back(n, columnar::DataType::Utf8(), false);
    }
    return std::make_shared<columnar::Schema>(std::move(fields));
  };
  switch (bound.kind) {
    case sql::StatementKind::kQuery: {
      std::vector<columnar::Field> fields;
      for (const auto& c : bound.plan->output) {
        fields.emplace_back(c.name, c.type, c.nullable);
      }
      return std::make_shared<columnar::Schema>(std::move(fields));
    }
    case sql::StatementKind::kExplain: return text_columns({"QUERY PLAN"});
    case sql::StatementKind::kShow: return text_columns({bound.setting_name});
    case sql::StatementKind::kShowAll: return text_columns({"name", "setting", "description"});
    default: return nullptr;
  }
}

std::vector<std::string> LeadingWords(std::string_view text, size_t limit) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size() && words.size() < limit) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (text.substr(i, 2) == "--") {
      size_t end = text.find('\n', i);
      i = end == std::string_view::npos ? text.size() : end + 1;
    } else if (text.substr(i, 2) == "/*") {
      size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 2;
    } else if (c == '"') {
      size_t end = text.find('"', i + 1);
      end = end == std::string_view::npos ? text.size() : end;
      words.emplace_back(text.substr(i + 1, end - i - 1));  // quoted: kept as written
      i = end + 1;
    } else {
      size_t start = i;
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])) &&
             text[i] != ';') {
        ++i;
      }
      if (i == start) {
        ++i;
        continue;
      }
      std::string word(text.substr(start, i - start));
      // Unquoted names fold to lower case, keywords are compared upper-cased.
      std::transform(word.begin(), word.end(), word.begin(),
                     [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
      words.push_back(std::move(word));
    }
  }
  return words;
}

}  // namespace shoal::server
