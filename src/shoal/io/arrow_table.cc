#include "shoal/io/arrow_table.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "shoal/columnar/ipc/reader.h"
#include "shoal/io/data_roots.h"

namespace shoal::io {

namespace {

// Payload: "<first batch> <end batch> <path>".
std::string EncodeUnit(const std::string& path, int first, int end) {
  return std::to_string(first) + " " + std::to_string(end) + " " + path;
}

Status DecodeUnit(const std::string& payload, std::string* path, int* first, int* end) {
  const char* p = payload.data();
  const char* stop = p + payload.size();
  auto r1 = std::from_chars(p, stop, *first);
  if (r1.ec != std::errc() || r1.ptr == stop || *r1.ptr != ' ')
    return Status::InvalidData("bad Arrow scan unit payload '{}'", payload);
  auto r2 = std::from_chars(r1.ptr + 1, stop, *end);
  if (r2.ec != std::errc() || r2.ptr == stop || *r2.ptr != ' ' || *first < 0 || *end < *first)
    return Status::InvalidData("bad Arrow scan unit payload '{}'", payload);
  path->assign(r2.ptr + 1, stop);
  return Status::OK();
}

bool SameTypes(const columnar::Schema& a, const columnar::Schema& b) {
  if (a.num_fields() != b.num_fields())
    return false;
  for (int i = 0; i < a.num_fields(); ++i) {
    if (a.field(i).type != b.field(i).type)
      return false;
  }
  return true;
}

std::string Describe(const columnar::Schema& schema) {
  std::string out = "(";
  for (int i = 0; i < schema.num_fields(); ++i) {
    out += (i ? ", " : "") + schema.field(i).name + " " + schema.field(i).type.ToString();
  }
  return out + ")";
}

// Batches [next, end) of one file, projected and cut to at most `batch_size` rows.
class ArrowUnitReader : public columnar::RecordBatchReader {
 public:
  ArrowUnitReader(std::unique_ptr<columnar::ipc::FileReader> reader, std::string path, int first,
                  int end, std::vector<int> projection, columnar::SchemaPtr schema,
                  int64_t batch_size)
      : reader_(std::move(reader)),
        path_(std::move(path)),
        next_(first),
        end_(end),
        projection_(std::move(projection)),
        schema_(std::move(schema)),
        batch_size_(std::max<int64_t>(1, batch_size)) {}

  const columnar::SchemaPtr& schema() const override { return schema_; }

  Result<columnar::RecordBatchPtr> Next() override {
    while (current_ == nullptr || offset_ >= current_->num_rows()) {
      if (next_ >= end_)
        return columnar::RecordBatchPtr();
      auto batch = reader_->ReadBatch(next_);
      if (!batch.ok())
        return std::move(batch).status().WithContext(
            fmt::format("reading record batch {} of {}", next_, path_));
      current_ = std::move(*batch);
      offset_ = 0;
      ++next_;
    }
    const int64_t rows = std::min(batch_size_, current_->num_rows() - offset_);
    std::vector<columnar::ArrayPtr> columns;
    columns.reserve(projection_.size());
    for (int c : projection_) {
      const auto& column = current_->column(c);
      columns.push_back(offset_ == 0 && rows == column->length() ? column
                                                                 : column->Slice(offset_, rows));
    }
    offset_ += rows;
    return columnar::RecordBatch::Make(schema_, rows, std::move(columns));
  }

 private:
  std::unique_ptr<columnar::ipc::FileReader> reader_;
  std::string path_;
  int next_;
  int end_;
  std::vector<int> projection_;
  columnar::SchemaPtr schema_;
  int64_t batch_size_;
  columnar::RecordBatchPtr current_;
  int64_t offset_ = 0;
};

}  // namespace

Result<std::shared_ptr<ArrowTable>> ArrowTable::Make(const std::string& location,
                                                     const columnar::SchemaPtr& schema) {
  SHOAL_ASSIGN_OR_RETURN(auto listed, ListFiles(location, ArrowExtensions()));
  std::vector<File> files;
  columnar::SchemaPtr file_schema;
  SHOAL_RETURN_IF_ERROR(OpenFiles(std::move(listed), &files, &file_schema));
  if (schema != nullptr && schema->num_fields() > 0) {
    if (!SameTypes(*schema, *file_schema))
      return Status::InvalidArgument("the columns {} do not match the Arrow file's {}",
                                     Describe(*schema), Describe(*file_schema))
          .WithSqlState("42804")
          .WithHint("leave out the column list to take the file's schema");
    // The statement's names, the file's nullability.
    std::vector<columnar::Field> fields;
    fields.reserve(static_cast<size_t>(schema->num_fields()));
    for (int i = 0; i < schema->num_fields(); ++i) {
      fields.emplace_back(schema->field(i).name, file_schema->field(i).type,
                          file_schema->field(i).nullable);
    }
    file_schema = std::make_shared<columnar::Schema>(std::move(fields));
  }
  return std::shared_ptr<ArrowTable>(new ArrowTable(std::move(files), std::move(file_schema)));
}

Status ArrowTable::OpenFiles(std::vector<ListedFile> listed, std::vector<File>* files,
                             columnar::SchemaPtr* file_schema) {
  for (auto& entry : listed) {
    SHOAL_ASSIGN_OR_RETURN(const std::string resolved, CheckDataPath(entry.path, "read"));
    auto reader = columnar::ipc::OpenFileReader(resolved);
    if (!reader.ok())
      return std::move(reader).status().WithContext(
          fmt::format("opening Arrow IPC file {}", entry.path));
    const auto& this_schema = (*reader)->schema();
    if (*file_schema == nullptr) {
      *file_schema = this_schema;
    } else if (!SameTypes(**file_schema, *this_schema)) {
      return Status::InvalidData("Arrow file {} has columns {}, unlike {} in {}", entry.path,
                                 Describe(*this_schema), Describe(**file_schema),
                                 files->front().listed.path)
          .WithHint("every file of one table must have the same column types");
    }
    files->push_back({std::move(entry), (*reader)->num_batches()});
  }
  return Status::OK();
}

Result<std::shared_ptr<ArrowTable>> ArrowTable::FromFiles(std::vector<ListedFile> listed,
                                                          columnar::SchemaPtr schema) {
  std::vector<File> files;
  columnar::SchemaPtr file_schema;
  SHOAL_RETURN_IF_ERROR(OpenFiles(std::move(listed), &files, &file_schema));
  if (file_schema != nullptr && !SameTypes(*schema, *file_schema))
    return Status::InvalidData("Arrow file {} now has columns {}, not {}",
                               files.front().listed.path, Describe(*file_schema), Describe(*schema))
        .WithHint("the file changed since the table was created: create the table again");
  return std::shared_ptr<ArrowTable>(new ArrowTable(std::move(files), std::move(schema)));
}

Result<std::string> ArrowTable::UnitFile(const ScanUnit& unit) {
  std::string path;
  int first = 0;
  int end = 0;
  SHOAL_RETURN_IF_ERROR(DecodeUnit(unit.payload, &path, &first, &end));
  return path;
}

std::vector<ListedFile> ArrowTable::files() const {
  std::vector<ListedFile> out;
  out.reserve(files_.size());
  for (const auto& file : files_)
    out.push_back(file.listed);
  return out;
}

TableStatistics ArrowTable::statistics() const {
  TableStatistics stats;
  stats.total_bytes = 0;
  for (const auto& file : files_)
    stats.total_bytes += file.listed.size;
  return stats;
}

Result<std::vector<ScanUnit>> ArrowTable::PlanScan(const ScanRequest&) const {
  std::vector<ScanUnit> units;
  for (const auto& file : files_) {
    if (file.num_batches == 0)
      continue;
    const int64_t per_batch = std::max<int64_t>(1, file.listed.size / file.num_batches);
    const int step =
        static_cast<int>(std::clamp<int64_t>(kUnitBytes / per_batch, 1, file.num_batches));
    for (int first = 0; first < file.num_batches; first += step) {
      const int end = std::min(file.num_batches, first + step);
      units.push_back({fmt::format("{} batches {}-{}", file.listed.path, first, end - 1),
                       per_batch * (end - first), -1, EncodeUnit(file.listed.path, first, end)});
    }
  }
  return units;
}

Result<columnar::RecordBatchReaderPtr> ArrowTable::OpenUnit(const ScanUnit& unit,
                                                            const ScanRequest& request,
                                                            const ScanContext& context) const {
  std::string path;
  int first = 0;
  int end = 0;
  SHOAL_RETURN_IF_ERROR(DecodeUnit(unit.payload, &path, &first, &end));
  columnar::ipc::ReadOptions options;
  options.pool = context.pool;
  SHOAL_ASSIGN_OR_RETURN(const std::string resolved, CheckDataPath(path, "read"));
  auto reader = columnar::ipc::OpenFileReader(resolved, options);
  if (!reader.ok())
    return std::move(reader).status().WithContext(fmt::format("opening Arrow IPC file {}", path));
  if (end > (*reader)->num_batches() || !SameTypes(*(*reader)->schema(), *schema_))
    return Status::InvalidData("Arrow file {} changed since the table was created", path)
        .WithHint("create the external table again");
  std::vector<columnar::Field> fields;
  for (int c : request.projection)
    fields.push_back(schema_->field(c));
  auto schema = std::make_shared<columnar::Schema>(std::move(fields));
  return columnar::RecordBatchReaderPtr(new ArrowUnitReader(std::move(*reader), std::move(path),
                                                            first, end, request.projection,
                                                            std::move(schema), request.batch_size));
}

}  // namespace shoal::io
