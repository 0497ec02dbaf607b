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
#include "shoal/distributed/shuffle/map_output.h"
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

// Reads a stage file, checking its schema against the stage's.
Result<std::unique_ptr<columnar::ipc::StreamReader>> OpenStageFile(
    const std::string& path, const columnar::Schema& expected, int stage_id,
    const std::shared_ptr<MemoryPool>& pool) {
  auto label = [&] { return fmt::format("reading shuffle stage file {}", path); };
  auto input = columnar::ipc::FileInputStream::Open(path);
  // A committed stage file that is not there was lost with its worker's directory (a restart with
  // an empty --shuffle-dir, a cleaned disk): a transient failure that the driver answers by
  // computing the file again, not an error of the query that every attempt would repeat.
  if (!input.ok() && input.status().code() == StatusCode::kNotFound)
    return Status::Unavailable("shuffle stage file {} is gone: {}", path,
                               input.status().UserMessage())
        .WithHint(
            "its worker restarted or its directory was cleaned; the task that wrote it "
            "runs again");
  if (!input.ok())
    return std::move(input).status().WithContext(label());
  columnar::ipc::ReadOptions options;
  options.pool = pool;
  auto reader = columnar::ipc::OpenStreamReader(std::move(input).MoveValueUnsafe(), options);
  if (!reader.ok())
    return std::move(reader).status().WithContext(label());
  if (!SameColumns(*(*reader)->schema(), expected))
    return Status::InvalidData("shuffle stage file {} has schema ({}) but stage {} expects ({})",
                               path, (*reader)->schema()->ToString(), stage_id, expected.ToString())
        .WithHint(
            "the file was written by another query: use one shuffle directory per query "
            "(shoal shuffle gc DIR removes a finished query's files)");
  return std::move(reader).MoveValueUnsafe();
}

// Reads files one after the other (a hash stage's partition: one file per map task).
class FileReadStream final : public exec::OperatorStream {
 public:
  FileReadStream(const StageFileExec* node, int partition,
                 std::shared_ptr<exec::TaskContext> context, std::vector<std::string> paths)
      : OperatorStream(node, partition, std::move(context)),
        node_(node),
        paths_(std::move(paths)) {}

  /// Opens the first file now, so that a missing or foreign file fails Execute itself.
  Status Open() { return OpenNext(); }

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    for (;;) {
      if (!reader_) {
        if (next_ >= paths_.size())
          return RecordBatchPtr();
        SHOAL_RETURN_IF_ERROR(OpenNext());
      }
      SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, reader_->Next());
      if (batch)
        return batch;
      reader_.reset();
    }
  }

 private:
  Status OpenNext() {
    if (next_ >= paths_.size())
      return Status::OK();
    SHOAL_ASSIGN_OR_RETURN(
        reader_, OpenStageFile(paths_[next_++], *node_->schema(), node_->stage_id(), pool()));
    return Status::OK();
  }

  const StageFileExec* node_;
  std::vector<std::string> paths_;
  size_t next_ = 0;
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
    SHOAL_ASSIGN_OR_RETURN(input_, node_->child()->Execute(p, context()));
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
      if (batch->num_rows() == 0)
        continue;
      Status st = writer_->WriteBatch(*batch);
      if (!st.ok())
        return std::move(st).WithContext(fmt::format("writing {}", temporary_));
      if (!checked_kill_) {
        checked_kill_ = true;
        if (TestKillHookFires("SHOAL_SHUFFLE_TEST_KILL_MARKER"))
          ::raise(SIGKILL);
      }
      return batch;
    }
  }

 private:
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
  std::string final_;
  std::string temporary_;
  std::unique_ptr<columnar::ipc::FileSink> sink_;
  std::unique_ptr<columnar::ipc::RecordBatchWriter> writer_;
  bool published_ = false;
  bool checked_kill_ = false;
};

// Routes the rows of a map task's input to the stage's hash partitions (RepartitionExec's hash
// and routing) and writes them: one pass over the input, N files out.
class MapRouter {
 public:
  MapRouter(const StageFileExec* node, MapOutputWriter* writer, std::shared_ptr<MemoryPool> pool)
      : node_(node), writer_(writer), pool_(std::move(pool)) {}

  Status Init() {
    SHOAL_ASSIGN_OR_RETURN(keys_, exec::MakeEvaluators(node_->output_partitioning().keys,
                                                       *node_->child()->schema(), pool_));
    rows_.resize(static_cast<size_t>(node_->num_partitions()));
    return Status::OK();
  }

  Status Route(const columnar::RecordBatch& batch) {
    const int64_t n = batch.num_rows();
    if (n == 0)
      return Status::OK();
    std::vector<columnar::ArrayPtr> key_columns;
    key_columns.reserve(keys_.size());
    for (auto& k : keys_) {
      SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr column, k->Evaluate(batch));
      key_columns.push_back(std::move(column));
    }
    SHOAL_RETURN_IF_ERROR(exec::HashColumns(key_columns, n, &hashes_));
    const auto m = static_cast<uint64_t>(rows_.size());
    for (auto& r : rows_)
      r.clear();
    for (int64_t i = 0; i < n; ++i) {
      const auto j = static_cast<size_t>(
          (static_cast<unsigned __int128>(hashes_[static_cast<size_t>(i)]) * m) >> 64);
      rows_[j].push_back(static_cast<int32_t>(i));
    }
    for (size_t p = 0; p < rows_.size(); ++p) {
      const auto& rows = rows_[p];
      if (rows.empty())
        continue;
      if (static_cast<int64_t>(rows.size()) == n) {
        SHOAL_RETURN_IF_ERROR(writer_->Write(static_cast<int>(p), batch));
      } else {
        SHOAL_ASSIGN_OR_RETURN(
            RecordBatchPtr part,
            exec::TakeBatch(batch, rows.data(), static_cast<int64_t>(rows.size()), pool_));
        SHOAL_RETURN_IF_ERROR(writer_->Write(static_cast<int>(p), *part));
      }
      if (!checked_kill_) {
        checked_kill_ = true;
        if (TestKillHookFires("SHOAL_SHUFFLE_TEST_KILL_MARKER"))
          ::raise(SIGKILL);
      }
    }
    return Status::OK();
  }

 private:
  const StageFileExec* node_;
  MapOutputWriter* writer_;
  std::shared_ptr<MemoryPool> pool_;
  std::vector<std::unique_ptr<exec::ExprEvaluator>> keys_;
  std::vector<uint64_t> hashes_;
  std::vector<exec::SelectionVector> rows_;
  bool checked_kill_ = false;
};

}  // namespace

std::string StageFilePath(const std::string& dir, int stage_id, int partition) {
  return fmt::format("{}/stage-{}-part-{}.arrow", dir, stage_id, partition);
}

bool IsStageFileName(std::string_view name) {
  static const std::regex kPattern(
      "stage-[0-9]+-(map-[0-9]+-(attempt-[0-9]+-)?)?part-[0-9]+\\.arrow");
  return std::regex_match(name.begin(), name.end(), kPattern);
}

bool IsStageTemporaryName(std::string_view name) {
  static const std::regex kPattern("\\.stage-[0-9]+-[-a-z0-9]*\\.(arrow|commit)\\..*\\.tmp");
  return std::regex_match(name.begin(), name.end(), kPattern);
}

Result<std::shared_ptr<StageFileExec>> StageFileExec::Make(exec::ExecPlanPtr child, std::string dir,
                                                           int stage_id,
                                                           exec::Partitioning partitioning,
                                                           std::string compression, int map_tasks) {
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
    if (map_tasks < 1 || map_tasks > kMaxMapTasks)
      return Status::InvalidData("hash shuffle stage {}: {} map tasks (1 to {})", stage_id,
                                 map_tasks, kMaxMapTasks);
    // Compiling the keys checks their column positions and types against the child.
    SHOAL_RETURN_IF_ERROR(
        exec::MakeEvaluators(partitioning.keys, *child->schema(), DefaultMemoryPool()).status());
  } else {
    partitioning = exec::Partitioning::Unknown(child->num_partitions());
    map_tasks = 1;
  }
  return std::shared_ptr<StageFileExec>(new StageFileExec(std::move(child), std::move(dir),
                                                          stage_id, std::move(partitioning),
                                                          std::move(compression), map_tasks));
}

Result<exec::ExecPlanPtr> StageFileExec::WithNewChildren(
    std::vector<exec::ExecPlanPtr> children) const {
  if (children.size() != 1)
    return Status::Internal("ShuffleStage takes one child, got {}", children.size());
  SHOAL_ASSIGN_OR_RETURN(auto node, Make(std::move(children[0]), dir_, stage_id_, partitioning_,
                                         compression_, map_tasks_));
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
  if (hash_stage())
    return OpenMapOutputs(partition, context);
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

Result<std::string> StageFileExec::LocateMapOutput(int map, int partition) const {
  auto commit = ReadMapCommit(MapCommitPath(dir_, stage_id_, map));
  if (commit.ok()) {
    if (static_cast<int>(commit->rows.size()) != num_partitions())
      return Status::InvalidData("{} commits {} partitions but stage {} has {}",
                                 MapCommitPath(dir_, stage_id_, map), commit->rows.size(),
                                 stage_id_, num_partitions());
    if (commit->rows[static_cast<size_t>(partition)] == 0)
      return std::string();
    return MapOutputPath(dir_, stage_id_, map, commit->attempt, partition);
  }
  if (commit.status().code() != StatusCode::kNotFound)
    return std::move(commit).status();
  // Committed on another machine (--shuffle-workers): the worker serves the file of the attempt
  // it committed, fetched here once (temporary name, rename) and then read like a local one.
  if (auto remote = FindStageFileLocation(dir_, stage_id_, map)) {
    const std::string fetched =
        FetchedMapOutputPath(dir_, stage_id_, map, remote->attempt, partition);
    struct stat st {};
    if (::stat(fetched.c_str(), &st) == 0)
      return fetched;
    SHOAL_RETURN_IF_ERROR(FetchMapOutput(*remote, stage_id_, map, partition, fetched));
    return fetched;
  }
  return Status::Internal(
      "shuffle stage {} partition {}: map task {} of {} has no committed output in {}", stage_id_,
      partition, map, map_tasks_, dir_);
}

Result<exec::StreamPtr> StageFileExec::OpenMapOutputs(
    int partition, const std::shared_ptr<exec::TaskContext>& context) const {
  std::vector<std::string> paths;
  paths.reserve(static_cast<size_t>(map_tasks_));
  for (int m = 0; m < map_tasks_; ++m) {
    SHOAL_ASSIGN_OR_RETURN(std::string path, LocateMapOutput(m, partition));
    if (!path.empty())
      paths.push_back(std::move(path));
  }
  auto stream = std::make_unique<FileReadStream>(this, partition, context, std::move(paths));
  SHOAL_RETURN_IF_ERROR(stream->Open());
  return exec::StreamPtr(std::move(stream));
}

Result<exec::StreamPtr> StageFileExec::OpenFile(
    int partition, const std::shared_ptr<exec::TaskContext>& context) const {
  auto stream = std::make_unique<FileReadStream>(this, partition, context,
                                                 std::vector<std::string>{FilePath(partition)});
  SHOAL_RETURN_IF_ERROR(stream->Open());
  return exec::StreamPtr(std::move(stream));
}

Result<exec::StreamPtr> StageFileExec::Compute(
    int partition, const std::shared_ptr<exec::TaskContext>& context) const {
  auto stream = std::make_unique<ComputeStream>(this, partition, context);
  SHOAL_RETURN_IF_ERROR(stream->Open());
  return exec::StreamPtr(std::move(stream));
}

Result<int64_t> StageFileExec::RunTask(int task, int attempt,
                                       const std::shared_ptr<exec::TaskContext>& context,
                                       const BatchObserver& observe) const {
  if (task < 0 || task >= num_tasks())
    return Status::Internal("ShuffleStage {}: task {} of {}", stage_id_, task, num_tasks());
  if (hash_stage())
    return RunMap(task, attempt, context, observe);
  // A passthrough task computes its partition (or reads the file a finished attempt published).
  SHOAL_ASSIGN_OR_RETURN(exec::StreamPtr stream, Execute(task, context));
  int64_t rows = 0;
  for (;;) {
    SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, stream->Next());
    if (!batch)
      return rows;
    if (observe)
      SHOAL_RETURN_IF_ERROR(observe(*batch));
    rows += batch->num_rows();
  }
}

Result<int64_t> StageFileExec::RunMap(int map, int attempt,
                                      const std::shared_ptr<exec::TaskContext>& context,
                                      const BatchObserver& observe) const {
  // This map's share of the input: a contiguous range of the child's partitions, each of which
  // exactly one map task runs. All of them (one map task): in parallel, as a repartition would.
  const int k = child_->num_partitions();
  const int begin = static_cast<int>(static_cast<int64_t>(map) * k / map_tasks_);
  const int end = static_cast<int>(static_cast<int64_t>(map + 1) * k / map_tasks_);
  std::vector<exec::ExecPlanPtr> inputs;
  std::vector<int> input_partitions;
  if (begin == 0 && end == k && k > 1) {
    inputs.push_back(exec::CoalescePartitionsExec::Make(child_));
    input_partitions.push_back(0);
  } else {
    for (int i = begin; i < end; ++i) {
      inputs.push_back(child_);
      input_partitions.push_back(i);
    }
  }
  columnar::ipc::WriteOptions options;
  SHOAL_ASSIGN_OR_RETURN(options.compression, ParseCompression(compression_));
  options.pool = context->memory_pool();
  MapOutputWriter writer(dir_, stage_id_, map, attempt, num_partitions(), schema(), options);
  MapRouter router(this, &writer, context->memory_pool());
  SHOAL_RETURN_IF_ERROR(router.Init());
  for (size_t i = 0; i < inputs.size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(exec::StreamPtr input, inputs[i]->Execute(input_partitions[i], context));
    for (;;) {
      SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, input->Next());
      if (!batch)
        break;
      if (observe)
        SHOAL_RETURN_IF_ERROR(observe(*batch));
      SHOAL_RETURN_IF_ERROR(router.Route(*batch));
    }
  }
  SHOAL_RETURN_IF_ERROR(writer.Commit());
  return writer.rows();
}

Result<std::optional<int64_t>> StageFileExec::CommittedTaskRows(int task) const {
  if (hash_stage()) {
    auto commit = ReadMapCommit(MapCommitPath(dir_, stage_id_, task));
    if (!commit.ok()) {
      if (commit.status().code() == StatusCode::kNotFound)
        return std::optional<int64_t>();
      return std::move(commit).status();
    }
    int64_t rows = 0;
    for (int64_t r : commit->rows)
      rows += r;
    return std::optional<int64_t>(rows);
  }
  const std::string path = FilePath(task);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return std::optional<int64_t>();
  SHOAL_ASSIGN_OR_RETURN(auto input, columnar::ipc::FileInputStream::Open(path));
  SHOAL_ASSIGN_OR_RETURN(auto reader, columnar::ipc::OpenStreamReader(std::move(input)));
  int64_t rows = 0;
  for (;;) {
    SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, reader->Next());
    if (!batch)
      return std::optional<int64_t>(rows);
    rows += batch->num_rows();
  }
}

std::string StageFileExec::Describe(bool) const {
  return fmt::format("stage={}, {}, dir={}, compression={}", stage_id_,
                     hash_stage()
                         ? fmt::format("{}, map_tasks={}", partitioning_.ToString(), map_tasks_)
                         : fmt::format("passthrough({})", partitioning_.num_partitions),
                     dir_, compression_);
}

}  // namespace shoal::distributed::shuffle
