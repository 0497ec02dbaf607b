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
#include "shoal/columnar/ipc/output_sink.h"
#include "shoal/columnar/record_batch.h"

namespace shoal::columnar::ipc {

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
