// The node codec registry: every node kind that travels has exactly one codec, found by kind and by
// its PlanNodeProto oneof case, and every oneof case decodes through one.
#include "shoal/distributed/codec/node_codec.h"

#include <set>

#include <gtest/gtest.h>

namespace shoal::distributed {
namespace {

// Never shipped: a sampled task plan lives on its worker, the materialized shuffle's root on the
// coordinator, and a shared subplan becomes a stage of its own that task plans read through
// NetworkShared exchanges.
bool Shipped(exec::PlanKind kind) {
  return kind != exec::PlanKind::kLoadSample && kind != exec::PlanKind::kShuffleQuery &&
         kind != exec::PlanKind::kSharedResult;
}

TEST(NodeCodecRegistryTest, EveryShippedKindHasACodecFoundByKindAndCase) {
  const NodeCodecRegistry& registry = NodeCodecRegistry::Builtin();
  for (int k = 0; k <= static_cast<int>(exec::PlanKind::kLast); ++k) {
    const auto kind = static_cast<exec::PlanKind>(k);
    const NodeCodec* codec = registry.ForKind(kind);
    if (!Shipped(kind)) {
      EXPECT_EQ(codec, nullptr) << exec::PlanKindName(kind);
      continue;
    }
    ASSERT_NE(codec, nullptr) << exec::PlanKindName(kind) << " has no node codec";
    EXPECT_EQ(codec->kind, kind);
    EXPECT_NE(codec->encode, nullptr);
    EXPECT_NE(codec->decode, nullptr);
    const NodeCodec* by_case = registry.ForCase(codec->node_case);
    ASSERT_NE(by_case, nullptr);
    EXPECT_EQ(by_case->kind, kind) << exec::PlanKindName(kind);
  }
}

TEST(NodeCodecRegistryTest, EveryOneofCaseDecodesThroughOneCodec) {
  const NodeCodecRegistry& registry = NodeCodecRegistry::Builtin();
  const google::protobuf::OneofDescriptor* oneof =
      proto::PlanNodeProto::descriptor()->FindOneofByName("node");
  ASSERT_NE(oneof, nullptr);
  std::set<exec::PlanKind> kinds;
  for (int i = 0; i < oneof->field_count(); ++i) {
    const auto node_case = static_cast<proto::PlanNodeProto::NodeCase>(oneof->field(i)->number());
    const NodeCodec* codec = registry.ForCase(node_case);
    ASSERT_NE(codec, nullptr) << oneof->field(i)->name() << " has no node codec";
    EXPECT_EQ(codec->node_case, node_case);
    EXPECT_TRUE(kinds.insert(codec->kind).second) << oneof->field(i)->name();
  }
  EXPECT_EQ(registry.ForCase(proto::PlanNodeProto::NODE_NOT_SET), nullptr);
}

TEST(NodeCodecRegistryDeathTest, ACodecRegisteredTwiceIsABug) {
  NodeCodecRegistry registry;
  const NodeCodec* filter = NodeCodecRegistry::Builtin().ForKind(exec::PlanKind::kFilter);
  ASSERT_NE(filter, nullptr);
  registry.Add(*filter);
  EXPECT_DEATH(registry.Add(*filter), "two node codecs for FilterExec");
}

}  // namespace
}  // namespace shoal::distributed
