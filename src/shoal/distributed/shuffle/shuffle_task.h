// One task of a materialized shuffle: `shoal task ENVELOPE` runs task t of stage s: map task t of a
// hash stage (its share of the input, all partitions written and committed) or partition t of a
// passthrough stage (its stage file). The envelope (DIR/tasks/task-<s>-<t>.envelope, a
// ShuffleTaskEnvelopeProto)
// holds everything the process needs, so a task depends on nothing but its files and its binary:
// the session spec (TPC-H scale of in-memory tables, the settings, the target partitions), the path
// of the stage's encoded plan (tables travel inside it through the table codecs), the stage id,
// the partition and its range, and the codec ids the driver encoded with. A task whose own codec
// ids differ, or whose partition is out of range, refuses the envelope before decoding anything.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/distributed/codec/table_codec.h"
#include "shoal/distributed/proto/distributed.pb.h"
#include "shoal/distributed/shuffle/shuffle_files.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/exec/task_context.h"

namespace shoal::distributed::shuffle {

/// The codec ids of a process with `codecs`: the table codecs' and the stage node's, sorted.
std::vector<std::string> ShuffleCodecIds(const TableCodecRegistry& codecs);

/// The largest task envelope a task reads (settings and the locations of earlier stages' files).
inline constexpr int64_t kMaxEnvelopeBytes = 64LL << 20;
/// The largest stage plan a task reads: what a worker accepts in one message
/// (grpc_worker_server.h's kDefaultMaxReceiveBytes), in-memory tables included.
inline constexpr int64_t kMaxStagePlanBytes = 256LL << 20;

Status WriteEnvelope(const std::string& path, const proto::ShuffleTaskEnvelopeProto& envelope);
Result<proto::ShuffleTaskEnvelopeProto> ReadEnvelope(const std::string& path);

/// Where a task runs. A `shoal task` process confines its table files to the envelope's data
/// roots (it is the only task of its process); a task a worker runs on one of its own threads
/// (stage_file_service.h) leaves the process's roots alone: the worker wrote its own roots into
/// the envelope, and other tasks run beside it.
enum class ShuffleTaskHost { kOwnProcess, kWorkerThread };

/// A task envelope read, checked and decoded: the stage plan (its root a StageFileExec) and the
/// context it runs in. Nothing has run yet.
struct PreparedShuffleTask {
  proto::ShuffleTaskEnvelopeProto envelope;
  exec::ExecPlanPtr plan;
  std::shared_ptr<exec::TaskContext> context;
};
Result<PreparedShuffleTask> PrepareShuffleTask(const std::string& path,
                                               ShuffleTaskHost host = ShuffleTaskHost::kOwnProcess);

/// Runs a prepared task: the rows it wrote (its output is committed after). Cancelling the
/// task's context stops it between batches.
Result<int64_t> RunPreparedShuffleTask(const PreparedShuffleTask& task);

/// Does once, in a process that forks task processes (the task launcher), what every task would
/// otherwise do first on its own: reads its stack's bounds (pthread_getattr_np parses
/// /proc/self/maps) and builds the codec and kernel registries. Starts no thread: a launcher must
/// stay single-threaded.
void PrepareProcessForTasks();

/// Runs the task of the envelope at `path` (a `shoal task` process).
Result<int64_t> RunShuffleTask(const std::string& path);

}  // namespace shoal::distributed::shuffle
