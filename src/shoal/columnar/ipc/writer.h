// Arrow IPC writers: the streaming format (a sequence of encapsulated messages: schema, then
// dictionary and record batch messages, then an end-of-stream marker) and the file format (the
// stream between "ARROW1" magics, followed by a footer that indexes every block for random access).
//
// Written from the Arrow columnar format specification, with Shoal's own flatbuffers schema
// (format/*.fbs). Batches are written without re-encoding: each buffer is copied (or compressed)
// into the message body at 8-byte alignment. Slices are written as compact arrays (offsets rebased,
// bitmaps shifted) because the format has no array offset.
//
// Dictionary columns (dictionary ids 0, 1, ... in field order): the writer emits a dictionary
// batch before the first record batch that uses a dictionary. A later batch with the same
// dictionary (same array, or equal values) sends nothing; one whose dictionary extends the sent
// one (the sent values are its prefix) sends only the new values as a delta (both formats, see
// WriteOptions::emit_dictionary_deltas); any other change is a replacement in the stream format
// and refused in the file format, which allows one dictionary per id. Decimals of precision <= 18
// are written as Arrow Decimal with bitWidth 64 unless WriteOptions::widen_decimal64.
//
// Thread safety: a writer is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "shoal/columnar/ipc/ipc_options.h"
#include "shoal/columnar/record_batch.h"

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

class RecordBatchWriter {
 public:
  virtual ~RecordBatchWriter() = default;
  /// The batch's schema must equal the writer's.
  virtual Status WriteBatch(const RecordBatch& batch) = 0;
  /// Writes the end-of-stream marker (and the footer for files) and closes the sink.
  virtual Status Close() = 0;
};

/// Streaming format. The schema message is written immediately.
Result<std::unique_ptr<RecordBatchWriter>> MakeStreamWriter(OutputSink* sink, SchemaPtr schema,
                                                            WriteOptions options = {});
/// File format ("ARROW1" ... footer ... "ARROW1").
Result<std::unique_ptr<RecordBatchWriter>> MakeFileWriter(OutputSink* sink, SchemaPtr schema,
                                                          WriteOptions options = {});

}  // namespace shoal::columnar::ipc
