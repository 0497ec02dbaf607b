// Thrift compact-protocol (de)serialization of the Parquet metadata structures generated from
// parquet.thrift (FileMetaData, PageHeader, ColumnIndex, OffsetIndex, ...).
//
// The generated code throws on malformed bytes; these functions are the one place where those
// exceptions are caught and turned into a Status, so no thrift exception ever leaves the io layer.
// Reads are bounded: strings and lists may not claim more bytes than the input holds, nesting is
// limited, so hostile footers cannot make the reader allocate far beyond their own size.
//
// Both functions are thread-safe (no shared state) and work on any generated struct, because every
// generated struct derives from apache::thrift::TBase.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include <thrift/TBase.h>

#include "shoal/common/result.h"
#include "shoal/common/status.h"

namespace shoal::io::parquet {

namespace internal {
Result<size_t> DeserializeThriftBase(const uint8_t* data, size_t size, apache::thrift::TBase* out);
Result<std::string> SerializeThriftBase(const apache::thrift::TBase& value);
}  // namespace internal

/// Reads one compact-protocol struct from the front of [data, data + size) into *out (which is
/// reset first) and returns the number of bytes it occupied; bytes after it are not looked at.
/// Malformed or truncated input gives kInvalidData naming the thrift error and the struct type.
template <class T>
Result<size_t> DeserializeThrift(const uint8_t* data, size_t size, T* out) {
  static_assert(std::is_base_of_v<apache::thrift::TBase, T>, "T must be a generated struct");
  *out = T();
  return internal::DeserializeThriftBase(data, size, out);
}

/// Writes `value` with the compact protocol. Fails (kInvalidArgument) only when a required field
/// is unset or a value cannot be represented.
template <class T>
Result<std::string> SerializeThrift(const T& value) {
  static_assert(std::is_base_of_v<apache::thrift::TBase, T>, "T must be a generated struct");
  return internal::SerializeThriftBase(value);
}

}  // namespace shoal::io::parquet
