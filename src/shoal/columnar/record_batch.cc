#include "shoal/columnar/record_batch.h"

namespace shoal::columnar {

RecordBatchPtr RecordBatch::Make(SchemaPtr schema, int64_t num_rows,
                                 std::vector<ArrayPtr> columns) {
  SHOAL_DCHECK(static_cast<int>(columns.size()) == schema->num_fields(), "{} columns for {} fields",
               columns.size(), schema->num_fields());
  return RecordBatchPtr(new RecordBatch(std::move(schema), num_rows, std::move(columns)));
}

RecordBatchPtr RecordBatch::Slice(int64_t offset, int64_t length) const {
  SHOAL_CHECK(offset >= 0 && length >= 0 && offset + length <= num_rows_,
              "slice [{}, +{}) of batch of {} rows", offset, length, num_rows_);
  std::vector<ArrayPtr> cols;
  cols.reserve(columns_.size());
  for (const auto& c : columns_)
    cols.push_back(c->Slice(offset, length));
  return Make(schema_, length, std::move(cols));
}

Status RecordBatch::Validate(bool check_utf8) const {
  if (static_cast<int>(columns_.size()) != schema_->num_fields()) {
    return Status::InvalidData("batch has {} columns but its schema {} fields", columns_.size(),
                               schema_->num_fields());
  }
  for (int i = 0; i < num_columns(); ++i) {
    const Field& f = schema_->field(i);
    const Array& c = *columns_[static_cast<size_t>(i)];
    if (c.type() != f.type) {
      return Status::InvalidData("column '{}' has type {} but the schema says {}", f.name,
                                 c.type().ToString(), f.type.ToString());
    }
    if (c.length() != num_rows_) {
      return Status::InvalidData("column '{}' has {} rows, the batch {}", f.name, c.length(),
                                 num_rows_);
    }
    Status st = c.Validate(check_utf8);
    if (!st.ok())
      return std::move(st).WithContext(fmt::format("column '{}'", f.name));
  }
  return Status::OK();
}

bool RecordBatch::Equals(const RecordBatch& other) const {
  if (num_rows_ != other.num_rows_ || !(*schema_ == *other.schema_))
    return false;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!ArraysEqual(*columns_[i], *other.columns_[i]))
      return false;
  }
  return true;
}

int64_t RecordBatch::BufferBytes() const {
  int64_t total = 0;
  for (const auto& c : columns_)
    total += c->BufferBytes();
  return total;
}

}  // namespace shoal::columnar
