// Reading some fields of a struct column: the pruned type a scan produces when a query uses only
// some fields of a struct column (DuckDB's and DataFusion's struct projection pushdown).
//
// The optimizer (sql/optimizer/struct_field_pruning.cc) collects, per scanned struct column, the
// field paths the plan reads — FieldPaths of field indexes into the column's full type — and puts
// them into the scan (io::ScanRequest::field_paths). The column then has the pruned type
// SelectStructFields gives: a struct of only the fields on some path, in their original order,
// each pruned the same way below it; a field a path ends at is kept whole. Providers that read
// fields alone (ParquetTable: only those fields' leaf column chunks) produce that type
// directly; the array form below prunes a column read whole (a constant column, a provider
// without the ability).
#pragma once

#include <string>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/columnar/data_type.h"
#include "shoal/common/result.h"

namespace shoal::io {

/// A field of a struct column: the index of a field of the column's struct type, then of a field
/// of that field's struct type, and so on.
using FieldPath = std::vector<int>;

/// The type of a column of `type` read with only `paths` (empty: `type` itself). Paths that
/// do not name struct fields of `type` (an index out of range, a step into a non-struct) are
/// kInvalidArgument.
Result<columnar::DataType> SelectStructFields(const columnar::DataType& type,
                                              const std::vector<FieldPath>& paths);

/// `array` (of the full type) cut down to the type SelectStructFields gives: zero-copy, the kept
/// children are shared.
Result<columnar::ArrayPtr> SelectStructFields(const columnar::ArrayPtr& array,
                                              const std::vector<FieldPath>& paths);

/// The paths as EXPLAIN prints them after the column's name: ".{a,b.c}" (field names); empty
/// when the column is read whole.
std::string FormatFieldPaths(const columnar::DataType& type, const std::vector<FieldPath>& paths);

}  // namespace shoal::io
