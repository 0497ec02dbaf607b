// Node codecs: how each kind of physical plan node travels inside an encoded plan.
//
// A NodeCodec is the encode/decode pair of one node kind: it names the node's PlanKind
// (exec/execution_plan.h) and the PlanNodeProto oneof case its message uses, and the registry finds
// a codec by either. The plan codec (plan_codec.h) only walks the tree: for each node it asks the
// registry for the node's codec, encodes the children (unless the codec ships none) and lets the
// codec fill in the node's own message; decoding mirrors it. So adding an operator means writing
// the operator, its codec entry in the file of its family (scan_, relational_, join_ or
// exchange_node_codecs.cc) and its tests; nothing else in the codec changes.
//
// Kinds without a codec (a sampled task plan, the materialized shuffle's root) are never shipped:
// encoding one is NotImplemented naming the node.
//
// Decoding treats the bytes as untrusted: codecs check child counts, enum ranges and column
// positions and return InvalidData, never crash (node factories validate their expressions against
// the child schemas).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/distributed/codec/table_codec.h"
#include "shoal/distributed/feeds/work_unit_feed.h"
#include "shoal/distributed/proto/distributed.pb.h"
#include "shoal/distributed/transport/worker_channel.h"
#include "shoal/exec/execution_plan.h"

namespace shoal::distributed {

struct PlanDecodeContext {
  TableCodecRegistryPtr codecs;
  /// Connects decoded network exchanges to their producers; null refuses plans that have them.
  ChannelResolverPtr channels;
  /// The task's work-unit feeds, which decoded feed scans read; null decodes them unbound.
  WorkUnitFeedsPtr feeds = nullptr;
  /// Refuse materialized-shuffle stage nodes: they name a directory to write into, which only the
  /// shuffle's own task runner may choose (a worker's task plans never hold one).
  bool refuse_stage_files = false;
};

class NodeEncoder;
class NodeDecoder;

struct NodeCodec {
  exec::PlanKind kind{};
  proto::PlanNodeProto::NodeCase node_case{};
  /// False for nodes whose children are not part of the shipped plan (an exchange's display child
  /// is another stage) or that have none by construction.
  bool ships_children = true;
  /// Fills `out`'s message for `node` (a node of `kind`); the children are already encoded.
  Status (*encode)(const exec::ExecutionPlan& node, NodeEncoder& encoder,
                   proto::PlanNodeProto* out) = nullptr;
  /// The node of `in`, over its decoded `children`.
  Result<exec::ExecPlanPtr> (*decode)(const proto::PlanNodeProto& in,
                                      std::vector<exec::ExecPlanPtr>&& children,
                                      NodeDecoder& decoder) = nullptr;
};

/// The node codecs, by kind and by oneof case. Built once; shared freely.
class NodeCodecRegistry {
 public:
  /// Every built-in node codec.
  static const NodeCodecRegistry& Builtin();

  /// A kind or a oneof case registered twice is a bug (checked).
  void Add(const NodeCodec& codec);
  const NodeCodec* ForKind(exec::PlanKind kind) const;
  const NodeCodec* ForCase(proto::PlanNodeProto::NodeCase node_case) const;

 private:
  std::map<exec::PlanKind, NodeCodec> by_kind_;
  std::map<proto::PlanNodeProto::NodeCase, exec::PlanKind> by_case_;
};

/// Encodes a plan tree through the registry; codecs call Encode for nodes they embed and
/// UseTableCodec for the table codecs the plan needs.
class NodeEncoder {
 public:
  NodeEncoder(const NodeCodecRegistry& nodes, const TableCodecRegistry& tables)
      : nodes_(nodes), tables_(tables) {}

  Status Encode(const exec::ExecutionPlan& node, proto::PlanNodeProto* out);

  const TableCodecRegistry& tables() const { return tables_; }
  void UseTableCodec(const std::string& id) { codec_ids_.insert(id); }
  const std::set<std::string>& codec_ids() const { return codec_ids_; }

 private:
  const NodeCodecRegistry& nodes_;
  const TableCodecRegistry& tables_;
  std::set<std::string> codec_ids_;
};

/// Decodes a plan tree through the registry; codecs call Decode for messages they embed.
class NodeDecoder {
 public:
  static constexpr int kMaxDepth = 2500;

  NodeDecoder(const NodeCodecRegistry& nodes, const PlanDecodeContext& context)
      : nodes_(nodes), context_(context) {}

  Result<exec::ExecPlanPtr> Decode(const proto::PlanNodeProto& in, int depth = 0);

  const PlanDecodeContext& context() const { return context_; }

 private:
  const NodeCodecRegistry& nodes_;
  const PlanDecodeContext& context_;
};

/// InvalidData unless `children` has `n` entries; `what` names the node.
Status ExpectChildren(const std::vector<exec::ExecPlanPtr>& children, size_t n, const char* what);

}  // namespace shoal::distributed
