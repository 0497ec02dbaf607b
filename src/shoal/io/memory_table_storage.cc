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

// One part, the whole table; the new rows collect in memory until Replace commits them.
class WholeTableRewrite final : public TableRewrite {
 public:
  explicit WholeTableRewrite(TableStorage* storage) : storage_(storage) {
    parts_.push_back(storage->Snapshot());
  }

  Status BeginPart(size_t part) override {
    if (part != 0 || replaced_)
      return Status::Internal("part {} of a one-part table rewritten twice or unknown", part);
    rows_.clear();
    return Status::OK();
  }
  Status Write(const columnar::RecordBatchPtr& batch) override {
    if (batch->num_rows() > 0)
      rows_.push_back(batch);
    return Status::OK();
  }
  Status FinishPart() override {
    replaced_ = true;
    return Status::OK();
  }
  void AbandonPart() override { rows_.clear(); }
  Result<TableProviderPtr> NewRows() const override {
    if (!replaced_)
      return parts_.front();
    SHOAL_ASSIGN_OR_RETURN(auto table, MemoryTable::Make(parts_.front()->schema(),
                                                         Relabel(parts_.front()->schema(), rows_)));
    return TableProviderPtr(std::move(table));
  }
  Status Commit() override {
    if (!replaced_)
      return Status::OK();
    return storage_->Replace(std::move(rows_));
  }

 private:
  TableStorage* storage_;
  std::vector<columnar::RecordBatchPtr> rows_;
  bool replaced_ = false;
};

}  // namespace

std::unique_ptr<TableRewrite> MakeWholeTableRewrite(TableStorage* storage) {
  return std::make_unique<WholeTableRewrite>(storage);
}

Result<std::unique_ptr<TableRewrite>> TableStorage::BeginRewrite() {
  return MakeWholeTableRewrite(this);
}

Status TableStorage::AddColumn(const columnar::Field& field, const columnar::Scalar&,
                               const std::string&) {
  return Status::NotImplemented("a {} table adds column {} by writing its rows again", kind(),
                                field.name);
}

Status ForEachBatch(const TableProvider& table,
                    const std::function<Status(const columnar::RecordBatchPtr&)>& consume) {
  ScanRequest request;
  for (int c = 0; c < table.schema()->num_fields(); ++c)
    request.projection.push_back(c);
  SHOAL_ASSIGN_OR_RETURN(auto units, table.PlanScan(request));
  ScanContext context;
  context.pool = DefaultMemoryPool();
  for (const auto& unit : units) {
    SHOAL_ASSIGN_OR_RETURN(auto reader, table.OpenUnit(unit, request, context));
    for (;;) {
      SHOAL_ASSIGN_OR_RETURN(auto batch, reader->Next());
      if (!batch)
        break;
      if (batch->num_rows() > 0)
        SHOAL_RETURN_IF_ERROR(consume(batch));
    }
  }
  return Status::OK();
}

Result<std::vector<columnar::RecordBatchPtr>> ReadAllRows(const TableProvider& table) {
  std::vector<columnar::RecordBatchPtr> rows;
  SHOAL_RETURN_IF_ERROR(ForEachBatch(table, [&](const columnar::RecordBatchPtr& batch) {
    rows.push_back(batch);
    return Status::OK();
  }));
  return rows;
}

Result<std::shared_ptr<MemoryTableStorage>> MemoryTableStorage::Make(
    columnar::SchemaPtr schema, const std::vector<columnar::RecordBatchPtr>& batches) {
  auto relabelled = Relabel(schema, batches);
  SHOAL_ASSIGN_OR_RETURN(auto table, MemoryTable::Make(std::move(schema), std::move(relabelled)));
  auto storage = std::shared_ptr<MemoryTableStorage>(new MemoryTableStorage(std::move(table)));
  storage->defaults_.resize(static_cast<size_t>(storage->table_->schema()->num_fields()));
  return storage;
}

std::vector<std::string> MemoryTableStorage::column_defaults() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return defaults_;
}

Status MemoryTableStorage::SetColumnDefaults(std::vector<std::string> defaults) {
  std::lock_guard<std::mutex> lock(mutex_);
  defaults.resize(static_cast<size_t>(table_->schema()->num_fields()));
  defaults_ = std::move(defaults);
  return Status::OK();
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
  defaults_.resize(static_cast<size_t>(schema->num_fields()));  // a new column has none yet
  return Status::OK();
}

Status MemoryTableStorage::Rename(columnar::SchemaPtr schema) {
  std::lock_guard<std::mutex> lock(mutex_);
  SHOAL_ASSIGN_OR_RETURN(table_, MemoryTable::Make(schema, Relabel(schema, table_->batches())));
  return Status::OK();
}

}  // namespace shoal::io
