#include "shoal/distributed/shuffle/stage_file_exec.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <regex>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shoal/columnar/ipc/reader.h"
#include "shoal/columnar/ipc/writer.h"
#include "shoal/distributed/shuffle/stage_file_client.h"
#include "shoal/distributed/transport/wire_stream.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/hash.h"
#include "shoal/exec/operator_stream.h"
#include "shoal/exec/operators/coalesce_partitions_exec.h"

namespace shoal::distributed::shuffle {

namespace {

using columnar::RecordBatchPtr;

// Names and types, in order: nullability and metadata do not change how a batch reads.
bool SameColumns(const columnar::Schema& a, const columnar::Schema& b) {
  if (a.num_fields() != b.num_fields())
    return false;
  for (int i = 0; i < a.num_fields(); ++i) {
    if (a.field(i).name != b.field(i).name || !(a.field(i).type == b.field(i).type))
      return false;
  }
  return true;
}

std::string TemporaryPath(const std::string& dir, int stage_id, int partition) {
  std::random_device rd;
  const uint64_t r = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return fmt::format("{}/.stage-{}-part-{}.arrow.{}-{:016x}.tmp", dir, stage_id, partition,
                     static_cast<long>(::getpid()), r);
}

// Test hook for "a task killed mid-write": with SHOAL_SHUFFLE_TEST_KILL_MARKER=PATH, the first
// writer to have written one batch while PATH does not exist creates PATH and kills its own
// process (SIGKILL: no cleanup runs, exactly like an OOM kill). Read once per computed partition.
bool ShouldKillForTest() {
  const char* marker = std::getenv("SHOAL_SHUFFLE_TEST_KILL_MARKER");
  if (marker == nullptr || *marker == '\0')
    return false;
  int fd = ::open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return false;  // exists already: this is the retry, or another writer was killed
  ::close(fd);
  return true;
}

class FileReadStream final : public exec::OperatorStream {
 public:
  FileReadStream(const exec::ExecutionPlan* node, int partition,
                 std::shared_ptr<exec::TaskContext> context,
                 std::unique_ptr<columnar::ipc::StreamReader> reader)
      : OperatorStream(node, partition, std::move(context)), reader_(std::move(reader)) {}

 protected:
  Result<RecordBatchPtr> NextImpl() override { return reader_->Next(); }

 private:
  std::unique_ptr<columnar::ipc::StreamReader> reader_;
};

// Pulls the partition's rows, writes each batch to the temporary file and passes it on; publishes
// the file by rename at the end of the input. Destroyed before that, it removes the temporary.
class ComputeStream final : public exec::OperatorStream {
 public:
  ComputeStream(const StageFileExec* node, int partition,
                std::shared_ptr<exec::TaskContext> context)
      : OperatorStream(node, partition, std::move(context)), node_(node) {}

  ~ComputeStream() override {
    if (!published_ && !temporary_.empty()) {
      writer_.reset();
      sink_.reset();
      ::unlink(temporary_.c_str());
    }
  }

  Status Open() {
    const int p = partition();
    if (node_->hash_stage()) {
      exec::ExecPlanPtr all = node_->child();
      if (all->num_partitions() > 1)
        all = exec::CoalescePartitionsExec::Make(all);
      SHOAL_ASSIGN_OR_RETURN(input_, all->Execute(0, context()));
      SHOAL_ASSIGN_OR_RETURN(keys_, exec::MakeEvaluators(node_->output_partitioning().keys,
                                                         *node_->child()->schema(), pool()));
    } else {
      SHOAL_ASSIGN_OR_RETURN(input_, node_->child()->Execute(p, context()));
    }
    columnar::ipc::WriteOptions options;
    SHOAL_ASSIGN_OR_RETURN(options.compression, ParseCompression(node_->compression()));
    options.pool = pool();
    final_ = node_->FilePath(p);
    temporary_ = TemporaryPath(node_->dir(), node_->stage_id(), p);
    auto sink = columnar::ipc::FileSink::Open(temporary_);
    if (!sink.ok()) {
      temporary_.clear();
      return std::move(sink).status().WithHint(
          fmt::format("the shuffle directory {} must exist and be writable", node_->dir()));
    }
    sink_ = std::move(sink).MoveValueUnsafe();
    SHOAL_ASSIGN_OR_RETURN(writer_,
                           columnar::ipc::MakeStreamWriter(sink_.get(), node_->schema(), options));
    return Status::OK();
  }

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    for (;;) {
      SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, input_->Next());
      if (!batch) {
        SHOAL_RETURN_IF_ERROR(Publish());
        return RecordBatchPtr();
      }
      if (node_->hash_stage()) {
        SHOAL_ASSIGN_OR_RETURN(batch, KeepOwnRows(std::move(batch)));
      }
      if (!batch || batch->num_rows() == 0)
        continue;
      Status st = writer_->WriteBatch(*batch);
      if (!st.ok())
        return std::move(st).WithContext(fmt::format("writing {}", temporary_));
      if (!checked_kill_) {
        checked_kill_ = true;
        if (ShouldKillForTest())
          ::raise(SIGKILL);
      }
      return batch;
    }
  }

 private:
  // The rows of `batch` whose key hashes to this partition (RepartitionExec's routing).
  Result<RecordBatchPtr> KeepOwnRows(RecordBatchPtr batch) {
    const int64_t n = batch->num_rows();
    if (n == 0)
      return batch;
    std::vector<columnar::ArrayPtr> key_columns;
    key_columns.reserve(keys_.size());
    for (auto& k : keys_) {
      SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr column, k->Evaluate(*batch));
      key_columns.push_back(std::move(column));
    }
    SHOAL_RETURN_IF_ERROR(exec::HashColumns(key_columns, n, &hashes_));
    const auto m = static_cast<uint64_t>(node_->num_partitions());
    const auto p = static_cast<uint64_t>(partition());
    rows_.clear();
    for (int64_t i = 0; i < n; ++i) {
      const auto j = static_cast<uint64_t>(
          (static_cast<unsigned __int128>(hashes_[static_cast<size_t>(i)]) * m) >> 64);
      if (j == p)
        rows_.push_back(static_cast<int32_t>(i));
    }
    if (rows_.empty())
      return RecordBatchPtr();
    if (static_cast<int64_t>(rows_.size()) == n)
      return batch;
    return exec::TakeBatch(*batch, rows_.data(), static_cast<int64_t>(rows_.size()), pool());
  }

  Status Publish() {
    Status st = writer_->Close();
    if (!st.ok())
      return std::move(st).WithContext(fmt::format("writing {}", temporary_));
    writer_.reset();
    sink_.reset();
    if (::rename(temporary_.c_str(), final_.c_str()) != 0)
      return Status::IoError("cannot publish {} as {}: {}", temporary_, final_,
                             std::strerror(errno));
    published_ = true;
    return Status::OK();
  }

  const StageFileExec* node_;
  exec::StreamPtr input_;
  std::vector<std::unique_ptr<exec::ExprEvaluator>> keys_;
  std::vector<uint64_t> hashes_;
  exec::SelectionVector rows_;
  std::string final_;
  std::string temporary_;
  std::unique_ptr<columnar::ipc::FileSink> sink_;
  std::unique_ptr<columnar::ipc::RecordBatchWriter> writer_;
  bool published_ = false;
  bool checked_kill_ = false;
};

}  // namespace

std::string StageFilePath(const std::string& dir, int stage_id, int partition) {
  return fmt::format("{}/stage-{}-part-{}.arrow", dir, stage_id, partition);
}

bool IsStageFileName(std::string_view name) {
  static const std::regex kPattern("stage-[0-9]+-part-[0-9]+\\.arrow");
  return std::regex_match(name.begin(), name.end(), kPattern);
}

bool IsStageTemporaryName(std::string_view name) {
  static const std::regex kPattern("\\.stage-[0-9]+-part-[0-9]+\\.arrow\\..*\\.tmp");
  return std::regex_match(name.begin(), name.end(), kPattern);
}

Result<std::shared_ptr<StageFileExec>> StageFileExec::Make(exec::ExecPlanPtr child, std::string dir,
                                                           int stage_id,
                                                           exec::Partitioning partitioning,
                                                           std::string compression) {
  if (!child)
    return Status::Internal("a shuffle stage without input");
  if (dir.empty())
    return Status::InvalidArgument("a shuffle stage needs a shuffle directory");
  if (stage_id < 1)
    return Status::InvalidData("shuffle stage id {} (ids start at 1)", stage_id);
  SHOAL_RETURN_IF_ERROR(ParseCompression(compression).status());
  if (partitioning.kind == exec::PartitioningKind::kHash) {
    if (partitioning.keys.empty() || partitioning.num_partitions < 1)
      return Status::InvalidData("hash shuffle stage {} without keys or partitions", stage_id);
    // Compiling the keys checks their column positions and types against the child.
    SHOAL_RETURN_IF_ERROR(
        exec::MakeEvaluators(partitioning.keys, *child->schema(), DefaultMemoryPool()).status());
  } else {
    partitioning = exec::Partitioning::Unknown(child->num_partitions());
  }
  return std::shared_ptr<StageFileExec>(new StageFileExec(
      std::move(child), std::move(dir), stage_id, std::move(partitioning), std::move(compression)));
}

Result<exec::ExecPlanPtr> StageFileExec::WithNewChildren(
    std::vector<exec::ExecPlanPtr> children) const {
  if (children.size() != 1)
    return Status::Internal("ShuffleStage takes one child, got {}", children.size());
  SHOAL_ASSIGN_OR_RETURN(
      auto node, Make(std::move(children[0]), dir_, stage_id_, partitioning_, compression_));
  return exec::ExecPlanPtr(std::move(node));
}

std::vector<sql::SortKey> StageFileExec::output_ordering() const {
  return hash_stage() ? std::vector<sql::SortKey>{} : child_->output_ordering();
}

Result<exec::StreamPtr> StageFileExec::Execute(
    int partition, const std::shared_ptr<exec::TaskContext>& context) const {
  if (partition < 0 || partition >= num_partitions())
    return Status::Internal("ShuffleStage {}: partition {} of {}", stage_id_, partition,
                            num_partitions());
  struct stat st {};
  if (::stat(FilePath(partition).c_str(), &st) == 0)
    return OpenFile(partition, context);
  // Written on another machine (a driver with --shuffle-workers): fetched here, then read as a
  // local file, schema check included.
  if (auto remote = FindStageFileLocation(dir_, stage_id_, partition)) {
    SHOAL_RETURN_IF_ERROR(FetchStageFile(*remote, stage_id_, partition, FilePath(partition)));
    return OpenFile(partition, context);
  }
  return Compute(partition, context);
}

Result<exec::StreamPtr> StageFileExec::OpenFile(
    int partition, const std::shared_ptr<exec::TaskContext>& context) const {
  const std::string path = FilePath(partition);
  auto label = [&] { return fmt::format("reading shuffle stage file {}", path); };
  auto input = columnar::ipc::FileInputStream::Open(path);
  if (!input.ok())
    return std::move(input).status().WithContext(label());
  columnar::ipc::ReadOptions options;
  options.pool = context->memory_pool();
  auto reader = columnar::ipc::OpenStreamReader(std::move(input).MoveValueUnsafe(), options);
  if (!reader.ok())
    return std::move(reader).status().WithContext(label());
  if (!SameColumns(*(*reader)->schema(), *schema()))
    return Status::InvalidData("shuffle stage file {} has schema ({}) but stage {} expects ({})",
                               path, (*reader)->schema()->ToString(), stage_id_,
                               schema()->ToString())
        .WithHint(
            "the file was written by another query: use one shuffle directory per query "
            "(shoal shuffle gc DIR removes a finished query's files)");
  return exec::StreamPtr(std::make_unique<FileReadStream>(this, partition, context,
                                                          std::move(reader).MoveValueUnsafe()));
}

Result<exec::StreamPtr> StageFileExec::Compute(
    int partition, const std::shared_ptr<exec::TaskContext>& context) const {
  auto stream = std::make_unique<ComputeStream>(this, partition, context);
  SHOAL_RETURN_IF_ERROR(stream->Open());
  return exec::StreamPtr(std::move(stream));
}

std::string StageFileExec::Describe(bool) const {
  return fmt::format("stage={}, {}, dir={}, compression={}", stage_id_,
                     hash_stage() ? partitioning_.ToString()
                                  : fmt::format("passthrough({})", partitioning_.num_partitions),
                     dir_, compression_);
}

}  // namespace shoal::distributed::shuffle
