// Wire streams: record batches of several partitions multiplexed over one byte stream (one gRPC
// ExecuteTask call carries a whole partition range), as Arrow IPC stream messages per partition.
//
// Sending side: a PartitionEncoder turns one partition's batches into chunks of its Arrow IPC
// stream (schema first, end-of-stream marker last), compressed per the dist_compression setting.
//
// Receiving side: a PartitionDemux receives the chunks of every partition of one call in arrival
// order and hands each partition's chunks to that partition's reader (a StreamReader over a
// blocking InputStream). Flow control: the chunks buffered for one call are bounded by a byte
// budget; when it is full the receiving thread stops reading the network (so the sender's gRPC
// writes block on HTTP/2 flow control and the producer stops), except while some partition's
// reader is waiting on an empty queue — without that exception a consumer that needs partition A
// before it drains partition B (a merge) would deadlock against a full budget. Memory is therefore
// bounded by the budget plus at most one chunk per starving partition.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/columnar/ipc/ipc_options.h"
#include "shoal/columnar/ipc/writer.h"
#include "shoal/common/result.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/exec/task_context.h"

namespace shoal::distributed {

/// Whether `address` ("HOST:PORT", "[V6]:PORT" or a host) names this machine's loopback.
bool IsLoopbackAddress(std::string_view address);

/// "auto" or a name columnar::ipc::ParseCompression takes (the dist_compression setting) to an
/// IPC compression for batches coming from `peer`. "auto" sends uncompressed over loopback, where
/// bandwidth is memory bandwidth and compressing only costs CPU, and LZ4 between machines.
Result<columnar::ipc::Compression> ParseCompression(const std::string& name,
                                                    std::string_view peer = {});

class PartitionEncoder {
 public:
  static Result<std::unique_ptr<PartitionEncoder>> Make(columnar::SchemaPtr schema,
                                                        columnar::ipc::Compression compression);
  ~PartitionEncoder();
  /// The bytes to send for `batch` (the first call's bytes also hold the schema message).
  Result<std::string> Encode(const columnar::RecordBatch& batch);
  /// The last bytes of the partition's stream (and the schema for an empty partition).
  Result<std::string> Finish();

 private:
  class ChunkSink;
  PartitionEncoder() = default;

  std::unique_ptr<ChunkSink> sink_;
  std::unique_ptr<columnar::ipc::RecordBatchWriter> writer_;
};

class PartitionDemux : public std::enable_shared_from_this<PartitionDemux> {
 public:
  PartitionDemux(int num_partitions, int64_t byte_budget);

  /// Receiving thread: queues a chunk of partition `p`; blocks while the budget is full and no
  /// reader starves. Returns false once the demux was closed (stop reading).
  bool Push(int p, std::string chunk);
  /// Partition `p` has no more chunks (`status` not OK: it failed).
  void EndPartition(int p, Status status);
  /// Every partition not yet ended fails with `status` (the call broke).
  void FailAll(const Status& status);
  /// The readers are gone: wakes and stops the receiving thread.
  void Close();

  /// Reader of partition `p`: the next chunk, empty at the end, or the partition's error. While
  /// waiting it polls `context`'s cancellation (may be null), so a failed query does not wait
  /// for data.
  Result<std::string> Pop(int p, const exec::TaskContext* context = nullptr);

  int64_t buffered_bytes() const;
  int64_t peak_buffered_bytes() const;

  /// One stream per partition, decoding the chunks with an Arrow IPC stream reader. `keep_alive`
  /// is held by every stream (the call that feeds the demux).
  std::vector<exec::StreamPtr> MakeStreams(std::shared_ptr<void> keep_alive,
                                           const std::shared_ptr<MemoryPool>& pool,
                                           std::shared_ptr<exec::TaskContext> context = nullptr);

 private:
  struct Partition {
    std::deque<std::string> chunks;
    bool ended = false;
    bool waiting = false;
    Status status;
  };

  bool AnyReaderStarving() const;

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<Partition> partitions_;
  int64_t budget_;
  int64_t buffered_ = 0;
  int64_t peak_ = 0;
  bool closed_ = false;
};

}  // namespace shoal::distributed
