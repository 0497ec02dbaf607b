#include "shoal/distributed/transport/worker_messages.h"

#include <algorithm>
#include <string>
#include <utility>

#include "shoal/distributed/codec/expr_codec.h"
#include "shoal/distributed/codec/type_codec.h"

namespace shoal::distributed {

void EncodeTaskKey(const TaskKey& key, proto::TaskKeyProto* out) {
  out->set_query_id(key.query_id);
  out->set_stage_id(key.stage_id);
  out->set_task_number(key.task_number);
}

Result<TaskKey> DecodeTaskKey(const proto::TaskKeyProto& in) {
  if (in.query_id().size() > kMaxQueryIdBytes)
    return Status::InvalidData("task key: a query id of {} bytes (at most {} allowed)",
                               in.query_id().size(), kMaxQueryIdBytes);
  if (in.stage_id() < 0 || in.task_number() < 0)
    return Status::InvalidData("task key: stage {} task {} (both must be 0 or more)", in.stage_id(),
                               in.task_number());
  return TaskKey{in.query_id(), in.stage_id(), in.task_number()};
}

void EncodeSetPlanRequest(const SetPlanRequest& request, proto::SetPlanRequestProto* out) {
  EncodeTaskKey(request.task_key, out->mutable_task_key());
  out->set_task_count(request.task_count);
  out->set_plan(request.encoded_plan);
  out->set_target_worker(request.target_worker);
  out->set_query_start_time_ns(request.query_start_time_ns);
  for (const auto& [name, value] : request.settings) {
    out->add_setting_names(name);
    out->add_setting_values(value);
  }
  for (const auto& feed : request.work_unit_feeds) {
    auto* f = out->add_work_unit_feeds();
    f->set_node_id(feed.node_id);
    f->set_partitions(feed.partitions);
  }
  for (int id : request.export_runtime_filters)
    out->add_export_runtime_filters(id);
  for (int id : request.await_runtime_filters)
    out->add_await_runtime_filters(id);
}

void EncodeRuntimeFilter(int id, const exec::RuntimeFilter& filter,
                         proto::RuntimeFilterProto* out) {
  const exec::RuntimeFilter::Parts parts = filter.parts();
  out->set_id(id);
  out->set_kind(static_cast<uint32_t>(parts.kind));
  out->set_num_keys(parts.num_keys);
  out->set_has_range(parts.has_range);
  out->set_min(parts.min);
  out->set_max(parts.max);
  EncodeType(parts.key_type, out->mutable_key_type());
  out->set_table(std::string(parts.table));
}

Result<std::shared_ptr<const exec::RuntimeFilter>> DecodeRuntimeFilter(
    const proto::RuntimeFilterProto& in, const std::shared_ptr<MemoryPool>& pool) {
  exec::RuntimeFilter::Parts parts;
  SHOAL_ASSIGN_OR_RETURN(
      parts.kind, CheckedEnum(in.kind(), exec::RuntimeFilter::Kind::kBloom, "runtime filter kind"));
  parts.num_keys = in.num_keys();
  parts.has_range = in.has_range();
  parts.min = in.min();
  parts.max = in.max();
  SHOAL_ASSIGN_OR_RETURN(parts.key_type, DecodeType(in.key_type()));
  parts.table = in.table();
  return exec::RuntimeFilter::FromParts(parts, pool);
}

Result<SetPlanRequest> DecodeSetPlanRequest(const proto::SetPlanRequestProto& in) {
  SetPlanRequest request;
  SHOAL_ASSIGN_OR_RETURN(request.task_key, DecodeTaskKey(in.task_key()));
  if (in.task_count() < 1 || in.task_count() > kMaxTaskCount ||
      request.task_key.task_number >= in.task_count())
    return Status::InvalidData("plan of {}: task {} of {} (1 to {} tasks allowed)",
                               request.task_key.ToString(), request.task_key.task_number,
                               in.task_count(), kMaxTaskCount);
  request.task_count = in.task_count();
  request.encoded_plan = in.plan();
  request.target_worker = in.target_worker();
  request.query_start_time_ns = in.query_start_time_ns();
  if (in.setting_names_size() != in.setting_values_size() ||
      in.setting_names_size() > kMaxTaskSettings)
    return Status::InvalidData("plan of {}: {} setting names with {} values (paired, at most {})",
                               request.task_key.ToString(), in.setting_names_size(),
                               in.setting_values_size(), kMaxTaskSettings);
  for (int i = 0; i < in.setting_names_size(); ++i)
    request.settings[in.setting_names(i)] = in.setting_values(i);
  if (in.work_unit_feeds_size() > kMaxWorkUnitFeeds)
    return Status::InvalidData("plan of {}: {} work-unit feeds (at most {})",
                               request.task_key.ToString(), in.work_unit_feeds_size(),
                               kMaxWorkUnitFeeds);
  for (const auto& feed : in.work_unit_feeds()) {
    if (feed.partitions() < 1 || feed.partitions() > kMaxPartitions)
      return Status::InvalidData("plan of {}: work-unit feed '{}' with {} partitions (1 to {})",
                                 request.task_key.ToString(), feed.node_id(), feed.partitions(),
                                 kMaxPartitions);
    request.work_unit_feeds.push_back({feed.node_id(), feed.partitions()});
  }
  // Ids the plan does not use are harmless: nothing is built for them.
  if (in.export_runtime_filters_size() > kMaxWorkUnitFeeds ||
      in.await_runtime_filters_size() > kMaxWorkUnitFeeds)
    return Status::InvalidData(
        "plan of {}: {} runtime filters to report and {} to wait for (at "
        "most {} each)",
        request.task_key.ToString(), in.export_runtime_filters_size(),
        in.await_runtime_filters_size(), kMaxWorkUnitFeeds);
  request.export_runtime_filters.assign(in.export_runtime_filters().begin(),
                                        in.export_runtime_filters().end());
  request.await_runtime_filters.assign(in.await_runtime_filters().begin(),
                                       in.await_runtime_filters().end());
  return request;
}

void EncodeWorkUnitBatch(const WorkUnitBatch& batch, proto::WorkUnitBatchProto* out) {
  for (const auto& unit : batch.units) {
    auto* u = out->add_units();
    u->set_node_id(unit.node_id);
    u->set_partition(unit.partition);
    u->set_body(unit.body);
    u->set_created_ns(unit.created_ns);
    u->set_sent_ns(unit.sent_ns);
  }
  if (!batch.failed_node_id.empty()) {
    out->set_failed_node_id(batch.failed_node_id);
    EncodeStatus(batch.failure, out->mutable_failure());
  }
}

Result<WorkUnitBatch> DecodeWorkUnitBatch(proto::WorkUnitBatchProto* in) {
  WorkUnitBatch batch;
  batch.units.reserve(static_cast<size_t>(in->units_size()));
  for (auto& u : *in->mutable_units()) {
    // A partition outside the feed's is refused by the feed, which knows its count.
    batch.units.push_back(
        {u.node_id(), u.partition(), std::move(*u.mutable_body()), u.created_ns(), u.sent_ns()});
  }
  batch.failed_node_id = in->failed_node_id();
  if (in->has_failure())
    batch.failure = DecodeStatus(in->failure());
  return batch;
}

Status EncodeExecuteTaskRequest(const ExecuteTaskRequest& request,
                                columnar::ipc::Compression compression,
                                proto::ExecuteTaskRequestProto* out) {
  EncodeTaskKey(request.task_key, out->mutable_task_key());
  out->set_partition_start(request.partition_start);
  out->set_partition_end(request.partition_end);
  out->mutable_head()->set_kind(static_cast<uint32_t>(request.head.kind));
  if (request.head.kind == ProducerHeadKind::kRepartition) {
    SHOAL_RETURN_IF_ERROR(
        EncodePartitioning(request.head.partitioning, out->mutable_head()->mutable_partitioning()));
  }
  out->set_compression(static_cast<uint32_t>(compression));
  return Status::OK();
}

Result<DecodedExecuteTask> DecodeExecuteTaskRequest(const proto::ExecuteTaskRequestProto& in) {
  DecodedExecuteTask out;
  ExecuteTaskRequest& r = out.request;
  SHOAL_ASSIGN_OR_RETURN(r.task_key, DecodeTaskKey(in.task_key()));
  // In 64 bits: the difference of two int32 fields may not fit an int.
  const int64_t range = int64_t{in.partition_end()} - int64_t{in.partition_start()};
  if (in.partition_start() < 0 || range < 1 || range > kMaxPartitions)
    return Status::InvalidData("{}: partitions [{}, {}) asked for (a range of 1 to {})",
                               r.task_key.ToString(), in.partition_start(), in.partition_end(),
                               kMaxPartitions);
  r.partition_start = in.partition_start();
  r.partition_end = in.partition_end();
  if (in.head().kind() > static_cast<uint32_t>(ProducerHeadKind::kRepartition))
    return Status::InvalidData("unknown producer head {}", in.head().kind());
  r.head.kind = static_cast<ProducerHeadKind>(in.head().kind());
  if (r.head.kind == ProducerHeadKind::kRepartition) {
    SHOAL_ASSIGN_OR_RETURN(r.head.partitioning, DecodePartitioning(in.head().partitioning()));
  }
  if (in.compression() > static_cast<uint32_t>(columnar::ipc::Compression::kZstd))
    return Status::InvalidData("unknown compression {}", in.compression());
  out.compression = static_cast<columnar::ipc::Compression>(in.compression());
  return out;
}

int RefusedPartitionCount(const proto::ExecuteTaskRequestProto& in) {
  const int64_t range = int64_t{in.partition_end()} - int64_t{in.partition_start()};
  return static_cast<int>(std::clamp<int64_t>(range, 0, kMaxPartitions));
}

}  // namespace shoal::distributed
