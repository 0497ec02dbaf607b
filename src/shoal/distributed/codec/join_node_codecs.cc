// Node codecs of the joins: hash joins (keys per side, a residual over both, the join mode) and
// nested-loop joins (a condition over both inputs).
#include <utility>
#include <vector>

#include "shoal/distributed/codec/expr_codec.h"
#include "shoal/distributed/codec/node_codec.h"
#include "shoal/distributed/codec/node_codec_families_internal.h"
#include "shoal/distributed/codec/type_codec.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/nested_loop_join_exec.h"

namespace shoal::distributed::internal {

namespace {

using Children = std::vector<exec::ExecPlanPtr>;

int64_t JoinedColumns(const Children& children) {
  return children[0]->schema()->num_fields() + children[1]->schema()->num_fields();
}

Status EncodeHashJoin(const exec::ExecutionPlan& node, NodeEncoder&, proto::PlanNodeProto* out) {
  const auto& x = node.As<exec::HashJoinExec>();
  auto* m = out->mutable_hash_join();
  SHOAL_RETURN_IF_ERROR(EncodeExprList(x.left_keys(), m->mutable_left_keys()));
  SHOAL_RETURN_IF_ERROR(EncodeExprList(x.right_keys(), m->mutable_right_keys()));
  m->set_join_type(static_cast<uint32_t>(x.join_type()));
  if (x.residual())
    SHOAL_RETURN_IF_ERROR(EncodeExpr(*x.residual(), m->mutable_residual()));
  m->set_mode(static_cast<uint32_t>(x.mode()));
  for (const auto& f : x.runtime_filters()) {
    auto* rf = m->add_runtime_filters();
    rf->set_id(f.id);
    rf->set_key(f.key);
    rf->set_target(f.target);
  }
  return Status::OK();
}

Result<exec::ExecPlanPtr> DecodeHashJoin(const proto::PlanNodeProto& in, Children&& children,
                                         NodeDecoder&) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 2, "HashJoin"));
  const auto& m = in.hash_join();
  ExprDecoder left, right, exprs;
  SHOAL_ASSIGN_OR_RETURN(auto left_keys, left.DecodeList(m.left_keys()));
  SHOAL_ASSIGN_OR_RETURN(auto right_keys, right.DecodeList(m.right_keys()));
  SHOAL_RETURN_IF_ERROR(left.CheckColumns(children[0]->schema()->num_fields(), "HashJoin"));
  SHOAL_RETURN_IF_ERROR(right.CheckColumns(children[1]->schema()->num_fields(), "HashJoin"));
  sql::ExprPtr residual;
  if (m.has_residual()) {
    SHOAL_ASSIGN_OR_RETURN(residual, exprs.Decode(m.residual()));
    SHOAL_RETURN_IF_ERROR(exprs.CheckColumns(JoinedColumns(children), "HashJoin"));
  }
  SHOAL_ASSIGN_OR_RETURN(auto type,
                         CheckedEnum(m.join_type(), sql::JoinType::kRightAnti, "join type"));
  SHOAL_ASSIGN_OR_RETURN(
      auto mode, CheckedEnum(m.mode(), exec::HashJoinExec::Mode::kPartitioned, "join mode"));
  SHOAL_ASSIGN_OR_RETURN(auto node,
                         exec::HashJoinExec::Make(children[0], children[1], std::move(left_keys),
                                                  std::move(right_keys), type, residual, mode));
  if (m.runtime_filters_size() > 0) {
    std::vector<exec::JoinRuntimeFilter> filters;
    for (const auto& rf : m.runtime_filters()) {
      if (rf.key() < 0 || static_cast<size_t>(rf.key()) >= node->left_keys().size())
        return Status::InvalidData("encoded plan: runtime filter on join key {} of {}",
                                   rf.key() + 1, node->left_keys().size());
      filters.push_back({rf.id(), rf.key(), rf.target()});
    }
    SHOAL_ASSIGN_OR_RETURN(node, node->WithRuntimeFilters(std::move(filters)));
  }
  return exec::ExecPlanPtr(std::move(node));
}

Status EncodeNestedLoopJoin(const exec::ExecutionPlan& node, NodeEncoder&,
                            proto::PlanNodeProto* out) {
  const auto& x = node.As<exec::NestedLoopJoinExec>();
  auto* m = out->mutable_nested_loop_join();
  m->set_join_type(static_cast<uint32_t>(x.join_type()));
  if (x.condition())
    SHOAL_RETURN_IF_ERROR(EncodeExpr(*x.condition(), m->mutable_condition()));
  return Status::OK();
}

Result<exec::ExecPlanPtr> DecodeNestedLoopJoin(const proto::PlanNodeProto& in, Children&& children,
                                               NodeDecoder&) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 2, "NestedLoopJoin"));
  const auto& m = in.nested_loop_join();
  sql::ExprPtr condition;
  if (m.has_condition()) {
    ExprDecoder exprs;
    SHOAL_ASSIGN_OR_RETURN(condition, exprs.Decode(m.condition()));
    SHOAL_RETURN_IF_ERROR(exprs.CheckColumns(JoinedColumns(children), "NestedLoopJoin"));
  }
  SHOAL_ASSIGN_OR_RETURN(auto type, CheckedEnum(m.join_type(), sql::JoinType::kMark, "join type"));
  SHOAL_ASSIGN_OR_RETURN(auto node,
                         exec::NestedLoopJoinExec::Make(children[0], children[1], type, condition));
  return exec::ExecPlanPtr(std::move(node));
}

}  // namespace

void AddJoinNodeCodecs(NodeCodecRegistry* registry) {
  registry->Add({exec::PlanKind::kHashJoin, proto::PlanNodeProto::kHashJoin, true, EncodeHashJoin,
                 DecodeHashJoin});
  registry->Add({exec::PlanKind::kNestedLoopJoin, proto::PlanNodeProto::kNestedLoopJoin, true,
                 EncodeNestedLoopJoin, DecodeNestedLoopJoin});
}

}  // namespace shoal::distributed::internal
