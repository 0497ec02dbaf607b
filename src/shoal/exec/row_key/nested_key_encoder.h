// Nested values (lists, fixed-size lists, structs, maps) as keys: each value becomes a byte string
// whose memcmp order is PostgreSQL's order of such values and whose byte equality is their
// equality, so grouping, hash joins, hashing for repartitioning and sorting handle nested keys as
// they handle binary ones, without a comparison routine per nested type.
//
// The encoding, recursively: a list (and a map, as a list of key-value structs) writes per element
// 0x01 and the element's encoding, or 0x02 for a NULL element, then 0x00 to end -- so an array
// sorts below its extensions and a NULL element above any value (PostgreSQL's array_cmp). A struct
// writes per field 0x01 and the field's encoding, or 0x02 for a NULL field (record_cmp). Scalars
// use the sort key encoder's order-preserving forms: fixed-width values big-endian with their order
// made unsigned (floats: -0.0 is 0.0 and every NaN one value above +Infinity), strings and binaries
// with 0x00 escaped as 0x00 0xFF and a 0x00 0x00 terminator, which keeps every part prefix-free.
// So equal values encode equally (NULL elements and fields equal each other, as PostgreSQL's
// array_eq and record_eq have them) and unequal values differently.
#pragma once

#include <cstdint>
#include <memory>

#include "shoal/columnar/array.h"
#include "shoal/common/memory_pool.h"
#include "shoal/common/result.h"

namespace shoal::exec {

/// The encodings of the values of a nested array as a binary array of the same length; a NULL value
/// stays NULL. InvalidArgument when `array` is not nested; OutOfRange beyond 2 GiB of encodings.
Result<columnar::ArrayPtr> EncodeNestedKeys(const columnar::Array& array,
                                            const std::shared_ptr<MemoryPool>& pool);

/// At least the bytes EncodeNestedKeys writes for `array`'s values (not counting its offsets), in
/// time proportional to the type's depth, not its rows: for memory budgets planned before encoding.
int64_t NestedKeyBytesBound(const columnar::Array& array);

/// A key column ready for equality by bytes and hashing: dictionaries decoded, nested values
/// encoded (EncodeNestedKeys), any other column unchanged. Hash joins apply it to both sides' keys.
Result<columnar::ArrayPtr> NormalizeKeyColumn(columnar::ArrayPtr column,
                                              const std::shared_ptr<MemoryPool>& pool);

}  // namespace shoal::exec
