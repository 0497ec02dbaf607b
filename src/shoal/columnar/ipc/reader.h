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
// (zero-copy) unless a buffer is misaligned for its type, which is then copied; compressed bodies
// are decompressed into pool buffers after their declared size has been bounded (a compressed
// buffer cannot legitimately expand more than LZ4's or zstd's maximum ratio). A corrupted length
// therefore never allocates more than the input can justify.
//
// Types outside Shoal's columnar core (lists, structs, unions, large offsets, views, time,
// duration, float16, decimal256, year-month and day-time intervals) are refused with
// NotImplemented naming the field and its type. Conversions on read: Decimal128 columns of
// precision <= 18 are narrowed and Decimal32 columns widened to Shoal's 64-bit decimals (a value
// outside the precision is InvalidData); date64 (milliseconds) becomes date32 (days, rounded
// down). Dictionary batches may replace (streams) or extend (deltas, both formats) a dictionary;
// the file format refuses a second non-delta dictionary for an id. The pre-1.0 message framing
// without the 0xFFFFFFFF marker, metadata version V4, and streams that end without an end marker
// are accepted. A column declared NOT NULL that holds nulls is InvalidData.
//
// A memory-mapped file must not be truncated by another process while batches from it live.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shoal/columnar/ipc/input_stream.h"
#include "shoal/columnar/ipc/ipc_options.h"
#include "shoal/columnar/record_batch.h"
#include "shoal/columnar/record_batch_reader.h"

namespace shoal::columnar::ipc {

/// A RecordBatchReader, so an IPC stream plugs in wherever batches are pulled (scans, exchanges).
class StreamReader : public RecordBatchReader {
 public:
  const SchemaPtr& schema() const override = 0;
  /// The next batch, or nullptr at the end of the stream (and on every later call). After an
  /// error, every later call returns the same error.
  Result<RecordBatchPtr> Next() override = 0;
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
Result<std::unique_ptr<FileReader>> OpenFileReader(const std::string& path,
                                                   ReadOptions options = {});

/// Convenience for tools and tests: every batch of a stream or file (format detected by magic).
struct ReadAllResult {
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
};
Result<ReadAllResult> ReadAll(const std::string& path, ReadOptions options = {});
Result<ReadAllResult> ReadAllFromBytes(std::shared_ptr<const std::string> bytes,
                                       ReadOptions options = {});

}  // namespace shoal::columnar::ipc
