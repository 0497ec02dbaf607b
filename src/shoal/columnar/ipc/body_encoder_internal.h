// BodyEncoder: lays out the columns of one record batch (or one dictionary) as the body of an Arrow
// IPC message: a field node per column, and the column's buffers (validity, then values, or
// offsets then data) each at an 8-byte aligned offset.
//
// Buffers are referenced, not copied, whenever their bytes can go to the wire as they are; only
// slices that need rewriting (bitmaps at a bit offset, string offsets not starting at zero),
// widened decimals and compressed buffers are materialised, in scratch memory the encoder keeps
// across messages. With a codec, each buffer is compressed on its own and framed with its
// uncompressed length (or -1 when compression does not make it smaller), as Arrow's
// BodyCompression BUFFER method specifies.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/columnar/ipc/compression_internal.h"
#include "shoal/columnar/ipc/metadata_internal.h"
#include "shoal/columnar/ipc/output_sink.h"

namespace shoal::columnar::ipc::internal {

class BodyEncoder {
 public:
  /// `codec` may be null (no compression); it must outlive the encoder.
  BodyEncoder(std::shared_ptr<MemoryPool> pool, Codec* codec);

  /// Starts a new body. References to the previous body's arrays are dropped, scratch kept.
  void Reset();
  /// Appends the field node and buffers of `array` (a dictionary column contributes its indices;
  /// its dictionary is a separate message). `encoding` applies to the values. Nested arrays add
  /// their children after themselves (pre-order, as the format orders field nodes), each sliced
  /// to the items the parent's rows reach, with the encodings in `children`.
  Status AddColumn(const Array& array, WireEncoding encoding,
                   const std::vector<FieldEncoding>* children = nullptr);
  /// Compresses (with a codec) and assigns body offsets. Call once after the last AddColumn.
  Status Finish();

  const std::vector<fb::FieldNode>& nodes() const { return nodes_; }

  const std::vector<fb::Buffer>& buffers() const { return layout_; }

  int64_t body_length() const { return body_length_; }

  /// Writes the body bytes, padding included. Valid after Finish until the next Reset.
  Status WriteTo(OutputSink* sink) const;

 private:
  struct Piece {
    const uint8_t* data = nullptr;  // raw bytes, or after Finish the payload to write
    int64_t size = 0;
    bool prefixed = false;  // compressed framing: an int64 length comes first
    int64_t prefix = 0;
  };

  // Scratch memory valid until the next Reset.
  Result<uint8_t*> Scratch(int64_t size);
  void AddRaw(const uint8_t* data, int64_t size) { pieces_.push_back({data, size, false, 0}); }
  Status AddBitmap(const uint8_t* bits, int64_t bit_offset, int64_t length);
  template <typename Offset>
  Status AddListOffsets(const Array& array, int64_t* first, int64_t* last);
  Status AddChild(const Array& child, int64_t begin, int64_t end, const FieldEncoding* encoding);

  std::shared_ptr<MemoryPool> pool_;
  Codec* codec_;
  std::vector<fb::FieldNode> nodes_;
  std::vector<Piece> pieces_;
  std::vector<fb::Buffer> layout_;
  int64_t body_length_ = 0;
  std::vector<BufferPtr> scratch_;
  size_t scratch_used_ = 0;
};

/// Copies `length` bits starting at bit `bit_offset` of `src` to the start of `dst`
/// (BytesForBits(length) bytes, trailing bits zeroed), a word at a time.
void CopyBitmapUnshifted(const uint8_t* src, int64_t bit_offset, int64_t length, uint8_t* dst);

}  // namespace shoal::columnar::ipc::internal
