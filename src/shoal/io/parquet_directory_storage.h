// ParquetDirectoryStorage: a table's rows as Parquet files in a directory of its own, committed
// through a manifest (table_manifest.h) — TableStorage's durable implementation, behind the tables
// a server with --data-dir creates.
//
//   <dir>/manifest                        the committed version: columns and data files
//   <dir>/data-<version>-<random>.parquet  written by Shoal's ParquetWriter, fsynced
//
// A commit writes its data file(s) first (each renamed into place complete and fsynced), then
// replaces the manifest atomically; a crash before the manifest's rename leaves the previous
// version, after it the new one. Open() reads the manifest and removes what no manifest names
// (data files of killed writers and of rewrites that never committed, temporaries). Append adds
// one file per statement. A rewrite (DELETE, UPDATE: BeginRewrite) has one part per data file: a
// file with changed rows is written again, streamed into a new file, and the new manifest names
// it in the old one's place beside the files that did not change, which stay as they are. ALTER
// TABLE ... ADD COLUMN with a constant DEFAULT (AddColumn) writes no data file: the manifest
// records the value, which the files written before read in the column they lack; with another
// DEFAULT, Replace writes all the new rows as one file and names only it.
//
// Files a commit no longer names are removed when the last snapshot reading them is released, so
// a query that started before a DELETE finishes on the files it planned.
//
// Thread safety: as TableStorage; commits are serialised by an internal mutex as well.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "shoal/io/parquet/parquet_table.h"
#include "shoal/io/parquet/parquet_writer.h"
#include "shoal/io/table_manifest.h"
#include "shoal/io/table_storage.h"

namespace shoal::io {

class ParquetDirectoryStorage final : public TableStorage {
 public:
  /// Creates `directory` (which must not exist yet) with an empty table of `schema`. Columns whose
  /// type Parquet cannot hold (interval) are refused with 0A000.
  static Result<std::shared_ptr<ParquetDirectoryStorage>> Create(const std::string& directory,
                                                                 const columnar::SchemaPtr& schema);
  /// Opens the table in `directory` at its committed manifest, removing files it does not name.
  static Result<std::shared_ptr<ParquetDirectoryStorage>> Open(const std::string& directory);

  ~ParquetDirectoryStorage() override;

  columnar::SchemaPtr schema() const override;
  std::string kind() const override { return "parquet directory"; }
  std::string location() const override { return directory_; }
  TableProviderPtr Snapshot() const override;
  int64_t num_rows() const override;
  Status Append(std::vector<columnar::RecordBatchPtr> batches) override;
  using TableStorage::Replace;
  Status Replace(std::vector<columnar::RecordBatchPtr> batches,
                 columnar::SchemaPtr schema) override;
  Status Rename(columnar::SchemaPtr schema) override;
  Result<std::unique_ptr<TableRewrite>> BeginRewrite() override;
  std::vector<std::string> column_defaults() const override;
  Status SetColumnDefaults(std::vector<std::string> defaults) override;
  /// Names no new file: the files there lack the column and read `value` in it (the manifest's
  /// `missing`).
  Status AddColumn(const columnar::Field& field, const columnar::Scalar& value,
                   const std::string& default_sql) override;

  /// DROP TABLE: the manifest goes now, the data files and the directory when no snapshot reads
  /// them any more.
  void Drop() override;

  /// The committed manifest (tests).
  TableManifest manifest() const;

  /// A data file of the table; removes itself from disk when obsolete and no longer referenced.
  struct DataFile;

 private:
  class Rewrite;

  explicit ParquetDirectoryStorage(std::string directory) : directory_(std::move(directory)) {}

  // Writes `batches` as a new data file (none when they hold no rows).
  Result<std::shared_ptr<DataFile>> WriteFile(const std::vector<columnar::RecordBatchPtr>& batches,
                                              int64_t version, const columnar::SchemaPtr& schema);
  // A new data file's name at commit `version`, and a writer for it.
  std::string NewFileName(int64_t version) const;
  Result<std::unique_ptr<parquet::ParquetWriter>> OpenWriter(const std::string& name,
                                                             const columnar::SchemaPtr& schema);
  // The data file `name` a writer has just closed, checked against `schema`.
  Result<std::shared_ptr<DataFile>> FinishFile(const std::string& name, int64_t rows,
                                               const columnar::SchemaPtr& schema);
  // Replaces the manifest by `files` at the next version and makes it current; `missing` and
  // `defaults` as TableManifest's.
  Status CommitLocked(std::vector<std::shared_ptr<DataFile>> files, columnar::SchemaPtr schema,
                      std::vector<columnar::Scalar> missing, std::vector<std::string> defaults);
  // 42P01 once Drop() ran (under commit_mutex_).
  Status CheckNotDropped() const;
  // The same with the columns of the current version.
  Status CommitLocked(std::vector<std::shared_ptr<DataFile>> files) {
    return CommitLocked(std::move(files), schema_, missing_, defaults_);
  }
  Result<std::shared_ptr<DataFile>> LoadFile(const std::string& name, int64_t rows);

  const std::string directory_;
  std::mutex commit_mutex_;   // held by a commit from its first write to its end
  bool dropped_ = false;      // under commit_mutex_: Drop() ran, no commit may follow
  mutable std::mutex mutex_;  // guards the committed state below (changed under both)
  int64_t version_ = 0;
  columnar::SchemaPtr schema_;
  std::vector<columnar::Scalar> missing_;  // one per column, as TableManifest's
  std::vector<std::string> defaults_;      // one per column, as TableManifest's
  std::vector<std::shared_ptr<DataFile>> files_;
  std::shared_ptr<const TableProvider> snapshot_;  // over files_, built at commit
};

}  // namespace shoal::io
