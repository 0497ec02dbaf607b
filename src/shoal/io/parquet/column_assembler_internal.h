// Assembly of a nested top-level Parquet column from its leaves (the Dremel encoding's record
// assembly, parquet-format README "Nested Encoding"): each leaf chunk is decoded into an array of
// its slots plus the definition and repetition level of every entry (chunk_decoder_internal.h),
// and the levels of one leaf under each struct, list and map give that node's validity and
// offsets (SchemaNode in parquet_schema.h says which entries are rows of a node and which of them
// are non-null). Every node is one tight loop over one leaf's level bytes; no per-value call.
//
// Leaves that disagree (a struct's fields of different lengths, a list whose offsets do not
// reach its child's end, a null map key, a row count other than the row group's) are kInvalidData.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/common/memory_pool.h"
#include "shoal/common/result.h"
#include "shoal/io/parquet/parquet_schema.h"

namespace shoal::io::parquet::internal {

/// One decoded leaf chunk: its slots and the levels of all `num_levels` entries (`rep` null when
/// the leaf has no repeated ancestor).
struct DecodedLeaf {
  columnar::ArrayPtr values;
  columnar::BufferPtr def;
  columnar::BufferPtr rep;
  int64_t num_levels = 0;
};

/// The column of `node` (a top-level node) from `leaves` (indexed by leaf number, those of the
/// node's range filled), checked to have `num_rows` rows.
Result<columnar::ArrayPtr> AssembleColumn(const SchemaNode& node,
                                          const std::vector<DecodedLeaf>& leaves, int64_t num_rows,
                                          const std::shared_ptr<MemoryPool>& pool);

}  // namespace shoal::io::parquet::internal
