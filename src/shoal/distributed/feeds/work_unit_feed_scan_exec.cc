#include "shoal/distributed/feeds/work_unit_feed_scan_exec.h"

#include <utility>

#include <fmt/format.h>

#include "shoal/distributed/proto/distributed.pb.h"
#include "shoal/exec/operator_stream.h"
#include "shoal/exec/task_context.h"

namespace shoal::distributed {

namespace {

class FeedScanStream final : public exec::OperatorStream {
 public:
  FeedScanStream(const WorkUnitFeedScanExec* node, int partition,
                 std::shared_ptr<exec::TaskContext> context, WorkUnitFeedsPtr feeds)
      : OperatorStream(node, partition, std::move(context)),
        table_(node->table()),
        request_(node->request()),
        feed_id_(node->feed_id()),
        feeds_(std::move(feeds)) {
    request_.batch_size = this->context()->batch_size();
    scan_context_.pool = pool();
    exec::OperatorMetrics* m = metrics();
    scan_context_.add_metric = [m](const std::string& name, int64_t value) {
      m->AddExtra(name, value);
    };
  }

 protected:
  Result<columnar::RecordBatchPtr> NextImpl() override {
    for (;;) {
      if (request_.limit >= 0 && produced_ >= request_.limit)
        return columnar::RecordBatchPtr();
      if (!reader_) {
        Result<std::optional<std::string>> body =
            feeds_->Next(feed_id_, partition(), context().get());
        if (!body.ok())
          return std::move(body).status();
        if (!body->has_value())
          return columnar::RecordBatchPtr();
        SHOAL_RETURN_IF_ERROR(Open(**body));
        metrics()->AddExtra("work_units", 1);
      }
      Result<columnar::RecordBatchPtr> batch = reader_->Next();
      if (!batch.ok())
        return std::move(batch).status().WithContext(UnitLabel());
      if (!*batch) {
        reader_.reset();
        continue;
      }
      if ((*batch)->num_rows() == 0)
        continue;
      produced_ += (*batch)->num_rows();
      return std::move(batch).MoveValueUnsafe();
    }
  }

 private:
  Status Open(const std::string& body) {
    Result<io::ScanUnit> unit = DecodeScanUnitBody(body);
    if (!unit.ok()) {
      unit_description_ = fmt::format("a {}-byte unit", body.size());
      return std::move(unit).status().WithContext(UnitLabel());
    }
    unit_description_ = unit->description;
    Result<columnar::RecordBatchReaderPtr> opened =
        table_->OpenUnit(*unit, request_, scan_context_);
    if (!opened.ok())
      return std::move(opened).status().WithContext(UnitLabel());
    reader_ = std::move(opened).MoveValueUnsafe();
    return Status::OK();
  }

  std::string UnitLabel() const {
    return fmt::format("scanning {} from partition {} of work-unit feed '{}'", unit_description_,
                       partition(), feed_id_);
  }

  io::TableProviderPtr table_;
  io::ScanRequest request_;
  std::string feed_id_;
  WorkUnitFeedsPtr feeds_;
  io::ScanContext scan_context_;
  std::string unit_description_;
  int64_t produced_ = 0;
  columnar::RecordBatchReaderPtr reader_;
};

}  // namespace

std::string EncodeScanUnitBody(const io::ScanUnit& unit) {
  proto::ScanUnitProto m;
  m.set_description(unit.description);
  m.set_bytes(unit.bytes);
  m.set_rows(unit.rows);
  m.set_payload(unit.payload);
  return m.SerializeAsString();
}

Result<io::ScanUnit> DecodeScanUnitBody(const std::string& body) {
  proto::ScanUnitProto m;
  if (!m.ParseFromString(body))
    return Status::InvalidData("the work unit is not a scan unit");
  return io::ScanUnit{m.description(), m.bytes(), m.rows(), m.payload()};
}

WorkUnitFeedScanExec::WorkUnitFeedScanExec(columnar::SchemaPtr schema, io::TableProviderPtr table,
                                           std::string table_name, io::ScanRequest request,
                                           std::string feed_id, int partitions,
                                           WorkUnitFeedsPtr feeds)
    : ExecutionPlan(std::move(schema)),
      table_(std::move(table)),
      table_name_(std::move(table_name)),
      request_(std::move(request)),
      feed_id_(std::move(feed_id)),
      partitions_(partitions),
      feeds_(std::move(feeds)) {}

Result<std::shared_ptr<WorkUnitFeedScanExec>> WorkUnitFeedScanExec::Make(
    const exec::TableScanExec& scan, std::string feed_id, int partitions, WorkUnitFeedsPtr feeds) {
  if (partitions < 1)
    return Status::InvalidArgument("work-unit feed '{}' needs at least one partition, not {}",
                                   feed_id, partitions);
  if (feeds && feeds->partitions(feed_id) != partitions)
    return Status::InvalidData(
        "the plan's work-unit feed '{}' has {} partitions and the task declares {}", feed_id,
        partitions, feeds->partitions(feed_id));
  return std::shared_ptr<WorkUnitFeedScanExec>(
      new WorkUnitFeedScanExec(scan.schema(), scan.table(), scan.table_name(), scan.request(),
                               std::move(feed_id), partitions, std::move(feeds)));
}

Result<exec::ExecPlanPtr> WorkUnitFeedScanExec::WithNewChildren(
    std::vector<exec::ExecPlanPtr> children) const {
  if (!children.empty())
    return Status::Internal("WorkUnitFeedScan has no children");
  return shared_from_this();
}

exec::Partitioning WorkUnitFeedScanExec::output_partitioning() const {
  if (partitions_ == 1)
    return exec::Partitioning::Single();
  return exec::Partitioning::Unknown(partitions_);
}

Result<exec::StreamPtr> WorkUnitFeedScanExec::Execute(
    int partition, const std::shared_ptr<exec::TaskContext>& context) const {
  if (partition < 0 || partition >= partitions_)
    return Status::Internal("WorkUnitFeedScan partition {} of {}", partition, partitions_);
  if (!feeds_)
    return Status::Internal("work-unit feed '{}' is not connected to a task's feeds", feed_id_);
  return exec::StreamPtr(new FeedScanStream(this, partition, context, feeds_));
}

std::string WorkUnitFeedScanExec::Describe(bool) const {
  std::string out = fmt::format("{} ({}), feed={}, partitions={}", table_name_, table_->kind(),
                                feed_id_, partitions_);
  std::string columns;
  for (int i = 0; i < schema()->num_fields(); ++i)
    columns += (i > 0 ? ", " : "") + schema()->field(i).name;
  out += ", columns=[" + columns + "]";
  if (!request_.predicates.empty())
    out += fmt::format(", pruning_predicates={}", request_.predicates.size());
  if (request_.limit >= 0)
    out += fmt::format(", limit={}", request_.limit);
  return out;
}

}  // namespace shoal::distributed
