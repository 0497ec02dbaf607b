#include "shoal/exec/spill/spill_manager.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include <unistd.h>

#include "shoal/columnar/ipc/reader.h"

namespace shoal::exec {

namespace ipc = columnar::ipc;

const std::shared_ptr<MemoryPool>& SpillWritePool() {
  static const std::shared_ptr<MemoryPool> kPool = DefaultMemoryPool()->MakeChild("spill writes");
  return kPool;
}

SpillWriter::~SpillWriter() = default;

Status SpillWriter::Write(const columnar::RecordBatch& batch) {
  if (!writer_)
    return Status::Internal("spill file '{}' written after it was finished", path_);
  if (batch.num_rows() == 0)
    return Status::OK();
  Status st = writer_->WriteBatch(batch);
  if (!st.ok())
    return manager_->Explain(std::move(st));
  rows_ += batch.num_rows();
  return Status::OK();
}

Result<SpillFile> SpillWriter::Finish() {
  if (!writer_)
    return Status::Internal("spill file '{}' finished twice", path_);
  Status st = writer_->Close();
  writer_.reset();
  if (!st.ok())
    return manager_->Explain(std::move(st));
  SpillFile file{path_, rows_, sink_->position()};
  sink_.reset();
  manager_->Count(file);
  return file;
}

SpillManager::SpillManager(std::string base_directory, std::string operator_name,
                           std::shared_ptr<MemoryPool> pool, OperatorMetrics* metrics)
    : base_directory_(std::move(base_directory)),
      operator_name_(std::move(operator_name)),
      pool_(std::move(pool)),
      metrics_(metrics) {}

SpillManager::~SpillManager() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const std::string& path : paths_)
    std::remove(path.c_str());
  if (!directory_.empty())
    ::rmdir(directory_.c_str());
}

std::string SpillManager::directory() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return directory_;
}

Status SpillManager::Explain(Status status) const {
  if (status.code() != StatusCode::kIoError)
    return status;
  const std::string where = directory_.empty() ? base_directory_ : directory_;
  return std::move(status)
      .WithContext(fmt::format("spilling {} to '{}' (setting spill_dir)", operator_name_, where))
      .WithHint(
          "set spill_dir to a writable directory with free space, or raise memory_limit so "
          "that the query does not need to spill");
}

Status SpillManager::EnsureDirectory() {
  if (!directory_.empty())
    return Status::OK();
  std::string base = base_directory_.empty() ? "/tmp" : base_directory_;
  std::string pattern = base + (base.back() == '/' ? "" : "/") + "shoal-spill-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) {
    return Status::IoError("cannot create a spill directory in '{}' (setting spill_dir): {}", base,
                           std::strerror(errno))
        .WithHint(
            "set spill_dir to a writable directory with free space, or raise memory_limit so "
            "that the query does not need to spill");
  }
  directory_ = buffer.data();
  return Status::OK();
}

Result<std::unique_ptr<SpillWriter>> SpillManager::Create(columnar::SchemaPtr schema) {
  std::string path;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    SHOAL_RETURN_IF_ERROR(EnsureDirectory());
    path = fmt::format("{}/{}.arrows", directory_, next_id_++);
    paths_.push_back(path);
  }
  std::unique_ptr<SpillWriter> writer(new SpillWriter(this, path));
  Result<std::unique_ptr<ipc::FileSink>> sink = ipc::FileSink::Open(path);
  if (!sink.ok())
    return Explain(std::move(sink).status());
  writer->sink_ = std::move(*sink);
  ipc::WriteOptions options;
  options.compression = ipc::Compression::kLz4Frame;
  options.pool = SpillWritePool();
  Result<std::unique_ptr<ipc::RecordBatchWriter>> batch_writer =
      ipc::MakeStreamWriter(writer->sink_.get(), std::move(schema), options);
  if (!batch_writer.ok())
    return Explain(std::move(batch_writer).status());
  writer->writer_ = std::move(*batch_writer);
  return writer;
}

void SpillManager::Count(const SpillFile& file) {
  bytes_written_ += file.bytes;
  files_written_ += 1;
  if (metrics_ != nullptr) {
    metrics_->spilled_bytes += file.bytes;
    metrics_->spill_count += 1;
    metrics_->AddExtra("spilled_rows", file.rows);
  }
}

Result<columnar::RecordBatchReaderPtr> SpillManager::Open(const SpillFile& file) {
  Result<std::unique_ptr<ipc::FileInputStream>> input = ipc::FileInputStream::Open(file.path);
  if (!input.ok())
    return Explain(std::move(input).status());
  ipc::ReadOptions options;
  options.check_utf8 = false;  // our own bytes, validated when they were built
  options.pool = pool_;
  SHOAL_ASSIGN_OR_RETURN(std::unique_ptr<ipc::StreamReader> reader,
                         ipc::OpenStreamReader(std::move(*input), options));
  if (metrics_ != nullptr)
    metrics_->AddExtra("spill_read_bytes", file.bytes);
  return columnar::RecordBatchReaderPtr(std::move(reader));
}

void SpillManager::Remove(const SpillFile& file) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < paths_.size(); ++i) {
    if (paths_[i] == file.path) {
      std::remove(file.path.c_str());
      paths_.erase(paths_.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
}

}  // namespace shoal::exec
