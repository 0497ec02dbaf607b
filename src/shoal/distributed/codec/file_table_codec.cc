#include "shoal/distributed/codec/file_table_codec.h"

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <sys/stat.h>

#include "shoal/distributed/codec/type_codec.h"
#include "shoal/io/arrow_table.h"
#include "shoal/io/parquet/parquet_table.h"

namespace shoal::distributed {

namespace {

constexpr const char* kSameFilesHint =
    "every worker reads an external table's files at the coordinator's paths: put them on a "
    "shared filesystem or copy the same files to the same paths on every worker";

// The table a worker rebuilds from a payload: the listed files, each opened on first use.
class ShippedFileTable final : public io::TableProvider {
 public:
  ShippedFileTable(std::shared_ptr<const FileTableCodec> codec, FileTableCodec::Format format,
                   std::string table_name, columnar::SchemaPtr schema,
                   std::vector<io::ListedFile> files, std::vector<columnar::Scalar> missing)
      : codec_(std::move(codec)),
        format_(format),
        table_name_(std::move(table_name)),
        schema_(std::move(schema)),
        files_(std::move(files)),
        missing_(std::move(missing)) {
    for (const auto& f : files_)
      sizes_.emplace(f.path, f.size);
  }

  const columnar::SchemaPtr& schema() const override { return schema_; }

  std::string kind() const override {
    return format_ == FileTableCodec::Format::kParquet ? "parquet" : "arrow";
  }

  std::vector<std::string> source_files() const override {
    std::vector<std::string> paths;
    for (const auto& f : files_)
      paths.push_back(f.path);
    return paths;
  }

  // The file's ParquetTable applies runtime filters itself (OpenUnit hands it the context)...
  bool AppliesRowFilter() const override { return format_ == FileTableCodec::Format::kParquet; }
  // ... and reads a struct column's fields alone.
  bool ReadsStructFieldsAlone() const override {
    return format_ == FileTableCodec::Format::kParquet;
  }

  FileTableCodec::Format format() const { return format_; }
  const std::vector<io::ListedFile>& files() const { return files_; }
  const std::vector<columnar::Scalar>& missing() const { return missing_; }

  Result<std::vector<io::ScanUnit>> PlanScan(const io::ScanRequest& request) const override {
    SHOAL_ASSIGN_OR_RETURN(io::TableProviderPtr whole, WholeTable());
    return whole->PlanScan(request);
  }

  Result<columnar::RecordBatchReaderPtr> OpenUnit(const io::ScanUnit& unit,
                                                  const io::ScanRequest& request,
                                                  const io::ScanContext& context) const override {
    Result<std::string> path = format_ == FileTableCodec::Format::kParquet
                                   ? io::parquet::ParquetTable::UnitFile(unit)
                                   : io::ArrowTable::UnitFile(unit);
    if (!path.ok())
      return std::move(path).status().WithContext(fmt::format("table {}", table_name_));
    SHOAL_ASSIGN_OR_RETURN(io::TableProviderPtr file, FileTable(*path));
    return file->OpenUnit(unit, request, context);
  }

 private:
  // This table keeps the files it opened, so readers (which may point into a file's parsed footer)
  // never outlive them, whatever the codec's cache drops.
  Result<io::TableProviderPtr> FileTable(const std::string& path) const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = opened_.find(path);
      if (it != opened_.end())
        return it->second;
    }
    auto size = sizes_.find(path);
    if (size == sizes_.end())
      return Status::InvalidData("a scan unit of table {} names {}, which is not one of its files",
                                 table_name_, path);
    SHOAL_ASSIGN_OR_RETURN(io::TableProviderPtr table,
                           codec_->OpenFile(path, size->second, schema_, table_name_, missing_));
    std::lock_guard<std::mutex> lock(mutex_);
    return opened_.emplace(path, std::move(table)).first->second;
  }

  Result<io::TableProviderPtr> WholeTable() const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (whole_ != nullptr)
        return whole_;
    }
    io::TableProviderPtr whole;
    if (format_ == FileTableCodec::Format::kParquet) {
      std::vector<io::parquet::ParquetFileInfo> infos;
      for (const auto& f : files_) {
        SHOAL_ASSIGN_OR_RETURN(io::TableProviderPtr file, FileTable(f.path));
        // A provider cast, not a plan node: FileTable(path) built this ParquetTable just above.
        infos.push_back(dynamic_cast<const io::parquet::ParquetTable&>(*file).files().front());
      }
      whole = std::make_shared<io::parquet::ParquetTable>(std::move(infos), schema_, missing_);
    } else {
      for (const auto& f : files_)
        SHOAL_RETURN_IF_ERROR(FileTable(f.path).status());
      SHOAL_ASSIGN_OR_RETURN(whole, io::ArrowTable::FromFiles(files_, schema_));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (whole_ == nullptr)
      whole_ = std::move(whole);
    return whole_;
  }

  std::shared_ptr<const FileTableCodec> codec_;
  FileTableCodec::Format format_;
  std::string table_name_;
  columnar::SchemaPtr schema_;
  std::vector<io::ListedFile> files_;
  std::vector<columnar::Scalar> missing_;
  std::map<std::string, int64_t> sizes_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, io::TableProviderPtr> opened_;
  mutable io::TableProviderPtr whole_;
};

// Parquet's one-file table: the footer must still have the table's column names and types; a
// file of a table Shoal writes (`missing` given) its first columns' types, whatever their names.
Result<io::TableProviderPtr> OpenParquetFile(const std::string& path, int64_t size,
                                             const columnar::SchemaPtr& schema,
                                             const std::string& table_name,
                                             const std::vector<columnar::Scalar>& missing) {
  SHOAL_ASSIGN_OR_RETURN(io::parquet::ParquetFileInfo info,
                         io::parquet::ReadParquetFooter(path, size));
  const bool written = !missing.empty();
  bool same = written ? static_cast<int>(info.columns.size()) <= schema->num_fields()
                      : static_cast<int>(info.columns.size()) == schema->num_fields();
  for (int i = 0; same && i < static_cast<int>(info.columns.size()); ++i) {
    same = (written || info.columns[static_cast<size_t>(i)].name == schema->field(i).name) &&
           info.columns[static_cast<size_t>(i)].type == schema->field(i).type;
  }
  if (!same) {
    std::vector<columnar::Field> fields;
    for (const auto& c : info.columns)
      fields.emplace_back(c.name, c.type, c.optional);
    return Status::InvalidData(
               "file {} of table {} has the columns ({}) on this worker, not the "
               "coordinator's ({})",
               path, table_name, columnar::Schema(std::move(fields)).ToString(), schema->ToString())
        .WithHint(kSameFilesHint);
  }
  std::vector<io::parquet::ParquetFileInfo> files;
  files.push_back(std::move(info));
  return io::TableProviderPtr(
      std::make_shared<io::parquet::ParquetTable>(std::move(files), schema, missing));
}

void EncodeFiles(const std::vector<io::ListedFile>& files,
                 google::protobuf::RepeatedPtrField<proto::ShippedFileProto>* out) {
  out->Reserve(static_cast<int>(files.size()));
  for (const auto& f : files) {
    proto::ShippedFileProto* m = out->Add();
    m->set_path(f.path);
    m->set_size(f.size);
  }
}

}  // namespace

std::string FileTableCodec::id() const {
  return format_ == Format::kParquet ? "shoal.parquet/1" : "shoal.arrow/1";
}

// Provider casts, not plan nodes: io::TableProvider offers no format id or file list to ask for
// (io/ is not the distributed layer's to change here), and each cast names the one class it ships.
bool FileTableCodec::CanEncode(const io::TableProvider& table) const {
  // A table decoded here travels on as it came (a task that hands a plan on).
  if (const auto* shipped = dynamic_cast<const ShippedFileTable*>(&table))
    return shipped->format() == format_;
  if (format_ == Format::kParquet)
    return dynamic_cast<const io::parquet::ParquetTable*>(&table) != nullptr;
  return dynamic_cast<const io::ArrowTable*>(&table) != nullptr;
}

Result<std::string> FileTableCodec::Encode(const io::TableProvider& table,
                                           const std::string& table_name) const {
  std::vector<io::ListedFile> files;
  const std::vector<columnar::Scalar>* missing = nullptr;
  const auto* shipped = dynamic_cast<const ShippedFileTable*>(&table);
  const auto* parquet = dynamic_cast<const io::parquet::ParquetTable*>(&table);
  const auto* arrow = dynamic_cast<const io::ArrowTable*>(&table);
  if (shipped != nullptr && shipped->format() == format_) {
    files = shipped->files();
    missing = &shipped->missing();
  } else if (parquet != nullptr && format_ == Format::kParquet) {
    for (const auto& f : parquet->files())
      files.push_back({f.path, f.size});
    missing = &parquet->missing();
  } else if (arrow != nullptr && format_ == Format::kArrow) {
    files = arrow->files();
  } else {
    return Status::Internal("{} cannot encode table {} ({})", id(), table_name, table.kind());
  }
  if (format_ == Format::kParquet) {
    proto::ParquetTableProto m;
    EncodeSchema(*table.schema(), m.mutable_schema());
    EncodeFiles(files, m.mutable_files());
    if (missing != nullptr) {
      for (const auto& value : *missing)
        EncodeScalar(value, m.add_missing());
    }
    return m.SerializeAsString();
  }
  proto::ArrowTableProto m;
  EncodeSchema(*table.schema(), m.mutable_schema());
  EncodeFiles(files, m.mutable_files());
  return m.SerializeAsString();
}

Result<io::TableProviderPtr> FileTableCodec::Decode(const std::string& payload,
                                                    const std::string& table_name) const {
  const proto::SchemaProto* schema_proto = nullptr;
  const google::protobuf::RepeatedPtrField<proto::ShippedFileProto>* files_proto = nullptr;
  proto::ParquetTableProto parquet;
  proto::ArrowTableProto arrow;
  bool parsed = false;
  if (format_ == Format::kParquet) {
    parsed = parquet.ParseFromString(payload);
    schema_proto = &parquet.schema();
    files_proto = &parquet.files();
  } else {
    parsed = arrow.ParseFromString(payload);
    schema_proto = &arrow.schema();
    files_proto = &arrow.files();
  }
  if (!parsed)
    return Status::InvalidData("encoded plan: malformed {} table '{}'", id(), table_name);
  SHOAL_ASSIGN_OR_RETURN(columnar::SchemaPtr schema, DecodeSchema(*schema_proto));
  std::vector<io::ListedFile> files;
  files.reserve(static_cast<size_t>(files_proto->size()));
  for (const auto& f : *files_proto) {
    if (f.path().empty() || f.size() < 0)
      return Status::InvalidData("encoded plan: table '{}' lists a file '{}' of {} bytes",
                                 table_name, f.path(), f.size());
    files.push_back({f.path(), f.size()});
  }
  if (files.empty())
    return Status::InvalidData("encoded plan: {} table '{}' lists no files", id(), table_name);
  std::vector<columnar::Scalar> missing;
  if (format_ == Format::kParquet && parquet.missing_size() > 0) {
    if (parquet.missing_size() != schema->num_fields())
      return Status::InvalidData("encoded plan: table '{}' has {} columns but {} missing values",
                                 table_name, schema->num_fields(), parquet.missing_size());
    for (int c = 0; c < parquet.missing_size(); ++c) {
      SHOAL_ASSIGN_OR_RETURN(columnar::Scalar value, DecodeScalar(parquet.missing(c)));
      if (value.type() != schema->field(c).type)
        return Status::InvalidData("encoded plan: table '{}': missing value of column {} is {}",
                                   table_name, c + 1, value.type().ToString());
      missing.push_back(std::move(value));
    }
  }
  return io::TableProviderPtr(
      std::make_shared<ShippedFileTable>(shared_from_this(), format_, table_name, std::move(schema),
                                         std::move(files), std::move(missing)));
}

Result<io::TableProviderPtr> FileTableCodec::OpenFile(
    const std::string& path, int64_t size, const columnar::SchemaPtr& schema,
    const std::string& table_name, const std::vector<columnar::Scalar>& missing) const {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int error = errno;
    if (error == ENOENT)
      return Status::NotFound("file {} of table {} does not exist on this worker", path, table_name)
          .WithHint(path.starts_with('/')
                        ? std::string(kSameFilesHint)
                        : std::string(kSameFilesHint) +
                              "; a relative path resolves against each worker's working "
                              "directory: declare the table with an absolute LOCATION");
    return Status::IoError("cannot stat file {} of table {}: {}", path, table_name,
                           std::strerror(error));
  }
  if (static_cast<int64_t>(st.st_size) != size)
    return Status::InvalidData(
               "file {} of table {} has {} bytes on this worker but had {} when the "
               "coordinator planned the query",
               path, table_name, static_cast<int64_t>(st.st_size), size)
        .WithHint(std::string(kSameFilesHint) +
                  "; a file rewritten since the table was created needs the table created again");
  const int64_t mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 +
                           static_cast<int64_t>(st.st_mtim.tv_nsec);
  std::string key = path + '\n' + schema->ToString();
  for (const auto& value : missing)
    key += '\n' + value.ToString();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(key);
    if (it != cache_.end() && it->second.size == size && it->second.mtime_ns == mtime_ns)
      return it->second.table;
  }
  io::TableProviderPtr table;
  files_opened_.fetch_add(1);
  if (format_ == Format::kParquet) {
    SHOAL_ASSIGN_OR_RETURN(table, OpenParquetFile(path, size, schema, table_name, missing));
  } else {
    auto arrow = io::ArrowTable::FromFiles({io::ListedFile{path, size}}, schema);
    if (!arrow.ok())
      return std::move(arrow).status().WithContext(fmt::format("table {}", table_name));
    table = std::move(*arrow);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (cache_.size() >= kMaxCachedFiles)
    cache_.clear();
  cache_[key] = Cached{size, mtime_ns, table};
  return table;
}

}  // namespace shoal::distributed
