// ParquetTable: a table provider over Parquet files — one file, a directory or a glob (see
// io/file_listing.h) — read with Shoal's own Parquet reader.
//
// Make() reads every file's footer once: the schema comes from the first file (nested columns
// included, see parquet_schema.h) and every other file must have the same columns; the footers' row
// counts and column-chunk statistics give statistics() and row-group pruning. The parsed footers
// are kept, so scans never re-read them.
//
// Scan units are single row groups (payload: row group, metric shares, file path), so a large file
// spreads over all partitions and one thread decodes one row group at a time. PlanScan drops row
// groups whose statistics prove a pushed-down predicate false for every row; the counts are
// reported through ScanContext::add_metric as "row_groups_total" and "row_groups_pruned" by the
// first unit (an empty unit carries them when every row group is pruned). Page-level pruning with
// the page index (ColumnIndex / OffsetIndex) is not implemented. OpenUnit reads only the leaf
// column chunks of the projected columns (a nested column's are assembled by
// column_assembler_internal.h; of a struct column read in part, ScanRequest::field_paths, only
// the chunks of the fields named, and the struct's validity comes from the first of them), one
// pread per chunk, and streams the row group in batches of request.batch_size rows: a flat
// column decodes only the pages a batch's rows lie in, straight into the batch (so a scan holds
// its compressed chunks, a page per column and about one batch, not the decoded row group); a
// nested column is decoded whole and sliced. With runtime join filters (ScanContext::row_filter)
// a unit whose row-group statistics lie outside a filter's range is not read; otherwise each
// batch decodes the filter's columns first, a batch with no surviving row only moves the other
// columns past its rows (pages of only such rows are not decoded), and the others are decoded and
// cut to the survivors.
//
// A table Shoal writes (parquet_directory_storage.h) may have files with fewer columns than the
// table: those written before ALTER TABLE ... ADD COLUMN. Its columns match the files' by
// position, and a column a file lacks reads, in every row of it, the column's `missing` value
// (its DEFAULT at ADD COLUMN, or NULL), also in statistics and pruning.
//
// Thread safety: immutable after Make; PlanScan and OpenUnit may run concurrently.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "shoal/io/file_listing.h"
#include "shoal/io/parquet/parquet_schema.h"
#include "shoal/io/table_provider.h"

namespace shoal::io::parquet {

/// Min / max / nulls of one column chunk, decoded from its footer statistics.
struct ChunkStatistics {
  std::optional<columnar::Scalar> min;
  std::optional<columnar::Scalar> max;
  int64_t null_count = -1;  // -1: unknown
};

/// One file of the table with its parsed footer.
struct ParquetFileInfo {
  std::string path;
  int64_t size = 0;
  std::shared_ptr<const format::FileMetaData> metadata;
  /// Top-level columns (see ParquetSchema).
  std::vector<ColumnDescriptor> columns;
  /// Leaf columns in file order (one column chunk each per row group), and one tree per
  /// top-level column.
  std::vector<ColumnDescriptor> leaves;
  std::vector<SchemaNode> nodes;
  /// [row group][column]: a flat column's chunk statistics; unknown (null_count -1, no bounds)
  /// for nested columns, whose statistics are their leaves'.
  std::vector<std::vector<ChunkStatistics>> statistics;
  /// [row group][leaf]: every leaf chunk's statistics (null_count counts the leaf's entries
  /// without a value, as writers record it).
  std::vector<std::vector<ChunkStatistics>> leaf_statistics;
};

/// Reads and checks the footer of the Parquet file at `path` (`size` bytes).
Result<ParquetFileInfo> ReadParquetFooter(const std::string& path, int64_t size);

class ParquetTable : public TableProvider {
 public:
  /// Lists `location` and reads every footer. A non-empty `schema` (the statement's column list)
  /// must match the files' columns in number, names and types. No options are recognised yet; an
  /// unknown option is an error.
  static Result<std::shared_ptr<ParquetTable>> Make(
      const std::string& location, const columnar::SchemaPtr& schema,
      const std::map<std::string, std::string>& options);

  /// `missing`: empty (every file has every column), or one value per column of `schema`, of
  /// its type, for files without the column.
  ParquetTable(std::vector<ParquetFileInfo> files, columnar::SchemaPtr schema,
               std::vector<columnar::Scalar> missing = {});

  const columnar::SchemaPtr& schema() const override { return schema_; }

  std::string kind() const override { return "parquet"; }

  TableStatistics statistics() const override { return statistics_; }
  std::vector<std::string> source_files() const override {
    std::vector<std::string> paths;
    for (const auto& f : files_)
      paths.push_back(f.path);
    return paths;
  }

  Result<std::vector<ScanUnit>> PlanScan(const ScanRequest& request) const override;
  Result<columnar::RecordBatchReaderPtr> OpenUnit(const ScanUnit& unit, const ScanRequest& request,
                                                  const ScanContext& context) const override;
  /// Row groups are skipped by their statistics and rows dropped right after the runtime filter's
  /// columns are decoded, before the other columns are.
  bool AppliesRowFilter() const override { return true; }
  /// A struct column read in part (ScanRequest::field_paths) reads only its fields' leaf column
  /// chunks.
  bool ReadsStructFieldsAlone() const override { return true; }

  const std::vector<ParquetFileInfo>& files() const { return files_; }
  const std::vector<columnar::Scalar>& missing() const { return missing_; }
  /// The path of the file a scan unit of a Parquet table reads.
  static Result<std::string> UnitFile(const ScanUnit& unit);

 private:
  /// Whether the statistics of one row group prove `predicate` false for all its rows.
  bool RowGroupRuledOut(const ParquetFileInfo& file, int row_group,
                        const ColumnPredicate& predicate) const;

  std::vector<ParquetFileInfo> files_;
  std::unordered_map<std::string, size_t> file_index_;
  columnar::SchemaPtr schema_;
  std::vector<columnar::Scalar> missing_;
  TableStatistics statistics_;
};

}  // namespace shoal::io::parquet
