// WorkerMessages: the worker protocol's requests (worker_channel.h) as the protobuf messages of
// proto/distributed.proto, both ways. The gRPC channel encodes with these functions and the gRPC
// server decodes with them, so what a worker accepts from the network is checked in one place
// (and the hostile-input tests in tests/fuzz drive exactly this code).
//
// Decoding treats the message as untrusted, after the request's signature was checked: a key,
// count or range outside the limits below, unpaired settings and unknown enum values are
// InvalidData naming the field and the limit, never a crash or an allocation the sender chose.
// The plan inside SetPlanRequest stays encoded here; the worker decodes it with its own limits
// (plan_codec.h).
#pragma once

#include <cstdint>

#include "shoal/columnar/ipc/writer.h"
#include "shoal/common/result.h"
#include "shoal/distributed/proto/distributed.pb.h"
#include "shoal/distributed/transport/worker_channel.h"

namespace shoal::distributed {

/// Bytes of a query id (coordinators make 32-character ids).
inline constexpr size_t kMaxQueryIdBytes = 256;
/// Tasks of one stage (a stage has at most a few per worker).
inline constexpr int kMaxTaskCount = 1 << 16;
/// Session settings one task carries.
inline constexpr int kMaxTaskSettings = 4096;
/// Work-unit feeds one task plan declares.
inline constexpr int kMaxWorkUnitFeeds = 4096;

void EncodeTaskKey(const TaskKey& key, proto::TaskKeyProto* out);
Result<TaskKey> DecodeTaskKey(const proto::TaskKeyProto& in);

void EncodeSetPlanRequest(const SetPlanRequest& request, proto::SetPlanRequestProto* out);
Result<SetPlanRequest> DecodeSetPlanRequest(const proto::SetPlanRequestProto& in);

void EncodeWorkUnitBatch(const WorkUnitBatch& batch, proto::WorkUnitBatchProto* out);
/// Moves the unit bodies out of `in`.
Result<WorkUnitBatch> DecodeWorkUnitBatch(proto::WorkUnitBatchProto* in);

Status EncodeExecuteTaskRequest(const ExecuteTaskRequest& request,
                                columnar::ipc::Compression compression,
                                proto::ExecuteTaskRequestProto* out);

struct DecodedExecuteTask {
  ExecuteTaskRequest request;
  columnar::ipc::Compression compression = columnar::ipc::Compression::kNone;
};
Result<DecodedExecuteTask> DecodeExecuteTaskRequest(const proto::ExecuteTaskRequestProto& in);

/// A runtime filter's wire form (RuntimeFilter::Parts), both ways; decoding checks it.
void EncodeRuntimeFilter(int id, const exec::RuntimeFilter& filter, proto::RuntimeFilterProto* out);
Result<std::shared_ptr<const exec::RuntimeFilter>> DecodeRuntimeFilter(
    const proto::RuntimeFilterProto& in, const std::shared_ptr<MemoryPool>& pool);

/// How many partitions the answer to a refused ExecuteTask call carries an error for: the size
/// of the asked range, clamped to [0, kMaxPartitions] (the bounds may be anything).
int RefusedPartitionCount(const proto::ExecuteTaskRequestProto& in);

}  // namespace shoal::distributed
