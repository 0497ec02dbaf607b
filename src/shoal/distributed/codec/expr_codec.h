// Expression codecs: physical expressions (sql::Expr whose column references are input positions,
// exec/execution_plan.h), sort keys and partitionings to protobuf and back, for the plan-node
// codecs (node_codec.h) and the shuffle's stage nodes.
//
// Decoding treats the bytes as untrusted: unknown kinds, nesting deeper than kMaxExprDepth and
// malformed casts are InvalidData. A decoder remembers the largest column position it read so the
// node codec can check it against the node's inputs (CheckColumns) before building the node.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/distributed/proto/distributed.pb.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/sql/expr.h"

namespace shoal::distributed {

/// Expressions nest at most this deep in a decoded plan. Protobuf parses and destroys nested
/// messages recursively, with no check of the stack: the parser's recursion limit (plan_codec.h)
/// bounds the depth of everything a plan holds, and must stay low enough that a worker thread's
/// default 8 MiB stack survives parsing and destroying a plan at the limit, also under ASan
/// (20,000 levels did not). SQL's own deep statements distributed stay far below (a 1,000-term
/// chain of operators, tests/sql/deep_statements.slt).
inline constexpr int kMaxExprDepth = 5000;
/// Partitions of a decoded partitioning (a hash shuffle over every consumer's threads): far above
/// any cluster's, low enough that a corrupted count cannot make a worker allocate per-partition
/// state without bound.
inline constexpr int kMaxPartitions = 1 << 16;

Status EncodeExpr(const sql::Expr& e, proto::ExprProto* out);
Status EncodeExprList(const std::vector<sql::ExprPtr>& exprs,
                      google::protobuf::RepeatedPtrField<proto::ExprProto>* out);
Status EncodeSortKeys(const std::vector<sql::SortKey>& keys,
                      google::protobuf::RepeatedPtrField<proto::SortKeyProto>* out);

/// Decodes expressions, tracking the largest column position read.
struct ExprDecoder {
  int64_t max_column = -1;

  Result<sql::ExprPtr> Decode(const proto::ExprProto& in, int depth = 0);
  Result<std::vector<sql::SortKey>> DecodeSortKeys(
      const google::protobuf::RepeatedPtrField<proto::SortKeyProto>& in, int depth = 0);
  Result<std::vector<sql::ExprPtr>> DecodeList(
      const google::protobuf::RepeatedPtrField<proto::ExprProto>& in);
  /// InvalidData naming `node` when an expression read a column at or past `available`.
  Status CheckColumns(int64_t available, std::string_view node) const;
};

Status EncodePartitioning(const exec::Partitioning& partitioning, proto::PartitioningProto* out);
Result<exec::Partitioning> DecodePartitioning(const proto::PartitioningProto& in);
/// InvalidData naming `node` when a key of `partitioning` reads a column at or past `available`.
Status CheckPartitioningColumns(const exec::Partitioning& partitioning, int64_t available,
                                std::string_view node);

}  // namespace shoal::distributed
