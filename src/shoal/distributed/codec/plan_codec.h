// PlanCodec: physical plans (exec/) to protobuf (proto/distributed.proto) and back, so the
// coordinator can ship each task its plan.
//
// Every exec node and every physical expression (sql::Expr with input positions) has a message;
// data types, schemas and scalars are encoded field by field, and Values batches as one Arrow IPC
// stream. Table scans ship their table through a TableCodec (table_codec.h) and the ScanUnits of
// the task, grouped by partition, so a worker rebuilds exactly the scan the coordinator planned.
// Network exchanges ship their producer tasks' workers and partition range; the decoder connects
// them to `channels`. The encoded plan lists the codec ids it needs; decoding refuses a plan that
// needs an id the decoder lacks, naming the missing ids, before anything else is read.
//
// Decoding treats the bytes as untrusted: unknown enum values, missing fields, out-of-range
// column positions and wrong child counts are InvalidData, never a crash (node factories validate
// their expressions against the child schemas).
#pragma once

#include <memory>
#include <string>

#include "shoal/common/result.h"
#include "shoal/distributed/codec/table_codec.h"
#include "shoal/distributed/feeds/work_unit_feed.h"
#include "shoal/distributed/planner/network_exchange_exec.h"
#include "shoal/distributed/proto/distributed.pb.h"
#include "shoal/exec/execution_plan.h"

namespace shoal::distributed {

struct PlanDecodeContext {
  TableCodecRegistryPtr codecs;
  /// Connects decoded network exchanges to their producers; null refuses plans that have them.
  ChannelResolverPtr channels;
  /// The task's work-unit feeds, which decoded feed scans read; null decodes them unbound.
  WorkUnitFeedsPtr feeds = nullptr;
};

/// The serialised proto::EncodedPlan of `plan`.
Result<std::string> EncodePlan(const exec::ExecPlanPtr& plan, const TableCodecRegistry& codecs);
Result<exec::ExecPlanPtr> DecodePlan(const std::string& bytes, const PlanDecodeContext& context);
Result<exec::ExecPlanPtr> DecodePlan(const proto::EncodedPlan& encoded,
                                     const PlanDecodeContext& context);

// Building blocks, shared with the transports.
void EncodeSchema(const columnar::Schema& schema, proto::SchemaProto* out);
Result<columnar::SchemaPtr> DecodeSchema(const proto::SchemaProto& in);
Status EncodePartitioning(const exec::Partitioning& partitioning, proto::PartitioningProto* out);
Result<exec::Partitioning> DecodePartitioning(const proto::PartitioningProto& in);
void EncodeStatus(const Status& status, proto::StatusProto* out);
Status DecodeStatus(const proto::StatusProto& in);

}  // namespace shoal::distributed
