#include "shoal/io/memory_table_storage.h"

namespace shoal::io {

namespace {

// The batches re-labelled with `schema` (same column types, the table's names), empty ones left
// out.
std::vector<columnar::RecordBatchPtr> Relabel(
    const columnar::SchemaPtr& schema, const std::vector<columnar::RecordBatchPtr>& batches) {
  std::vector<columnar::RecordBatchPtr> out;
  out.reserve(batches.size());
  for (const auto& b : batches) {
    if (b->num_rows() > 0)
      out.push_back(columnar::RecordBatch::Make(schema, b->num_rows(), b->columns()));
  }
  return out;
}

}  // namespace

Result<std::vector<columnar::RecordBatchPtr>> ReadAllRows(const TableProvider& table) {
  ScanRequest request;
  for (int c = 0; c < table.schema()->num_fields(); ++c)
    request.projection.push_back(c);
  SHOAL_ASSIGN_OR_RETURN(auto units, table.PlanScan(request));
  ScanContext context;
  context.pool = DefaultMemoryPool();
  std::vector<columnar::RecordBatchPtr> rows;
  for (const auto& unit : units) {
    SHOAL_ASSIGN_OR_RETURN(auto reader, table.OpenUnit(unit, request, context));
    for (;;) {
      SHOAL_ASSIGN_OR_RETURN(auto batch, reader->Next());
      if (!batch)
        break;
      if (batch->num_rows() > 0)
        rows.push_back(std::move(batch));
    }
  }
  return rows;
}

Result<std::shared_ptr<MemoryTableStorage>> MemoryTableStorage::Make(
    columnar::SchemaPtr schema, const std::vector<columnar::RecordBatchPtr>& batches) {
  auto relabelled = Relabel(schema, batches);
  SHOAL_ASSIGN_OR_RETURN(auto table, MemoryTable::Make(std::move(schema), std::move(relabelled)));
  return std::shared_ptr<MemoryTableStorage>(new MemoryTableStorage(std::move(table)));
}

columnar::SchemaPtr MemoryTableStorage::schema() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return table_->schema();
}

TableProviderPtr MemoryTableStorage::Snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return table_;
}

int64_t MemoryTableStorage::num_rows() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return table_->num_rows();
}

Status MemoryTableStorage::Append(std::vector<columnar::RecordBatchPtr> batches) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<columnar::RecordBatchPtr> all = table_->batches();
  for (auto& b : Relabel(table_->schema(), batches))
    all.push_back(std::move(b));
  SHOAL_ASSIGN_OR_RETURN(table_, MemoryTable::Make(table_->schema(), std::move(all)));
  return Status::OK();
}

Status MemoryTableStorage::Replace(std::vector<columnar::RecordBatchPtr> batches,
                                   columnar::SchemaPtr schema) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (schema == nullptr)
    schema = table_->schema();
  SHOAL_ASSIGN_OR_RETURN(table_, MemoryTable::Make(schema, Relabel(schema, batches)));
  return Status::OK();
}

Status MemoryTableStorage::Rename(columnar::SchemaPtr schema) {
  std::lock_guard<std::mutex> lock(mutex_);
  SHOAL_ASSIGN_OR_RETURN(table_, MemoryTable::Make(schema, Relabel(schema, table_->batches())));
  return Status::OK();
}

}  // namespace shoal::io
