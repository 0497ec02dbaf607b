// RecordBatch: equal-length columns under a schema; the unit every operator consumes and produces
// and every exchange ships. Immutable and shared (RecordBatchPtr); slicing is zero-copy.
#pragma once

#include <memory>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/columnar/schema.h"

namespace shoal::columnar {

class RecordBatch;
using RecordBatchPtr = std::shared_ptr<const RecordBatch>;

class RecordBatch {
 public:
  /// Columns must match the schema's types and all have `num_rows` elements (checked in debug
  /// builds; use Validate() for batches built from outside bytes).
  static RecordBatchPtr Make(SchemaPtr schema, int64_t num_rows, std::vector<ArrayPtr> columns);

  const SchemaPtr& schema() const { return schema_; }

  int64_t num_rows() const { return num_rows_; }

  int num_columns() const { return static_cast<int>(columns_.size()); }

  const ArrayPtr& column(int i) const { return columns_[static_cast<size_t>(i)]; }

  const std::vector<ArrayPtr>& columns() const { return columns_; }

  RecordBatchPtr Slice(int64_t offset, int64_t length) const;
  /// Checks column count, types and lengths against the schema, then each column's Validate().
  Status Validate(bool check_utf8 = true) const;
  /// Same schema, same rows, same values.
  bool Equals(const RecordBatch& other) const;
  int64_t BufferBytes() const;

 private:
  RecordBatch(SchemaPtr schema, int64_t num_rows, std::vector<ArrayPtr> columns)
      : schema_(std::move(schema)), num_rows_(num_rows), columns_(std::move(columns)) {}

  SchemaPtr schema_;
  int64_t num_rows_;
  std::vector<ArrayPtr> columns_;
};

}  // namespace shoal::columnar
