// WorkUnitFeedScanExec: a table scan whose scan units arrive at run time on a work-unit feed
// (work_unit_feed.h) instead of inside the plan. With `dist_work_unit_feeds` on, the coordinator
// turns each leaf task's TableScan into one of these (work_unit_feed_dispatch.h) and streams the
// scan's units to the tasks' partitions over their coordinator channels; each partition reads its
// units one at a time, in arrival order, as they come.
//
// On a worker the node is bound to its task's WorkUnitFeeds when the plan is decoded; an unbound
// node (the coordinator's copy, shown by EXPLAIN) cannot execute. A unit body is a serialised
// proto::ScanUnitProto; a body that is not one, or a unit the table cannot read, fails the
// partition with an error naming the feed, the partition and the unit.
#pragma once

#include <memory>
#include <string>

#include "shoal/distributed/feeds/work_unit_feed.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/io/table_provider.h"

namespace shoal::distributed {

class WorkUnitFeedScanExec final : public exec::ExecutionPlan {
 public:
  static constexpr exec::PlanKind kKind = exec::PlanKind::kWorkUnitFeedScan;

  /// The scan of `scan`'s table, projection, predicates and limit, fed through feed `feed_id` of
  /// `partitions` partitions. `feeds` may be null (not executable).
  static Result<std::shared_ptr<WorkUnitFeedScanExec>> Make(const exec::TableScanExec& scan,
                                                            std::string feed_id, int partitions,
                                                            WorkUnitFeedsPtr feeds);

  std::string_view name() const override { return "WorkUnitFeedScan"; }

  std::vector<exec::ExecPlanPtr> children() const override { return {}; }

  Result<exec::ExecPlanPtr> WithNewChildren(std::vector<exec::ExecPlanPtr> children) const override;
  exec::Partitioning output_partitioning() const override;
  Result<exec::StreamPtr> Execute(int partition,
                                  const std::shared_ptr<exec::TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;
  exec::DistributionTraits distribution() const override {
    return {.partition_wise = true, .reads_outside_plan = true};
  }

  const io::TableProviderPtr& table() const { return table_; }

  const std::string& table_name() const { return table_name_; }

  const io::ScanRequest& request() const { return request_; }

  const std::string& feed_id() const { return feed_id_; }

  int partitions() const { return partitions_; }

 private:
  WorkUnitFeedScanExec(columnar::SchemaPtr schema, io::TableProviderPtr table,
                       std::string table_name, io::ScanRequest request, std::string feed_id,
                       int partitions, WorkUnitFeedsPtr feeds);

  io::TableProviderPtr table_;
  std::string table_name_;
  io::ScanRequest request_;
  std::string feed_id_;
  int partitions_;
  WorkUnitFeedsPtr feeds_;
};

/// A scan unit as a feed's unit body (a serialised proto::ScanUnitProto), and back.
std::string EncodeScanUnitBody(const io::ScanUnit& unit);
Result<io::ScanUnit> DecodeScanUnitBody(const std::string& body);

}  // namespace shoal::distributed
