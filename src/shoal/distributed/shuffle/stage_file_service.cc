#include "shoal/distributed/shuffle/stage_file_service.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>
#include <filesystem>
#include <future>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include <fcntl.h>
#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shoal/common/logging.h"
#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/proto/distributed.pb.h"
#include "shoal/distributed/proto/shuffle.grpc.pb.h"
#include "shoal/distributed/shuffle/map_output.h"
#include "shoal/distributed/shuffle/shuffle_driver.h"
#include "shoal/distributed/shuffle/shuffle_task.h"
#include "shoal/distributed/shuffle/stage_file_exec.h"
#include "shoal/distributed/shuffle/stage_runtime_filters.h"
#include "shoal/distributed/shuffle/task_process.h"
#include "shoal/distributed/transport/node_security.h"
#include "shoal/io/data_roots.h"

namespace shoal::distributed::shuffle {

namespace fs = std::filesystem;

namespace {

grpc::Status ToGrpc(const Status& status) {
  std::string message = status.UserMessage();
  if (!status.hint().empty())
    message += " (hint: " + status.hint() + ")";
  // A task's own error keeps its code and SQLSTATE in the details, so that the driver neither
  // retries a deterministic error nor turns a division by zero into a transport failure.
  std::string details = TaskErrorReport(status);
  switch (status.code()) {
    case StatusCode::kNotFound: return {grpc::StatusCode::NOT_FOUND, message, details};
    case StatusCode::kInvalidArgument:
    case StatusCode::kInvalidData: return {grpc::StatusCode::INVALID_ARGUMENT, message, details};
    case StatusCode::kCancelled: return {grpc::StatusCode::CANCELLED, message, details};
    default: return {grpc::StatusCode::ABORTED, message, details};
  }
}

// Points every stage node of the plan at this worker's directory for the query.
void ReplaceShuffleDirs(proto::PlanNodeProto* node, const std::string& dir) {
  if (node->has_shuffle_stage_file())
    node->mutable_shuffle_stage_file()->set_shuffle_dir(dir);
  for (auto& child : *node->mutable_children())
    ReplaceShuffleDirs(&child, dir);
}

// Stage nodes in the plan: more than one when the task reads another stage's files.
int CountStageNodes(const proto::PlanNodeProto& node) {
  int n = node.has_shuffle_stage_file() ? 1 : 0;
  for (const auto& child : node.children())
    n += CountStageNodes(child);
  return n;
}

// Test hooks for "a worker lost while it holds committed outputs" (TestKillHookFires: the first
// time only, then the worker kills itself as an OOM kill or a power cut would, no cleanup):
// SHOAL_SHUFFLE_TEST_WORKER_DIE_ON_FETCH_MARKER when a later stage first reads one of its files,
// SHOAL_SHUFFLE_TEST_WORKER_DIE_IN_TASK_MARKER while it runs a task that reads other stages.
void DieIfTestHookFires(const char* env) {
  if (TestKillHookFires(env))
    ::raise(SIGKILL);
}

// 128 random bits in hex: a worker process's incarnation (PingShuffleWorkerResponse).
std::string NewIncarnation() {
  std::random_device random;
  return fmt::format("{:08x}{:08x}{:08x}{:08x}", random(), random(), random(), random());
}

// The directories a task uses are this worker's, not the driver's: its spill directory replaces
// any `spill_dir` setting, and its data roots replace the envelope's.
void ConfineEnvelope(const std::string& spill_dir, proto::ShuffleTaskEnvelopeProto* envelope) {
  auto* session = envelope->mutable_session();
  proto::ShuffleSessionSpecProto kept = *session;
  kept.clear_setting_names();
  kept.clear_setting_values();
  for (int i = 0; i < session->setting_names_size() && i < session->setting_values_size(); ++i) {
    if (session->setting_names(i) == "spill_dir")
      continue;
    kept.add_setting_names(session->setting_names(i));
    kept.add_setting_values(session->setting_values(i));
  }
  if (!spill_dir.empty()) {
    kept.add_setting_names("spill_dir");
    kept.add_setting_values(spill_dir);
  }
  *session = std::move(kept);
  envelope->clear_data_roots();
  for (const auto& root : io::ProcessDataRoots()->roots())
    envelope->add_data_roots(root);
}

}  // namespace

Result<std::string> QueryShuffleDir(const std::string& shuffle_dir, const std::string& query_id) {
  if (query_id.empty() || query_id.size() > 32 ||
      query_id.find_first_not_of("0123456789abcdef") != std::string::npos)
    return Status::InvalidArgument("'{}' is not a shuffle query id (1-32 lowercase hex digits)",
                                   query_id);
  return fmt::format("{}/q-{}", shuffle_dir, query_id);
}

struct StageFileService::Impl final : public proto::ShuffleFiles::Service {
  StageFileServiceOptions options;
  std::shared_ptr<NodeSecurity> security = ProcessNodeSecurity();
  std::mutex mutex;
  std::atomic<uint64_t> next_attempt{0};
  std::atomic<int64_t> tasks_run{0};
  std::atomic<int64_t> tasks_running{0};
  std::string incarnation = NewIncarnation();  // guarded by `mutex`
  // The queries their drivers dropped, newest last (a bounded memory). A task call the driver sent
  // before it cancelled the query may arrive after the drop: it must not create the query's
  // directory again. Guards the creation and removal of query directories.
  std::mutex dirs_mutex;
  std::deque<std::string> dropped;
  static constexpr size_t kRememberDropped = 4096;

  grpc::Status Authorize(const grpc::ServerContext& call, std::string_view method,
                         const std::string& key, const google::protobuf::MessageLite& request) {
    RequestToken token;
    if (grpc::Status auth = security->VerifyCall(call, method, &token); !auth.ok())
      return auth;
    return security->CheckCallBody(token, key, request);
  }

  std::string address() {
    std::lock_guard<std::mutex> lock(mutex);
    return options.address;
  }

  std::string current_incarnation() {
    std::lock_guard<std::mutex> lock(mutex);
    return incarnation;
  }

  // Test hook SHOAL_SHUFFLE_TEST_WORKER_RESTART_ON_FETCH_MARKER: the first time a later stage
  // reads one of this worker's files, it becomes what a restart with an empty --shuffle-dir at the
  // same address leaves (every query directory gone, a new incarnation) without the race of a
  // real restart against the driver's health check.
  void RestartIfTestHookFires() {
    if (!TestKillHookFires("SHOAL_SHUFFLE_TEST_WORKER_RESTART_ON_FETCH_MARKER"))
      return;
    std::lock_guard<std::mutex> dirs_lock(dirs_mutex);
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(options.shuffle_dir, ec)) {
      if (entry.path().filename().string().rfind("q-", 0) == 0)
        fs::remove_all(entry.path(), ec);
    }
    std::lock_guard<std::mutex> lock(mutex);
    incarnation = NewIncarnation();
  }

  grpc::Status RunShuffleTask(grpc::ServerContext* call,
                              const proto::RunShuffleTaskRequest* request,
                              proto::RunShuffleTaskResponse* response) override {
    // Only tasks signed by a holder of the cluster secret run (node_security.h), checked before
    // the envelope or the plan is parsed.
    if (grpc::Status auth =
            Authorize(*call, "ShuffleFiles/RunShuffleTask", request->query_id(), *request);
        !auth.ok())
      return auth;
    auto rows = Run(call, *request, response->mutable_runtime_filters());
    if (!rows.ok())
      return ToGrpc(rows.status());
    response->set_rows(*rows);
    response->set_incarnation(current_incarnation());
    return grpc::Status::OK;
  }

  // `filters`: the partial runtime filters the task formed from its output, when asked to.
  Result<int64_t> Run(grpc::ServerContext* call, const proto::RunShuffleTaskRequest& request,
                      std::string* filters) {
    SHOAL_ASSIGN_OR_RETURN(std::string dir,
                           QueryShuffleDir(options.shuffle_dir, request.query_id()));
    const std::string tasks_dir = dir + "/tasks";
    {
      std::lock_guard<std::mutex> lock(dirs_mutex);
      if (std::find(dropped.begin(), dropped.end(), request.query_id()) != dropped.end())
        return Status::Cancelled("worker {}: shuffle query {} has ended (its driver dropped it)",
                                 address(), request.query_id());
      SHOAL_RETURN_IF_ERROR(MarkShuffleDir(dir));
      std::error_code ec;
      fs::create_directories(tasks_dir, ec);
      if (ec)
        return Status::IoError("worker {}: cannot create {}: {}", address(), tasks_dir,
                               ec.message());
    }
    proto::ShuffleTaskEnvelopeProto envelope;
    if (!envelope.ParseFromString(request.envelope()))
      return Status::InvalidData("worker {}: the request holds no task envelope", address());
    proto::EncodedPlan plan;
    if (!ParseEncodedPlan(request.plan(), &plan))
      return Status::InvalidData("worker {}: the request holds no encoded plan", address());
    ReplaceShuffleDirs(plan.mutable_root(), dir);
    ConfineEnvelope(options.spill_dir, &envelope);
    std::string plan_bytes;
    if (!plan.SerializeToString(&plan_bytes))
      return Status::Internal("could not serialise a stage plan");
    const std::string base = fmt::format("{}/task-{}-{}.attempt-{}", tasks_dir, envelope.stage_id(),
                                         envelope.partition(), ++next_attempt);
    // Per attempt: two tasks of one stage may write their plan at once.
    const std::string plan_path = base + ".plan";
    SHOAL_RETURN_IF_ERROR(WriteFileAtomically(plan_path, plan_bytes));
    envelope.set_plan_path(plan_path);
    const std::string envelope_path = base + ".envelope";
    SHOAL_RETURN_IF_ERROR(WriteEnvelope(envelope_path, envelope));
    if (CountStageNodes(plan.root()) > 1) {
      DieIfTestHookFires("SHOAL_SHUFFLE_TEST_WORKER_DIE_IN_TASK_MARKER");
      // A worker that freezes mid-task (SIGSTOP, as a hung host or a swapped-out process looks
      // from outside): its task calls never end, and only the driver's watch of running calls
      // finds it.
      if (TestKillHookFires("SHOAL_SHUFFLE_TEST_WORKER_STOP_IN_TASK_MARKER"))
        ::raise(SIGSTOP);
    }
    tasks_running.fetch_add(1);
    auto rows = options.task_processes ? RunInProcess(call, envelope_path, base)
                                       : RunOnThread(call, envelope_path);
    tasks_running.fetch_sub(1);
    if (!rows.ok())
      return std::move(rows).status().WithContext(fmt::format(
          "task {}-{} on worker {}", envelope.stage_id(), envelope.partition(), address()));
    tasks_run.fetch_add(1);
    if (envelope.export_runtime_filters_size() > 0) {
      // Left beside the output by the task; missing (a task that died after its commit), the
      // driver forms the filter without it.
      auto formed = ReadWholeFile(
          StageFiltersPath(dir, envelope.stage_id(), envelope.partition(), envelope.attempt()),
          kMaxEnvelopeBytes);
      if (formed.ok())
        *filters = std::move(formed).MoveValueUnsafe();
    }
    SHOAL_LOG(kInfo, "shuffle query {}: stage {} partition {} wrote {} rows", request.query_id(),
              envelope.stage_id(), envelope.partition(), *rows);
    return rows;
  }

  // The task on a thread of this process: no process to start, no libraries to load again, the
  // worker's table files and data roots already open. Cancelling the call cancels the task's
  // context, which stops it between batches.
  Result<int64_t> RunOnThread(grpc::ServerContext* call, const std::string& envelope_path) {
    SHOAL_ASSIGN_OR_RETURN(PreparedShuffleTask task,
                           PrepareShuffleTask(envelope_path, ShuffleTaskHost::kWorkerThread));
    std::promise<Result<int64_t>> promise;
    std::future<Result<int64_t>> outcome = promise.get_future();
    std::thread runner([&task, &promise] { promise.set_value(RunPreparedShuffleTask(task)); });
    while (outcome.wait_for(std::chrono::milliseconds(5)) != std::future_status::ready) {
      if (call->IsCancelled())
        task.context->Cancel();
    }
    runner.join();
    Result<int64_t> rows = outcome.get();
    if (!rows.ok() && call->IsCancelled())
      return Status::Cancelled("the driver cancelled the task");
    return rows;
  }

  // The task as a `shoal task` child process of its own (StageFileServiceOptions::task_processes).
  Result<int64_t> RunInProcess(grpc::ServerContext* call, const std::string& envelope_path,
                               const std::string& base) {
    SHOAL_ASSIGN_OR_RETURN(pid_t pid, SpawnTaskProcess(options.executable, envelope_path,
                                                       base + ".stdout", base + ".stderr"));
    for (;;) {
      int status = 0;
      const pid_t r = ::waitpid(pid, &status, WNOHANG);
      if (r == pid) {
        ::kill(-pid, SIGKILL);  // anything the task started
        return TaskOutcome(status, base + ".stdout", base + ".stderr");
      }
      if (r < 0 && errno != EINTR) {
        KillTaskProcess(pid);
        return Status::Internal("lost track of task process {}: {}", pid, std::strerror(errno));
      }
      if (call->IsCancelled()) {
        KillTaskProcess(pid);
        return Status::Cancelled("the driver cancelled the task");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  grpc::Status DropShuffleQuery(grpc::ServerContext* call,
                                const proto::DropShuffleQueryRequest* request,
                                proto::DropShuffleQueryResponse* response) override {
    if (grpc::Status auth =
            Authorize(*call, "ShuffleFiles/DropShuffleQuery", request->query_id(), *request);
        !auth.ok())
      return auth;
    auto dir = QueryShuffleDir(options.shuffle_dir, request->query_id());
    if (!dir.ok())
      return ToGrpc(dir.status());
    std::error_code ec;
    std::unique_lock<std::mutex> lock(dirs_mutex);
    if (std::find(dropped.begin(), dropped.end(), request->query_id()) == dropped.end()) {
      if (dropped.size() >= kRememberDropped)
        dropped.pop_front();
      dropped.push_back(request->query_id());
    }
    const auto removed = fs::remove_all(*dir, ec);
    lock.unlock();
    if (ec)
      return {grpc::StatusCode::ABORTED,
              fmt::format("worker {}: cannot remove {}: {}", address(), *dir, ec.message())};
    response->set_files_removed(static_cast<int64_t>(removed));
    return grpc::Status::OK;
  }

  grpc::Status PingShuffleWorker(grpc::ServerContext* call,
                                 const proto::PingShuffleWorkerRequest* request,
                                 proto::PingShuffleWorkerResponse* response) override {
    if (grpc::Status auth = Authorize(*call, "ShuffleFiles/PingShuffleWorker", "ping", *request);
        !auth.ok())
      return auth;
    response->set_incarnation(current_incarnation());
    return grpc::Status::OK;
  }

  grpc::Status FetchStageFile(grpc::ServerContext* call,
                              const proto::FetchStageFileRequest* request,
                              grpc::ServerWriter<proto::StageFileChunk>* writer) override {
    if (grpc::Status auth =
            Authorize(*call, "ShuffleFiles/FetchStageFile", request->query_id(), *request);
        !auth.ok())
      return auth;
    DieIfTestHookFires("SHOAL_SHUFFLE_TEST_WORKER_DIE_ON_FETCH_MARKER");
    RestartIfTestHookFires();
    auto dir = QueryShuffleDir(options.shuffle_dir, request->query_id());
    if (!dir.ok())
      return ToGrpc(dir.status());
    std::string path = StageFilePath(*dir, request->stage_id(), request->partition());
    if (request->map_output()) {
      // Only the attempt the map task committed is served (map_output.h).
      const std::string commit_path = MapCommitPath(*dir, request->stage_id(), request->map());
      auto commit = ReadMapCommit(commit_path);
      if (!commit.ok()) {
        if (commit.status().code() == StatusCode::kNotFound)
          return {grpc::StatusCode::NOT_FOUND,
                  fmt::format("worker {} has no committed map output {}", address(), commit_path)};
        return ToGrpc(commit.status());
      }
      if (request->attempt() != 0 && request->attempt() != commit->attempt)
        return {grpc::StatusCode::NOT_FOUND,
                fmt::format("worker {}: {} commits attempt {}, not attempt {}", address(),
                            commit_path, commit->attempt, request->attempt())};
      if (request->partition() < 0 || request->partition() >= static_cast<int>(commit->rows.size()))
        return {grpc::StatusCode::INVALID_ARGUMENT,
                fmt::format("worker {}: {} has no partition {}", address(), commit_path,
                            request->partition())};
      path = MapOutputPath(*dir, request->stage_id(), request->map(), commit->attempt,
                           request->partition());
    }
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT)
        return {grpc::StatusCode::NOT_FOUND,
                fmt::format("worker {} has no stage file {}", address(), path)};
      return {grpc::StatusCode::ABORTED,
              fmt::format("worker {}: cannot open {}: {}", address(), path, std::strerror(errno))};
    }
    proto::StageFileChunk chunk;
    std::string buffer(kStageFileChunkBytes, '\0');
    for (;;) {
      if (call->IsCancelled()) {
        ::close(fd);
        return grpc::Status::CANCELLED;
      }
      ssize_t n = ::read(fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0) {
        const int error = errno;
        ::close(fd);
        return {grpc::StatusCode::ABORTED, fmt::format("worker {}: cannot read {}: {}", address(),
                                                       path, std::strerror(error))};
      }
      if (n == 0)
        break;
      chunk.set_data(buffer.data(), static_cast<size_t>(n));
      if (!writer->Write(chunk)) {
        ::close(fd);
        return grpc::Status::CANCELLED;
      }
    }
    ::close(fd);
    return grpc::Status::OK;
  }
};

StageFileService::StageFileService(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

StageFileService::~StageFileService() = default;

Result<std::unique_ptr<StageFileService>> StageFileService::Make(StageFileServiceOptions options) {
  if (options.shuffle_dir.empty())
    return Status::InvalidArgument("a stage file service needs a shuffle directory");
  if (options.executable.empty())
    return Status::InvalidArgument("a stage file service needs the shoal binary to run tasks with");
  std::error_code ec;
  options.shuffle_dir = fs::absolute(options.shuffle_dir, ec).lexically_normal().string();
  while (options.shuffle_dir.size() > 1 && options.shuffle_dir.back() == '/')
    options.shuffle_dir.pop_back();
  SHOAL_RETURN_IF_ERROR(MarkShuffleDir(options.shuffle_dir));
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  return std::unique_ptr<StageFileService>(new StageFileService(std::move(impl)));
}

grpc::Service* StageFileService::grpc_service() {
  return impl_.get();
}

int64_t StageFileService::tasks_run() const {
  return impl_->tasks_run.load();
}

int64_t StageFileService::tasks_running() const {
  return impl_->tasks_running.load();
}

void StageFileService::set_address(const std::string& address) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->options.address = address;
}

}  // namespace shoal::distributed::shuffle
