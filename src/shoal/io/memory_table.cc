#include "shoal/io/memory_table.h"

#include <charconv>

namespace shoal::io {
namespace {

using columnar::RecordBatch;
using columnar::RecordBatchPtr;
using columnar::SchemaPtr;

class MemoryUnitReader final : public columnar::RecordBatchReader {
 public:
  MemoryUnitReader(SchemaPtr schema, RecordBatchPtr batch, std::vector<int> projection,
                   int64_t batch_size, int64_t limit)
      : schema_(std::move(schema)),
        batch_(std::move(batch)),
        projection_(std::move(projection)),
        batch_size_(std::max<int64_t>(1, batch_size)),
        remaining_(limit < 0 ? INT64_MAX : limit) {}

  const SchemaPtr& schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    if (!batch_ || offset_ >= batch_->num_rows() || remaining_ <= 0) {
      batch_ = nullptr;
      return RecordBatchPtr();
    }
    int64_t n = std::min({batch_size_, batch_->num_rows() - offset_, remaining_});
    std::vector<columnar::ArrayPtr> columns;
    columns.reserve(projection_.size());
    for (int c : projection_)
      columns.push_back(batch_->column(c)->Slice(offset_, n));
    offset_ += n;
    remaining_ -= n;
    return RecordBatch::Make(schema_, n, std::move(columns));
  }

 private:
  SchemaPtr schema_;
  RecordBatchPtr batch_;
  std::vector<int> projection_;
  int64_t batch_size_;
  int64_t remaining_;
  int64_t offset_ = 0;
};

}  // namespace

Result<columnar::SchemaPtr> ProjectSchema(const columnar::Schema& schema,
                                          const std::vector<int>& projection) {
  std::vector<columnar::Field> fields;
  for (int c : projection) {
    if (c < 0 || c >= schema.num_fields())
      return Status::Internal("projection index {} out of range ({} columns)", c,
                              schema.num_fields());
    fields.push_back(schema.field(c));
  }
  return std::make_shared<const columnar::Schema>(std::move(fields), schema.metadata());
}

Result<columnar::SchemaPtr> ProjectSchema(const columnar::Schema& schema,
                                          const ScanRequest& request) {
  SHOAL_ASSIGN_OR_RETURN(columnar::SchemaPtr projected, ProjectSchema(schema, request.projection));
  if (request.field_paths.empty())
    return projected;
  if (request.field_paths.size() != request.projection.size())
    return Status::InvalidArgument("a scan has {} field path lists for {} columns",
                                   request.field_paths.size(), request.projection.size());
  std::vector<columnar::Field> fields = projected->fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(fields[i].type,
                           SelectStructFields(fields[i].type, request.field_paths[i]));
  }
  return std::make_shared<const columnar::Schema>(std::move(fields), projected->metadata());
}

Result<std::shared_ptr<MemoryTable>> MemoryTable::Make(columnar::SchemaPtr schema,
                                                       std::vector<RecordBatchPtr> batches) {
  std::shared_ptr<MemoryTable> table(new MemoryTable(std::move(schema)));
  SHOAL_RETURN_IF_ERROR(table->Append(std::move(batches)));
  return table;
}

Status MemoryTable::Append(std::vector<RecordBatchPtr> batches) {
  for (const RecordBatchPtr& b : batches) {
    if (b->num_columns() != schema_->num_fields())
      return Status::TypeError("INSERT has {} columns but the table has {}", b->num_columns(),
                               schema_->num_fields());
    for (int c = 0; c < b->num_columns(); ++c) {
      if (b->column(c)->type() != schema_->field(c).type) {
        return Status::TypeError("column \"{}\" is of type {} but the inserted value is {}",
                                 schema_->field(c).name, schema_->field(c).type.ToString(),
                                 b->column(c)->type().ToString());
      }
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (RecordBatchPtr& b : batches) {
    if (b->num_rows() == 0)
      continue;
    num_rows_ += b->num_rows();
    // Keep the table's own schema (names, metadata) on every stored batch.
    if (b->schema() != schema_)
      b = RecordBatch::Make(schema_, b->num_rows(), b->columns());
    batches_.push_back(std::move(b));
  }
  return Status::OK();
}

int64_t MemoryTable::num_rows() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return num_rows_;
}

std::vector<RecordBatchPtr> MemoryTable::batches() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return batches_;
}

io::TableStatistics MemoryTable::statistics() const {
  io::TableStatistics stats;
  std::lock_guard<std::mutex> lock(mutex_);
  stats.num_rows = num_rows_;
  int64_t bytes = 0;
  for (const auto& b : batches_)
    bytes += b->BufferBytes();
  stats.total_bytes = bytes;
  return stats;
}

Result<std::vector<io::ScanUnit>> MemoryTable::PlanScan(const io::ScanRequest& request) const {
  std::vector<io::ScanUnit> units;
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t rows = 0;
  for (size_t i = 0; i < batches_.size(); ++i) {
    if (request.limit >= 0 && rows >= request.limit)
      break;
    io::ScanUnit unit;
    unit.description = fmt::format("memory batch {}", i);
    unit.rows = batches_[i]->num_rows();
    unit.bytes = batches_[i]->BufferBytes();
    unit.payload = std::to_string(i);
    rows += unit.rows;
    units.push_back(std::move(unit));
  }
  return units;
}

Result<columnar::RecordBatchReaderPtr> MemoryTable::OpenUnit(const io::ScanUnit& unit,
                                                             const io::ScanRequest& request,
                                                             const io::ScanContext&) const {
  size_t index = 0;
  auto [ptr, ec] =
      std::from_chars(unit.payload.data(), unit.payload.data() + unit.payload.size(), index);
  if (ec != std::errc() || ptr != unit.payload.data() + unit.payload.size())
    return Status::InvalidData("bad memory scan unit \"{}\"", unit.payload);
  RecordBatchPtr batch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (index >= batches_.size())
      return Status::InvalidData("memory scan unit {} out of range", index);
    batch = batches_[index];
  }
  SHOAL_ASSIGN_OR_RETURN(SchemaPtr schema, ProjectSchema(*schema_, request.projection));
  return columnar::RecordBatchReaderPtr(new MemoryUnitReader(
      std::move(schema), std::move(batch), request.projection, request.batch_size, request.limit));
}

}  // namespace shoal::io
