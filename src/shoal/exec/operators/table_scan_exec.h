// TableScanExec: reads a table through its io::TableProvider. The scan is planned when the node
// is made (pruning happens then), and the resulting scan units are split into contiguous groups,
// one per output partition, so a partition reads its units in table order.
#pragma once

#include <cstdint>

#include "shoal/exec/execution_plan.h"
#include "shoal/io/table_provider.h"

namespace shoal::exec {

/// The part of EXPLAIN's line every scan shares: ", columns=[...]" and the request's pruning
/// predicates, filter and limit (table scans and the distributed layer's feed scans). With the
/// table's schema, a struct column read in part shows its fields ("s.{a,b.c}").
std::string DescribeScanRequest(const columnar::Schema& schema, const io::ScanRequest& request,
                                const columnar::Schema* table_schema = nullptr);

class TableScanExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kTableScan;

  /// Plans the scan; `target_partitions` is an upper bound (never more partitions than units, at
  /// least one).
  static Result<std::shared_ptr<TableScanExec>> Make(io::TableProviderPtr table,
                                                     std::string table_name,
                                                     io::ScanRequest request,
                                                     int target_partitions);

  std::string_view name() const override { return "TableScan"; }

  std::vector<ExecPlanPtr> children() const override { return {}; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;
  Partitioning output_partitioning() const override;
  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;
  DistributionTraits distribution() const override {
    return {.partition_wise = true, .reads_outside_plan = true};
  }

  const std::vector<std::vector<io::ScanUnit>>& unit_groups() const { return groups_; }

  /// The bytes of the files its units read (what progress counts, and what makes a scan costly).
  int64_t unit_bytes() const {
    int64_t bytes = 0;
    for (const auto& group : groups_)
      for (const io::ScanUnit& unit : group)
        bytes += unit.bytes;
    return bytes;
  }

  /// A scan of units already planned (one group per output partition, at least one group): the
  /// distributed layer hands each task its share of a leaf's units and rebuilds scans from plans.
  static Result<std::shared_ptr<TableScanExec>> FromUnitGroups(
      io::TableProviderPtr table, std::string table_name, io::ScanRequest request,
      std::vector<std::vector<io::ScanUnit>> groups);

  const io::TableProviderPtr& table() const { return table_; }

  const std::string& table_name() const { return table_name_; }

  const io::ScanRequest& request() const { return request_; }

 private:
  TableScanExec(columnar::SchemaPtr schema, io::TableProviderPtr table, std::string table_name,
                io::ScanRequest request, std::vector<std::vector<io::ScanUnit>> groups);

  io::TableProviderPtr table_;
  std::string table_name_;
  io::ScanRequest request_;
  std::vector<std::vector<io::ScanUnit>> groups_;
};

}  // namespace shoal::exec
