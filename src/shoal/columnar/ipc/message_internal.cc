#include "shoal/columnar/ipc/message_internal.h"

#include <cstring>
#include <limits>

namespace shoal::columnar::ipc::internal {
namespace {

// Flatbuffers nesting and table-count limits for the verifier: Shoal's schemas are flat, so these
// only stop a crafted message from making verification slow.
constexpr flatbuffers::uoffset_t kMaxDepth = 64;
constexpr flatbuffers::uoffset_t kMaxTables = 1'000'000;

}  // namespace

const char* MessageTypeName(fb::MessageHeader type) {
  switch (type) {
    case fb::MessageHeader::NONE: return "empty";
    case fb::MessageHeader::Schema: return "schema";
    case fb::MessageHeader::DictionaryBatch: return "dictionary batch";
    case fb::MessageHeader::RecordBatch: return "record batch";
    case fb::MessageHeader::Tensor: return "tensor";
    case fb::MessageHeader::SparseTensor: return "sparse tensor";
  }
  return "unknown";
}

Result<BufferPtr> EnsureAligned(BufferPtr buffer, int64_t alignment,
                                const std::shared_ptr<MemoryPool>& pool) {
  if (reinterpret_cast<uintptr_t>(buffer->data()) % static_cast<uintptr_t>(alignment) == 0)
    return buffer;
  SHOAL_ASSIGN_OR_RETURN(BufferPtr copy, Buffer::Allocate(buffer->size(), pool));
  std::memcpy(copy->mutable_data(), buffer->data(), static_cast<size_t>(buffer->size()));
  return copy;
}

Result<IpcMessage> DecodeMessage(BufferPtr metadata, const std::shared_ptr<MemoryPool>& pool) {
  SHOAL_ASSIGN_OR_RETURN(metadata, EnsureAligned(std::move(metadata), 8, pool));
  flatbuffers::Verifier verifier(metadata->data(), static_cast<size_t>(metadata->size()), kMaxDepth,
                                 kMaxTables);
  if (!fb::VerifyMessageBuffer(verifier)) {
    return Status::InvalidData(
        "the {}-byte message metadata is not a valid Arrow Message flatbuffer (corrupted data, or "
        "not Arrow IPC)",
        metadata->size());
  }
  IpcMessage out;
  out.message = fb::GetMessage(metadata->data());
  out.metadata = std::move(metadata);
  const auto version = out.message->version();
  if (version < fb::MetadataVersion::V4) {
    return Status::NotImplemented(
        "message metadata version V{} predates Arrow 0.8; Shoal reads versions V4 and V5",
        static_cast<int>(version) + 1);
  }
  if (version > fb::MetadataVersion::V5) {
    return Status::InvalidData("unknown message metadata version {}",
                               static_cast<int>(version) + 1);
  }
  if (out.message->header_type() == fb::MessageHeader::NONE || out.message->header() == nullptr) {
    return Status::InvalidData("the message has no header");
  }
  if (out.message->body_length() < 0)
    return Status::InvalidData("negative message body length {}", out.message->body_length());
  return out;
}

Result<int64_t> MessageReader::ReadPrefix(uint8_t* out, int64_t size) {
  SHOAL_ASSIGN_OR_RETURN(int64_t n, input_->Read(out, size));
  position_ += n;
  return n;
}

Result<std::optional<IpcMessage>> MessageReader::Next() {
  const int64_t start = position_;
  uint32_t word = 0;
  SHOAL_ASSIGN_OR_RETURN(int64_t n, ReadPrefix(reinterpret_cast<uint8_t*>(&word), 4));
  if (n == 0)
    return std::optional<IpcMessage>();  // end of input at a message boundary
  if (n < 4) {
    return Status::InvalidData("truncated stream: {} bytes at byte {} where a message starts", n,
                               start);
  }
  int32_t length;
  if (word == kContinuation) {
    SHOAL_ASSIGN_OR_RETURN(n, ReadPrefix(reinterpret_cast<uint8_t*>(&length), 4));
    if (n < 4) {
      return Status::InvalidData(
          "truncated stream: the message at byte {} ends inside its length prefix", start);
    }
  } else {
    std::memcpy(&length, &word, 4);  // pre-1.0 framing: the length comes first
  }
  if (length == 0)
    return std::optional<IpcMessage>();  // end-of-stream marker
  if (length < 0) {
    return Status::InvalidData("message at byte {} has a negative metadata length {}", start,
                               length);
  }
  SHOAL_ASSIGN_OR_RETURN(BufferPtr metadata, input_->ReadBuffer(length, pool_));
  position_ += metadata->size();
  if (metadata->size() < length) {
    return Status::InvalidData(
        "truncated stream: the message at byte {} declares {} bytes of metadata but only {} follow",
        start, length, metadata->size());
  }
  auto decoded = DecodeMessage(std::move(metadata), pool_);
  if (!decoded.ok())
    return std::move(decoded).status().WithContext(fmt::format("message at byte {}", start));
  IpcMessage message = std::move(decoded).MoveValueUnsafe();
  message.offset = start;
  const int64_t body_length = message.message->body_length();
  SHOAL_ASSIGN_OR_RETURN(message.body, input_->ReadBuffer(body_length, pool_));
  position_ += message.body->size();
  if (message.body->size() < body_length) {
    return Status::InvalidData(
        "truncated stream: the {} message at byte {} declares a {}-byte body but only {} bytes "
        "follow",
        MessageTypeName(message.message->header_type()), start, body_length, message.body->size());
  }
  return std::optional<IpcMessage>(std::move(message));
}

Result<IpcMessage> ReadMessageAt(const BufferPtr& file, int64_t limit, const fb::Block& block,
                                 const std::shared_ptr<MemoryPool>& pool) {
  const int64_t offset = block.offset();
  const int64_t meta_length = block.meta_data_length();
  const int64_t body_length = block.body_length();
  if (offset < 0 || meta_length < 8 || body_length < 0 || offset > limit ||
      meta_length > limit - offset || body_length > limit - offset - meta_length) {
    return Status::InvalidData(
        "block [offset {}, metadata {} bytes, body {} bytes] does not lie within the {} bytes "
        "before the footer",
        offset, meta_length, body_length, limit);
  }
  const uint8_t* p = file->data() + offset;
  uint32_t word;
  std::memcpy(&word, p, 4);
  int64_t prefix = 4;
  int32_t length;
  if (word == kContinuation) {
    std::memcpy(&length, p + 4, 4);
    prefix = 8;
  } else {
    std::memcpy(&length, &word, 4);
  }
  if (length <= 0 || length > meta_length - prefix) {
    return Status::InvalidData(
        "message at byte {} declares {} bytes of metadata, but its block holds {} after the prefix",
        offset, length, meta_length - prefix);
  }
  auto decoded = DecodeMessage(Buffer::Slice(file, offset + prefix, length), pool);
  if (!decoded.ok())
    return std::move(decoded).status().WithContext(fmt::format("message at byte {}", offset));
  IpcMessage message = std::move(decoded).MoveValueUnsafe();
  message.offset = offset;
  if (message.message->body_length() != body_length) {
    return Status::InvalidData(
        "message at byte {} declares a {}-byte body but the file footer says {}", offset,
        message.message->body_length(), body_length);
  }
  message.body = Buffer::Slice(file, offset + meta_length, body_length);
  return message;
}

}  // namespace shoal::columnar::ipc::internal
