// Field and Schema: names, types, nullability and key/value metadata of a record batch's columns.
// Metadata round-trips through Arrow IPC (custom_metadata), so it can carry Shoal-specific hints
// such as statistics or the original SQL type.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shoal/columnar/data_type.h"

namespace shoal::columnar {

// Field and KeyValueMetadata are declared in data_type.h, where nested types need them.

class Schema {
 public:
  Schema() = default;

  explicit Schema(std::vector<Field> fields, KeyValueMetadata metadata = {})
      : fields_(std::move(fields)), metadata_(std::move(metadata)) {}

  int num_fields() const { return static_cast<int>(fields_.size()); }

  const Field& field(int i) const { return fields_[static_cast<size_t>(i)]; }

  const std::vector<Field>& fields() const { return fields_; }

  const KeyValueMetadata& metadata() const { return metadata_; }

  /// Index of the first field named `name`, or nullopt.
  std::optional<int> FieldIndex(std::string_view name) const;

  /// "a: int32 not null, b: utf8".
  std::string ToString() const;
  friend bool operator==(const Schema&, const Schema&) = default;

 private:
  std::vector<Field> fields_;
  KeyValueMetadata metadata_;
};

using SchemaPtr = std::shared_ptr<const Schema>;

}  // namespace shoal::columnar
