#include "shoal/io/copy_writer.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include <unistd.h>

#include "shoal/columnar/ipc/compression_name.h"
#include "shoal/columnar/ipc/writer.h"
#include "shoal/common/edit_distance.h"
#include "shoal/common/text.h"
#include "shoal/io/temporary_path.h"

namespace shoal::io {

namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

const char* FormatName(CopyFormat format) {
  switch (format) {
    case CopyFormat::kCsv: return "csv";
    case CopyFormat::kParquet: return "parquet";
    case CopyFormat::kArrow: return "arrow";
  }
  return "?";
}

Status BadValue(std::string_view option, std::string_view value, std::string_view expected) {
  return Status::InvalidArgument("invalid value \"{}\" for COPY option {}", value, option)
      .WithSqlState("22023")
      .WithHint(std::string(expected));
}

Status NotForFormat(std::string_view option, CopyFormat format, std::string_view formats) {
  return Status::InvalidArgument("COPY option {} does not apply to FORMAT {}", option,
                                 FormatName(format))
      .WithSqlState("22023")
      .WithHint(fmt::format("{} is an option of FORMAT {}", option, formats));
}

class ParquetCopyWriter : public CopyWriter {
 public:
  explicit ParquetCopyWriter(std::unique_ptr<parquet::ParquetWriter> writer)
      : writer_(std::move(writer)) {}
  Status WriteBatch(const columnar::RecordBatchPtr& batch) override {
    return writer_->WriteBatch(batch);
  }
  Status Close() override { return writer_->Close(); }
  void Abort() override { writer_->Abort(); }

 private:
  std::unique_ptr<parquet::ParquetWriter> writer_;
};

class CsvCopyWriter : public CopyWriter {
 public:
  explicit CsvCopyWriter(std::unique_ptr<CsvWriter> writer) : writer_(std::move(writer)) {}
  Status WriteBatch(const columnar::RecordBatchPtr& batch) override {
    return writer_->WriteBatch(*batch);
  }
  Status Close() override { return writer_->Close(); }
  void Abort() override { writer_->Abort(); }

 private:
  std::unique_ptr<CsvWriter> writer_;
};

class ArrowCopyWriter : public CopyWriter {
 public:
  static Result<std::unique_ptr<CopyWriter>> Open(const std::string& path,
                                                  const columnar::SchemaPtr& schema,
                                                  columnar::ipc::Compression compression) {
    std::unique_ptr<ArrowCopyWriter> writer(new ArrowCopyWriter(path, schema));
    SHOAL_ASSIGN_OR_RETURN(writer->temporary_, TemporaryPath::Create(path));
    SHOAL_ASSIGN_OR_RETURN(writer->sink_,
                           columnar::ipc::FileSink::Open(writer->temporary_->path()));
    columnar::ipc::WriteOptions options;
    options.compression = compression;
    SHOAL_ASSIGN_OR_RETURN(writer->writer_,
                           columnar::ipc::MakeFileWriter(writer->sink_.get(), schema, options));
    return std::unique_ptr<CopyWriter>(std::move(writer));
  }
  ~ArrowCopyWriter() override { Abort(); }

  Status WriteBatch(const columnar::RecordBatchPtr& batch) override {
    // The IPC writer wants the file's schema on every batch (names and nullability included).
    auto relabelled = columnar::RecordBatch::Make(schema_, batch->num_rows(), batch->columns());
    Status st = writer_->WriteBatch(*relabelled);
    if (!st.ok()) {
      Abort();
    }
    return st;
  }

  Status Close() override {
    if (closed_) {
      return Status::Internal("Arrow COPY writer closed twice");
    }
    Status st = writer_->Close();
    if (st.ok()) {
      st = temporary_->Publish();
    }
    if (!st.ok()) {
      Abort();
      return st;
    }
    closed_ = true;
    return Status::OK();
  }

  void Abort() override {
    if (closed_) {
      return;
    }
    closed_ = true;
    writer_.reset();
    if (sink_) {
      (void)sink_->Close();
      sink_.reset();
    }
    temporary_.reset();  // removes the temporary file
  }

 private:
  ArrowCopyWriter(std::string path, columnar::SchemaPtr schema)
      : path_(std::move(path)), schema_(std::move(schema)) {}

  std::string path_;
  std::unique_ptr<TemporaryPath> temporary_;
  columnar::SchemaPtr schema_;
  std::unique_ptr<columnar::ipc::FileSink> sink_;
  std::unique_ptr<columnar::ipc::RecordBatchWriter> writer_;
  bool closed_ = false;
};

}  // namespace

Result<CopyWriteOptions> ParseCopyOptions(
    const std::string& path, const std::vector<std::pair<std::string, std::string>>& options) {
  static const std::vector<std::string> kNames = {"format", "compression", "row_group_size",
                                                  "header", "delimiter"};
  CopyWriteOptions out;
  const std::string lower_path = AsciiLower(path);
  if (EndsWith(lower_path, ".parquet")) {
    out.format = CopyFormat::kParquet;
  } else if (EndsWith(lower_path, ".arrow") || EndsWith(lower_path, ".ipc") ||
             EndsWith(lower_path, ".feather")) {
    out.format = CopyFormat::kArrow;
  }
  std::set<std::string> seen;
  const std::string* compression = nullptr;
  for (const auto& [raw_name, value] : options) {
    const std::string name = AsciiLower(raw_name);
    if (std::find(kNames.begin(), kNames.end(), name) == kNames.end()) {
      std::string hint =
          "COPY ... TO accepts FORMAT, COMPRESSION, ROW_GROUP_SIZE, HEADER, DELIMITER";
      std::string closest = ClosestMatch(name, kNames);
      if (!closest.empty()) {
        hint = fmt::format("did you mean \"{}\"? ({})", closest, hint);
      }
      return Status::InvalidArgument("COPY option \"{}\" not recognized", raw_name)
          .WithSqlState("42601")
          .WithHint(hint);
    }
    if (!seen.insert(name).second) {
      return Status::InvalidArgument("conflicting or redundant options: {} given twice", name)
          .WithSqlState("42601");
    }
    if (name == "format") {
      const std::string f = AsciiLower(value);
      if (f == "parquet") {
        out.format = CopyFormat::kParquet;
      } else if (f == "csv") {
        out.format = CopyFormat::kCsv;
      } else if (f == "arrow" || f == "ipc" || f == "feather") {
        out.format = CopyFormat::kArrow;
      } else {
        return Status::InvalidArgument("COPY format \"{}\" not recognized", value)
            .WithSqlState("22023")
            .WithHint("use FORMAT parquet, csv or arrow");
      }
    } else if (name == "compression") {
      compression = &value;
    }
  }
  for (const auto& [raw_name, value] : options) {
    const std::string name = AsciiLower(raw_name);
    if (name == "row_group_size") {
      if (out.format != CopyFormat::kParquet) {
        return NotForFormat("ROW_GROUP_SIZE", out.format, "parquet");
      }
      int64_t rows = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), rows);
      if (ec != std::errc() || end != value.data() + value.size() || rows < 1) {
        return BadValue("ROW_GROUP_SIZE", value, "give a positive number of rows, e.g. 100000");
      }
      out.parquet.row_group_size = rows;
    } else if (name == "header") {
      if (out.format != CopyFormat::kCsv) {
        return NotForFormat("HEADER", out.format, "csv");
      }
      const std::string v = AsciiLower(value);
      if (v == "true" || v == "on" || v == "1") {
        out.csv.header = true;
      } else if (v == "false" || v == "off" || v == "0") {
        out.csv.header = false;
      } else {
        return BadValue("HEADER", value, "use true or false");
      }
    } else if (name == "delimiter") {
      if (out.format != CopyFormat::kCsv) {
        return NotForFormat("DELIMITER", out.format, "csv");
      }
      if (value.size() != 1 || value[0] == '"' || value[0] == '\n' || value[0] == '\r') {
        return BadValue("DELIMITER", value,
                        "the delimiter must be one single-byte character other than a quote or "
                        "a line break");
      }
      out.csv.delimiter = value[0];
    }
  }
  if (compression != nullptr) {
    switch (out.format) {
      case CopyFormat::kParquet: {
        SHOAL_ASSIGN_OR_RETURN(out.parquet.encoding.compression,
                               parquet::ParseParquetCompression(*compression));
        break;
      }
      case CopyFormat::kArrow: {
        auto c = columnar::ipc::ParseCompression(*compression);
        if (!c.ok()) {
          return BadValue("COMPRESSION", *compression,
                          fmt::format("Arrow IPC files support COMPRESSION {}",
                                      columnar::ipc::kCompressionNames));
        }
        out.arrow_compression = *c;
        break;
      }
      case CopyFormat::kCsv:
        if (AsciiLower(*compression) != "none") {
          return BadValue("COMPRESSION", *compression, "CSV files are written uncompressed");
        }
        break;
    }
  }
  return out;
}

Result<std::unique_ptr<CopyWriter>> OpenCopyWriter(const std::string& path,
                                                   columnar::SchemaPtr schema,
                                                   const CopyWriteOptions& options) {
  switch (options.format) {
    case CopyFormat::kParquet: {
      SHOAL_ASSIGN_OR_RETURN(
          auto writer, parquet::ParquetWriter::Open(path, std::move(schema), options.parquet));
      return std::unique_ptr<CopyWriter>(new ParquetCopyWriter(std::move(writer)));
    }
    case CopyFormat::kCsv: {
      SHOAL_ASSIGN_OR_RETURN(auto writer, CsvWriter::Open(path, std::move(schema), options.csv));
      return std::unique_ptr<CopyWriter>(new CsvCopyWriter(std::move(writer)));
    }
    case CopyFormat::kArrow: return ArrowCopyWriter::Open(path, schema, options.arrow_compression);
  }
  return Status::Internal("unknown COPY format");
}

}  // namespace shoal::io
