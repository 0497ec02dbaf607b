// Column chunk statistics for the Parquet writer (column_chunk_writer.h): null_count and
// min_value / max_value in the column's sort order (signed or unsigned integers by the logical
// type, decimals by value, floats ignoring NaN with -0 / +0 widened as the spec asks, strings and
// binary byte-wise unsigned, bounds over 64 bytes truncated with the max rounded up), plus the
// legacy min / max where their signed order agrees.
#pragma once

#include "shoal/io/parquet/column_values_internal.h"

namespace shoal::io::parquet::internal {

format::Statistics MakeStatistics(const Values& v, const Layout& layout);

}  // namespace shoal::io::parquet::internal
