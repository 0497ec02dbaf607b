// MemoryTable: a table held as record batches in memory — CREATE TABLE ... AS, INSERT targets,
// VALUES materialised for reuse, test fixtures. It is an ordinary io::TableProvider, so plans scan
// it like any file-backed table: each batch is a scan unit, and OpenUnit slices it into batches of
// the requested size with the projection applied (zero-copy).
//
// Thread safety: Append may run concurrently with scans; a scan sees the batches that existed when
// its units were planned.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "shoal/io/table_provider.h"

namespace shoal::io {

class MemoryTable : public io::TableProvider {
 public:
  /// Every batch must have `schema`'s column types.
  static Result<std::shared_ptr<MemoryTable>> Make(
      columnar::SchemaPtr schema, std::vector<columnar::RecordBatchPtr> batches = {});

  const columnar::SchemaPtr& schema() const override { return schema_; }

  std::string kind() const override { return "memory"; }

  io::TableStatistics statistics() const override;
  Result<std::vector<io::ScanUnit>> PlanScan(const io::ScanRequest& request) const override;
  Result<columnar::RecordBatchReaderPtr> OpenUnit(const io::ScanUnit& unit,
                                                  const io::ScanRequest& request,
                                                  const io::ScanContext& context) const override;

  /// Adds rows (INSERT). Batches of another schema are refused with a TypeError.
  Status Append(std::vector<columnar::RecordBatchPtr> batches);
  int64_t num_rows() const;
  std::vector<columnar::RecordBatchPtr> batches() const;

 private:
  explicit MemoryTable(columnar::SchemaPtr schema) : schema_(std::move(schema)) {}

  columnar::SchemaPtr schema_;
  mutable std::mutex mutex_;
  std::vector<columnar::RecordBatchPtr> batches_;
  int64_t num_rows_ = 0;
};

/// The schema of `schema` restricted to `projection` (indices, in order).
Result<columnar::SchemaPtr> ProjectSchema(const columnar::Schema& schema,
                                          const std::vector<int>& projection);
/// The schema a scan with `request` produces: its projection, and its field_paths applied.
Result<columnar::SchemaPtr> ProjectSchema(const columnar::Schema& schema,
                                          const ScanRequest& request);

}  // namespace shoal::io
