#include "shoal/distributed/codec/expr_codec.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "shoal/common/stack_depth.h"
#include "shoal/distributed/codec/type_codec.h"

namespace shoal::distributed {

Status EncodeSortKeys(const std::vector<sql::SortKey>& keys,
                      google::protobuf::RepeatedPtrField<proto::SortKeyProto>* out) {
  for (const auto& k : keys) {
    auto* key = out->Add();
    SHOAL_RETURN_IF_ERROR(EncodeExpr(*k.expr, key->mutable_expr()));
    key->set_ascending(k.ascending);
    key->set_nulls_first(k.nulls_first);
  }
  return Status::OK();
}

Status EncodeExpr(const sql::Expr& e, proto::ExprProto* out) {
  SHOAL_CHECK_STACK_DEPTH();
  if (e.kind == sql::ExprKind::kSubquery)
    return Status::Internal("a subquery expression reached a physical plan: {}", e.ToString());
  if (e.kind == sql::ExprKind::kColumnRef && e.outer_depth != 0)
    return Status::Internal("an outer column reference reached a physical plan: {}", e.ToString());
  out->set_kind(static_cast<uint32_t>(e.kind));
  EncodeType(e.type, out->mutable_type());
  out->set_nullable(e.nullable);
  out->set_column(e.column);
  out->set_name(e.name);
  if (e.kind == sql::ExprKind::kLiteral)
    EncodeScalar(e.value, out->mutable_value());
  for (const auto& a : e.args)
    SHOAL_RETURN_IF_ERROR(EncodeExpr(*a, out->add_args()));
  out->set_has_else(e.has_else);
  out->set_try_cast(e.try_cast);
  out->set_distinct(e.distinct);
  if (e.filter)
    SHOAL_RETURN_IF_ERROR(EncodeExpr(*e.filter, out->mutable_filter()));
  SHOAL_RETURN_IF_ERROR(EncodeSortKeys(e.order_by, out->mutable_order_by()));
  for (const auto& p : e.partition_by)
    SHOAL_RETURN_IF_ERROR(EncodeExpr(*p, out->add_partition_by()));
  if (e.kind == sql::ExprKind::kWindow) {
    auto* f = out->mutable_frame();
    f->set_units(static_cast<uint32_t>(e.frame.units));
    f->set_start(static_cast<uint32_t>(e.frame.start));
    f->set_end(static_cast<uint32_t>(e.frame.end));
    if (e.frame.start_offset)
      SHOAL_RETURN_IF_ERROR(EncodeExpr(*e.frame.start_offset, f->mutable_start_offset()));
    if (e.frame.end_offset)
      SHOAL_RETURN_IF_ERROR(EncodeExpr(*e.frame.end_offset, f->mutable_end_offset()));
  }
  return Status::OK();
}

Result<sql::ExprPtr> ExprDecoder::Decode(const proto::ExprProto& in, int depth) {
  if (depth > kMaxExprDepth)
    return Status::InvalidData("encoded plan: expression nested deeper than {}", kMaxExprDepth);
  SHOAL_CHECK_STACK_DEPTH();
  auto e = std::make_shared<sql::Expr>();
  SHOAL_ASSIGN_OR_RETURN(e->kind,
                         CheckedEnum(in.kind(), sql::ExprKind::kWindow, "expression kind"));
  SHOAL_ASSIGN_OR_RETURN(e->type, DecodeType(in.type()));
  e->nullable = in.nullable();
  e->column = in.column();
  e->name = in.name();
  if (e->kind == sql::ExprKind::kColumnRef)
    max_column = std::max<int64_t>(max_column, in.column());
  if (e->kind == sql::ExprKind::kLiteral) {
    SHOAL_ASSIGN_OR_RETURN(e->value, DecodeScalar(in.value()));
  }
  for (const auto& a : in.args()) {
    SHOAL_ASSIGN_OR_RETURN(auto arg, Decode(a, depth + 1));
    e->args.push_back(std::move(arg));
  }
  e->has_else = in.has_else();
  e->try_cast = in.try_cast();
  e->distinct = in.distinct();
  if (in.has_filter()) {
    SHOAL_ASSIGN_OR_RETURN(e->filter, Decode(in.filter(), depth + 1));
  }
  SHOAL_ASSIGN_OR_RETURN(e->order_by, DecodeSortKeys(in.order_by(), depth + 1));
  for (const auto& p : in.partition_by()) {
    SHOAL_ASSIGN_OR_RETURN(auto part, Decode(p, depth + 1));
    e->partition_by.push_back(std::move(part));
  }
  if (e->kind == sql::ExprKind::kWindow) {
    const auto& f = in.frame();
    SHOAL_ASSIGN_OR_RETURN(e->frame.units, CheckedEnum(f.units(), sql::WindowFrame::Units::kGroups,
                                                       "window frame units"));
    SHOAL_ASSIGN_OR_RETURN(
        e->frame.start,
        CheckedEnum(f.start(), sql::WindowFrame::BoundKind::kUnboundedFollowing, "frame bound"));
    SHOAL_ASSIGN_OR_RETURN(
        e->frame.end,
        CheckedEnum(f.end(), sql::WindowFrame::BoundKind::kUnboundedFollowing, "frame bound"));
    if (f.has_start_offset()) {
      SHOAL_ASSIGN_OR_RETURN(e->frame.start_offset, Decode(f.start_offset(), depth + 1));
    }
    if (f.has_end_offset()) {
      SHOAL_ASSIGN_OR_RETURN(e->frame.end_offset, Decode(f.end_offset(), depth + 1));
    }
  }
  if ((e->kind == sql::ExprKind::kCast) && e->args.size() != 1)
    return Status::InvalidData("encoded plan: a cast with {} arguments", e->args.size());
  return sql::ExprPtr(std::move(e));
}

Result<std::vector<sql::SortKey>> ExprDecoder::DecodeSortKeys(
    const google::protobuf::RepeatedPtrField<proto::SortKeyProto>& in, int depth) {
  std::vector<sql::SortKey> keys;
  for (const auto& k : in) {
    sql::SortKey key;
    if (!k.has_expr())
      return Status::InvalidData("encoded plan: a sort key without an expression");
    SHOAL_ASSIGN_OR_RETURN(key.expr, Decode(k.expr(), depth));
    key.ascending = k.ascending();
    key.nulls_first = k.nulls_first();
    keys.push_back(std::move(key));
  }
  return keys;
}

Result<std::vector<sql::ExprPtr>> ExprDecoder::DecodeList(
    const google::protobuf::RepeatedPtrField<proto::ExprProto>& in) {
  std::vector<sql::ExprPtr> out;
  for (const auto& e : in) {
    SHOAL_ASSIGN_OR_RETURN(auto x, Decode(e));
    out.push_back(std::move(x));
  }
  return out;
}

Status ExprDecoder::CheckColumns(int64_t available, std::string_view node) const {
  if (max_column >= available)
    return Status::InvalidData("encoded plan: {} reads column #{} of an input with {} columns",
                               node, max_column, available);
  return Status::OK();
}

Status EncodeExprList(const std::vector<sql::ExprPtr>& exprs,
                      google::protobuf::RepeatedPtrField<proto::ExprProto>* out) {
  for (const auto& e : exprs)
    SHOAL_RETURN_IF_ERROR(EncodeExpr(*e, out->Add()));
  return Status::OK();
}

Status EncodePartitioning(const exec::Partitioning& partitioning, proto::PartitioningProto* out) {
  out->set_kind(static_cast<uint32_t>(partitioning.kind));
  out->set_num_partitions(partitioning.num_partitions);
  return EncodeExprList(partitioning.keys, out->mutable_keys());
}

Status CheckPartitioningColumns(const exec::Partitioning& partitioning, int64_t available,
                                std::string_view node) {
  for (const auto& k : partitioning.keys) {
    int64_t max_column = -1;
    sql::VisitExpr(k, [&](const sql::Expr& e) {
      if (e.kind == sql::ExprKind::kColumnRef)
        max_column = std::max<int64_t>(max_column, e.column);
    });
    if (max_column >= available)
      return Status::InvalidData("encoded plan: {} key reads column #{}", node, max_column);
  }
  return Status::OK();
}

Result<exec::Partitioning> DecodePartitioning(const proto::PartitioningProto& in) {
  exec::Partitioning p;
  SHOAL_ASSIGN_OR_RETURN(
      p.kind, CheckedEnum(in.kind(), exec::PartitioningKind::kHash, "partitioning kind"));
  if (in.num_partitions() < 1 || in.num_partitions() > kMaxPartitions)
    return Status::InvalidData("encoded plan: partitioning into {} partitions (1 to {} allowed)",
                               in.num_partitions(), kMaxPartitions);
  p.num_partitions = in.num_partitions();
  ExprDecoder exprs;
  SHOAL_ASSIGN_OR_RETURN(p.keys, exprs.DecodeList(in.keys()));
  return p;
}

}  // namespace shoal::distributed
