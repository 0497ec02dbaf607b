// The families of built-in node codecs (node_codec.h), each in its own file; the registry's
// Builtin() adds them all. Private to codec/.
#pragma once

namespace shoal::distributed {
class NodeCodecRegistry;
}  // namespace shoal::distributed

namespace shoal::distributed::internal {

/// TableScan, WorkUnitFeedScan, Values (scan_node_codecs.cc).
void AddScanNodeCodecs(NodeCodecRegistry* registry);
/// Filter, Projection, HashAggregate, Sort, SortPreservingMerge, Limit, Repartition, Window,
/// Expand, CoalescePartitions, Union (relational_node_codecs.cc).
void AddRelationalNodeCodecs(NodeCodecRegistry* registry);
/// HashJoin, NestedLoopJoin (join_node_codecs.cc).
void AddJoinNodeCodecs(NodeCodecRegistry* registry);
/// NetworkExchange, the shuffle's StageFile (exchange_node_codecs.cc).
void AddExchangeNodeCodecs(NodeCodecRegistry* registry);

}  // namespace shoal::distributed::internal
