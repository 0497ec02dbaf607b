// ArrayLoader: turns the RecordBatch metadata of a record batch or dictionary message and its body
// into validated Shoal arrays.
//
// Uncompressed buffers become zero-copy views of the body when their address suits the type's
// alignment (otherwise they are copied); compressed buffers are decompressed into pool memory
// after their declared size has been bounded. Wire conversions (Decimal128 or Decimal32 to Shoal's
// 64-bit decimals, date64 to date32) allocate the converted column. Every count, offset and length
// from the metadata is checked before use, the validity bitmap must agree with the node's null
// count, and every array passes Array::Validate before it is returned.
#pragma once

#include <memory>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/columnar/ipc/compression_internal.h"
#include "shoal/columnar/ipc/metadata_internal.h"

namespace shoal::columnar::ipc::internal {

/// One column to load from a message.
struct ColumnSpec {
  const Field* field = nullptr;  // for its name and nullability
  DataType type;                 // the type to produce (a dictionary type for index columns)
  WireEncoding encoding = WireEncoding::kSame;  // of the values (unused for index columns)
  ArrayPtr dictionary;                          // index columns only
  /// Nested columns: the encodings of the children, one per child field.
  const std::vector<FieldEncoding>* children = nullptr;
};

class ArrayLoader {
 public:
  ArrayLoader(std::shared_ptr<MemoryPool> pool, bool check_utf8)
      : pool_(std::move(pool)), check_utf8_(check_utf8) {}

  /// Loads `columns` from `batch`; `*num_rows` receives the batch length.
  Result<std::vector<ArrayPtr>> Load(const fb::RecordBatch* batch, const BufferPtr& body,
                                     const std::vector<ColumnSpec>& columns, int64_t* num_rows);

 private:
  struct Context;
  Result<ArrayPtr> LoadColumn(Context& ctx, const ColumnSpec& spec, const fb::FieldNode& node);
  Result<ArrayPtr> LoadNested(Context& ctx, const ColumnSpec& spec, const fb::FieldNode& node,
                              BufferPtr validity);
  Result<BufferPtr> GetBuffer(Context& ctx, int64_t alignment);
  Result<BufferPtr> GetValidity(Context& ctx, int64_t length, int64_t null_count);
  Result<Codec*> GetCodec(Compression compression);

  std::shared_ptr<MemoryPool> pool_;
  bool check_utf8_;
  std::unique_ptr<Codec> lz4_;
  std::unique_ptr<Codec> zstd_;
};

}  // namespace shoal::columnar::ipc::internal
