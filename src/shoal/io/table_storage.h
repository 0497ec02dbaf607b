// TableStorage: where the rows of a table that Shoal itself writes live — the target of CREATE
// TABLE [AS], INSERT, DELETE and UPDATE. Two implementations: MemoryTableStorage (record batches
// in memory: `shoal sql`, the slt runner, a server without --data-dir) and ParquetDirectoryStorage
// (Parquet files in a directory, committed through a manifest: a server with --data-dir).
//
// Readers never see the storage itself: Snapshot() hands out an ordinary, immutable TableProvider
// over the rows committed at that moment (the catalog takes one when a statement binds a table,
// so a query reads one consistent version even while other sessions write). Writers commit whole
// statements: Append (INSERT), a TableRewrite (DELETE, UPDATE) and Replace (ALTER TABLE ... ADD
// COLUMN: the table's new rows) either take effect entirely or not at all.
//
// A column may have a DEFAULT, kept by the storage with its columns (column_defaults) as SQL
// text that INSERT and UPDATE bind where a value is left out or DEFAULT.
//
// DELETE and UPDATE rewrite copy-on-write (BeginRewrite): the table is read part by part (a data
// file of a durable table, the whole table in memory); a part with a changed row is replaced by
// its new rows, written as they come, and a part without one is kept as it is, so a DELETE that
// touches one file of a large table writes one file.
//
// Thread safety: every method may be called concurrently. A writer that reads the table before
// committing (DELETE, UPDATE, the unique-key checks of INSERT) holds write_mutex() from its read
// to its commit, so two writers of one table run one after the other.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "shoal/columnar/record_batch.h"
#include "shoal/columnar/scalar.h"
#include "shoal/common/result.h"
#include "shoal/io/table_provider.h"

namespace shoal::io {

class TableRewrite;

class TableStorage {
 public:
  virtual ~TableStorage() = default;

  /// The table's columns (those of the latest commit).
  virtual columnar::SchemaPtr schema() const = 0;
  /// "memory" or "parquet directory".
  virtual std::string kind() const = 0;
  /// Where the rows live on disk (the table's directory), empty for memory.
  virtual std::string location() const { return {}; }
  /// The committed rows, fixed at this call: later commits do not change what it reads.
  virtual TableProviderPtr Snapshot() const = 0;
  /// Rows committed so far.
  virtual int64_t num_rows() const = 0;
  /// Adds rows (columns of schema()'s types, in its order) as one commit.
  virtual Status Append(std::vector<columnar::RecordBatchPtr> batches) = 0;
  /// Replaces every row by `batches` as one commit; with a `schema`, the columns too (ALTER TABLE
  /// ... ADD COLUMN: the rows have the new column).
  virtual Status Replace(std::vector<columnar::RecordBatchPtr> batches,
                         columnar::SchemaPtr schema) = 0;
  Status Replace(std::vector<columnar::RecordBatchPtr> batches) {
    return Replace(std::move(batches), nullptr);
  }
  /// DROP TABLE, after the catalog forgot the table: release what it holds outside the process
  /// (files go once no snapshot reads them).
  virtual void Drop() {}
  /// Gives the columns new names (ALTER TABLE ... RENAME COLUMN): same types and rows.
  virtual Status Rename(columnar::SchemaPtr schema) = 0;
  /// Starts a DELETE or UPDATE (see TableRewrite); the caller holds write_mutex().
  virtual Result<std::unique_ptr<TableRewrite>> BeginRewrite();
  /// Each column's DEFAULT as SQL text (an expression without column references), empty for a
  /// column without one; one per column.
  virtual std::vector<std::string> column_defaults() const = 0;
  /// Replaces them (CREATE TABLE, ALTER TABLE ... ADD COLUMN) as one commit.
  virtual Status SetColumnDefaults(std::vector<std::string> defaults) = 0;
  /// ALTER TABLE ... ADD COLUMN `field` (last) without rewriting the rows: they read `value` (of
  /// the column's type, or NULL) in it, and later rows get `default_sql` as its DEFAULT. One
  /// commit. NotImplemented: this storage adds columns by Replace, which writes every row again.
  virtual Status AddColumn(const columnar::Field& field, const columnar::Scalar& value,
                           const std::string& default_sql);

  /// Held by a writer from its read of the table to its commit.
  std::mutex& write_mutex() const { return write_mutex_; }

 private:
  mutable std::mutex write_mutex_;
};

using TableStoragePtr = std::shared_ptr<TableStorage>;

/// A DELETE or UPDATE under way over the rows a TableStorage held at BeginRewrite(). Its caller
/// holds the storage's write_mutex() from BeginRewrite() to Commit(). Parts are replaced one at a
/// time: BeginPart(i), Write() of its new rows (none: the part's rows all go), then FinishPart()
/// or AbandonPart() (the part is kept after all). Nothing is visible before Commit(); a rewrite
/// destroyed without a commit leaves the table as it was and removes what it wrote.
class TableRewrite {
 public:
  virtual ~TableRewrite() = default;
  /// The committed rows at the start, one provider per part, in row order.
  const std::vector<TableProviderPtr>& parts() const { return parts_; }
  virtual Status BeginPart(size_t part) = 0;
  /// Rows of the current part's replacement (columns of the table's types, in its order).
  virtual Status Write(const columnar::RecordBatchPtr& batch) = 0;
  virtual Status FinishPart() = 0;
  virtual void AbandonPart() = 0;
  /// The rows Commit() would make the table's: kept parts and finished replacements, in order
  /// (the checks of unique keys read them).
  virtual Result<TableProviderPtr> NewRows() const = 0;
  /// Makes the replacements the table's rows, as one commit.
  virtual Status Commit() = 0;

 protected:
  std::vector<TableProviderPtr> parts_;
};

/// The rewrite of a storage with a single part (the whole table): new rows are collected in
/// memory and committed by TableStorage::Replace. MemoryTableStorage's, where the rows live in
/// memory anyway.
std::unique_ptr<TableRewrite> MakeWholeTableRewrite(TableStorage* storage);

/// Every row of `table`, read through its scan units in order.
Result<std::vector<columnar::RecordBatchPtr>> ReadAllRows(const TableProvider& table);
/// The same rows handed to `consume` one batch at a time (never all of them in memory).
Status ForEachBatch(const TableProvider& table,
                    const std::function<Status(const columnar::RecordBatchPtr&)>& consume);

}  // namespace shoal::io
