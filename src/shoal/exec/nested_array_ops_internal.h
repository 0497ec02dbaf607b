// Take and Concatenate for nested arrays (lists, large lists, fixed-size lists, structs, maps), the
// nested branches of array_ops.h's kernels. They work a column at a time like the flat kernels: a
// take gathers the parent's validity and offsets and then takes each child once, with the indices
// of the items it keeps; a concatenation rebases the offsets and concatenates each child's used
// range. So filters, joins, sorts and exchanges move nested columns without a builder call per
// value, and the results are exactly sized (a builder's doubling would overshoot memory budgets).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/common/memory_pool.h"
#include "shoal/common/result.h"

namespace shoal::exec::nested_internal {

/// Take (array_ops.h) of a nested array.
Result<columnar::ArrayPtr> TakeNested(const columnar::Array& array, const int32_t* indices,
                                      int64_t count, const std::shared_ptr<MemoryPool>& pool,
                                      bool allow_null_index);

/// Concatenate (array_ops.h) of nested arrays of one type (at least two).
Result<columnar::ArrayPtr> ConcatenateNested(const std::vector<columnar::ArrayPtr>& arrays,
                                             const std::shared_ptr<MemoryPool>& pool);

}  // namespace shoal::exec::nested_internal
