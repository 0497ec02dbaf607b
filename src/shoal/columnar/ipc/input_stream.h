// InputStream: where the IPC readers (reader.h) get their bytes, read sequentially, and its two
// implementations: an in-memory byte range (zero-copy when an owner keeps it alive) and a file.
// Kept apart from reader.h so the message framing (message_internal.h), which reads from a
// stream, does not depend on the readers built on it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "shoal/columnar/buffer.h"
#include "shoal/common/result.h"

namespace shoal::columnar::ipc {

/// A source of stream bytes read sequentially (a file, a socket, a gRPC stream).
class InputStream {
 public:
  virtual ~InputStream() = default;
  /// Reads up to `size` bytes; returns fewer only at end of input.
  virtual Result<int64_t> Read(uint8_t* out, int64_t size) = 0;
  /// Reads up to `size` bytes into a buffer (fewer only at end of input). The default copies into
  /// a pool buffer that grows as bytes arrive, so a corrupted length prefix cannot make a reader
  /// allocate much more than the input really holds; in-memory streams return zero-copy views.
  virtual Result<BufferPtr> ReadBuffer(int64_t size, const std::shared_ptr<MemoryPool>& pool);
};

/// Reads an in-memory byte range; keeps `owner` alive for zero-copy buffers.
class BufferInputStream : public InputStream {
 public:
  BufferInputStream(const uint8_t* data, int64_t size, std::shared_ptr<const void> owner = nullptr)
      : data_(data), size_(size), owner_(std::move(owner)) {}
  Result<int64_t> Read(uint8_t* out, int64_t size) override;
  /// A view of the input when an owner keeps it alive, otherwise a copy.
  Result<BufferPtr> ReadBuffer(int64_t size, const std::shared_ptr<MemoryPool>& pool) override;

 private:
  const uint8_t* data_;
  int64_t size_;
  int64_t position_ = 0;
  std::shared_ptr<const void> owner_;
};

class FileInputStream : public InputStream {
 public:
  static Result<std::unique_ptr<FileInputStream>> Open(const std::string& path);
  ~FileInputStream() override;
  FileInputStream(const FileInputStream&) = delete;
  FileInputStream& operator=(const FileInputStream&) = delete;
  Result<int64_t> Read(uint8_t* out, int64_t size) override;
  /// Allocates at most what is left of a regular file.
  Result<BufferPtr> ReadBuffer(int64_t size, const std::shared_ptr<MemoryPool>& pool) override;

 private:
  FileInputStream(int fd, std::string path, int64_t size)
      : fd_(fd), path_(std::move(path)), size_(size) {}
  int fd_;
  std::string path_;
  int64_t size_;  // -1 when not a regular file
  int64_t position_ = 0;
};

}  // namespace shoal::columnar::ipc
