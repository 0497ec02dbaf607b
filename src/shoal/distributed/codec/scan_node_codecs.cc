// Node codecs of the leaves that produce rows: table scans (their table through a TableCodec, the
// task's scan units and the filter folded into the scan), work-unit feed scans (a table scan
// without units) and VALUES (one Arrow IPC stream).
#include <utility>
#include <vector>

#include "shoal/columnar/ipc/reader.h"
#include "shoal/columnar/ipc/writer.h"
#include "shoal/distributed/codec/expr_codec.h"
#include "shoal/distributed/codec/node_codec.h"
#include "shoal/distributed/codec/node_codec_families_internal.h"
#include "shoal/distributed/codec/type_codec.h"
#include "shoal/distributed/feeds/work_unit_feed_scan_exec.h"
#include "shoal/exec/operators/scan_filter_expr.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/operators/values_exec.h"

namespace shoal::distributed::internal {

namespace {

Status EncodeTableScan(const exec::ExecutionPlan& node, NodeEncoder& encoder,
                       proto::PlanNodeProto* out) {
  const auto& x = node.As<exec::TableScanExec>();
  auto* m = out->mutable_table_scan();
  SHOAL_ASSIGN_OR_RETURN(const TableCodec* codec,
                         encoder.tables().ForTable(*x.table(), x.table_name()));
  SHOAL_ASSIGN_OR_RETURN(std::string payload, codec->Encode(*x.table(), x.table_name()));
  encoder.UseTableCodec(codec->id());
  m->set_table_name(x.table_name());
  m->set_codec_id(codec->id());
  m->set_table(std::move(payload));
  const io::ScanRequest& r = x.request();
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
  for (const auto& t : r.runtime_filters) {
    auto* rf = m->add_runtime_filters();
    rf->set_id(t.id);
    rf->set_column(t.column);
  }
  for (const auto& paths : r.field_paths) {
    auto* list = m->add_field_paths();
    for (const auto& path : paths) {
      auto* pp = list->add_paths();
      for (int step : path)
        pp->add_steps(step);
    }
  }
  SHOAL_ASSIGN_OR_RETURN(sql::ExprPtr filter, exec::ScanFilterExpression(r));
  if (filter != nullptr)
    SHOAL_RETURN_IF_ERROR(EncodeExpr(*filter, m->mutable_filter()));
  for (const auto& group : x.unit_groups()) {
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

Result<exec::ExecPlanPtr> DecodeTableScan(const proto::PlanNodeProto& in,
                                          std::vector<exec::ExecPlanPtr>&& children,
                                          NodeDecoder& decoder) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 0, "TableScan"));
  const auto& m = in.table_scan();
  const PlanDecodeContext& context = decoder.context();
  const TableCodec* codec = context.codecs ? context.codecs->Find(m.codec_id()) : nullptr;
  if (codec == nullptr)
    return Status::InvalidData("encoded plan: table codec '{}' is not listed by the plan",
                               m.codec_id());
  SHOAL_ASSIGN_OR_RETURN(io::TableProviderPtr table, codec->Decode(m.table(), m.table_name()));
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
      return Status::InvalidData("encoded plan: scan predicate on column {} of {}", p.column(),
                                 fields);
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
  for (const auto& rf : m.runtime_filters()) {
    if (rf.column() < 0 || rf.column() >= fields)
      return Status::InvalidData("encoded plan: scan runtime filter on column {} of {}",
                                 rf.column(), fields);
    request.runtime_filters.push_back({rf.id(), rf.column()});
  }
  if (m.field_paths_size() > 0 &&
      static_cast<size_t>(m.field_paths_size()) != request.projection.size())
    return Status::InvalidData("encoded plan: scan of {} has {} field path lists for {} columns",
                               m.table_name(), m.field_paths_size(), request.projection.size());
  if (m.field_paths_size() > 0 && !table->ReadsStructFieldsAlone())
    return Status::InvalidData("encoded plan: scan of {} names struct fields of a {} table",
                               m.table_name(), table->kind());
  for (int i = 0; i < m.field_paths_size(); ++i) {
    std::vector<io::FieldPath> paths;
    for (const auto& p : m.field_paths(i).paths())
      paths.emplace_back(p.steps().begin(), p.steps().end());
    const auto& column = table->schema()->field(request.projection[static_cast<size_t>(i)]);
    Result<columnar::DataType> pruned = io::SelectStructFields(column.type, paths);
    if (!pruned.ok())
      return Status::InvalidData("encoded plan: scan of {} column {}: {}", m.table_name(),
                                 column.name, pruned.status().message());
    request.field_paths.push_back(std::move(paths));
  }
  if (m.has_filter()) {
    ExprDecoder exprs;
    SHOAL_ASSIGN_OR_RETURN(sql::ExprPtr filter, exprs.Decode(m.filter()));
    SHOAL_RETURN_IF_ERROR(
        exprs.CheckColumns(static_cast<int64_t>(request.projection.size()), "TableScan filter"));
    request.filter = std::make_shared<exec::ScanFilterExpr>(std::move(filter));
  }
  std::vector<std::vector<io::ScanUnit>> groups;
  for (const auto& g : m.groups()) {
    auto& group = groups.emplace_back();
    for (const auto& u : g.units())
      group.push_back({u.description(), u.bytes(), u.rows(), u.payload()});
  }
  SHOAL_ASSIGN_OR_RETURN(
      auto scan, exec::TableScanExec::FromUnitGroups(table, m.table_name(), std::move(request),
                                                     std::move(groups)));
  return exec::ExecPlanPtr(std::move(scan));
}

// The table part of a feed scan is a TableScan's without units (they arrive on the feed).
Status EncodeWorkUnitFeedScan(const exec::ExecutionPlan& node, NodeEncoder& encoder,
                              proto::PlanNodeProto* out) {
  const auto& x = node.As<WorkUnitFeedScanExec>();
  SHOAL_ASSIGN_OR_RETURN(
      auto scan, exec::TableScanExec::FromUnitGroups(x.table(), x.table_name(), x.request(), {}));
  proto::PlanNodeProto scratch;
  SHOAL_RETURN_IF_ERROR(encoder.Encode(*scan, &scratch));
  auto* m = out->mutable_work_unit_feed_scan();
  m->set_feed_id(x.feed_id());
  m->set_partitions(x.partitions());
  m->mutable_scan()->Swap(scratch.mutable_table_scan());
  m->mutable_scan()->clear_groups();
  return Status::OK();
}

Result<exec::ExecPlanPtr> DecodeWorkUnitFeedScan(const proto::PlanNodeProto& in,
                                                 std::vector<exec::ExecPlanPtr>&& children,
                                                 NodeDecoder& decoder) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 0, "WorkUnitFeedScan"));
  const auto& m = in.work_unit_feed_scan();
  proto::PlanNodeProto scratch;
  *scratch.mutable_table_scan() = m.scan();
  scratch.mutable_table_scan()->clear_groups();
  SHOAL_ASSIGN_OR_RETURN(auto decoded, DecodeTableScan(scratch, {}, decoder));
  const auto* scan = decoded->TryAs<exec::TableScanExec>();
  if (scan == nullptr)
    return Status::Internal("a decoded TableScan is not a TableScanExec");
  const PlanDecodeContext& context = decoder.context();
  if (context.feeds && context.feeds->partitions(m.feed_id()) < 0)
    return Status::InvalidData("encoded plan: work-unit feed '{}' is not declared", m.feed_id());
  // Without feeds (a round trip, not a task) the node is decoded unbound.
  SHOAL_ASSIGN_OR_RETURN(
      auto node, WorkUnitFeedScanExec::Make(*scan, m.feed_id(), m.partitions(), context.feeds));
  return exec::ExecPlanPtr(std::move(node));
}

Status EncodeValues(const exec::ExecutionPlan& node, NodeEncoder&, proto::PlanNodeProto* out) {
  const auto& x = node.As<exec::ValuesExec>();
  auto* m = out->mutable_values();
  EncodeSchema(*x.schema(), m->mutable_schema());
  columnar::ipc::BufferSink sink;
  SHOAL_ASSIGN_OR_RETURN(auto writer, columnar::ipc::MakeStreamWriter(&sink, x.schema()));
  for (const auto& b : x.batches())
    SHOAL_RETURN_IF_ERROR(writer->WriteBatch(*b));
  SHOAL_RETURN_IF_ERROR(writer->Close());
  m->set_ipc_stream(sink.TakeBytes());
  return Status::OK();
}

Result<exec::ExecPlanPtr> DecodeValues(const proto::PlanNodeProto& in,
                                       std::vector<exec::ExecPlanPtr>&& children, NodeDecoder&) {
  SHOAL_RETURN_IF_ERROR(ExpectChildren(children, 0, "Values"));
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

}  // namespace

void AddScanNodeCodecs(NodeCodecRegistry* registry) {
  registry->Add({exec::PlanKind::kTableScan, proto::PlanNodeProto::kTableScan, false,
                 EncodeTableScan, DecodeTableScan});
  registry->Add({exec::PlanKind::kWorkUnitFeedScan, proto::PlanNodeProto::kWorkUnitFeedScan, false,
                 EncodeWorkUnitFeedScan, DecodeWorkUnitFeedScan});
  registry->Add(
      {exec::PlanKind::kValues, proto::PlanNodeProto::kValues, false, EncodeValues, DecodeValues});
}

}  // namespace shoal::distributed::internal
