// OutputSink: where the IPC writers (writer.h) put their bytes, and its two implementations: a
// growable memory buffer and a file. Kept apart from writer.h so the body encoder
// (body_encoder_internal.h), which writes to a sink, does not depend on the writers built on it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "shoal/columnar/buffer.h"
#include "shoal/common/result.h"

namespace shoal::columnar::ipc {

/// Where encoded bytes go. Implementations: a file (FileSink), a growable memory buffer
/// (BufferSink), and later a gRPC stream.
class OutputSink {
 public:
  virtual ~OutputSink() = default;
  virtual Status Write(const uint8_t* data, int64_t size) = 0;
  virtual Status Close() = 0;
  /// Bytes written so far.
  virtual int64_t position() const = 0;
};

class BufferSink : public OutputSink {
 public:
  BufferSink() = default;

  /// Appends to `buffer` after clearing it, reusing its capacity (say, a connection's send
  /// buffer), so a hot path does not grow and fault in fresh memory for every stream.
  explicit BufferSink(std::string buffer) : bytes_(std::move(buffer)) { bytes_.clear(); }

  Status Write(const uint8_t* data, int64_t size) override;
  Status Close() override { return Status::OK(); }
  int64_t position() const override { return static_cast<int64_t>(bytes_.size()); }
  const std::string& bytes() const { return bytes_; }
  std::string TakeBytes() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class FileSink : public OutputSink {
 public:
  /// Creates or truncates `path`.
  static Result<std::unique_ptr<FileSink>> Open(const std::string& path);
  ~FileSink() override;
  Status Write(const uint8_t* data, int64_t size) override;
  Status Close() override;
  int64_t position() const override { return position_; }

  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

 private:
  FileSink(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
  int64_t position_ = 0;
  std::string pending_;  // small writes are coalesced
};

}  // namespace shoal::columnar::ipc
