#include "shoal/distributed/codec/node_codec.h"

#include <utility>

#include "shoal/common/check.h"
#include "shoal/common/stack_depth.h"
#include "shoal/distributed/codec/node_codec_families_internal.h"

namespace shoal::distributed {

const NodeCodecRegistry& NodeCodecRegistry::Builtin() {
  static const NodeCodecRegistry kRegistry = [] {
    NodeCodecRegistry r;
    internal::AddScanNodeCodecs(&r);
    internal::AddRelationalNodeCodecs(&r);
    internal::AddJoinNodeCodecs(&r);
    internal::AddExchangeNodeCodecs(&r);
    return r;
  }();
  return kRegistry;
}

void NodeCodecRegistry::Add(const NodeCodec& codec) {
  SHOAL_CHECK(codec.encode != nullptr && codec.decode != nullptr, "node codec of {} is incomplete",
              exec::PlanKindName(codec.kind));
  SHOAL_CHECK(by_kind_.emplace(codec.kind, codec).second, "two node codecs for {}",
              exec::PlanKindName(codec.kind));
  SHOAL_CHECK(by_case_.emplace(codec.node_case, codec.kind).second,
              "two node codecs for PlanNodeProto case {}", static_cast<int>(codec.node_case));
}

const NodeCodec* NodeCodecRegistry::ForKind(exec::PlanKind kind) const {
  auto it = by_kind_.find(kind);
  return it == by_kind_.end() ? nullptr : &it->second;
}

const NodeCodec* NodeCodecRegistry::ForCase(proto::PlanNodeProto::NodeCase node_case) const {
  auto it = by_case_.find(node_case);
  return it == by_case_.end() ? nullptr : ForKind(it->second);
}

Status NodeEncoder::Encode(const exec::ExecutionPlan& node, proto::PlanNodeProto* out) {
  SHOAL_CHECK_STACK_DEPTH();
  const NodeCodec* codec = nodes_.ForKind(node.kind());
  if (codec == nullptr)
    return Status::NotImplemented("plan serialization of {} nodes is not supported", node.name());
  if (codec->ships_children) {
    for (const auto& child : node.children())
      SHOAL_RETURN_IF_ERROR(Encode(*child, out->add_children()));
  }
  return codec->encode(node, *this, out);
}

Result<exec::ExecPlanPtr> NodeDecoder::Decode(const proto::PlanNodeProto& in, int depth) {
  if (depth > kMaxDepth)
    return Status::InvalidData("encoded plan: nested deeper than {} nodes", kMaxDepth);
  SHOAL_CHECK_STACK_DEPTH();
  std::vector<exec::ExecPlanPtr> children;
  for (const auto& c : in.children()) {
    SHOAL_ASSIGN_OR_RETURN(auto child, Decode(c, depth + 1));
    children.push_back(std::move(child));
  }
  const NodeCodec* codec = nodes_.ForCase(in.node_case());
  if (codec == nullptr)
    return Status::InvalidData("encoded plan: a node of unknown kind {}",
                               static_cast<int>(in.node_case()));
  Result<exec::ExecPlanPtr> node = codec->decode(in, std::move(children), *this);
  // A node factory's kInternal means "the planner built something inconsistent"; here the
  // inconsistency came with the bytes (an output schema that does not match the aggregates, say).
  if (!node.ok() && node.status().code() == StatusCode::kInternal)
    return Status::InvalidData("encoded plan: a node (field {}) whose fields disagree: {}",
                               static_cast<int>(in.node_case()), node.status().message());
  return node;
}

Status ExpectChildren(const std::vector<exec::ExecPlanPtr>& children, size_t n, const char* what) {
  if (children.size() != n)
    return Status::InvalidData("encoded plan: {} with {} children (expected {})", what,
                               children.size(), n);
  return Status::OK();
}

}  // namespace shoal::distributed
