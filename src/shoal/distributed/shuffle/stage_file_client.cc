#include "shoal/distributed/shuffle/stage_file_client.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <tuple>

#include <fcntl.h>
#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include "shoal/common/logging.h"
#include "shoal/distributed/proto/shuffle.grpc.pb.h"
#include "shoal/distributed/shuffle/task_error.h"
#include "shoal/distributed/transport/library_logs.h"
#include "shoal/distributed/transport/node_security.h"

namespace shoal::distributed::shuffle {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::map<std::pair<int, int>, RemoteStageFile>> by_dir;
  // Per local directory: the (worker, query id) pairs its tasks were sent to.
  std::map<std::string, std::set<std::pair<std::string, std::string>>> sent_by_dir;
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels;
};

Registry& GetRegistry() {
  // Never destroyed: fetches may still run while the process exits.
  // NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
  static auto* registry = new Registry();
  return *registry;
}

std::shared_ptr<grpc::Channel> NewChannelTo(const std::string& worker) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  // A task call is silent for as long as the task runs: pings notice a worker that vanished.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 2000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // A worker back after a restart is used again within a second, not after minutes of backoff.
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // Its own connections: PingShuffleWorker's fresh channel makes an attempt of its own.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  RouteLibraryLogs();
  return grpc::CreateCustomChannel(worker, ProcessNodeSecurity()->ChannelCredentials(), args);
}

std::shared_ptr<grpc::Channel> ChannelTo(const std::string& worker) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto& channel = r.channels[worker];
  if (!channel)
    channel = NewChannelTo(worker);
  return channel;
}

Status FromGrpc(const grpc::Status& status, const std::string& what) {
  // A task's own error (stage_file_service.cc): its code and SQLSTATE travel in the details.
  if (auto reported = ParseTaskErrorReport(status.error_details()))
    return Status(reported->first, fmt::format("{}: {}", what, status.error_message()))
        .WithSqlState(reported->second);
  switch (status.error_code()) {
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
      return Status::InvalidArgument("{}: refused: {}", what, status.error_message())
          .WithHint("every node of a cluster must read the same --cluster-secret-file");
    case grpc::StatusCode::NOT_FOUND:
      return Status::NotFound("{}: {}", what, status.error_message());
    case grpc::StatusCode::INVALID_ARGUMENT:
      return Status::InvalidArgument("{}: {}", what, status.error_message());
    case grpc::StatusCode::CANCELLED: return Status::Cancelled("{}: cancelled", what);
    // A `shoal worker` without --shuffle-dir: every attempt would get the same answer.
    case grpc::StatusCode::UNIMPLEMENTED:
      return Status::InvalidArgument("{}: does not run materialized-shuffle tasks", what)
          .WithHint(
              "start every worker with `shoal worker --shuffle-dir DIR` (the file shuffle and "
              "retry_policy = task run their tasks there)");
    default: return Status::Unavailable("{}: {}", what, status.error_message());
  }
}

}  // namespace

void SetStageFileLocation(const std::string& dir, int stage_id, int partition,
                          RemoteStageFile location) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.by_dir[dir][{stage_id, partition}] = std::move(location);
}

std::optional<RemoteStageFile> FindStageFileLocation(const std::string& dir, int stage_id,
                                                     int partition) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto d = r.by_dir.find(dir);
  if (d == r.by_dir.end())
    return std::nullopt;
  auto f = d->second.find({stage_id, partition});
  if (f == d->second.end())
    return std::nullopt;
  return f->second;
}

void ForgetStageFileLocation(const std::string& dir, int stage_id, int partition) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (auto d = r.by_dir.find(dir); d != r.by_dir.end())
    d->second.erase({stage_id, partition});
}

void ClearStageFileLocations(const std::string& dir) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.by_dir.erase(dir);
  r.sent_by_dir.erase(dir);
}

void NoteRemoteShuffleQuery(const std::string& dir, const std::string& worker,
                            const std::string& query_id) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.sent_by_dir[dir].insert({worker, query_id});
}

std::vector<proto::StageFileLocationProto> StageFileLocations(const std::string& dir) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<proto::StageFileLocationProto> out;
  auto d = r.by_dir.find(dir);
  if (d == r.by_dir.end())
    return out;
  for (const auto& [key, location] : d->second) {
    auto& l = out.emplace_back();
    l.set_stage_id(key.first);
    l.set_partition(key.second);
    l.set_worker(location.worker);
    l.set_query_id(location.query_id);
    l.set_attempt(location.attempt);
  }
  return out;
}

void DropRemoteStageFiles(const std::string& dir) {
  std::set<std::pair<std::string, std::string>> held;
  {
    Registry& r = GetRegistry();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (auto d = r.by_dir.find(dir); d != r.by_dir.end()) {
      for (const auto& [key, location] : d->second)
        held.insert({location.worker, location.query_id});
      r.by_dir.erase(d);
    }
    if (auto s = r.sent_by_dir.find(dir); s != r.sent_by_dir.end()) {
      held.insert(s->second.begin(), s->second.end());
      r.sent_by_dir.erase(s);
    }
  }
  // At once: a worker that does not answer costs one deadline, not one per worker.
  std::vector<std::future<void>> drops;
  drops.reserve(held.size());
  for (const auto& [worker, query_id] : held) {
    drops.push_back(std::async(std::launch::async,
                               [w = worker, q = query_id] { DropRemoteShuffleQuery(w, q); }));
  }
  for (auto& d : drops)
    d.get();
}

void DropRemoteShuffleQuery(const std::string& worker, const std::string& query_id) {
  proto::ShuffleFiles::Stub stub(ChannelTo(worker));
  grpc::ClientContext call;
  call.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  proto::DropShuffleQueryRequest request;
  request.set_query_id(query_id);
  ProcessNodeSecurity()->SignCall(&call, "ShuffleFiles/DropShuffleQuery", query_id, request);
  proto::DropShuffleQueryResponse response;
  grpc::Status status = stub.DropShuffleQuery(&call, request, &response);
  if (!status.ok())
    SHOAL_LOG(kWarning, "could not remove shuffle query {} on worker {}: {}", query_id, worker,
              status.error_message());
}

namespace {

Status FetchFile(const RemoteStageFile& from, proto::FetchStageFileRequest request,
                 const std::string& what, const std::string& local_path) {
  std::random_device rd;
  // A dot name that never matches the stage-file pattern; removed on every failure.
  const size_t slash = local_path.rfind('/');
  const std::string temporary =
      fmt::format("{}/.{}.fetch-{}-{:08x}.tmp", local_path.substr(0, slash),
                  local_path.substr(slash + 1), static_cast<long>(::getpid()), rd());
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::IoError("{}: cannot create '{}': {}", what, temporary, std::strerror(errno));
  auto fail = [&](Status st) {
    ::close(fd);
    ::unlink(temporary.c_str());
    return st;
  };
  proto::ShuffleFiles::Stub stub(ChannelTo(from.worker));
  grpc::ClientContext call;
  request.set_query_id(from.query_id);
  ProcessNodeSecurity()->SignCall(&call, "ShuffleFiles/FetchStageFile", from.query_id, request);
  auto reader = stub.FetchStageFile(&call, request);
  proto::StageFileChunk chunk;
  while (reader->Read(&chunk)) {
    const std::string& data = chunk.data();
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::write(fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0) {
        call.TryCancel();
        reader->Finish();
        return fail(
            Status::IoError("{}: cannot write '{}': {}", what, temporary, std::strerror(errno)));
      }
      done += static_cast<size_t>(n);
    }
  }
  grpc::Status status = reader->Finish();
  // The worker answers but no longer has the file: it restarted, or its directory was cleaned.
  // An input lost like that is computed again (the driver sees the worker's new incarnation), so
  // it is reported as the transient failure it is, not as a missing file.
  if (status.error_code() == grpc::StatusCode::NOT_FOUND)
    return fail(
        Status::Unavailable("{}: the worker no longer has it: {}", what, status.error_message()));
  if (!status.ok())
    return fail(FromGrpc(status, what)
                    .WithHint("the worker that wrote the file must still be running with the same "
                              "--shuffle-dir until the query ends"));
  if (::close(fd) != 0) {
    fd = -1;
    ::unlink(temporary.c_str());
    return Status::IoError("{}: cannot write '{}': {}", what, temporary, std::strerror(errno));
  }
  if (::rename(temporary.c_str(), local_path.c_str()) != 0) {
    Status st = Status::IoError("{}: cannot rename '{}' to '{}': {}", what, temporary, local_path,
                                std::strerror(errno));
    ::unlink(temporary.c_str());
    return st;
  }
  return Status::OK();
}

}  // namespace

Status FetchStageFile(const RemoteStageFile& from, int stage_id, int partition,
                      const std::string& local_path) {
  proto::FetchStageFileRequest request;
  request.set_stage_id(stage_id);
  request.set_partition(partition);
  return FetchFile(from, std::move(request),
                   fmt::format("fetching stage {} partition {} from worker {}", stage_id, partition,
                               from.worker),
                   local_path);
}

Status FetchMapOutput(const RemoteStageFile& from, int stage_id, int map, int partition,
                      const std::string& local_path) {
  proto::FetchStageFileRequest request;
  request.set_stage_id(stage_id);
  request.set_partition(partition);
  request.set_map_output(true);
  request.set_map(map);
  request.set_attempt(from.attempt);
  return FetchFile(from, std::move(request),
                   fmt::format("fetching stage {} map {} partition {} from worker {}", stage_id,
                               map, partition, from.worker),
                   local_path);
}

Result<std::string> PingShuffleWorker(const std::string& worker,
                                      std::chrono::milliseconds timeout) {
  std::shared_ptr<grpc::Channel> channel = ChannelTo(worker);
  const bool failed_before =
      channel->GetState(/*try_to_connect=*/false) == GRPC_CHANNEL_TRANSIENT_FAILURE;
  if (failed_before) {
    // The worker was gone (it died, or restarted). Until its backoff ends the shared channel
    // fails every call at once without trying, so it would call a worker that is back
    // unreachable; a fresh channel tries now, and a refused port still answers at once.
    channel = NewChannelTo(worker);
  }
  proto::ShuffleFiles::Stub stub(channel);
  grpc::ClientContext call;
  call.set_deadline(std::chrono::system_clock::now() + timeout);
  proto::PingShuffleWorkerRequest request;
  ProcessNodeSecurity()->SignCall(&call, "ShuffleFiles/PingShuffleWorker", "ping", request);
  proto::PingShuffleWorkerResponse response;
  grpc::Status status = stub.PingShuffleWorker(&call, request, &response);
  if (status.ok()) {
    if (failed_before) {  // back: later calls take the channel that reached it
      Registry& r = GetRegistry();
      std::lock_guard<std::mutex> lock(r.mutex);
      r.channels[worker] = channel;
    }
    return response.incarnation();
  }
  Status st = FromGrpc(status, fmt::format("worker {}", worker));
  // Whatever else went wrong, the worker cannot be used now: a health matter.
  if (st.code() != StatusCode::kInvalidArgument)
    return Status::Unavailable("worker {} is unreachable: {}", worker, status.error_message());
  return st;
}

Result<RemoteTaskOutput> RunRemoteShuffleTask(const std::string& worker,
                                              const std::string& query_id,
                                              const proto::ShuffleTaskEnvelopeProto& envelope,
                                              const std::string& plan_bytes,
                                              grpc::ClientContext* call) {
  proto::RunShuffleTaskRequest request;
  request.set_query_id(query_id);
  if (!envelope.SerializeToString(request.mutable_envelope()))
    return Status::Internal("could not serialise a task envelope");
  request.set_plan(plan_bytes);
  ProcessNodeSecurity()->SignCall(call, "ShuffleFiles/RunShuffleTask", query_id, request);
  proto::RunShuffleTaskResponse response;
  proto::ShuffleFiles::Stub stub(ChannelTo(worker));
  grpc::Status status = stub.RunShuffleTask(call, request, &response);
  if (!status.ok())
    return FromGrpc(status, fmt::format("worker {}", worker));
  return RemoteTaskOutput{response.rows(), response.incarnation(), response.runtime_filters()};
}

}  // namespace shoal::distributed::shuffle
