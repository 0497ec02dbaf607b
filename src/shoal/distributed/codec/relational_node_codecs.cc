// Node codecs of the one-input relational operators (filter, projection, aggregation, sorts,
// limits, repartition, window, expand), of the partition-merging ones (coalesce, union) and of a
// recursive CTE with its working table scan.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "shoal/distributed/codec/expr_codec.h"
#include "shoal/distributed/codec/node_codec.h"
#include "shoal/distributed/codec/node_codec_families_internal.h"
#include "shoal/distributed/codec/type_codec.h"
#include "shoal/exec/operators/coalesce_partitions_exec.h"
#include "shoal/exec/operators/expand_exec.h"
#include "shoal/exec/operators/filter_exec.h"
#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/limit_exec.h"
#include "shoal/exec/operators/projection_exec.h"
#include "shoal/exec/operators/recursive_cte_exec.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "shoal/exec/operators/sort_exec.h"
#include "shoal/exec/operators/sort_preserving_merge_exec.h"
#include "shoal/exec/operators/table_function_exec.h"
#include "shoal/exec/operators/union_exec.h"
#include "shoal/exec/operators/unnest_exec.h"
#include "shoal/exec/operators/window_exec.h"
#include "shoal/exec/operators/working_table_scan_exec.h"

namespace shoal::distributed::internal {

namespace {

using Children = std::vector<exec::ExecPlanPtr>;

int64_t InputColumns(const Children& children, size_t i = 0) {
  return children[i]->schema()->num_fields();
}

Status EncodeFilter(const exec::ExecutionPlan& node, NodeEncoder&, proto::PlanNodeProto* out) {
  return EncodeExpr(*node.As<exec::FilterExec>().predicate(),
                    out->mutable_filter()->mutable_predicate());
}

Result<exec::ExecPlanPtr> DecodeFilter(const proto::PlanNodeProto& in, Children&& children,
                                       NodeDecoder&) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 1, "Filter"));
  ExprDecoder exprs;
  SHOAL_ASSIGN_OR_RETURN(auto predicate, exprs.Decode(in.filter().predicate()));
  SHOAL_RETURN_IF_ERROR(exprs.CheckColumns(InputColumns(children), "Filter"));
  SHOAL_ASSIGN_OR_RETURN(auto node, exec::FilterExec::Make(children[0], predicate));
  return exec::ExecPlanPtr(std::move(node));
}

Status EncodeProjection(const exec::ExecutionPlan& node, NodeEncoder&, proto::PlanNodeProto* out) {
  const auto& x = node.As<exec::ProjectionExec>();
  auto* m = out->mutable_projection();
  SHOAL_RETURN_IF_ERROR(EncodeExprList(x.exprs(), m->mutable_exprs()));
  for (const auto& f : x.schema()->fields())
    m->add_names(f.name);
  return Status::OK();
}

Result<exec::ExecPlanPtr> DecodeProjection(const proto::PlanNodeProto& in, Children&& children,
                                           NodeDecoder&) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 1, "Projection"));
  ExprDecoder exprs;
  SHOAL_ASSIGN_OR_RETURN(auto list, exprs.DecodeList(in.projection().exprs()));
  SHOAL_RETURN_IF_ERROR(exprs.CheckColumns(InputColumns(children), "Projection"));
  std::vector<std::string> names(in.projection().names().begin(), in.projection().names().end());
  if (names.size() != list.size())
    return Status::InvalidData("encoded plan: Projection with {} names for {} expressions",
                               names.size(), list.size());
  SHOAL_ASSIGN_OR_RETURN(
      auto node, exec::ProjectionExec::Make(children[0], std::move(list), std::move(names)));
  return exec::ExecPlanPtr(std::move(node));
}

Status EncodeHashAggregate(const exec::ExecutionPlan& node, NodeEncoder&,
                           proto::PlanNodeProto* out) {
  const auto& x = node.As<exec::HashAggregateExec>();
  auto* m = out->mutable_hash_aggregate();
  SHOAL_RETURN_IF_ERROR(EncodeExprList(x.group_by(), m->mutable_group_by()));
  SHOAL_RETURN_IF_ERROR(EncodeExprList(x.aggregates(), m->mutable_aggregates()));
  m->set_mode(static_cast<uint32_t>(x.mode()));
  EncodeSchema(*x.schema(), m->mutable_output_schema());
  return Status::OK();
}

Result<exec::ExecPlanPtr> DecodeHashAggregate(const proto::PlanNodeProto& in, Children&& children,
                                              NodeDecoder&) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 1, "HashAggregate"));
  const auto& m = in.hash_aggregate();
  ExprDecoder exprs;
  SHOAL_ASSIGN_OR_RETURN(auto group_by, exprs.DecodeList(m.group_by()));
  SHOAL_ASSIGN_OR_RETURN(auto aggregates, exprs.DecodeList(m.aggregates()));
  SHOAL_ASSIGN_OR_RETURN(auto mode, CheckedEnum(m.mode(), exec::AggregateMode::kFinal, "mode"));
  // A final aggregate keeps the expressions of its partial (over the original input), so only
  // the other modes read their own input's columns.
  if (mode != exec::AggregateMode::kFinal)
    SHOAL_RETURN_IF_ERROR(exprs.CheckColumns(InputColumns(children), "HashAggregate"));
  SHOAL_ASSIGN_OR_RETURN(auto schema, DecodeSchema(m.output_schema()));
  SHOAL_ASSIGN_OR_RETURN(auto node,
                         exec::HashAggregateExec::Make(children[0], std::move(group_by),
                                                       std::move(aggregates), mode, schema));
  return exec::ExecPlanPtr(std::move(node));
}

Status EncodeSort(const exec::ExecutionPlan& node, NodeEncoder&, proto::PlanNodeProto* out) {
  const auto& x = node.As<exec::SortExec>();
  auto* m = out->mutable_sort();
  SHOAL_RETURN_IF_ERROR(EncodeSortKeys(x.keys(), m->mutable_keys()));
  m->set_fetch(x.fetch());
  return Status::OK();
}

Status EncodeSortPreservingMerge(const exec::ExecutionPlan& node, NodeEncoder&,
                                 proto::PlanNodeProto* out) {
  const auto& x = node.As<exec::SortPreservingMergeExec>();
  auto* m = out->mutable_sort_preserving_merge();
  SHOAL_RETURN_IF_ERROR(EncodeSortKeys(x.keys(), m->mutable_keys()));
  m->set_fetch(x.fetch());
  return Status::OK();
}

// Sort and SortPreservingMerge share their message's shape.
Result<exec::ExecPlanPtr> DecodeSortLike(const proto::PlanNodeProto& in, Children&& children,
                                         NodeDecoder&) {
  const bool merge = in.node_case() == proto::PlanNodeProto::kSortPreservingMerge;
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 1, merge ? "SortPreservingMerge" : "Sort"));
  const auto& m = merge ? in.sort_preserving_merge() : in.sort();
  ExprDecoder exprs;
  SHOAL_ASSIGN_OR_RETURN(auto keys, exprs.DecodeSortKeys(m.keys()));
  SHOAL_RETURN_IF_ERROR(exprs.CheckColumns(InputColumns(children), "Sort"));
  if (merge) {
    SHOAL_ASSIGN_OR_RETURN(
        auto node, exec::SortPreservingMergeExec::Make(children[0], std::move(keys), m.fetch()));
    return exec::ExecPlanPtr(std::move(node));
  }
  SHOAL_ASSIGN_OR_RETURN(auto node, exec::SortExec::Make(children[0], std::move(keys), m.fetch()));
  return exec::ExecPlanPtr(std::move(node));
}

Status EncodeLimit(const exec::ExecutionPlan& node, NodeEncoder&, proto::PlanNodeProto* out) {
  const auto& x = node.As<exec::LimitExec>();
  auto* m = out->mutable_limit();
  m->set_offset(x.offset());
  m->set_fetch(x.fetch());
  m->set_global(x.global());
  return Status::OK();
}

Result<exec::ExecPlanPtr> DecodeLimit(const proto::PlanNodeProto& in, Children&& children,
                                      NodeDecoder&) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 1, "Limit"));
  const auto& m = in.limit();
  SHOAL_ASSIGN_OR_RETURN(auto node,
                         exec::LimitExec::Make(children[0], m.offset(), m.fetch(), m.global()));
  return exec::ExecPlanPtr(std::move(node));
}

Status EncodeRepartition(const exec::ExecutionPlan& node, NodeEncoder&, proto::PlanNodeProto* out) {
  return EncodePartitioning(node.As<exec::RepartitionExec>().output_partitioning(),
                            out->mutable_repartition()->mutable_partitioning());
}

Result<exec::ExecPlanPtr> DecodeRepartition(const proto::PlanNodeProto& in, Children&& children,
                                            NodeDecoder&) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 1, "Repartition"));
  SHOAL_ASSIGN_OR_RETURN(auto partitioning, DecodePartitioning(in.repartition().partitioning()));
  SHOAL_RETURN_IF_ERROR(
      CheckPartitioningColumns(partitioning, InputColumns(children), "Repartition"));
  SHOAL_ASSIGN_OR_RETURN(auto node, exec::RepartitionExec::Make(children[0], partitioning));
  return exec::ExecPlanPtr(std::move(node));
}

Status EncodeWindow(const exec::ExecutionPlan& node, NodeEncoder&, proto::PlanNodeProto* out) {
  const auto& x = node.As<exec::WindowExec>();
  auto* m = out->mutable_window();
  SHOAL_RETURN_IF_ERROR(EncodeExprList(x.functions(), m->mutable_functions()));
  for (const auto& n : x.names())
    m->add_names(n);
  return Status::OK();
}

Result<exec::ExecPlanPtr> DecodeWindow(const proto::PlanNodeProto& in, Children&& children,
                                       NodeDecoder&) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 1, "Window"));
  ExprDecoder exprs;
  SHOAL_ASSIGN_OR_RETURN(auto functions, exprs.DecodeList(in.window().functions()));
  SHOAL_RETURN_IF_ERROR(exprs.CheckColumns(InputColumns(children), "Window"));
  std::vector<std::string> names(in.window().names().begin(), in.window().names().end());
  if (names.size() != functions.size())
    return Status::InvalidData("encoded plan: Window with {} names for {} functions", names.size(),
                               functions.size());
  SHOAL_ASSIGN_OR_RETURN(
      auto node, exec::WindowExec::Make(children[0], std::move(functions), std::move(names)));
  return exec::ExecPlanPtr(std::move(node));
}

Status EncodeExpand(const exec::ExecutionPlan& node, NodeEncoder&, proto::PlanNodeProto* out) {
  const auto& x = node.As<exec::ExpandExec>();
  auto* m = out->mutable_expand();
  for (const auto& p : x.projections())
    SHOAL_RETURN_IF_ERROR(EncodeExprList(p, m->add_projections()->mutable_exprs()));
  for (const auto& f : x.schema()->fields())
    m->add_names(f.name);
  for (const auto& r : x.constant_rows())
    SHOAL_RETURN_IF_ERROR(EncodeExprList(r, m->add_constant_rows()->mutable_exprs()));
  return Status::OK();
}

Status EncodeTableFunction(const exec::ExecutionPlan& node, NodeEncoder&,
                           proto::PlanNodeProto* out) {
  const auto& x = node.As<exec::TableFunctionExec>();
  auto* m = out->mutable_table_function();
  m->set_function(x.function());
  SHOAL_RETURN_IF_ERROR(EncodeExprList(x.args(), m->mutable_args()));
  m->set_with_ordinality(x.with_ordinality());
  for (int i = 0; i < x.num_function_columns(); ++i)
    m->add_names(x.schema()->field(i).name);
  return Status::OK();
}

Result<exec::ExecPlanPtr> DecodeTableFunction(const proto::PlanNodeProto& in, Children&& children,
                                              NodeDecoder&) {
  if (children.size() > 1)
    return Status::InvalidData("encoded plan: TableFunction with {} children", children.size());
  const auto& m = in.table_function();
  ExprDecoder exprs;
  SHOAL_ASSIGN_OR_RETURN(auto args, exprs.DecodeList(m.args()));
  SHOAL_RETURN_IF_ERROR(
      exprs.CheckColumns(children.empty() ? 0 : InputColumns(children), "TableFunction"));
  std::vector<std::string> names(m.names().begin(), m.names().end());
  SHOAL_ASSIGN_OR_RETURN(auto node, exec::TableFunctionExec::Make(
                                        children.empty() ? nullptr : children[0], m.function(),
                                        std::move(args), m.with_ordinality(), std::move(names)));
  return exec::ExecPlanPtr(std::move(node));
}

Status EncodeUnnest(const exec::ExecutionPlan& node, NodeEncoder&, proto::PlanNodeProto* out) {
  const auto& x = node.As<exec::UnnestExec>();
  auto* m = out->mutable_unnest();
  SHOAL_RETURN_IF_ERROR(EncodeExprList(x.arrays(), m->mutable_arrays()));
  m->set_with_ordinality(x.with_ordinality());
  for (int i = 0; i < x.num_function_columns(); ++i)
    m->add_names(x.schema()->field(i).name);
  return Status::OK();
}

Result<exec::ExecPlanPtr> DecodeUnnest(const proto::PlanNodeProto& in, Children&& children,
                                       NodeDecoder&) {
  if (children.size() > 1)
    return Status::InvalidData("encoded plan: Unnest with {} children", children.size());
  const auto& m = in.unnest();
  ExprDecoder exprs;
  SHOAL_ASSIGN_OR_RETURN(auto arrays, exprs.DecodeList(m.arrays()));
  SHOAL_RETURN_IF_ERROR(
      exprs.CheckColumns(children.empty() ? 0 : InputColumns(children), "Unnest"));
  std::vector<std::string> names(m.names().begin(), m.names().end());
  // Make checks the rest against the types (arrays of list type, one name per column).
  SHOAL_ASSIGN_OR_RETURN(
      auto node, exec::UnnestExec::Make(children.empty() ? nullptr : children[0], std::move(arrays),
                                        m.with_ordinality(), std::move(names)));
  return exec::ExecPlanPtr(std::move(node));
}

Result<exec::ExecPlanPtr> DecodeExpand(const proto::PlanNodeProto& in, Children&& children,
                                       NodeDecoder&) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 1, "Expand"));
  const auto& m = in.expand();
  ExprDecoder exprs;
  std::vector<std::vector<sql::ExprPtr>> projections;
  for (const auto& p : m.projections()) {
    SHOAL_ASSIGN_OR_RETURN(auto list, exprs.DecodeList(p.exprs()));
    projections.push_back(std::move(list));
  }
  SHOAL_RETURN_IF_ERROR(exprs.CheckColumns(InputColumns(children), "Expand"));
  std::vector<std::vector<sql::ExprPtr>> constant_rows;
  for (const auto& r : m.constant_rows()) {
    SHOAL_ASSIGN_OR_RETURN(auto list, exprs.DecodeList(r.exprs()));
    constant_rows.push_back(std::move(list));
  }
  std::vector<std::string> names(m.names().begin(), m.names().end());
  SHOAL_ASSIGN_OR_RETURN(
      auto node, exec::ExpandExec::Make(children[0], std::move(projections), std::move(names),
                                        std::move(constant_rows)));
  return exec::ExecPlanPtr(std::move(node));
}

Status EncodeCoalescePartitions(const exec::ExecutionPlan&, NodeEncoder&,
                                proto::PlanNodeProto* out) {
  out->set_coalesce_partitions(true);
  return Status::OK();
}

Result<exec::ExecPlanPtr> DecodeCoalescePartitions(const proto::PlanNodeProto&, Children&& children,
                                                   NodeDecoder&) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 1, "CoalescePartitions"));
  return exec::ExecPlanPtr(exec::CoalescePartitionsExec::Make(children[0]));
}

Status EncodeUnion(const exec::ExecutionPlan&, NodeEncoder&, proto::PlanNodeProto* out) {
  out->set_union_all(true);
  return Status::OK();
}

Result<exec::ExecPlanPtr> DecodeUnion(const proto::PlanNodeProto&, Children&& children,
                                      NodeDecoder&) {
  if (children.empty())
    return Status::InvalidData("encoded plan: Union without inputs");
  SHOAL_ASSIGN_OR_RETURN(auto node, exec::UnionExec::Make(std::move(children)));
  return exec::ExecPlanPtr(std::move(node));
}

Status EncodeRecursiveCte(const exec::ExecutionPlan& node, NodeEncoder&,
                          proto::PlanNodeProto* out) {
  const auto& x = node.As<exec::RecursiveCteExec>();
  auto* m = out->mutable_recursive_cte();
  m->set_all(x.all());
  m->set_id(x.id());
  return Status::OK();
}

// The decoded recursive term's working table scans are bound to the new node's working table by
// RecursiveCteExec::Make, as on the coordinator.
Result<exec::ExecPlanPtr> DecodeRecursiveCte(const proto::PlanNodeProto& in, Children&& children,
                                             NodeDecoder&) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 2, "RecursiveCte"));
  SHOAL_ASSIGN_OR_RETURN(
      auto node, exec::RecursiveCteExec::Make(children[0], children[1], in.recursive_cte().all(),
                                              in.recursive_cte().id()));
  return exec::ExecPlanPtr(std::move(node));
}

Status EncodeWorkingTableScan(const exec::ExecutionPlan& node, NodeEncoder&,
                              proto::PlanNodeProto* out) {
  const auto& x = node.As<exec::WorkingTableScanExec>();
  auto* m = out->mutable_working_table_scan();
  m->set_id(x.id());
  EncodeSchema(*x.schema(), m->mutable_schema());
  return Status::OK();
}

Result<exec::ExecPlanPtr> DecodeWorkingTableScan(const proto::PlanNodeProto& in,
                                                 Children&& children, NodeDecoder&) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 0, "WorkingTableScan"));
  SHOAL_ASSIGN_OR_RETURN(auto schema, DecodeSchema(in.working_table_scan().schema()));
  return exec::ExecPlanPtr(
      exec::WorkingTableScanExec::Make(std::move(schema), in.working_table_scan().id()));
}

}  // namespace

void AddRelationalNodeCodecs(NodeCodecRegistry* registry) {
  using exec::PlanKind;
  using P = proto::PlanNodeProto;
  registry->Add({PlanKind::kFilter, P::kFilter, true, EncodeFilter, DecodeFilter});
  registry->Add({PlanKind::kProjection, P::kProjection, true, EncodeProjection, DecodeProjection});
  registry->Add({PlanKind::kHashAggregate, P::kHashAggregate, true, EncodeHashAggregate,
                 DecodeHashAggregate});
  registry->Add({PlanKind::kSort, P::kSort, true, EncodeSort, DecodeSortLike});
  registry->Add({PlanKind::kSortPreservingMerge, P::kSortPreservingMerge, true,
                 EncodeSortPreservingMerge, DecodeSortLike});
  registry->Add({PlanKind::kLimit, P::kLimit, true, EncodeLimit, DecodeLimit});
  registry->Add(
      {PlanKind::kRepartition, P::kRepartition, true, EncodeRepartition, DecodeRepartition});
  registry->Add({PlanKind::kWindow, P::kWindow, true, EncodeWindow, DecodeWindow});
  registry->Add({PlanKind::kExpand, P::kExpand, true, EncodeExpand, DecodeExpand});
  registry->Add({PlanKind::kTableFunction, P::kTableFunction, true, EncodeTableFunction,
                 DecodeTableFunction});
  registry->Add({PlanKind::kUnnest, P::kUnnest, true, EncodeUnnest, DecodeUnnest});
  registry->Add({PlanKind::kCoalescePartitions, P::kCoalescePartitions, true,
                 EncodeCoalescePartitions, DecodeCoalescePartitions});
  registry->Add({PlanKind::kUnion, P::kUnionAll, true, EncodeUnion, DecodeUnion});
  registry->Add(
      {PlanKind::kRecursiveCte, P::kRecursiveCte, true, EncodeRecursiveCte, DecodeRecursiveCte});
  registry->Add({PlanKind::kWorkingTableScan, P::kWorkingTableScan, true, EncodeWorkingTableScan,
                 DecodeWorkingTableScan});
}

}  // namespace shoal::distributed::internal
