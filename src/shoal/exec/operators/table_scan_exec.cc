#include "shoal/exec/operators/table_scan_exec.h"

#include <algorithm>
#include <memory>

#include "shoal/exec/operators/scan_unit_stream.h"
#include "shoal/io/file_listing.h"
#include "shoal/io/memory_table.h"

namespace shoal::exec {

std::string DescribeScanRequest(const columnar::Schema& schema, const io::ScanRequest& request,
                                const columnar::Schema* table_schema) {
  std::string columns;
  for (int i = 0; i < schema.num_fields(); ++i) {
    columns += (i > 0 ? ", " : "") + schema.field(i).name;
    // A struct read in part: "s.{a,b.c}".
    const auto at = static_cast<size_t>(i);
    if (table_schema != nullptr && at < request.field_paths.size() &&
        at < request.projection.size() && request.projection[at] >= 0 &&
        request.projection[at] < table_schema->num_fields())
      columns += io::FormatFieldPaths(table_schema->field(request.projection[at]).type,
                                      request.field_paths[at]);
  }
  std::string out = ", columns=[" + columns + "]";
  if (!request.predicates.empty())
    out += fmt::format(", pruning_predicates={}", request.predicates.size());
  if (request.filter != nullptr)
    out += ", filter=" + request.filter->ToString();
  if (request.limit >= 0)
    out += fmt::format(", limit={}", request.limit);
  if (!request.runtime_filters.empty()) {
    out += ", runtime_filters=[";
    for (size_t i = 0; i < request.runtime_filters.size(); ++i) {
      const io::RuntimeFilterTarget& t = request.runtime_filters[i];
      auto it = std::find(request.projection.begin(), request.projection.end(), t.column);
      const std::string column =
          it == request.projection.end()
              ? fmt::format("#{}", t.column)
              : schema.field(static_cast<int>(it - request.projection.begin())).name;
      out += fmt::format("{}rf{} on {}", i > 0 ? ", " : "", t.id, column);
    }
    out += "]";
  }
  return out;
}

namespace {

// The scan's output schema; field paths only for providers that read fields alone.
Result<columnar::SchemaPtr> ProjectScanSchema(const io::TableProvider& table,
                                              const io::ScanRequest& request) {
  if (!request.field_paths.empty() && !table.ReadsStructFieldsAlone())
    return Status::InvalidArgument("{} tables read struct columns whole (a scan names fields)",
                                   table.kind());
  return io::ProjectSchema(*table.schema(), request);
}

}  // namespace

TableScanExec::TableScanExec(columnar::SchemaPtr schema, io::TableProviderPtr table,
                             std::string table_name, io::ScanRequest request,
                             std::vector<std::vector<io::ScanUnit>> groups)
    : ExecutionPlan(kKind, std::move(schema)),
      table_(std::move(table)),
      table_name_(std::move(table_name)),
      request_(std::move(request)),
      groups_(std::move(groups)) {}

Result<std::shared_ptr<TableScanExec>> TableScanExec::Make(io::TableProviderPtr table,
                                                           std::string table_name,
                                                           io::ScanRequest request,
                                                           int target_partitions) {
  SHOAL_ASSIGN_OR_RETURN(columnar::SchemaPtr schema, ProjectScanSchema(*table, request));
  SHOAL_ASSIGN_OR_RETURN(std::vector<io::ScanUnit> units, table->PlanScan(request));
  const size_t n = std::max<size_t>(
      1, std::min(units.size(), static_cast<size_t>(std::max(1, target_partitions))));
  std::vector<std::vector<io::ScanUnit>> groups(n);
  // Contiguous groups balanced by bytes (rows when sizes are unknown).
  int64_t total = 0;
  for (const auto& u : units)
    total += std::max<int64_t>(1, u.bytes);
  int64_t acc = 0;
  for (auto& u : units) {
    size_t g =
        std::min(n - 1, static_cast<size_t>(static_cast<double>(acc) * static_cast<double>(n) /
                                            static_cast<double>(std::max<int64_t>(1, total))));
    acc += std::max<int64_t>(1, u.bytes);
    groups[g].push_back(std::move(u));
  }
  return std::shared_ptr<TableScanExec>(new TableScanExec(std::move(schema), std::move(table),
                                                          std::move(table_name), std::move(request),
                                                          std::move(groups)));
}

Result<std::shared_ptr<TableScanExec>> TableScanExec::FromUnitGroups(
    io::TableProviderPtr table, std::string table_name, io::ScanRequest request,
    std::vector<std::vector<io::ScanUnit>> groups) {
  SHOAL_ASSIGN_OR_RETURN(columnar::SchemaPtr schema, ProjectScanSchema(*table, request));
  if (groups.empty())
    groups.emplace_back();
  return std::shared_ptr<TableScanExec>(new TableScanExec(std::move(schema), std::move(table),
                                                          std::move(table_name), std::move(request),
                                                          std::move(groups)));
}

Result<ExecPlanPtr> TableScanExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (!children.empty())
    return Status::Internal("TableScan has no children");
  return shared_from_this();
}

Partitioning TableScanExec::output_partitioning() const {
  if (groups_.size() == 1)
    return Partitioning::Single();
  return Partitioning::Unknown(static_cast<int>(groups_.size()));
}

Result<StreamPtr> TableScanExec::Execute(int partition,
                                         const std::shared_ptr<TaskContext>& context) const {
  if (partition < 0 || static_cast<size_t>(partition) >= groups_.size())
    return Status::Internal("TableScan partition {} of {}", partition, groups_.size());
  return StreamPtr(new ScanUnitStream(
      this, partition, context, table_, request_,
      std::make_unique<ListUnitSource>(groups_[static_cast<size_t>(partition)])));
}

std::string TableScanExec::Describe(bool verbose) const {
  size_t units = 0;
  for (const auto& g : groups_)
    units += g.size();
  std::string out = fmt::format("{} ({}), units={}", table_name_, table_->kind(), units);
  out += DescribeScanRequest(*schema(), request_, table_->schema().get());
  // Which files the table reads: a directory or glob may leave files out (file_listing.h).
  const std::vector<std::string> files = table_->source_files();
  if (!files.empty())
    out += ", " + io::DescribeFiles(files, verbose ? 64 : 6);
  if (verbose) {
    for (size_t g = 0; g < groups_.size(); ++g) {
      for (const auto& u : groups_[g])
        out += fmt::format("\n    [{}] {}", g, u.description);
    }
  }
  return out;
}

}  // namespace shoal::exec
