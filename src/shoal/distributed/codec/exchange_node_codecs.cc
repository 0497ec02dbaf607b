// Node codecs of the nodes that connect stages: network exchanges (their producer tasks' workers
// and partition range; the decoder connects them to the context's channels) and the materialized
// shuffle's stage-file nodes (shuffle/stage_file_codec.h).
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "shoal/distributed/codec/expr_codec.h"
#include "shoal/distributed/codec/node_codec.h"
#include "shoal/distributed/codec/node_codec_families_internal.h"
#include "shoal/distributed/codec/type_codec.h"
#include "shoal/distributed/planner/network_exchange_exec.h"
#include "shoal/distributed/shuffle/stage_file_codec.h"

namespace shoal::distributed::internal {

namespace {

// The display child (the producer stage) is never shipped: it is another stage.
Status EncodeNetworkExchange(const exec::ExecutionPlan& node, NodeEncoder&,
                             proto::PlanNodeProto* out) {
  auto* m = out->mutable_network_exchange();
  const ExchangeSpec& s = node.As<NetworkExchangeExec>().spec();
  m->set_kind(static_cast<uint32_t>(s.kind));
  EncodeSchema(*s.schema, m->mutable_schema());
  m->set_query_id(s.query_id);
  m->set_stage_id(s.stage_id);
  for (const auto& w : s.producer_workers)
    m->add_producer_workers(w);
  m->set_producer_partitions(s.producer_partitions);
  if (s.kind == ExchangeKind::kShuffle || s.kind == ExchangeKind::kShared)
    SHOAL_RETURN_IF_ERROR(EncodePartitioning(s.partitioning, m->mutable_partitioning()));
  m->set_partition_start(s.partition_start);
  m->set_partition_end(s.partition_end);
  return Status::OK();
}

Result<exec::ExecPlanPtr> DecodeNetworkExchange(const proto::PlanNodeProto& in,
                                                std::vector<exec::ExecPlanPtr>&& children,
                                                NodeDecoder& decoder) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 0, "NetworkExchange"));
  const PlanDecodeContext& context = decoder.context();
  if (!context.channels)
    return Status::InvalidArgument(
        "encoded plan: a network exchange where no worker channels are available");
  const auto& m = in.network_exchange();
  ExchangeSpec spec;
  SHOAL_ASSIGN_OR_RETURN(spec.kind, CheckedEnum(m.kind(), ExchangeKind::kShared, "exchange kind"));
  SHOAL_ASSIGN_OR_RETURN(spec.schema, DecodeSchema(m.schema()));
  spec.query_id = m.query_id();
  spec.stage_id = m.stage_id();
  spec.producer_workers.assign(m.producer_workers().begin(), m.producer_workers().end());
  if (spec.producer_workers.empty())
    return Status::InvalidData("encoded plan: network exchange without producer tasks");
  spec.producer_partitions = m.producer_partitions();
  // Partitions per producer times producer tasks is what the consumer reads (and holds a stream
  // for): bounded like every decoded partition count.
  if (m.producer_partitions() > kMaxPartitions ||
      static_cast<int64_t>(spec.producer_workers.size()) * std::max(1, m.producer_partitions()) >
          kMaxPartitions)
    return Status::InvalidData(
        "encoded plan: network exchange over {} producer tasks of {} partitions (at most {} "
        "partitions in all)",
        spec.producer_workers.size(), m.producer_partitions(), kMaxPartitions);
  if (spec.kind == ExchangeKind::kShuffle || spec.kind == ExchangeKind::kShared) {
    SHOAL_ASSIGN_OR_RETURN(spec.partitioning, DecodePartitioning(m.partitioning()));
  }
  // A shared read claims its producer's partitioning for the operators above: keys over its
  // own columns only (a shuffle's keys are checked by the producer that evaluates them).
  if (spec.kind == ExchangeKind::kShared) {
    SHOAL_RETURN_IF_ERROR(
        CheckPartitioningColumns(spec.partitioning, spec.schema->num_fields(), "NetworkShared"));
  }
  spec.partition_start = m.partition_start();
  spec.partition_end = m.partition_end();
  SHOAL_ASSIGN_OR_RETURN(auto node, NetworkExchangeExec::Make(std::move(spec), context.channels));
  return exec::ExecPlanPtr(std::move(node));
}

Status EncodeStageFile(const exec::ExecutionPlan& node, NodeEncoder&, proto::PlanNodeProto* out) {
  return shuffle::EncodeStageFile(node.As<shuffle::StageFileExec>(),
                                  out->mutable_shuffle_stage_file());
}

Result<exec::ExecPlanPtr> DecodeStageFile(const proto::PlanNodeProto& in,
                                          std::vector<exec::ExecPlanPtr>&& children,
                                          NodeDecoder& decoder) {
  if (decoder.context().refuse_stage_files)
    return Status::InvalidArgument(
               "a task plan may not hold a shuffle stage node (it names a directory to write "
               "stage files into, '{}')",
               in.shuffle_stage_file().shuffle_dir())
        .WithSqlState("42501");
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 1, "ShuffleStage"));
  return shuffle::DecodeStageFile(in.shuffle_stage_file(), children[0]);
}

}  // namespace

void AddExchangeNodeCodecs(NodeCodecRegistry* registry) {
  registry->Add({exec::PlanKind::kNetworkExchange, proto::PlanNodeProto::kNetworkExchange, false,
                 EncodeNetworkExchange, DecodeNetworkExchange});
  registry->Add({exec::PlanKind::kStageFile, proto::PlanNodeProto::kShuffleStageFile, true,
                 EncodeStageFile, DecodeStageFile});
}

}  // namespace shoal::distributed::internal
