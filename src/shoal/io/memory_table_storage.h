// MemoryTableStorage: a table's rows as record batches in memory (TableStorage's memory
// implementation). A snapshot is a MemoryTable sharing the batches committed so far; a commit
// replaces the list of batches, never a batch, so snapshots stay valid.
#pragma once

#include <mutex>
#include <vector>

#include "shoal/io/memory_table.h"
#include "shoal/io/table_storage.h"

namespace shoal::io {

class MemoryTableStorage final : public TableStorage {
 public:
  static Result<std::shared_ptr<MemoryTableStorage>> Make(
      columnar::SchemaPtr schema, const std::vector<columnar::RecordBatchPtr>& batches = {});

  columnar::SchemaPtr schema() const override;
  std::string kind() const override { return "memory"; }
  TableProviderPtr Snapshot() const override;
  int64_t num_rows() const override;
  Status Append(std::vector<columnar::RecordBatchPtr> batches) override;
  using TableStorage::Replace;
  Status Replace(std::vector<columnar::RecordBatchPtr> batches,
                 columnar::SchemaPtr schema) override;
  Status Rename(columnar::SchemaPtr schema) override;
  std::vector<std::string> column_defaults() const override;
  Status SetColumnDefaults(std::vector<std::string> defaults) override;

 private:
  explicit MemoryTableStorage(std::shared_ptr<const MemoryTable> table)
      : table_(std::move(table)) {}

  mutable std::mutex mutex_;
  std::shared_ptr<const MemoryTable> table_;  // the committed rows
  std::vector<std::string> defaults_;         // one per column of table_
};

}  // namespace shoal::io
