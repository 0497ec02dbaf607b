// TableProvider: how the rest of Shoal sees a table's data, whatever holds it — in-memory batches,
// a set of Parquet / CSV / TBL / Arrow files, or the TPC-H generator.
//
// Planning asks a provider for its schema and statistics (row counts, min / max, null and distinct
// counts feed the optimizer's estimates), then for a scan plan: the list of ScanUnits (a file, a
// row-group range of a file, a slice of memory) left after pruning with the pushed-down predicates.
// Scan units are plain data with a serialised payload, so the distributed planner can hand each
// task its own share of a leaf stage's units and ship them inside the task's plan. Execution opens
// one unit at a time and pulls batches from it.
//
// Predicates arrive as simple column-versus-constant conjuncts (io sits below the SQL layer and
// does not see its expressions). They are hints for pruning: a provider may return rows that fail
// them, and the Filter above the scan stays in the plan. A WHERE the engine folded into the scan
// (ScanRequest::filter) is different: it is binding, and the engine evaluates it through the
// ScanRowFilter a provider calls while decoding (or on the batches of providers that do not).
//
// Thread safety: providers are immutable once registered; PlanScan and OpenUnit may be called
// concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shoal/columnar/record_batch_reader.h"
#include "shoal/columnar/scalar.h"
#include "shoal/io/scan_buffers.h"
#include "shoal/io/struct_field_selection.h"

namespace shoal::io {

struct ColumnStatistics {
  std::optional<columnar::Scalar> min;
  std::optional<columnar::Scalar> max;
  int64_t null_count = -1;      // -1: unknown
  int64_t distinct_count = -1;  // -1: unknown
};

struct TableStatistics {
  int64_t num_rows = -1;                  // -1: unknown
  int64_t total_bytes = -1;               // bytes a full scan reads; -1: unknown
  std::vector<ColumnStatistics> columns;  // empty or one per schema field
};

enum class PredicateOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kIsNull, kIsNotNull, kIn };

/// `column <op> values[0]` (kIn: any of values; kIsNull / kIsNotNull: no values). `column`
/// indexes the table schema.
struct ColumnPredicate {
  int column = 0;
  PredicateOp op = PredicateOp::kEq;
  std::vector<columnar::Scalar> values;
};

/// A runtime join filter a scan applies (exec/join/runtime_filter.h): filter `id` of the
/// execution, tested against table column `column`. The filter itself arrives while the query
/// runs; io only carries the request and offers the hook below.
struct RuntimeFilterTarget {
  int id = 0;
  int column = 0;

  bool operator==(const RuntimeFilterTarget&) const = default;
};

/// A row filter the engine folded into a scan (the conjuncts of a WHERE that it evaluates on the
/// scan's columns: exec/operators/scan_filter_expr.h). io carries it without looking inside;
/// rows for which it is not true must not leave the scan, which the engine guarantees through
/// ScanContext::row_filter or by filtering the batches itself.
class ScanFilter {
 public:
  virtual ~ScanFilter() = default;
  /// The filter as SQL-like text, for EXPLAIN and plan comparisons.
  virtual std::string ToString() const = 0;
};

struct ScanRequest {
  /// Table-schema indices of the columns to produce, in output order; empty means none (a count).
  std::vector<int> projection;
  /// Conjunction of pruning hints.
  std::vector<ColumnPredicate> predicates;
  int64_t batch_size = 8192;
  /// Rows the consumer needs at most (LIMIT without ORDER BY); -1: all.
  int64_t limit = -1;
  /// Runtime join filters on columns of this scan (may drop rows whose key matches no build row).
  std::vector<RuntimeFilterTarget> runtime_filters;
  /// Empty, or one entry per projection entry: the fields of a struct column the consumer reads
  /// (empty: the whole column). The column then has the type SelectStructFields gives
  /// (struct_field_selection.h); only providers that ReadsStructFieldsAlone() get such requests.
  std::vector<std::vector<FieldPath>> field_paths;
  /// Null, or the filter the scan applies to its rows (over the projection's columns).
  std::shared_ptr<const ScanFilter> filter;
};

/// A piece of scan work. `payload` is provider-specific and opaque to everyone else; `bytes` is
/// what reading it costs, for sizing tasks.
struct ScanUnit {
  std::string description;  // "lineitem.parquet row groups 0-3", for EXPLAIN and errors
  int64_t bytes = 0;
  int64_t rows = -1;  // -1: unknown
  std::string payload;
};

/// Rows a scan may drop as soon as the columns a filter reads are decoded (runtime join filters and
/// the request's filter), implemented by the engine (exec/operators/scan_predicate_filter.h) and
/// offered to providers that can use it (TableProvider::AppliesRowFilter): such a provider decodes
/// columns() first, calls Select, and then decodes its other columns only for the rows kept.
/// Called by the one thread reading the unit.
class ScanRowFilter {
 public:
  virtual ~ScanRowFilter() = default;

  /// Whether a block of rows (a row group) can be skipped: `ruled_out` tells whether the block's
  /// statistics prove a predicate false for all its rows.
  virtual bool BlockRuledOut(const std::function<bool(const ColumnPredicate&)>& ruled_out) = 0;

  /// Positions in the request's projection of the columns Select reads (empty: none now).
  virtual const std::vector<int>& columns() = 0;

  /// `columns` holds the decoded columns() of `num_rows` rows. Returns -1 when every row stays;
  /// otherwise fills `selection` with the rows that stay, ascending, and returns their count.
  virtual Result<int64_t> Select(const std::vector<columnar::ArrayPtr>& columns, int64_t num_rows,
                                 std::vector<int32_t>* selection) = 0;

  /// The rows `selection` of `batch`.
  virtual Result<columnar::RecordBatchPtr> Take(const columnar::RecordBatch& batch,
                                                const std::vector<int32_t>& selection) = 0;
};

/// Per-execution services a scan may use.
struct ScanContext {
  std::shared_ptr<MemoryPool> pool;
  /// Metrics a provider reports (e.g. "row_groups_pruned"); may be null.
  std::function<void(const std::string& name, int64_t value)> add_metric;
  /// Filters to apply while decoding, when the provider AppliesRowFilter(); may be null.
  ScanRowFilter* row_filter = nullptr;
  /// Scratch buffers the units of one scan stream reuse (scan_buffers.h); may be null.
  std::shared_ptr<ScanBuffers> buffers = nullptr;
};

class TableProvider {
 public:
  virtual ~TableProvider() = default;
  virtual const columnar::SchemaPtr& schema() const = 0;
  /// "memory", "parquet", "csv", "tbl", "arrow", ...
  virtual std::string kind() const = 0;
  virtual TableStatistics statistics() const { return {}; }
  /// The files a file-backed table reads, in order (EXPLAIN names them); empty for other tables.
  virtual std::vector<std::string> source_files() const { return {}; }
  /// The units left after pruning, in a stable order (the order of rows in the table).
  virtual Result<std::vector<ScanUnit>> PlanScan(const ScanRequest& request) const = 0;
  /// Whether OpenUnit's readers apply ScanContext::row_filter themselves (skipping blocks by their
  /// statistics and dropping rows right after decoding the filter's columns); otherwise the
  /// engine filters the batches they return.
  virtual bool AppliesRowFilter() const { return false; }
  /// Whether OpenUnit honours ScanRequest::field_paths by reading only those fields of a struct
  /// column (the optimizer prunes struct columns only of such tables).
  virtual bool ReadsStructFieldsAlone() const { return false; }
  /// Batches of one unit, with the request's projection (and field_paths) applied.
  virtual Result<columnar::RecordBatchReaderPtr> OpenUnit(const ScanUnit& unit,
                                                          const ScanRequest& request,
                                                          const ScanContext& context) const = 0;
};

using TableProviderPtr = std::shared_ptr<const TableProvider>;

}  // namespace shoal::io
