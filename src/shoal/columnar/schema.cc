#include "shoal/columnar/schema.h"

namespace shoal::columnar {

std::string Field::ToString() const {
  return name + ": " + type.ToString() + (nullable ? "" : " not null");
}

std::optional<int> Schema::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name)
      return static_cast<int>(i);
  }
  return std::nullopt;
}

std::string Schema::ToString() const {
  std::string out;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0)
      out += ", ";
    out += fields_[i].ToString();
  }
  return out;
}

}  // namespace shoal::columnar
