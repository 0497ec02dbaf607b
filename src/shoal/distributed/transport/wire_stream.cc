#include "shoal/distributed/transport/wire_stream.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>

#include "shoal/columnar/ipc/compression_name.h"
#include "shoal/columnar/ipc/reader.h"
#include "shoal/distributed/transport/worker_channel.h"

namespace shoal::distributed {

bool IsLoopbackAddress(std::string_view address) {
  // "HOST:PORT", "[V6]:PORT" or a bare host.
  std::string_view host = address;
  if (!host.empty() && host.front() == '[') {
    host = host.substr(
        1, host.find(']') == std::string_view::npos ? host.size() - 1 : host.find(']') - 1);
  } else if (host.find(':') != std::string_view::npos && host.find(':') == host.rfind(':')) {
    host = host.substr(0, host.find(':'));
  }
  return host == "localhost" || host == "::1" || host.substr(0, 4) == "127.";
}

Result<columnar::ipc::Compression> ParseCompression(const std::string& name,
                                                    std::string_view peer) {
  if (name == "auto")
    return IsLoopbackAddress(peer) ? columnar::ipc::Compression::kNone
                                   : columnar::ipc::Compression::kLz4Frame;
  auto compression = columnar::ipc::ParseCompression(name);
  if (!compression.ok())
    return Status::InvalidArgument("unknown compression '{}' (valid: auto, {})", name,
                                   columnar::ipc::kCompressionNames);
  return compression;
}

// Collects what the IPC writer writes until the encoder takes it.
class PartitionEncoder::ChunkSink final : public columnar::ipc::OutputSink {
 public:
  Status Write(const uint8_t* data, int64_t size) override {
    bytes_.append(reinterpret_cast<const char*>(data), static_cast<size_t>(size));
    position_ += size;
    return Status::OK();
  }

  Status Close() override { return Status::OK(); }

  int64_t position() const override { return position_; }

  std::string Take() {
    std::string out;
    out.swap(bytes_);
    return out;
  }

 private:
  std::string bytes_;
  int64_t position_ = 0;
};

PartitionEncoder::~PartitionEncoder() = default;

Result<std::unique_ptr<PartitionEncoder>> PartitionEncoder::Make(
    columnar::SchemaPtr schema, columnar::ipc::Compression compression) {
  std::unique_ptr<PartitionEncoder> encoder(new PartitionEncoder());
  encoder->sink_ = std::make_unique<ChunkSink>();
  columnar::ipc::WriteOptions options;
  options.compression = compression;
  SHOAL_ASSIGN_OR_RETURN(encoder->writer_, columnar::ipc::MakeStreamWriter(
                                               encoder->sink_.get(), std::move(schema), options));
  return encoder;
}

Result<std::string> PartitionEncoder::Encode(const columnar::RecordBatch& batch) {
  SHOAL_RETURN_IF_ERROR(writer_->WriteBatch(batch));
  return sink_->Take();
}

Result<std::string> PartitionEncoder::Finish() {
  SHOAL_RETURN_IF_ERROR(writer_->Close());
  return sink_->Take();
}

PartitionDemux::PartitionDemux(int num_partitions, int64_t byte_budget)
    : partitions_(static_cast<size_t>(std::max(0, num_partitions))),
      budget_(std::max<int64_t>(1, byte_budget)) {}

bool PartitionDemux::AnyReaderStarving() const {
  for (const auto& p : partitions_) {
    if (p.waiting && p.chunks.empty() && !p.ended)
      return true;
  }
  return false;
}

bool PartitionDemux::Push(int p, std::string chunk) {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [&] { return closed_ || buffered_ < budget_ || AnyReaderStarving(); });
  if (closed_)
    return false;
  auto& part = partitions_[static_cast<size_t>(p)];
  if (part.ended)
    return true;  // a reader that stopped early: drop its data
  buffered_ += static_cast<int64_t>(chunk.size());
  peak_ = std::max(peak_, buffered_);
  part.chunks.push_back(std::move(chunk));
  cv_.notify_all();
  return true;
}

void PartitionDemux::EndPartition(int p, Status status) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& part = partitions_[static_cast<size_t>(p)];
  if (!part.ended) {
    part.ended = true;
    part.status = std::move(status);
  }
  cv_.notify_all();
}

void PartitionDemux::FailAll(const Status& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& part : partitions_) {
    if (!part.ended) {
      part.ended = true;
      part.status = status;
    }
  }
  cv_.notify_all();
}

void PartitionDemux::Close() {
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  cv_.notify_all();
}

Result<std::string> PartitionDemux::Pop(int p, const exec::TaskContext* context) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto& part = partitions_[static_cast<size_t>(p)];
  part.waiting = true;
  cv_.notify_all();  // the receiving thread may be waiting for a starving reader
  auto ready = [&] { return !part.chunks.empty() || part.ended || closed_; };
  while (!ready()) {
    if (context != nullptr && context->cancelled()) {
      part.waiting = false;
      return exec::TaskContext::CancelledStatus();
    }
    cv_.wait_for(lock, std::chrono::milliseconds(50));
  }
  part.waiting = false;
  if (closed_)
    return Status::Cancelled("the exchange was closed");
  if (!part.chunks.empty()) {
    std::string chunk = std::move(part.chunks.front());
    part.chunks.pop_front();
    buffered_ -= static_cast<int64_t>(chunk.size());
    cv_.notify_all();
    return chunk;
  }
  if (!part.status.ok())
    return part.status;
  return std::string();
}

int64_t PartitionDemux::buffered_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return buffered_;
}

int64_t PartitionDemux::peak_buffered_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return peak_;
}

namespace {

// What one partition's reader has taken from the demux (network metrics).
struct ReceivedCounts {
  int64_t bytes = 0;
  int64_t chunks = 0;
};

// The bytes of one partition, chunk after chunk, as the IPC reader's input.
class ChunkInputStream final : public columnar::ipc::InputStream {
 public:
  // `received`: bytes and chunks popped so far (the owning WireStream's counters).
  ChunkInputStream(std::shared_ptr<PartitionDemux> demux, int partition,
                   std::shared_ptr<exec::TaskContext> context, ReceivedCounts* received)
      : demux_(std::move(demux)),
        partition_(partition),
        context_(std::move(context)),
        received_(received) {}

  Result<int64_t> Read(uint8_t* out, int64_t size) override {
    int64_t done = 0;
    while (done < size) {
      if (offset_ == chunk_.size()) {
        if (ended_)
          break;
        SHOAL_ASSIGN_OR_RETURN(chunk_, demux_->Pop(partition_, context_.get()));
        offset_ = 0;
        if (chunk_.empty()) {
          ended_ = true;
          break;
        }
        received_->bytes += static_cast<int64_t>(chunk_.size());
        received_->chunks += 1;
      }
      const size_t n = std::min(chunk_.size() - offset_, static_cast<size_t>(size - done));
      std::memcpy(out + done, chunk_.data() + offset_, n);
      offset_ += n;
      done += static_cast<int64_t>(n);
    }
    return done;
  }

 private:
  std::shared_ptr<PartitionDemux> demux_;
  int partition_;
  std::shared_ptr<exec::TaskContext> context_;
  std::string chunk_;
  size_t offset_ = 0;
  bool ended_ = false;
  ReceivedCounts* received_;
};

// Opens the IPC reader at the first Next(), so returning the streams never blocks.
class WireStream final : public exec::RecordBatchStream, public NetworkStreamStats {
 public:
  WireStream(std::shared_ptr<PartitionDemux> demux, int partition, std::shared_ptr<void> keep_alive,
             std::shared_ptr<MemoryPool> pool, std::shared_ptr<exec::TaskContext> context)
      : demux_(std::move(demux)),
        partition_(partition),
        keep_alive_(std::move(keep_alive)),
        pool_(std::move(pool)),
        context_(std::move(context)) {}

  ~WireStream() override {
    // Data for this partition that is still on its way is dropped, freeing the budget.
    demux_->EndPartition(partition_, Status::OK());
  }

  const columnar::SchemaPtr& schema() const override {
    static const columnar::SchemaPtr kEmpty = std::make_shared<columnar::Schema>();
    return reader_ ? reader_->schema() : kEmpty;
  }

  Result<columnar::RecordBatchPtr> Next() override {
    if (!reader_) {
      columnar::ipc::ReadOptions options;
      options.pool = pool_;
      SHOAL_ASSIGN_OR_RETURN(
          reader_, columnar::ipc::OpenStreamReader(
                       std::make_unique<ChunkInputStream>(demux_, partition_, context_, &received_),
                       options));
    }
    return reader_->Next();
  }

  int64_t received_bytes() const override { return received_.bytes; }

  int64_t received_messages() const override { return received_.chunks; }

 private:
  std::shared_ptr<PartitionDemux> demux_;
  int partition_;
  std::shared_ptr<void> keep_alive_;
  std::shared_ptr<MemoryPool> pool_;
  std::shared_ptr<exec::TaskContext> context_;
  // Written by the reader's input, on the thread calling Next(); declared first, outlives it.
  ReceivedCounts received_;
  std::unique_ptr<columnar::ipc::StreamReader> reader_;
};

}  // namespace

std::vector<exec::StreamPtr> PartitionDemux::MakeStreams(
    std::shared_ptr<void> keep_alive, const std::shared_ptr<MemoryPool>& pool,
    std::shared_ptr<exec::TaskContext> context) {
  std::vector<exec::StreamPtr> streams;
  for (size_t p = 0; p < partitions_.size(); ++p) {
    streams.push_back(exec::StreamPtr(
        new WireStream(shared_from_this(), static_cast<int>(p), keep_alive, pool, context)));
  }
  return streams;
}

}  // namespace shoal::distributed
