#include "shoal/distributed/shuffle/shuffle_task.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shoal/common/settings.h"
#include "shoal/common/stack_depth.h"
#include "shoal/distributed/codec/memory_table_codec.h"
#include "shoal/distributed/codec/node_codec.h"
#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/planner/distributed_planner.h"
#include "shoal/distributed/shuffle/shuffle_files.h"
#include "shoal/distributed/shuffle/shuffle_settings.h"
#include "shoal/distributed/shuffle/stage_file_client.h"
#include "shoal/distributed/shuffle/stage_file_codec.h"
#include "shoal/distributed/shuffle/stage_file_exec.h"
#include "shoal/distributed/shuffle/stage_runtime_filters.h"
#include "shoal/distributed/transport/worker_messages.h"
#include "shoal/exec/expr/kernel.h"
#include "shoal/exec/join/runtime_filter_registry.h"
#include "shoal/exec/physical_planner.h"
#include "shoal/exec/task_context.h"
#include "shoal/io/data_roots.h"
#include "shoal/io/tpch/scale.h"
#include "shoal/io/tpch/tpch_memory_tables.h"
#include "shoal/io/tpch/tpch_table.h"

namespace shoal::distributed::shuffle {

namespace {

std::string JoinIds(const std::vector<std::string>& ids) {
  std::string out;
  for (const auto& id : ids)
    out += (out.empty() ? "" : ", ") + id;
  return out.empty() ? "none" : out;
}

void CollectScannedTables(const proto::PlanNodeProto& node, std::set<std::string>* names) {
  if (node.has_table_scan()) {
    const std::string& name = node.table_scan().table_name();
    const size_t dot = name.rfind('.');
    names->insert(dot == std::string::npos ? name : name.substr(dot + 1));
  }
  for (const auto& child : node.children())
    CollectScannedTables(child, names);
}

// The in-memory TPC-H tables, generated here when the stage scans any (a task is a fresh process;
// a stage that only reads stage files needs none). All eight at once: the generator shares its
// text pool and threads across tables, which is cheaper than making a few one by one.
Status RegisterTpchTablesIfScanned(const std::string& scale_text, const proto::EncodedPlan& plan,
                                   sql::Catalog* catalog) {
  std::set<std::string> names;
  CollectScannedTables(plan.root(), &names);
  bool any = false;
  for (const auto& name : names)
    any = any || io::tpch::TpchTableFromName(name).has_value();
  if (!any)
    return Status::OK();
  // The last scale's tables stay for the next task of this process (read-only, so catalogs may
  // share them): a `shoal task` process runs one task, but a process that prepares many (the
  // envelope mutation test) would regenerate them each time.
  static std::mutex mutex;
  static std::string cached_scale;
  static std::vector<io::tpch::NamedTpchTable> cached;
  std::vector<io::tpch::NamedTpchTable> tables;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (cached_scale != scale_text || cached.empty()) {
      SHOAL_ASSIGN_OR_RETURN(auto scale, io::tpch::TpchScale::Parse(scale_text));
      SHOAL_ASSIGN_OR_RETURN(cached, io::tpch::MakeTpchTables(scale));
      cached_scale = scale_text;
    }
    tables = cached;
  }
  for (auto& named : tables) {
    SHOAL_RETURN_IF_ERROR(catalog->RegisterTable(named.name, std::move(named.table),
                                                 /*insertable=*/false, /*replace=*/true));
  }
  return Status::OK();
}

}  // namespace

std::vector<std::string> ShuffleCodecIds(const TableCodecRegistry& codecs) {
  std::vector<std::string> ids = codecs.ids();
  ids.emplace_back(kStageNodeCodecId);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

Status WriteEnvelope(const std::string& path, const proto::ShuffleTaskEnvelopeProto& envelope) {
  std::string bytes;
  if (!envelope.SerializeToString(&bytes))
    return Status::Internal("could not serialise the task envelope {}", path);
  return WriteFileAtomically(path, bytes);
}

Result<proto::ShuffleTaskEnvelopeProto> ReadEnvelope(const std::string& path) {
  SHOAL_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(path, kMaxEnvelopeBytes));
  proto::ShuffleTaskEnvelopeProto envelope;
  if (!envelope.ParseFromString(bytes))
    return Status::InvalidData("{} is not a shuffle task envelope ({} bytes)", path, bytes.size())
        .WithHint("shoal task runs the envelopes a `shoal sql --shuffle-dir` driver writes");
  return envelope;
}

Result<PreparedShuffleTask> PrepareShuffleTask(const std::string& path, ShuffleTaskHost host) {
  SHOAL_ASSIGN_OR_RETURN(proto::ShuffleTaskEnvelopeProto envelope, ReadEnvelope(path));
  const auto& spec = envelope.session();
  auto catalog = std::make_shared<sql::Catalog>();
  auto codecs = TableCodecRegistry::Builtin(catalog);

  // Worker parity: refuse what this binary might misread, before decoding anything.
  std::vector<std::string> theirs(envelope.codec_ids().begin(), envelope.codec_ids().end());
  std::sort(theirs.begin(), theirs.end());
  const std::vector<std::string> ours = ShuffleCodecIds(*codecs);
  if (theirs != ours)
    return Status::InvalidArgument(
               "task envelope {} was encoded with codec ids [{}] but this shoal task has [{}]",
               path, JoinIds(theirs), JoinIds(ours))
        .WithHint("run the driver and its tasks from the same shoal binary");
  if (envelope.partition_count() < 1 || envelope.partition() < 0 ||
      envelope.partition() >= envelope.partition_count())
    return Status::OutOfRange("task envelope {}: partition {} is out of range for stage {} ({} {})",
                              path, envelope.partition(), envelope.stage_id(),
                              envelope.partition_count(),
                              envelope.partition_count() == 1 ? "partition" : "partitions");

  // The task process confines its table files as the process that started it does.
  if (host == ShuffleTaskHost::kOwnProcess) {
    std::vector<std::string> roots(envelope.data_roots().begin(), envelope.data_roots().end());
    SHOAL_ASSIGN_OR_RETURN(io::DataRoots data_roots, io::DataRoots::Make(roots));
    io::SetProcessDataRoots(std::move(data_roots));
  }
  exec::TaskContext::Options options;
  if (spec.setting_names_size() != spec.setting_values_size())
    return Status::InvalidData("task envelope {}: unpaired settings", path);
  for (int i = 0; i < spec.setting_names_size(); ++i) {
    Status st = options.settings.Set(spec.setting_names(i), spec.setting_values(i));
    if (!st.ok())
      return std::move(st).WithContext(
          fmt::format("applying the driver's setting {} in {}", spec.setting_names(i), path));
  }
  if (spec.target_partitions() > 0)
    SHOAL_RETURN_IF_ERROR(
        options.settings.Set("threads", std::to_string(spec.target_partitions())));
  SHOAL_ASSIGN_OR_RETURN(std::string plan_bytes,
                         ReadWholeFile(envelope.plan_path(), kMaxStagePlanBytes));
  proto::EncodedPlan encoded;
  if (!ParseEncodedPlan(plan_bytes, &encoded))
    return Status::InvalidData("{} is not an encoded plan ({} bytes)", envelope.plan_path(),
                               plan_bytes.size());
  if (!spec.tpch_scale().empty())
    SHOAL_RETURN_IF_ERROR(RegisterTpchTablesIfScanned(spec.tpch_scale(), encoded, catalog.get()));
  PlanDecodeContext decode;
  decode.codecs = codecs;
  auto decoded = DecodePlan(encoded, decode);
  if (!decoded.ok())
    return std::move(decoded).status().WithContext(
        fmt::format("decoding {}", envelope.plan_path()));
  const auto* stage = (*decoded)->TryAs<StageFileExec>();
  if (stage == nullptr || stage->stage_id() != envelope.stage_id())
    return Status::InvalidData("{} does not hold shuffle stage {} (its root is {})",
                               envelope.plan_path(), envelope.stage_id(), (*decoded)->name());
  if (stage->num_tasks() != envelope.partition_count())
    return Status::InvalidData("stage {} has {} tasks but task envelope {} says {}",
                               envelope.stage_id(), stage->num_tasks(), path,
                               envelope.partition_count());

  // Earlier stages' files on other machines: every stage node of the plan shares this directory.
  for (const auto& location : envelope.remote_files())
    SetStageFileLocation(stage->dir(), location.stage_id(), location.partition(),
                         {location.worker(), location.query_id(), location.attempt()});
  PreparedShuffleTask task;
  task.context = std::make_shared<exec::TaskContext>(std::move(options));
  task.plan = std::move(decoded).MoveValueUnsafe();
  task.envelope = std::move(envelope);
  return task;
}

Result<int64_t> RunPreparedShuffleTask(const PreparedShuffleTask& task) {
  // Test hook: SHOAL_SHUFFLE_TEST_TASK_DELAY_MS holds every task back, so tests can interrupt a
  // driver while its tasks run (a cancelled task stops waiting).
  if (const char* delay = std::getenv("SHOAL_SHUFFLE_TEST_TASK_DELAY_MS")) {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(std::atoll(delay));
    while (std::chrono::steady_clock::now() < until && !task.context->cancelled())
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const auto& stage = task.plan->As<StageFileExec>();
  // Filters of earlier stages' outputs for this task's scans: in the registry before anything
  // runs, so the scans apply them from their first row.
  for (const auto& f : task.envelope.runtime_filters()) {
    auto filter = DecodeRuntimeFilter(f, task.context->memory_pool());
    if (!filter.ok())
      return std::move(filter).status().WithContext(fmt::format(
          "runtime filter rf{} of task envelope for stage {}", f.id(), task.envelope.stage_id()));
    task.context->runtime_filters().Publish(f.id(), std::move(filter).MoveValueUnsafe());
  }
  StageOutputFilters filters(task.envelope, stage.schema(), task.context->memory_pool());
  StageFileExec::BatchObserver observe;
  if (!filters.empty())
    observe = [&filters](const columnar::RecordBatch& batch) { return filters.Add(batch); };
  SHOAL_ASSIGN_OR_RETURN(
      int64_t rows,
      stage.RunTask(task.envelope.partition(), task.envelope.attempt(), task.context, observe));
  if (!filters.empty()) {
    // Beside the committed output; a driver that finds none forms the filter without it.
    SHOAL_ASSIGN_OR_RETURN(proto::ShuffleTaskFiltersProto formed, filters.Finish());
    SHOAL_RETURN_IF_ERROR(
        WriteFileAtomically(StageFiltersPath(stage.dir(), stage.stage_id(),
                                             task.envelope.partition(), task.envelope.attempt()),
                            formed.SerializeAsString()));
  }
  return rows;
}

void PrepareProcessForTasks() {
  (void)RemainingStack();
  (void)NodeCodecRegistry::Builtin();
  (void)TableCodecRegistry::Builtin(std::make_shared<sql::Catalog>());
  (void)exec::KernelRegistry::Global();
}

Result<int64_t> RunShuffleTask(const std::string& path) {
  SHOAL_ASSIGN_OR_RETURN(PreparedShuffleTask task, PrepareShuffleTask(path));
  return RunPreparedShuffleTask(task);
}

}  // namespace shoal::distributed::shuffle
