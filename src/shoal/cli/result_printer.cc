#include "shoal/cli/result_printer.h"

#include <cstdint>
#include <sstream>

#include <fmt/format.h>

namespace shoal::cli {

namespace {

bool Aligned(SqlOutputFormat format) {
  return format == SqlOutputFormat::kTable || format == SqlOutputFormat::kExpanded;
}

}  // namespace

ResultPrinter::ResultPrinter(SqlOutputFormat format, std::ostream* out, std::ostream* err,
                             int64_t window_rows)
    : format_(format), out_(out), err_(err), window_rows_(window_rows) {}

Status ResultPrinter::Begin(const columnar::SchemaPtr& schema) {
  schema_ = schema;
  window_.clear();
  window_held_ = printed_ = rows_ = 0;
  if (schema_ == nullptr)
    return Status::OK();
  if (format_ == SqlOutputFormat::kCsv) {
    *out_ << RenderSqlRows(*schema_, {}, format_, 0, /*header=*/true);
  } else if (format_ == SqlOutputFormat::kJson) {
    *out_ << "[";
  }
  return Status::OK();
}

Status ResultPrinter::Rows(const columnar::RecordBatchPtr& batch) {
  if (schema_ == nullptr)
    return Status::Internal("rows for a statement without a result set");
  rows_ += batch->num_rows();
  if (!Aligned(format_)) {
    *out_ << RenderSqlRows(*schema_, {batch}, format_, printed_, /*header=*/false);
    printed_ += batch->num_rows();
    out_->flush();
    return Status::OK();
  }
  window_.push_back(batch);
  window_held_ += batch->num_rows();
  if (window_held_ >= window_rows_)
    FlushWindow();
  return Status::OK();
}

void ResultPrinter::FlushWindow() {
  if (window_held_ == 0 && printed_ > 0)
    return;
  const bool first = printed_ == 0;
  *out_ << RenderSqlRows(*schema_, window_, format_, printed_, first);
  printed_ += window_held_;
  window_.clear();
  window_held_ = 0;
  out_->flush();
}

void ResultPrinter::Notice(const std::string& text) {
  if (err_ == nullptr)
    return;
  *err_ << "NOTICE:  " << text << "\n";
  err_->flush();
}

Status ResultPrinter::End(const std::string& command_tag) {
  if (schema_ == nullptr) {
    if (Aligned(format_))
      *out_ << command_tag << "\n";
  } else if (format_ == SqlOutputFormat::kTable) {
    FlushWindow();
    *out_ << fmt::format("({} {})\n\n", rows_, rows_ == 1 ? "row" : "rows");
  } else if (format_ == SqlOutputFormat::kExpanded) {
    if (window_held_ > 0)
      FlushWindow();
    *out_ << (rows_ == 0 ? "(0 rows)\n\n" : "\n");
  } else if (format_ == SqlOutputFormat::kJson) {
    *out_ << (rows_ == 0 ? "]\n" : "\n]\n");
  }
  out_->flush();
  schema_ = nullptr;
  window_.clear();
  window_held_ = 0;
  return Status::OK();
}

std::string RenderSqlResult(const engine::QueryResult& result, SqlOutputFormat format) {
  std::ostringstream out;
  ResultPrinter printer(format, &out, nullptr, /*window_rows=*/INT64_MAX);
  // Printing into a string cannot fail.
  (void)printer.Begin(result.schema);
  for (const auto& batch : result.batches) {
    if (batch->num_rows() > 0)
      (void)printer.Rows(batch);
  }
  (void)printer.End(result.command_tag);
  return out.str();
}

}  // namespace shoal::cli
