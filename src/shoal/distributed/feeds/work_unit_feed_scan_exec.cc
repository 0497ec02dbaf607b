#include "shoal/distributed/feeds/work_unit_feed_scan_exec.h"

#include <utility>

#include <fmt/format.h>

#include "shoal/distributed/proto/distributed.pb.h"
#include "shoal/exec/operators/scan_unit_stream.h"
#include "shoal/exec/task_context.h"

namespace shoal::distributed {

namespace {

// The units of one partition of a work-unit feed, as the feed hands them out.
class FeedUnitSource final : public exec::ScanUnitSource {
 public:
  FeedUnitSource(std::string feed_id, WorkUnitFeedsPtr feeds)
      : feed_id_(std::move(feed_id)), feeds_(std::move(feeds)) {}

  Result<std::optional<io::ScanUnit>> Next(const exec::ScanUnitStreamEnv& env) override {
    SHOAL_ASSIGN_OR_RETURN(std::optional<std::string> body,
                           feeds_->Next(feed_id_, env.partition, env.context));
    if (!body.has_value())
      return std::optional<io::ScanUnit>();
    Result<io::ScanUnit> unit = DecodeScanUnitBody(*body);
    if (!unit.ok()) {
      return std::move(unit).status().WithContext(
          Label(fmt::format("a {}-byte unit", body->size()), env));
    }
    env.metrics->AddExtra("work_units", 1);
    return std::optional<io::ScanUnit>(std::move(unit).MoveValueUnsafe());
  }

  std::string OpenErrorContext(const io::ScanUnit& unit,
                               const exec::ScanUnitStreamEnv& env) const override {
    return Label(unit.description, env);
  }

  std::string ReadErrorContext(const io::ScanUnit& unit,
                               const exec::ScanUnitStreamEnv& env) const override {
    return Label(unit.description, env);
  }

 private:
  std::string Label(const std::string& unit, const exec::ScanUnitStreamEnv& env) const {
    return fmt::format("scanning {} from partition {} of work-unit feed '{}'", unit, env.partition,
                       feed_id_);
  }

  std::string feed_id_;
  WorkUnitFeedsPtr feeds_;
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
    : ExecutionPlan(kKind, std::move(schema)),
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
  return exec::StreamPtr(
      new exec::ScanUnitStream(this, partition, context, table_, request_,
                               std::make_unique<FeedUnitSource>(feed_id_, feeds_)));
}

std::string WorkUnitFeedScanExec::Describe(bool) const {
  std::string out = fmt::format("{} ({}), feed={}, partitions={}", table_name_, table_->kind(),
                                feed_id_, partitions_);
  out += exec::DescribeScanRequest(*schema(), request_, table_->schema().get());
  return out;
}

}  // namespace shoal::distributed
