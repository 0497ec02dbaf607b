#include "shoal/distributed/codec/plan_codec.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "shoal/columnar/ipc/reader.h"
#include "shoal/columnar/ipc/writer.h"
#include "shoal/distributed/feeds/work_unit_feed_scan_exec.h"
#include "shoal/distributed/shuffle/stage_file_codec.h"
#include "shoal/exec/operators/coalesce_partitions_exec.h"
#include "shoal/exec/operators/expand_exec.h"
#include "shoal/exec/operators/filter_exec.h"
#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/limit_exec.h"
#include "shoal/exec/operators/nested_loop_join_exec.h"
#include "shoal/exec/operators/projection_exec.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "shoal/exec/operators/sort_exec.h"
#include "shoal/exec/operators/sort_preserving_merge_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/operators/union_exec.h"
#include "shoal/exec/operators/values_exec.h"
#include "shoal/exec/operators/window_exec.h"

namespace shoal::distributed {

namespace {

using columnar::DataType;
using columnar::TypeId;

// Enum values read from the wire are checked against the last enumerator before the cast.
template <typename E>
Result<E> CheckedEnum(uint32_t value, E last, const char* what) {
  if (value > static_cast<uint32_t>(last))
    return Status::InvalidData("encoded plan: {} {} is out of range", what, value);
  return static_cast<E>(value);
}

// ------------------------------------------------------------------ types, scalars

void EncodeType(const DataType& type, proto::DataTypeProto* out) {
  out->set_id(static_cast<uint32_t>(type.id()));
  switch (type.id()) {
    case TypeId::kDecimal:
      out->set_precision(type.precision());
      out->set_scale(type.scale());
      break;
    case TypeId::kTimestamp:
      out->set_unit(static_cast<uint32_t>(type.unit()));
      out->set_timezone(type.timezone());
      break;
    case TypeId::kDictionary:
      out->set_index_type(static_cast<uint32_t>(type.index_type()));
      EncodeType(type.value_type(), out->mutable_value_type());
      out->set_ordered(type.ordered());
      break;
    default: break;
  }
}

Result<DataType> DecodeType(const proto::DataTypeProto& in, int depth = 0) {
  SHOAL_ASSIGN_OR_RETURN(TypeId id, CheckedEnum(in.id(), TypeId::kDictionary, "type id"));
  switch (id) {
    case TypeId::kNull: return DataType::Null();
    case TypeId::kBoolean: return DataType::Boolean();
    case TypeId::kInt8: return DataType::Int8();
    case TypeId::kInt16: return DataType::Int16();
    case TypeId::kInt32: return DataType::Int32();
    case TypeId::kInt64: return DataType::Int64();
    case TypeId::kUInt8: return DataType::UInt8();
    case TypeId::kUInt16: return DataType::UInt16();
    case TypeId::kUInt32: return DataType::UInt32();
    case TypeId::kUInt64: return DataType::UInt64();
    case TypeId::kFloat32: return DataType::Float32();
    case TypeId::kFloat64: return DataType::Float64();
    case TypeId::kDecimal: return DataType::MakeDecimal(in.precision(), in.scale());
    case TypeId::kDate32: return DataType::Date32();
    case TypeId::kTimestamp: {
      SHOAL_ASSIGN_OR_RETURN(auto unit,
                             CheckedEnum(in.unit(), columnar::TimeUnit::kNano, "time unit"));
      return DataType::Timestamp(unit, in.timezone());
    }
    case TypeId::kInterval: return DataType::Interval();
    case TypeId::kUtf8: return DataType::Utf8();
    case TypeId::kBinary: return DataType::Binary();
    case TypeId::kDictionary: {
      if (depth > 0 || !in.has_value_type())
        return Status::InvalidData("encoded plan: malformed dictionary type");
      SHOAL_ASSIGN_OR_RETURN(
          auto index, CheckedEnum(in.index_type(), TypeId::kDictionary, "dictionary index type"));
      if (!DataType::IsIntegerId(index))
        return Status::InvalidData("encoded plan: dictionary index type is not an integer");
      SHOAL_ASSIGN_OR_RETURN(DataType value, DecodeType(in.value_type(), depth + 1));
      return DataType::Dictionary(index, value, in.ordered());
    }
  }
  return Status::InvalidData("encoded plan: type id {}", in.id());
}

// The physical representation of a scalar follows from its type (scalar.h).
enum class ScalarStorage { kInt, kFloat, kDecimal, kString, kInterval, kNone };

ScalarStorage StorageOf(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull: return ScalarStorage::kNone;
    case TypeId::kFloat32:
    case TypeId::kFloat64: return ScalarStorage::kFloat;
    case TypeId::kDecimal: return ScalarStorage::kDecimal;
    case TypeId::kUtf8:
    case TypeId::kBinary: return ScalarStorage::kString;
    case TypeId::kInterval: return ScalarStorage::kInterval;
    case TypeId::kDictionary: return StorageOf(type.value_type());
    default: return ScalarStorage::kInt;
  }
}

void EncodeScalar(const columnar::Scalar& value, proto::ScalarProto* out) {
  EncodeType(value.type(), out->mutable_type());
  if (value.is_null())
    return;
  switch (StorageOf(value.type())) {
    case ScalarStorage::kInt: out->set_int_value(value.int_value()); break;
    case ScalarStorage::kFloat: out->set_float_value(value.float_value()); break;
    case ScalarStorage::kDecimal: {
      columnar::int128_t v = value.decimal_value();
      std::string bytes(sizeof(v), '\0');
      std::memcpy(bytes.data(), &v, sizeof(v));
      out->set_decimal_value(std::move(bytes));
      break;
    }
    case ScalarStorage::kString: out->set_string_value(value.string_value()); break;
    case ScalarStorage::kInterval: {
      auto* iv = out->mutable_interval_value();
      iv->set_months(value.interval_value().months);
      iv->set_days(value.interval_value().days);
      iv->set_nanoseconds(value.interval_value().nanoseconds);
      break;
    }
    case ScalarStorage::kNone: break;
  }
}

Result<columnar::Scalar> DecodeScalar(const proto::ScalarProto& in) {
  SHOAL_ASSIGN_OR_RETURN(DataType type, DecodeType(in.type()));
  if (in.value_case() == proto::ScalarProto::VALUE_NOT_SET)
    return columnar::Scalar(type);
  const ScalarStorage storage = StorageOf(type);
  auto mismatch = [&] {
    return Status::InvalidData("encoded plan: a {} literal with a value of the wrong kind",
                               type.ToString());
  };
  switch (in.value_case()) {
    case proto::ScalarProto::kIntValue:
      if (storage != ScalarStorage::kInt)
        return mismatch();
      return columnar::Scalar::FromInt(type, in.int_value());
    case proto::ScalarProto::kFloatValue:
      if (storage != ScalarStorage::kFloat)
        return mismatch();
      return columnar::Scalar::FromFloat(type, in.float_value());
    case proto::ScalarProto::kDecimalValue: {
      if (storage != ScalarStorage::kDecimal ||
          in.decimal_value().size() != sizeof(columnar::int128_t))
        return mismatch();
      columnar::int128_t v = 0;
      std::memcpy(&v, in.decimal_value().data(), sizeof(v));
      return columnar::Scalar::Decimal(v, type.precision(), type.scale());
    }
    case proto::ScalarProto::kStringValue:
      if (storage != ScalarStorage::kString)
        return mismatch();
      return type.id() == TypeId::kBinary ? columnar::Scalar::Binary(in.string_value())
                                          : columnar::Scalar::Utf8(in.string_value());
    case proto::ScalarProto::kIntervalValue: {
      if (storage != ScalarStorage::kInterval)
        return mismatch();
      columnar::MonthDayNano v;
      v.months = in.interval_value().months();
      v.days = in.interval_value().days();
      v.nanoseconds = in.interval_value().nanoseconds();
      return columnar::Scalar::Interval(v);
    }
    case proto::ScalarProto::VALUE_NOT_SET: break;
  }
  return mismatch();
}

// ------------------------------------------------------------------ expressions

constexpr int kMaxExprDepth = 1000;

Status EncodeExpr(const sql::Expr& e, proto::ExprProto* out);

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

// Decoding tracks the largest column position read, to check it against the node's inputs.
struct ExprDecoder {
  int64_t max_column = -1;

  Result<sql::ExprPtr> Decode(const proto::ExprProto& in, int depth = 0) {
    if (depth > kMaxExprDepth)
      return Status::InvalidData("encoded plan: expression nested deeper than {}", kMaxExprDepth);
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
      SHOAL_ASSIGN_OR_RETURN(
          e->frame.units,
          CheckedEnum(f.units(), sql::WindowFrame::Units::kGroups, "window frame units"));
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

  Result<std::vector<sql::SortKey>> DecodeSortKeys(
      const google::protobuf::RepeatedPtrField<proto::SortKeyProto>& in, int depth = 0) {
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

  Result<std::vector<sql::ExprPtr>> DecodeList(
      const google::protobuf::RepeatedPtrField<proto::ExprProto>& in) {
    std::vector<sql::ExprPtr> out;
    for (const auto& e : in) {
      SHOAL_ASSIGN_OR_RETURN(auto x, Decode(e));
      out.push_back(std::move(x));
    }
    return out;
  }

  Status CheckColumns(int64_t available, std::string_view node) const {
    if (max_column >= available)
      return Status::InvalidData("encoded plan: {} reads column #{} of an input with {} columns",
                                 node, max_column, available);
    return Status::OK();
  }
};

Status EncodeExprList(const std::vector<sql::ExprPtr>& exprs,
                      google::protobuf::RepeatedPtrField<proto::ExprProto>* out) {
  for (const auto& e : exprs)
    SHOAL_RETURN_IF_ERROR(EncodeExpr(*e, out->Add()));
  return Status::OK();
}

// ------------------------------------------------------------------ nodes

struct Encoder {
  const TableCodecRegistry& codecs;
  std::set<std::string> codec_ids;

  Status Encode(const exec::ExecutionPlan& node, proto::PlanNodeProto* out) {
    if (const auto* x = dynamic_cast<const NetworkExchangeExec*>(&node)) {
      // The display child (the producer stage) is never shipped: it is another stage.
      auto* m = out->mutable_network_exchange();
      const ExchangeSpec& s = x->spec();
      m->set_kind(static_cast<uint32_t>(s.kind));
      EncodeSchema(*s.schema, m->mutable_schema());
      m->set_query_id(s.query_id);
      m->set_stage_id(s.stage_id);
      for (const auto& w : s.producer_workers)
        m->add_producer_workers(w);
      m->set_producer_partitions(s.producer_partitions);
      if (s.kind == ExchangeKind::kShuffle)
        SHOAL_RETURN_IF_ERROR(EncodePartitioning(s.partitioning, m->mutable_partitioning()));
      m->set_partition_start(s.partition_start);
      m->set_partition_end(s.partition_end);
      return Status::OK();
    }
    if (const auto* x = dynamic_cast<const WorkUnitFeedScanExec*>(&node)) {
      // The table part is a TableScan's without units (they arrive on the feed).
      SHOAL_ASSIGN_OR_RETURN(auto scan, exec::TableScanExec::FromUnitGroups(
                                            x->table(), x->table_name(), x->request(), {}));
      proto::PlanNodeProto scratch;
      SHOAL_RETURN_IF_ERROR(Encode(*scan, &scratch));
      auto* m = out->mutable_work_unit_feed_scan();
      m->set_feed_id(x->feed_id());
      m->set_partitions(x->partitions());
      m->mutable_scan()->Swap(scratch.mutable_table_scan());
      m->mutable_scan()->clear_groups();
      return Status::OK();
    }
    for (const auto& child : node.children())
      SHOAL_RETURN_IF_ERROR(Encode(*child, out->add_children()));
    if (const auto* x = dynamic_cast<const exec::TableScanExec*>(&node)) {
      auto* m = out->mutable_table_scan();
      SHOAL_ASSIGN_OR_RETURN(const TableCodec* codec,
                             codecs.ForTable(*x->table(), x->table_name()));
      SHOAL_ASSIGN_OR_RETURN(std::string payload, codec->Encode(*x->table(), x->table_name()));
      codec_ids.insert(codec->id());
      m->set_table_name(x->table_name());
      m->set_codec_id(codec->id());
      m->set_table(std::move(payload));
      const io::ScanRequest& r = x->request();
      for (int c : r.projection)
        m->add_projection(c);
      for (const auto& p : r.predicates) {
        auto* pp = m->add_predicates();
        pp->set_column(p.column);
        pp->set_op(static_cast<uint32_t>(p.op));
        for (const auto& v : p.values)
          EncodeScalar(v, pp->add_values());
      }
      m->set_batch_size(r.batch_size);
      m->set_limit(r.limit);
      for (const auto& group : x->unit_groups()) {
        auto* g = m->add_groups();
        for (const auto& u : group) {
          auto* uu = g->add_units();
          uu->set_description(u.description);
          uu->set_bytes(u.bytes);
          uu->set_rows(u.rows);
          uu->set_payload(u.payload);
        }
      }
      return Status::OK();
    }
    if (const auto* x = dynamic_cast<const exec::ValuesExec*>(&node)) {
      auto* m = out->mutable_values();
      EncodeSchema(*x->schema(), m->mutable_schema());
      columnar::ipc::BufferSink sink;
      SHOAL_ASSIGN_OR_RETURN(auto writer, columnar::ipc::MakeStreamWriter(&sink, x->schema()));
      for (const auto& b : x->batches())
        SHOAL_RETURN_IF_ERROR(writer->WriteBatch(*b));
      SHOAL_RETURN_IF_ERROR(writer->Close());
      m->set_ipc_stream(sink.TakeBytes());
      return Status::OK();
    }
    if (const auto* x = dynamic_cast<const exec::FilterExec*>(&node))
      return EncodeExpr(*x->predicate(), out->mutable_filter()->mutable_predicate());
    if (const auto* x = dynamic_cast<const exec::ProjectionExec*>(&node)) {
      auto* m = out->mutable_projection();
      SHOAL_RETURN_IF_ERROR(EncodeExprList(x->exprs(), m->mutable_exprs()));
      for (const auto& f : x->schema()->fields())
        m->add_names(f.name);
      return Status::OK();
    }
    if (const auto* x = dynamic_cast<const exec::HashAggregateExec*>(&node)) {
      auto* m = out->mutable_hash_aggregate();
      SHOAL_RETURN_IF_ERROR(EncodeExprList(x->group_by(), m->mutable_group_by()));
      SHOAL_RETURN_IF_ERROR(EncodeExprList(x->aggregates(), m->mutable_aggregates()));
      m->set_mode(static_cast<uint32_t>(x->mode()));
      EncodeSchema(*x->schema(), m->mutable_output_schema());
      return Status::OK();
    }
    if (const auto* x = dynamic_cast<const exec::HashJoinExec*>(&node)) {
      auto* m = out->mutable_hash_join();
      SHOAL_RETURN_IF_ERROR(EncodeExprList(x->left_keys(), m->mutable_left_keys()));
      SHOAL_RETURN_IF_ERROR(EncodeExprList(x->right_keys(), m->mutable_right_keys()));
      m->set_join_type(static_cast<uint32_t>(x->join_type()));
      if (x->residual())
        SHOAL_RETURN_IF_ERROR(EncodeExpr(*x->residual(), m->mutable_residual()));
      m->set_mode(static_cast<uint32_t>(x->mode()));
      return Status::OK();
    }
    if (const auto* x = dynamic_cast<const exec::NestedLoopJoinExec*>(&node)) {
      auto* m = out->mutable_nested_loop_join();
      m->set_join_type(static_cast<uint32_t>(x->join_type()));
      if (x->condition())
        SHOAL_RETURN_IF_ERROR(EncodeExpr(*x->condition(), m->mutable_condition()));
      return Status::OK();
    }
    if (const auto* x = dynamic_cast<const exec::SortExec*>(&node)) {
      auto* m = out->mutable_sort();
      SHOAL_RETURN_IF_ERROR(EncodeSortKeys(x->keys(), m->mutable_keys()));
      m->set_fetch(x->fetch());
      return Status::OK();
    }
    if (const auto* x = dynamic_cast<const exec::SortPreservingMergeExec*>(&node)) {
      auto* m = out->mutable_sort_preserving_merge();
      SHOAL_RETURN_IF_ERROR(EncodeSortKeys(x->keys(), m->mutable_keys()));
      m->set_fetch(x->fetch());
      return Status::OK();
    }
    if (const auto* x = dynamic_cast<const exec::LimitExec*>(&node)) {
      auto* m = out->mutable_limit();
      m->set_offset(x->offset());
      m->set_fetch(x->fetch());
      m->set_global(x->global());
      return Status::OK();
    }
    if (const auto* x = dynamic_cast<const exec::RepartitionExec*>(&node))
      return EncodePartitioning(x->output_partitioning(),
                                out->mutable_repartition()->mutable_partitioning());
    if (const auto* x = dynamic_cast<const exec::WindowExec*>(&node)) {
      auto* m = out->mutable_window();
      SHOAL_RETURN_IF_ERROR(EncodeExprList(x->functions(), m->mutable_functions()));
      for (const auto& n : x->names())
        m->add_names(n);
      return Status::OK();
    }
    if (const auto* x = dynamic_cast<const exec::ExpandExec*>(&node)) {
      auto* m = out->mutable_expand();
      for (const auto& p : x->projections())
        SHOAL_RETURN_IF_ERROR(EncodeExprList(p, m->add_projections()->mutable_exprs()));
      for (const auto& f : x->schema()->fields())
        m->add_names(f.name);
      for (const auto& r : x->constant_rows())
        SHOAL_RETURN_IF_ERROR(EncodeExprList(r, m->add_constant_rows()->mutable_exprs()));
      return Status::OK();
    }
    if (dynamic_cast<const exec::CoalescePartitionsExec*>(&node) != nullptr) {
      out->set_coalesce_partitions(true);
      return Status::OK();
    }
    if (dynamic_cast<const exec::UnionExec*>(&node) != nullptr) {
      out->set_union_all(true);
      return Status::OK();
    }
    if (const auto* x = dynamic_cast<const shuffle::StageFileExec*>(&node))
      return shuffle::EncodeStageFile(*x, out->mutable_shuffle_stage_file());
    return Status::NotImplemented("plan serialization of {} nodes is not supported", node.name());
  }
};

struct Decoder {
  const PlanDecodeContext& context;

  static constexpr int kMaxDepth = 500;

  Result<exec::ExecPlanPtr> Decode(const proto::PlanNodeProto& in, int depth = 0) {
    if (depth > kMaxDepth)
      return Status::InvalidData("encoded plan: nested deeper than {} nodes", kMaxDepth);
    std::vector<exec::ExecPlanPtr> children;
    for (const auto& c : in.children()) {
      SHOAL_ASSIGN_OR_RETURN(auto child, Decode(c, depth + 1));
      children.push_back(std::move(child));
    }
    auto expect_children = [&](size_t n, const char* what) -> Status {
      if (children.size() != n)
        return Status::InvalidData("encoded plan: {} with {} children (expected {})", what,
                                   children.size(), n);
      return Status::OK();
    };
    ExprDecoder exprs;
    switch (in.node_case()) {
      case proto::PlanNodeProto::kTableScan: {
        SHOAL_RETURN_IF_ERROR(expect_children(0, "TableScan"));
        const auto& m = in.table_scan();
        const TableCodec* codec = context.codecs ? context.codecs->Find(m.codec_id()) : nullptr;
        if (codec == nullptr)
          return Status::InvalidData("encoded plan: table codec '{}' is not listed by the plan",
                                     m.codec_id());
        SHOAL_ASSIGN_OR_RETURN(io::TableProviderPtr table,
                               codec->Decode(m.table(), m.table_name()));
        io::ScanRequest request;
        const int fields = table->schema()->num_fields();
        for (int c : m.projection()) {
          if (c < 0 || c >= fields)
            return Status::InvalidData("encoded plan: scan of {} projects column {} of {}",
                                       m.table_name(), c, fields);
          request.projection.push_back(c);
        }
        for (const auto& p : m.predicates()) {
          io::ColumnPredicate pred;
          if (p.column() < 0 || p.column() >= fields)
            return Status::InvalidData("encoded plan: scan predicate on column {} of {}",
                                       p.column(), fields);
          pred.column = p.column();
          SHOAL_ASSIGN_OR_RETURN(pred.op, CheckedEnum(p.op(), io::PredicateOp::kIn, "predicate"));
          for (const auto& v : p.values()) {
            SHOAL_ASSIGN_OR_RETURN(auto value, DecodeScalar(v));
            pred.values.push_back(std::move(value));
          }
          request.predicates.push_back(std::move(pred));
        }
        request.batch_size = m.batch_size() > 0 ? m.batch_size() : 8192;
        request.limit = m.limit();
        std::vector<std::vector<io::ScanUnit>> groups;
        for (const auto& g : m.groups()) {
          auto& group = groups.emplace_back();
          for (const auto& u : g.units())
            group.push_back({u.description(), u.bytes(), u.rows(), u.payload()});
        }
        SHOAL_ASSIGN_OR_RETURN(
            auto scan, exec::TableScanExec::FromUnitGroups(table, m.table_name(),
                                                           std::move(request), std::move(groups)));
        return exec::ExecPlanPtr(std::move(scan));
      }
      case proto::PlanNodeProto::kWorkUnitFeedScan: {
        SHOAL_RETURN_IF_ERROR(expect_children(0, "WorkUnitFeedScan"));
        const auto& m = in.work_unit_feed_scan();
        proto::PlanNodeProto scratch;
        *scratch.mutable_table_scan() = m.scan();
        scratch.mutable_table_scan()->clear_groups();
        SHOAL_ASSIGN_OR_RETURN(auto decoded, Decode(scratch, depth + 1));
        const auto* scan = dynamic_cast<const exec::TableScanExec*>(decoded.get());
        if (scan == nullptr)
          return Status::Internal("a decoded TableScan is not a TableScanExec");
        if (context.feeds && context.feeds->partitions(m.feed_id()) < 0)
          return Status::InvalidData("encoded plan: work-unit feed '{}' is not declared",
                                     m.feed_id());
        // Without feeds (a round trip, not a task) the node is decoded unbound.
        SHOAL_ASSIGN_OR_RETURN(auto node, WorkUnitFeedScanExec::Make(
                                              *scan, m.feed_id(), m.partitions(), context.feeds));
        return exec::ExecPlanPtr(std::move(node));
      }
      case proto::PlanNodeProto::kValues: {
        SHOAL_RETURN_IF_ERROR(expect_children(0, "Values"));
        SHOAL_ASSIGN_OR_RETURN(auto schema, DecodeSchema(in.values().schema()));
        auto bytes = std::make_shared<const std::string>(in.values().ipc_stream());
        SHOAL_ASSIGN_OR_RETURN(auto read, columnar::ipc::ReadAllFromBytes(bytes));
        if (read.schema->num_fields() != schema->num_fields())
          return Status::InvalidData("encoded plan: Values batches do not match their schema");
        std::vector<columnar::RecordBatchPtr> batches;
        for (auto& b : read.batches)
          batches.push_back(columnar::RecordBatch::Make(schema, b->num_rows(), b->columns()));
        SHOAL_ASSIGN_OR_RETURN(auto node, exec::ValuesExec::Make(schema, std::move(batches)));
        return exec::ExecPlanPtr(std::move(node));
      }
      case proto::PlanNodeProto::kFilter: {
        SHOAL_RETURN_IF_ERROR(expect_children(1, "Filter"));
        SHOAL_ASSIGN_OR_RETURN(auto predicate, exprs.Decode(in.filter().predicate()));
        SHOAL_RETURN_IF_ERROR(exprs.CheckColumns(children[0]->schema()->num_fields(), "Filter"));
        SHOAL_ASSIGN_OR_RETURN(auto node, exec::FilterExec::Make(children[0], predicate));
        return exec::ExecPlanPtr(std::move(node));
      }
      case proto::PlanNodeProto::kProjection: {
        SHOAL_RETURN_IF_ERROR(expect_children(1, "Projection"));
        SHOAL_ASSIGN_OR_RETURN(auto list, exprs.DecodeList(in.projection().exprs()));
        SHOAL_RETURN_IF_ERROR(
            exprs.CheckColumns(children[0]->schema()->num_fields(), "Projection"));
        std::vector<std::string> names(in.projection().names().begin(),
                                       in.projection().names().end());
        if (names.size() != list.size())
          return Status::InvalidData("encoded plan: Projection with {} names for {} expressions",
                                     names.size(), list.size());
        SHOAL_ASSIGN_OR_RETURN(
            auto node, exec::ProjectionExec::Make(children[0], std::move(list), std::move(names)));
        return exec::ExecPlanPtr(std::move(node));
      }
      case proto::PlanNodeProto::kHashAggregate: {
        SHOAL_RETURN_IF_ERROR(expect_children(1, "HashAggregate"));
        const auto& m = in.hash_aggregate();
        SHOAL_ASSIGN_OR_RETURN(auto group_by, exprs.DecodeList(m.group_by()));
        SHOAL_ASSIGN_OR_RETURN(auto aggregates, exprs.DecodeList(m.aggregates()));
        SHOAL_ASSIGN_OR_RETURN(auto mode,
                               CheckedEnum(m.mode(), exec::AggregateMode::kFinal, "mode"));
        // A final aggregate keeps the expressions of its partial (over the original input), so
        // only the other modes read their own input's columns.
        if (mode != exec::AggregateMode::kFinal) {
          SHOAL_RETURN_IF_ERROR(
              exprs.CheckColumns(children[0]->schema()->num_fields(), "HashAggregate"));
        }
        SHOAL_ASSIGN_OR_RETURN(auto schema, DecodeSchema(m.output_schema()));
        SHOAL_ASSIGN_OR_RETURN(auto node,
                               exec::HashAggregateExec::Make(children[0], std::move(group_by),
                                                             std::move(aggregates), mode, schema));
        return exec::ExecPlanPtr(std::move(node));
      }
      case proto::PlanNodeProto::kHashJoin: {
        SHOAL_RETURN_IF_ERROR(expect_children(2, "HashJoin"));
        const auto& m = in.hash_join();
        ExprDecoder left, right;
        SHOAL_ASSIGN_OR_RETURN(auto left_keys, left.DecodeList(m.left_keys()));
        SHOAL_ASSIGN_OR_RETURN(auto right_keys, right.DecodeList(m.right_keys()));
        SHOAL_RETURN_IF_ERROR(left.CheckColumns(children[0]->schema()->num_fields(), "HashJoin"));
        SHOAL_RETURN_IF_ERROR(right.CheckColumns(children[1]->schema()->num_fields(), "HashJoin"));
        sql::ExprPtr residual;
        if (m.has_residual()) {
          SHOAL_ASSIGN_OR_RETURN(residual, exprs.Decode(m.residual()));
          SHOAL_RETURN_IF_ERROR(exprs.CheckColumns(
              children[0]->schema()->num_fields() + children[1]->schema()->num_fields(),
              "HashJoin"));
        }
        SHOAL_ASSIGN_OR_RETURN(auto type,
                               CheckedEnum(m.join_type(), sql::JoinType::kMark, "join type"));
        SHOAL_ASSIGN_OR_RETURN(
            auto mode, CheckedEnum(m.mode(), exec::HashJoinExec::Mode::kPartitioned, "join mode"));
        SHOAL_ASSIGN_OR_RETURN(
            auto node, exec::HashJoinExec::Make(children[0], children[1], std::move(left_keys),
                                                std::move(right_keys), type, residual, mode));
        return exec::ExecPlanPtr(std::move(node));
      }
      case proto::PlanNodeProto::kNestedLoopJoin: {
        SHOAL_RETURN_IF_ERROR(expect_children(2, "NestedLoopJoin"));
        const auto& m = in.nested_loop_join();
        sql::ExprPtr condition;
        if (m.has_condition()) {
          SHOAL_ASSIGN_OR_RETURN(condition, exprs.Decode(m.condition()));
          SHOAL_RETURN_IF_ERROR(exprs.CheckColumns(
              children[0]->schema()->num_fields() + children[1]->schema()->num_fields(),
              "NestedLoopJoin"));
        }
        SHOAL_ASSIGN_OR_RETURN(auto type,
                               CheckedEnum(m.join_type(), sql::JoinType::kMark, "join type"));
        SHOAL_ASSIGN_OR_RETURN(
            auto node, exec::NestedLoopJoinExec::Make(children[0], children[1], type, condition));
        return exec::ExecPlanPtr(std::move(node));
      }
      case proto::PlanNodeProto::kSort:
      case proto::PlanNodeProto::kSortPreservingMerge: {
        const bool merge = in.node_case() == proto::PlanNodeProto::kSortPreservingMerge;
        SHOAL_RETURN_IF_ERROR(expect_children(1, merge ? "SortPreservingMerge" : "Sort"));
        const auto& m = merge ? in.sort_preserving_merge() : in.sort();
        SHOAL_ASSIGN_OR_RETURN(auto keys, exprs.DecodeSortKeys(m.keys()));
        SHOAL_RETURN_IF_ERROR(exprs.CheckColumns(children[0]->schema()->num_fields(), "Sort"));
        if (merge) {
          SHOAL_ASSIGN_OR_RETURN(auto node, exec::SortPreservingMergeExec::Make(
                                                children[0], std::move(keys), m.fetch()));
          return exec::ExecPlanPtr(std::move(node));
        }
        SHOAL_ASSIGN_OR_RETURN(auto node,
                               exec::SortExec::Make(children[0], std::move(keys), m.fetch()));
        return exec::ExecPlanPtr(std::move(node));
      }
      case proto::PlanNodeProto::kLimit: {
        SHOAL_RETURN_IF_ERROR(expect_children(1, "Limit"));
        const auto& m = in.limit();
        SHOAL_ASSIGN_OR_RETURN(
            auto node, exec::LimitExec::Make(children[0], m.offset(), m.fetch(), m.global()));
        return exec::ExecPlanPtr(std::move(node));
      }
      case proto::PlanNodeProto::kRepartition: {
        SHOAL_RETURN_IF_ERROR(expect_children(1, "Repartition"));
        SHOAL_ASSIGN_OR_RETURN(auto partitioning,
                               DecodePartitioning(in.repartition().partitioning()));
        for (const auto& k : partitioning.keys) {
          int64_t max_column = -1;
          sql::VisitExpr(k, [&](const sql::Expr& e) {
            if (e.kind == sql::ExprKind::kColumnRef)
              max_column = std::max<int64_t>(max_column, e.column);
          });
          if (max_column >= children[0]->schema()->num_fields())
            return Status::InvalidData("encoded plan: Repartition key reads column #{}",
                                       max_column);
        }
        SHOAL_ASSIGN_OR_RETURN(auto node, exec::RepartitionExec::Make(children[0], partitioning));
        return exec::ExecPlanPtr(std::move(node));
      }
      case proto::PlanNodeProto::kWindow: {
        SHOAL_RETURN_IF_ERROR(expect_children(1, "Window"));
        SHOAL_ASSIGN_OR_RETURN(auto functions, exprs.DecodeList(in.window().functions()));
        SHOAL_RETURN_IF_ERROR(exprs.CheckColumns(children[0]->schema()->num_fields(), "Window"));
        std::vector<std::string> names(in.window().names().begin(), in.window().names().end());
        if (names.size() != functions.size())
          return Status::InvalidData("encoded plan: Window with {} names for {} functions",
                                     names.size(), functions.size());
        SHOAL_ASSIGN_OR_RETURN(
            auto node, exec::WindowExec::Make(children[0], std::move(functions), std::move(names)));
        return exec::ExecPlanPtr(std::move(node));
      }
      case proto::PlanNodeProto::kExpand: {
        SHOAL_RETURN_IF_ERROR(expect_children(1, "Expand"));
        const auto& m = in.expand();
        std::vector<std::vector<sql::ExprPtr>> projections;
        for (const auto& p : m.projections()) {
          SHOAL_ASSIGN_OR_RETURN(auto list, exprs.DecodeList(p.exprs()));
          projections.push_back(std::move(list));
        }
        SHOAL_RETURN_IF_ERROR(exprs.CheckColumns(children[0]->schema()->num_fields(), "Expand"));
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
      case proto::PlanNodeProto::kCoalescePartitions: {
        SHOAL_RETURN_IF_ERROR(expect_children(1, "CoalescePartitions"));
        return exec::ExecPlanPtr(exec::CoalescePartitionsExec::Make(children[0]));
      }
      case proto::PlanNodeProto::kUnionAll: {
        if (children.empty())
          return Status::InvalidData("encoded plan: Union without inputs");
        SHOAL_ASSIGN_OR_RETURN(auto node, exec::UnionExec::Make(std::move(children)));
        return exec::ExecPlanPtr(std::move(node));
      }
      case proto::PlanNodeProto::kNetworkExchange: {
        SHOAL_RETURN_IF_ERROR(expect_children(0, "NetworkExchange"));
        if (!context.channels)
          return Status::InvalidArgument(
              "encoded plan: a network exchange where no worker channels are available");
        const auto& m = in.network_exchange();
        ExchangeSpec spec;
        SHOAL_ASSIGN_OR_RETURN(spec.kind,
                               CheckedEnum(m.kind(), ExchangeKind::kBroadcast, "exchange kind"));
        SHOAL_ASSIGN_OR_RETURN(spec.schema, DecodeSchema(m.schema()));
        spec.query_id = m.query_id();
        spec.stage_id = m.stage_id();
        spec.producer_workers.assign(m.producer_workers().begin(), m.producer_workers().end());
        if (spec.producer_workers.empty())
          return Status::InvalidData("encoded plan: network exchange without producer tasks");
        spec.producer_partitions = m.producer_partitions();
        if (spec.kind == ExchangeKind::kShuffle) {
          SHOAL_ASSIGN_OR_RETURN(spec.partitioning, DecodePartitioning(m.partitioning()));
        }
        spec.partition_start = m.partition_start();
        spec.partition_end = m.partition_end();
        SHOAL_ASSIGN_OR_RETURN(auto node,
                               NetworkExchangeExec::Make(std::move(spec), context.channels));
        return exec::ExecPlanPtr(std::move(node));
      }
      case proto::PlanNodeProto::kShuffleStageFile: {
        SHOAL_RETURN_IF_ERROR(expect_children(1, "ShuffleStage"));
        return shuffle::DecodeStageFile(in.shuffle_stage_file(), children[0]);
      }
      case proto::PlanNodeProto::NODE_NOT_SET: break;
    }
    return Status::InvalidData("encoded plan: a node of unknown kind {}",
                               static_cast<int>(in.node_case()));
  }
};

}  // namespace

void EncodeSchema(const columnar::Schema& schema, proto::SchemaProto* out) {
  for (const auto& f : schema.fields()) {
    auto* field = out->add_fields();
    field->set_name(f.name);
    EncodeType(f.type, field->mutable_type());
    field->set_nullable(f.nullable);
    for (const auto& [k, v] : f.metadata) {
      field->add_metadata_keys(k);
      field->add_metadata_values(v);
    }
  }
}

Result<columnar::SchemaPtr> DecodeSchema(const proto::SchemaProto& in) {
  std::vector<columnar::Field> fields;
  for (const auto& f : in.fields()) {
    SHOAL_ASSIGN_OR_RETURN(DataType type, DecodeType(f.type()));
    if (f.metadata_keys_size() != f.metadata_values_size())
      return Status::InvalidData("encoded schema: field '{}' has unpaired metadata", f.name());
    columnar::KeyValueMetadata metadata;
    for (int i = 0; i < f.metadata_keys_size(); ++i)
      metadata.emplace_back(f.metadata_keys(i), f.metadata_values(i));
    fields.emplace_back(f.name(), std::move(type), f.nullable(), std::move(metadata));
  }
  return std::make_shared<columnar::Schema>(std::move(fields));
}

Status EncodePartitioning(const exec::Partitioning& partitioning, proto::PartitioningProto* out) {
  out->set_kind(static_cast<uint32_t>(partitioning.kind));
  out->set_num_partitions(partitioning.num_partitions);
  return EncodeExprList(partitioning.keys, out->mutable_keys());
}

Result<exec::Partitioning> DecodePartitioning(const proto::PartitioningProto& in) {
  exec::Partitioning p;
  SHOAL_ASSIGN_OR_RETURN(
      p.kind, CheckedEnum(in.kind(), exec::PartitioningKind::kHash, "partitioning kind"));
  if (in.num_partitions() < 1)
    return Status::InvalidData("encoded plan: partitioning into {} partitions",
                               in.num_partitions());
  p.num_partitions = in.num_partitions();
  ExprDecoder exprs;
  SHOAL_ASSIGN_OR_RETURN(p.keys, exprs.DecodeList(in.keys()));
  return p;
}

void EncodeStatus(const Status& status, proto::StatusProto* out) {
  out->set_code(static_cast<uint32_t>(status.code()));
  out->set_message(status.UserMessage());
  out->set_sqlstate(status.sqlstate());
  out->set_hint(status.hint());
}

Status DecodeStatus(const proto::StatusProto& in) {
  if (in.code() == 0)
    return Status::OK();
  StatusCode code = in.code() > static_cast<uint32_t>(StatusCode::kInternal)
                        ? StatusCode::kInternal
                        : static_cast<StatusCode>(in.code());
  Status status(code, in.message());
  if (!in.sqlstate().empty() && in.sqlstate() != status.sqlstate())
    status = std::move(status).WithSqlState(in.sqlstate());
  if (!in.hint().empty())
    status = std::move(status).WithHint(in.hint());
  return status;
}

Result<std::string> EncodePlan(const exec::ExecPlanPtr& plan, const TableCodecRegistry& codecs) {
  proto::EncodedPlan encoded;
  Encoder encoder{codecs, {}};
  SHOAL_RETURN_IF_ERROR(encoder.Encode(*plan, encoded.mutable_root()));
  for (const auto& id : encoder.codec_ids)
    encoded.add_codec_ids(id);
  std::string bytes;
  if (!encoded.SerializeToString(&bytes))
    return Status::Internal("could not serialise an encoded plan");
  return bytes;
}

Result<exec::ExecPlanPtr> DecodePlan(const std::string& bytes, const PlanDecodeContext& context) {
  proto::EncodedPlan encoded;
  if (!encoded.ParseFromString(bytes))
    return Status::InvalidData("encoded plan: not a valid protobuf message ({} bytes)",
                               bytes.size());
  return DecodePlan(encoded, context);
}

Result<exec::ExecPlanPtr> DecodePlan(const proto::EncodedPlan& encoded,
                                     const PlanDecodeContext& context) {
  std::vector<std::string> missing;
  for (const auto& id : encoded.codec_ids()) {
    if (!context.codecs || context.codecs->Find(id) == nullptr)
      missing.push_back(id);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& id : missing)
      list += (list.empty() ? "" : ", ") + id;
    std::string known;
    if (context.codecs) {
      for (const auto& id : context.codecs->ids())
        known += (known.empty() ? "" : ", ") + id;
    }
    return Status::NotImplemented("the plan needs codec ids this worker does not have: {}", list)
        .WithHint(fmt::format("this worker has: {}; run workers built with the same extensions",
                              known.empty() ? "none" : known));
  }
  if (!encoded.has_root())
    return Status::InvalidData("encoded plan: no root node");
  Decoder decoder{context};
  return decoder.Decode(encoded.root());
}

}  // namespace shoal::distributed
