// Arrow IPC metadata shared by the reader and the writer: framing constants, and the conversion
// between Shoal's Schema and the flatbuffers Schema table (format/schema.fbs).
//
// A field's in-memory type and its wire type are the same except for a few conversions that keep
// Shoal's columnar core small: decimals of precision <= 18 are int64 in memory but may travel as
// Decimal128 (older readers) or arrive as Decimal32, and Arrow's date64 (milliseconds) is read as
// date32. FieldEncoding records which conversion applies, so the body encoder and the array loader
// do not re-derive it from flatbuffers per batch.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include <flatbuffers/flatbuffers.h>

#include "shoal/columnar/ipc/format/file_generated.h"
#include "shoal/columnar/ipc/format/message_generated.h"
#include "shoal/columnar/schema.h"
#include "shoal/common/result.h"

namespace shoal::columnar::ipc::internal {

namespace fb = ::shoal::columnar::ipc::flatbuf;

// Arrow IPC is little-endian on the wire and Shoal copies buffers verbatim.
static_assert(std::endian::native == std::endian::little, "Shoal's Arrow IPC needs little-endian");

/// Marks an encapsulated message; followed by the int32 metadata length.
constexpr uint32_t kContinuation = 0xFFFFFFFFu;
constexpr char kFileMagic[] = {'A', 'R', 'R', 'O', 'W', '1'};
constexpr int64_t kFileMagicSize = 6;
/// The leading magic is padded to 8 bytes so the first message is aligned.
constexpr int64_t kFileHeaderSize = 8;
/// Trailer: int32 footer length + magic.
constexpr int64_t kFileTrailerSize = 4 + kFileMagicSize;

// The offsets buffer of an empty string array (one zero offset): what a writer sends for it, and
// what a reader uses when a writer sent none.
inline constexpr int32_t kZeroOffset[1] = {0};

inline int64_t PadTo8(int64_t n) {
  return (n + 7) & ~int64_t{7};
}

enum class WireEncoding : uint8_t {
  kSame,            // the wire bytes are Shoal's in-memory bytes
  kDecimal128As64,  // wire: 128-bit decimal; memory: int64 (precision <= 18)
  kDecimal32As64,   // wire: 32-bit decimal; memory: int64 (read only)
  kDate64AsDate32,  // wire: date64 milliseconds; memory: date32 days (read only)
};

struct FieldEncoding {
  /// Of the values; for dictionary fields, of the dictionary values (indices are always native).
  WireEncoding values = WireEncoding::kSame;
  /// Dictionary fields only.
  int64_t dictionary_id = -1;
  /// Nested fields: one per child field, in the order of DataType::fields().
  std::vector<FieldEncoding> children;
};

/// Deepest nesting of types accepted from outside bytes and written (a list of lists is depth 2);
/// bounds the recursion of every reader and writer of nested data.
constexpr int kMaxNestingDepth = 64;

struct IpcSchema {
  SchemaPtr schema;
  std::vector<FieldEncoding> fields;  // one per schema field
};

/// The encodings `schema` is written with. Dictionary ids are 0, 1, ... in field order.
/// NotImplemented for a dictionary inside a nested type; InvalidArgument beyond kMaxNestingDepth.
Result<IpcSchema> PlanWriteSchema(SchemaPtr schema, bool widen_decimal64);

/// Field nodes and buffers a column of `type` takes in a record batch (itself and its children).
int64_t NumFieldNodes(const DataType& type);
int64_t NumBuffers(const DataType& type);

flatbuffers::Offset<fb::Schema> BuildSchema(flatbuffers::FlatBufferBuilder* fbb,
                                            const IpcSchema& schema);

/// Builds a whole Message (metadata version V5) and finishes `fbb`.
void FinishMessage(flatbuffers::FlatBufferBuilder* fbb, fb::MessageHeader header_type,
                   flatbuffers::Offset<void> header, int64_t body_length);

/// Converts a verified flatbuffers Schema. Unsupported Arrow types are NotImplemented naming the
/// field; impossible parameters are InvalidData.
Result<IpcSchema> ParseSchema(const fb::Schema* schema);

/// Element `i` of a vector of flatbuffers structs, copied out. The verifier checks a vector's
/// bounds but not that its 8-byte structs are 8-byte aligned, so they are never read in place.
template <typename T>
T StructAt(const flatbuffers::Vector<const T*>* vector, flatbuffers::uoffset_t i) {
  T out;
  std::memcpy(static_cast<void*>(&out), vector->Data() + static_cast<size_t>(i) * sizeof(T),
              sizeof(T));
  return out;
}

/// Key/value pairs of custom_metadata (absent keys or values read as empty strings).
KeyValueMetadata ParseMetadata(
    const flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>* metadata);

}  // namespace shoal::columnar::ipc::internal
