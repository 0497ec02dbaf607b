// Arrow IPC readers for the streaming and file formats (see writer.h for the formats).
//
// Every byte read is treated as hostile: message lengths, flatbuffers (verified with the
// flatbuffers Verifier before any field is touched), buffer offsets and lengths, compression
// frames, dictionary ids and every array (Array::Validate) are checked, so a truncated or corrupted
// input yields an InvalidData Status that says what was wrong and where (message number, byte
// offset), never a crash or an out-of-bounds read. A mutation test runs thousands of corrupted
// inputs under ASan and UBSan.
//
// Arrays read from an uncompressed in-memory or memory-mapped input view the input's bytes
// (zero-copy); compressed bodies are decompressed into pool buffers. Types outside Shoal's columnar
// core (lists, structs, unions, large offsets, views) are refused with NotImplemented naming the
// field and its type; decimal128 columns of precision <= 18 are narrowed to Shoal's 64-bit form.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "shoal/columnar/ipc/ipc_options.h"
#include "shoal/columnar/record_batch.h"

namespace shoal::columnar::ipc {

/// A source of stream bytes read sequentially (a file, a socket, a gRPC stream).
class InputStream {
 public:
  virtual ~InputStream() = default;
  /// Reads up to `size` bytes; returns fewer only at end of input.
  virtual Result<int64_t> Read(uint8_t* out, int64_t size) = 0;
};

/// Reads an in-memory byte range; keeps `owner` alive for zero-copy buffers.
class BufferInputStream : public InputStream {
 public:
  BufferInputStream(const uint8_t* data, int64_t size, std::shared_ptr<const void> owner = nullptr)
      : data_(data), size_(size), owner_(std::move(owner)) {}
  Result<int64_t> Read(uint8_t* out, int64_t size) override;

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
  Result<int64_t> Read(uint8_t* out, int64_t size) override;

 private:
  FileInputStream(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
};

class StreamReader {
 public:
  virtual ~StreamReader() = default;
  virtual const SchemaPtr& schema() const = 0;
  /// The next batch, or nullptr at the end of the stream.
  virtual Result<RecordBatchPtr> Next() = 0;
};

/// Reads the schema message immediately; fails if the stream does not start with one.
Result<std::unique_ptr<StreamReader>> OpenStreamReader(std::unique_ptr<InputStream> input,
                                                       ReadOptions options = {});

class FileReader {
 public:
  virtual ~FileReader() = default;
  virtual const SchemaPtr& schema() const = 0;
  virtual int num_batches() const = 0;
  /// Batch i, with its dictionaries resolved.
  virtual Result<RecordBatchPtr> ReadBatch(int i) = 0;
};

/// Opens an IPC file held in memory (the whole file; `owner` keeps it alive).
Result<std::unique_ptr<FileReader>> OpenFileReader(std::shared_ptr<const std::string> bytes,
                                                   ReadOptions options = {});
/// Opens an IPC file on disk (memory-mapped).
Result<std::unique_ptr<FileReader>> OpenFileReader(const std::string& path, ReadOptions options = {});

/// Convenience for tools and tests: every batch of a stream or file (format detected by magic).
struct ReadAllResult {
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
};
Result<ReadAllResult> ReadAll(const std::string& path, ReadOptions options = {});
Result<ReadAllResult> ReadAllFromBytes(std::shared_ptr<const std::string> bytes, ReadOptions options = {});

}  // namespace shoal::columnar::ipc
