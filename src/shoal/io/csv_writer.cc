#include "shoal/io/csv_writer.h"

#include <utility>

#include <unistd.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/io/csv_field.h"
#include "shoal/io/temporary_path.h"

namespace shoal::io {

namespace {
constexpr size_t kFlushBytes = 1 << 20;
}  // namespace

CsvWriter::CsvWriter(std::string path, columnar::SchemaPtr schema, CsvWriteOptions options)
    : path_(std::move(path)), schema_(std::move(schema)), options_(options) {}

Result<std::unique_ptr<CsvWriter>> CsvWriter::Open(std::string path, columnar::SchemaPtr schema,
                                                   CsvWriteOptions options) {
  std::unique_ptr<CsvWriter> writer(new CsvWriter(std::move(path), std::move(schema), options));
  SHOAL_ASSIGN_OR_RETURN(writer->temporary_, TemporaryPath::Create(writer->path_));
  SHOAL_ASSIGN_OR_RETURN(writer->file_, FileWriter::Open(writer->temporary_->path()));
  if (options.header) {
    for (int c = 0; c < writer->schema_->num_fields(); ++c) {
      if (c > 0) {
        writer->buffer_ += options.delimiter;
      }
      writer->AppendField(writer->schema_->field(c).name);
    }
    writer->buffer_ += '\n';
  }
  return writer;
}

CsvWriter::~CsvWriter() {
  Abort();
}

void CsvWriter::AppendField(std::string_view text) {
  AppendCsvField(text, options_.delimiter, options_.quote, &buffer_);
}

Status CsvWriter::WriteBatch(const columnar::RecordBatch& batch) {
  if (closed_) {
    return Status::Internal("CsvWriter::WriteBatch after Close or Abort");
  }
  const int num_columns = batch.num_columns();
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    for (int c = 0; c < num_columns; ++c) {
      if (c > 0) {
        buffer_ += options_.delimiter;
      }
      const columnar::Array& array = *batch.column(c);
      if (array.IsNull(r)) {
        continue;
      }
      value_.clear();
      columnar::AppendValue(array, r, &value_);
      AppendField(value_);
    }
    buffer_ += '\n';
    if (buffer_.size() >= kFlushBytes) {
      Status st = file_->Write(buffer_);
      buffer_.clear();
      if (!st.ok()) {
        Abort();
        return st;
      }
    }
  }
  rows_written_ += batch.num_rows();
  return Status::OK();
}

Status CsvWriter::Close() {
  if (closed_) {
    return Status::Internal("CsvWriter::Close called twice or after Abort");
  }
  Status st = file_->Write(buffer_);
  if (st.ok()) {
    st = file_->Close();
  }
  if (st.ok()) {
    st = temporary_->Publish();
  }
  if (!st.ok()) {
    Abort();
    return st;
  }
  file_.reset();
  closed_ = true;
  return Status::OK();
}

void CsvWriter::Abort() {
  if (closed_) {
    return;
  }
  closed_ = true;
  if (file_) {
    (void)file_->Close();
    file_.reset();
  }
  temporary_.reset();  // removes the temporary file
}

}  // namespace shoal::io
