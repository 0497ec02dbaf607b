// ArrowTable: a table provider over Arrow IPC files (the file format, "ARROW1" ... footer) — one
// file, a directory or a glob (file_listing.h) — behind
// `CREATE EXTERNAL TABLE t STORED AS ARROW LOCATION '...'`.
//
// The schema comes from the first file's footer; every other file must have the same column types
// (names are taken from the first file), or Make() fails naming the file. Scan units are ranges of
// record batches of one file (a few batches per unit, by bytes), so one large file spreads over
// several partitions. Reading memory-maps the file through columnar/ipc (zero-copy for
// uncompressed bodies) and slices batches larger than the request's batch size.
//
// Statistics: total bytes; the row count stays unknown (counting would read every batch header).
// Immutable; PlanScan and OpenUnit may run concurrently.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shoal/io/file_listing.h"
#include "shoal/io/table_provider.h"

namespace shoal::io {

class ArrowTable : public TableProvider {
 public:
  /// Lists `location` and reads the files' footers. `schema` (from the statement's column list)
  /// may be null; when given, its column count and types must equal the files'.
  static Result<std::shared_ptr<ArrowTable>> Make(const std::string& location,
                                                  const columnar::SchemaPtr& schema);
  /// The table an earlier Make() built, from its files() and schema() (a worker rebuilding a
  /// coordinator's table from an encoded plan): reads the footers of `listed` again, which must
  /// still have `schema`'s column types, and keeps `schema` as it is (names and nullability).
  static Result<std::shared_ptr<ArrowTable>> FromFiles(std::vector<ListedFile> listed,
                                                       columnar::SchemaPtr schema);
  /// Where a scan unit of an Arrow table reads (its file's path).
  static Result<std::string> UnitFile(const ScanUnit& unit);

  const columnar::SchemaPtr& schema() const override { return schema_; }

  std::string kind() const override { return "arrow"; }

  TableStatistics statistics() const override;
  std::vector<std::string> source_files() const override {
    std::vector<std::string> paths;
    for (const auto& f : files_)
      paths.push_back(f.listed.path);
    return paths;
  }
  Result<std::vector<ScanUnit>> PlanScan(const ScanRequest& request) const override;
  Result<columnar::RecordBatchReaderPtr> OpenUnit(const ScanUnit& unit, const ScanRequest& request,
                                                  const ScanContext& context) const override;

  std::vector<ListedFile> files() const;

  /// Bytes of batches a scan unit aims at (a file of fewer bytes is one unit).
  static constexpr int64_t kUnitBytes = 32 << 20;

 private:
  struct File {
    ListedFile listed;
    int num_batches = 0;
  };
  /// Opens each listed file's footer; the first file's schema becomes `*file_schema` and every
  /// other file must have its column types.
  static Status OpenFiles(std::vector<ListedFile> listed, std::vector<File>* files,
                          columnar::SchemaPtr* file_schema);
  ArrowTable(std::vector<File> files, columnar::SchemaPtr schema)
      : files_(std::move(files)), schema_(std::move(schema)) {}

  std::vector<File> files_;
  columnar::SchemaPtr schema_;
};

}  // namespace shoal::io
