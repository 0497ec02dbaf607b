// ResultPrinter: how the shell prints a statement's result while the query still runs.
//
// A result may be larger than memory (SELECT * FROM lineitem), and a user wants the first rows
// of a long query as soon as they exist. CSV and JSON rows are written as each batch arrives.
// The aligned table and the expanded format need the widths of what they align, so rows are held
// until a window of `window_rows` is complete, which is then printed aligned on its own widths
// (the first window with the header), as psql does with FETCH_COUNT; a result that fits in one
// window prints exactly as if it had been collected. Memory is bounded by one window.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "shoal/cli/sql_output.h"
#include "shoal/columnar/record_batch.h"
#include "shoal/engine/query_runner.h"

namespace shoal::cli {

class ResultPrinter final : public engine::ResultSink {
 public:
  static constexpr int64_t kDefaultWindowRows = 1000;

  /// Results go to `out`, NOTICEs to `err` (dropped when null).
  ResultPrinter(SqlOutputFormat format, std::ostream* out, std::ostream* err,
                int64_t window_rows = kDefaultWindowRows);

  Status Begin(const columnar::SchemaPtr& schema) override;
  Status Rows(const columnar::RecordBatchPtr& batch) override;
  void Notice(const std::string& text) override;
  Status End(const std::string& command_tag) override;

  /// Rows printed (or held) for the current statement so far.
  int64_t rows() const { return rows_; }

 private:
  // Prints the rows held for the aligned formats.
  void FlushWindow();

  const SqlOutputFormat format_;
  std::ostream* out_;
  std::ostream* err_;
  const int64_t window_rows_;
  columnar::SchemaPtr schema_;
  std::vector<columnar::RecordBatchPtr> window_;
  int64_t window_held_ = 0;  // rows in window_
  int64_t printed_ = 0;      // rows written so far
  int64_t rows_ = 0;         // rows received
};

/// A collected result printed as the printer prints it (one window): table mode prints the table,
/// or the command tag for statements without rows; csv / json print nothing for those.
std::string RenderSqlResult(const engine::QueryResult& result, SqlOutputFormat format);

}  // namespace shoal::cli
