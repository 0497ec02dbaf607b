// DelimitedTable: a table provider over TBL or CSV files — one file, a directory or a glob (see
// file_listing.h). Scan units are byte ranges of files (see delimited_reader.h for the splitting
// rule); statistics report the total bytes, the row count stays unknown.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "shoal/io/delimited_reader.h"
#include "shoal/io/file_listing.h"
#include "shoal/io/table_provider.h"

namespace shoal::io {

enum class DelimitedFormat : uint8_t { kTbl, kCsv };

class DelimitedTable : public TableProvider {
 public:
  /// Lists `location`, applies `options` over the format's defaults and, when `schema` is null
  /// (CSV only), infers the columns from the first file. TBL requires a schema.
  static Result<std::shared_ptr<DelimitedTable>> Make(
      DelimitedFormat format, const std::string& location, columnar::SchemaPtr schema,
      const std::map<std::string, std::string>& options);

  DelimitedTable(DelimitedFormat format, std::vector<ListedFile> files, columnar::SchemaPtr schema,
                 DelimitedOptions options);

  const columnar::SchemaPtr& schema() const override { return schema_; }

  std::string kind() const override { return format_ == DelimitedFormat::kTbl ? "tbl" : "csv"; }

  TableStatistics statistics() const override;
  std::vector<std::string> source_files() const override {
    std::vector<std::string> paths;
    for (const auto& f : files_)
      paths.push_back(f.path);
    return paths;
  }
  Result<std::vector<ScanUnit>> PlanScan(const ScanRequest& request) const override;
  Result<columnar::RecordBatchReaderPtr> OpenUnit(const ScanUnit& unit, const ScanRequest& request,
                                                  const ScanContext& context) const override;

  const std::vector<ListedFile>& files() const { return files_; }

  const DelimitedOptions& options() const { return options_; }

 private:
  DelimitedFormat format_;
  std::vector<ListedFile> files_;
  columnar::SchemaPtr schema_;
  DelimitedOptions options_;
};

}  // namespace shoal::io
