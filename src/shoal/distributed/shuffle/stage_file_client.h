// The client half of the materialized shuffle across machines (proto/shuffle.proto): where each
// stage file of a query lives, fetching one into a local directory, and running a task on a
// `shoal worker --shuffle-dir`. The location map is per process and keyed by the local shuffle
// directory (one directory per query), filled by the driver as tasks finish and by a task process
// from its envelope; StageFileExec consults it when its file is not in its directory.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/distributed/proto/distributed.pb.h"

namespace grpc {
class ClientContext;
}

namespace shoal::distributed::shuffle {

/// Where a remote stage file is: the worker's HOST:PORT, its per-query directory id and, for a
/// map task's output, the attempt that committed it there (a fetched copy is named after it).
struct RemoteStageFile {
  std::string worker;
  std::string query_id;
  int attempt = 0;
};

/// Records, looks up and forgets locations of stage files for the local shuffle directory `dir`.
void SetStageFileLocation(const std::string& dir, int stage_id, int partition,
                          RemoteStageFile location);
std::optional<RemoteStageFile> FindStageFileLocation(const std::string& dir, int stage_id,
                                                     int partition);
/// Forgets one location (its output was lost with its worker and will be computed again).
void ForgetStageFileLocation(const std::string& dir, int stage_id, int partition);
/// Also forgets the workers NoteRemoteShuffleQuery recorded for `dir`.
void ClearStageFileLocations(const std::string& dir);
/// Every location recorded for `dir`, as envelopes carry them.
std::vector<proto::StageFileLocationProto> StageFileLocations(const std::string& dir);

/// Records that a task of the query of `dir` was sent to `worker`, whose directory of the query is
/// `query_id`: a worker that only ran failed or cancelled attempts holds no stage file of the
/// query, but its directory (task plans, outputs) must go too.
void NoteRemoteShuffleQuery(const std::string& dir, const std::string& worker,
                            const std::string& query_id);

/// Asks every worker holding files recorded for `dir`, or sent one of its tasks
/// (NoteRemoteShuffleQuery), to remove its directory of that query, and forgets them. Best effort
/// (a query's answer does not depend on it): failures are logged; `shoal shuffle gc WDIR` on the
/// worker removes what is left.
void DropRemoteStageFiles(const std::string& dir);

/// Asks `worker` to remove its directory of shuffle query `query_id` (best effort: a worker that
/// does not answer within 5 s is logged and skipped).
void DropRemoteShuffleQuery(const std::string& worker, const std::string& query_id);

/// Streams the stage file from `from` into `local_path` (a temporary name, then a rename, so a
/// reader sees all or nothing). A file the worker does not have is Unavailable naming both (it
/// was lost with a restart: the driver computes it again).
Status FetchStageFile(const RemoteStageFile& from, int stage_id, int partition,
                      const std::string& local_path);

/// Streams partition `partition` of the committed output of map task `map` of hash stage
/// `stage_id` from `from` into `local_path` (as FetchStageFile). A map without a commit there, or
/// whose commit names another attempt than `from.attempt` (when not 0), is Unavailable naming the
/// worker and the commit file (as FetchStageFile).
Status FetchMapOutput(const RemoteStageFile& from, int stage_id, int map, int partition,
                      const std::string& local_path);

/// Whether `worker` serves shuffle tasks now: its incarnation (random per worker process: a
/// different one means it restarted and lost its committed outputs), Unavailable when it does not
/// answer within `timeout`, InvalidArgument when it answers without the shuffle service (no
/// --shuffle-dir).
Result<std::string> PingShuffleWorker(const std::string& worker, std::chrono::milliseconds timeout);

/// What a task run on a worker committed: its row count, and the incarnation of the worker
/// process that holds the output.
struct RemoteTaskOutput {
  int64_t rows = 0;
  std::string incarnation;
  std::string runtime_filters;  // a ShuffleTaskFiltersProto, when the envelope asked for one
};

/// Runs one task on `worker` (a blocking call; `call` may be cancelled from another thread,
/// which kills the task there).
Result<RemoteTaskOutput> RunRemoteShuffleTask(const std::string& worker,
                                              const std::string& query_id,
                                              const proto::ShuffleTaskEnvelopeProto& envelope,
                                              const std::string& plan_bytes,
                                              grpc::ClientContext* call);

}  // namespace shoal::distributed::shuffle
