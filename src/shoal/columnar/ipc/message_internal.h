// Encapsulated Arrow IPC messages: finding, verifying and slicing them out of a sequential stream
// or out of a file at the position a footer block gives.
//
// A message is 0xFFFFFFFF, an int32 metadata length, the flatbuffers Message (padded to 8 bytes)
// and then the body. The pre-1.0 framing without the 0xFFFFFFFF marker is also accepted on read.
// Every length is checked against the bytes really available before anything is allocated, and the
// metadata is run through the flatbuffers Verifier before any field of it is read.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "shoal/columnar/buffer.h"
#include "shoal/columnar/ipc/input_stream.h"
#include "shoal/columnar/ipc/metadata_internal.h"

namespace shoal::columnar::ipc::internal {

struct IpcMessage {
  BufferPtr metadata;  // holds the verified flatbuffer, 8-byte aligned
  const fb::Message* message = nullptr;
  BufferPtr body;
  int64_t offset = 0;  // of the message's first byte in the input, for error messages
};

/// "schema", "record batch", "dictionary batch", ...
const char* MessageTypeName(fb::MessageHeader type);

/// Verifies `metadata` as a Message flatbuffer and checks its version and header. Copies the
/// bytes into `pool` first when they are not 8-byte aligned (flatbuffers reads scalars in place).
Result<IpcMessage> DecodeMessage(BufferPtr metadata, const std::shared_ptr<MemoryPool>& pool);

/// Reads messages one after another from an input stream.
class MessageReader {
 public:
  MessageReader(InputStream* input, std::shared_ptr<MemoryPool> pool)
      : input_(input), pool_(std::move(pool)) {}

  /// The next message, or nullopt at the end of the stream (the end-of-stream marker, or the end
  /// of the input exactly at a message boundary).
  Result<std::optional<IpcMessage>> Next();

  /// Bytes consumed so far.
  int64_t position() const { return position_; }

 private:
  Result<int64_t> ReadPrefix(uint8_t* out, int64_t size);

  InputStream* input_;
  std::shared_ptr<MemoryPool> pool_;
  int64_t position_ = 0;
};

/// The message a file footer block points at. `file` is the whole file, `limit` the offset where
/// message data must end (the start of the footer).
Result<IpcMessage> ReadMessageAt(const BufferPtr& file, int64_t limit, const fb::Block& block,
                                 const std::shared_ptr<MemoryPool>& pool);

/// `buffer` itself when its data is aligned to `alignment`, otherwise an aligned copy.
Result<BufferPtr> EnsureAligned(BufferPtr buffer, int64_t alignment,
                                const std::shared_ptr<MemoryPool>& pool);

}  // namespace shoal::columnar::ipc::internal
