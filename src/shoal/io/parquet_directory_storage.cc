#include "shoal/io/parquet_directory_storage.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>

#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shoal/io/parquet/parquet_writer.h"
#include "shoal/io/temporary_path.h"

namespace shoal::io {

using columnar::RecordBatchPtr;
using columnar::SchemaPtr;

namespace {

constexpr const char* kManifestName = "manifest";

std::string RandomSuffix() {
  static thread_local std::mt19937_64 random(std::random_device{}());
  return fmt::format("{:08x}", static_cast<uint32_t>(random()));
}

}  // namespace

struct ParquetDirectoryStorage::DataFile {
  std::string name;
  std::string path;
  int64_t rows = 0;
  parquet::ParquetFileInfo info;
  std::atomic<bool> obsolete{false};
  std::atomic<bool> dropped{false};

  ~DataFile() {
    if (!obsolete.load())
      return;
    ::unlink(path.c_str());
    if (dropped.load()) {  // the last file of a dropped table takes the directory along
      const std::string dir = path.substr(0, path.rfind('/'));
      ::rmdir(dir.c_str());
    }
  }
};

namespace {

// A snapshot: an ordinary ParquetTable (the distributed planner ships it as one) that keeps the
// files it reads from being removed while it lives.
class SnapshotTable final : public parquet::ParquetTable {
 public:
  SnapshotTable(std::vector<parquet::ParquetFileInfo> files, SchemaPtr schema,
                std::vector<columnar::Scalar> missing,
                std::vector<std::shared_ptr<ParquetDirectoryStorage::DataFile>> keep)
      : ParquetTable(std::move(files), std::move(schema), std::move(missing)),
        keep_(std::move(keep)) {}

 private:
  std::vector<std::shared_ptr<ParquetDirectoryStorage::DataFile>> keep_;
};

// The types a durable table stores: dictionaries decoded, what Parquet cannot hold refused.
Result<SchemaPtr> StoredSchema(const SchemaPtr& schema) {
  std::vector<columnar::Field> fields;
  for (const auto& f : schema->fields()) {
    columnar::DataType type = f.type.decoded_type();
    if (type.id() == columnar::TypeId::kInterval || type.id() == columnar::TypeId::kNull)
      return Status::NotImplemented(
                 "column \"{}\" of type {} cannot be stored in a table of the "
                 "data directory (its rows are Parquet files)",
                 f.name, type.ToString())
          .WithSqlState("0A000")
          .WithHint("Store it as text, or keep the table in a server without --data-dir.");
    if (type.id() == columnar::TypeId::kTimestamp && type.unit() != columnar::TimeUnit::kMicro &&
        type.unit() != columnar::TimeUnit::kNano)
      type = columnar::DataType::Timestamp(columnar::TimeUnit::kMicro, type.timezone());
    fields.emplace_back(f.name, type, f.nullable);
  }
  return std::make_shared<const columnar::Schema>(std::move(fields));
}

}  // namespace

Result<std::shared_ptr<ParquetDirectoryStorage>> ParquetDirectoryStorage::Create(
    const std::string& directory, const SchemaPtr& schema) {
  SHOAL_ASSIGN_OR_RETURN(SchemaPtr stored, StoredSchema(schema));
  if (::mkdir(directory.c_str(), 0755) != 0)
    return Status::IoError("cannot create the table directory {}: {}", directory,
                           std::strerror(errno));
  std::shared_ptr<ParquetDirectoryStorage> storage(new ParquetDirectoryStorage(directory));
  std::lock_guard<std::mutex> lock(storage->commit_mutex_);
  std::vector<columnar::Scalar> missing;
  for (const auto& f : stored->fields())
    missing.emplace_back(f.type);
  Status committed =
      storage->CommitLocked({}, stored, std::move(missing),
                            std::vector<std::string>(static_cast<size_t>(stored->num_fields())));
  if (!committed.ok()) {
    ::rmdir(directory.c_str());
    return committed;
  }
  return storage;
}

Result<std::shared_ptr<ParquetDirectoryStorage>> ParquetDirectoryStorage::Open(
    const std::string& directory) {
  std::shared_ptr<ParquetDirectoryStorage> storage(new ParquetDirectoryStorage(directory));
  const std::string path = directory + "/" + kManifestName;
  SHOAL_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  SHOAL_ASSIGN_OR_RETURN(TableManifest manifest, DecodeManifest(text, path));
  std::lock_guard<std::mutex> lock(storage->commit_mutex_);
  storage->version_ = manifest.version;
  storage->schema_ = manifest.schema;
  storage->missing_ = manifest.missing;
  storage->defaults_ = manifest.defaults;
  for (const auto& f : manifest.files) {
    SHOAL_ASSIGN_OR_RETURN(auto file, storage->LoadFile(f.name, f.rows));
    storage->files_.push_back(std::move(file));
  }
  // What the manifest does not name is left over from writes that never committed.
  RemoveStaleTemporaries(directory);
  if (DIR* dir = ::opendir(directory.c_str())) {
    std::vector<std::string> doomed;
    while (dirent* e = ::readdir(dir)) {
      std::string name = e->d_name;
      if (name == "." || name == ".." || name == kManifestName)
        continue;
      bool named = false;
      for (const auto& f : manifest.files)
        named = named || f.name == name;
      if (!named && name.rfind(kTemporaryPrefix, 0) != 0)
        doomed.push_back(directory + "/" += name);
    }
    ::closedir(dir);
    for (const auto& d : doomed)
      ::unlink(d.c_str());
  }
  std::vector<parquet::ParquetFileInfo> infos;
  for (const auto& f : storage->files_)
    infos.push_back(f->info);
  storage->snapshot_ = std::make_shared<SnapshotTable>(std::move(infos), storage->schema_,
                                                       storage->missing_, storage->files_);
  return storage;
}

ParquetDirectoryStorage::~ParquetDirectoryStorage() = default;

Result<std::shared_ptr<ParquetDirectoryStorage::DataFile>> ParquetDirectoryStorage::LoadFile(
    const std::string& name, int64_t rows) {
  auto file = std::make_shared<DataFile>();
  file->name = name;
  file->path = directory_ + "/" + name;
  file->rows = rows;
  struct stat st {};
  if (::stat(file->path.c_str(), &st) != 0)
    return Status::IoError("data file {} of the table in {} is missing: {}", name, directory_,
                           std::strerror(errno));
  SHOAL_ASSIGN_OR_RETURN(file->info, parquet::ReadParquetFooter(file->path, st.st_size));
  if (file->info.metadata->num_rows != rows)
    return Status::InvalidData("{} holds {} rows but the manifest says {}", file->path,
                               file->info.metadata->num_rows, rows);
  return file;
}

columnar::SchemaPtr ParquetDirectoryStorage::schema() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return schema_;
}

TableProviderPtr ParquetDirectoryStorage::Snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return snapshot_;
}

int64_t ParquetDirectoryStorage::num_rows() const {
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t rows = 0;
  for (const auto& f : files_)
    rows += f->rows;
  return rows;
}

TableManifest ParquetDirectoryStorage::manifest() const {
  std::lock_guard<std::mutex> lock(mutex_);
  TableManifest m;
  m.version = version_;
  m.schema = schema_;
  m.missing = missing_;
  m.defaults = defaults_;
  for (const auto& f : files_)
    m.files.push_back({f->name, f->rows});
  return m;
}

std::string ParquetDirectoryStorage::NewFileName(int64_t version) const {
  return fmt::format("data-{:06}-{}.parquet", version, RandomSuffix());
}

Result<std::unique_ptr<parquet::ParquetWriter>> ParquetDirectoryStorage::OpenWriter(
    const std::string& name, const SchemaPtr& schema) {
  parquet::ParquetWriteOptions options;
  options.durable = true;
  options.threads = 1;
  return parquet::ParquetWriter::Open(directory_ + "/" + name, schema, options);
}

Result<std::shared_ptr<ParquetDirectoryStorage::DataFile>> ParquetDirectoryStorage::FinishFile(
    const std::string& name, int64_t rows, const SchemaPtr& schema) {
  auto loaded = LoadFile(name, rows);
  if (!loaded.ok()) {
    ::unlink((directory_ + "/" + name).c_str());
    return loaded.status();
  }
  for (size_t c = 0; c < (*loaded)->info.columns.size(); ++c) {
    if ((*loaded)->info.columns[c].type != schema->field(static_cast<int>(c)).type) {
      (*loaded)->obsolete = true;
      return Status::Internal("column {} was written as {} but the table stores {}", c,
                              (*loaded)->info.columns[c].type.ToString(),
                              schema->field(static_cast<int>(c)).type.ToString());
    }
  }
  return loaded;
}

Result<std::shared_ptr<ParquetDirectoryStorage::DataFile>> ParquetDirectoryStorage::WriteFile(
    const std::vector<RecordBatchPtr>& batches, int64_t version, const SchemaPtr& schema) {
  int64_t rows = 0;
  for (const auto& b : batches)
    rows += b->num_rows();
  if (rows == 0)
    return std::shared_ptr<DataFile>();
  const std::string name = NewFileName(version);
  SHOAL_ASSIGN_OR_RETURN(auto writer, OpenWriter(name, schema));
  for (const auto& b : batches) {
    if (b->num_rows() == 0)
      continue;
    if (b->num_columns() != schema->num_fields())
      return Status::Internal("writing {} columns into a table of {}", b->num_columns(),
                              schema->num_fields());
    Status written = writer->WriteBatch(b);
    if (!written.ok()) {
      writer->Abort();
      return written;
    }
  }
  SHOAL_RETURN_IF_ERROR(writer->Close());
  return FinishFile(name, rows, schema);
}

Status ParquetDirectoryStorage::CheckNotDropped() const {
  // A writer that holds the table from before a DROP TABLE (which takes no table lock) must not
  // bring files or a manifest back into the directory the catalog has forgotten.
  if (dropped_)
    return Status::NotFound("the table in {} was dropped while this statement wrote it", directory_)
        .WithSqlState("42P01");
  return Status::OK();
}

Status ParquetDirectoryStorage::CommitLocked(std::vector<std::shared_ptr<DataFile>> files,
                                             SchemaPtr schema,
                                             std::vector<columnar::Scalar> missing,
                                             std::vector<std::string> defaults) {
  SHOAL_RETURN_IF_ERROR(CheckNotDropped());
  if (missing.size() != static_cast<size_t>(schema->num_fields()) ||
      defaults.size() != missing.size())
    return Status::Internal("a commit of {} columns with {} missing values and {} defaults",
                            schema->num_fields(), missing.size(), defaults.size());
  TableManifest next;
  next.version = version_ + 1;
  next.schema = schema;
  next.missing = missing;
  next.defaults = defaults;
  for (const auto& f : files)
    next.files.push_back({f->name, f->rows});
  SHOAL_RETURN_IF_ERROR(
      WriteFileAtomically(directory_ + "/" + kManifestName, EncodeManifest(next)));
  // Committed: files the new version does not name go when their last reader does.
  for (const auto& old : files_) {
    if (std::find(files.begin(), files.end(), old) == files.end())
      old->obsolete = true;
  }
  std::vector<parquet::ParquetFileInfo> infos;
  infos.reserve(files.size());
  for (const auto& f : files)
    infos.push_back(f->info);
  auto snapshot = std::make_shared<SnapshotTable>(std::move(infos), schema, missing, files);
  std::lock_guard<std::mutex> lock(mutex_);
  version_ = next.version;
  schema_ = std::move(schema);
  missing_ = std::move(missing);
  defaults_ = std::move(defaults);
  files_ = std::move(files);
  snapshot_ = std::move(snapshot);
  return Status::OK();
}

Status ParquetDirectoryStorage::Append(std::vector<RecordBatchPtr> batches) {
  std::lock_guard<std::mutex> lock(commit_mutex_);
  SHOAL_RETURN_IF_ERROR(CheckNotDropped());
  SHOAL_ASSIGN_OR_RETURN(auto file, WriteFile(batches, version_ + 1, schema_));
  if (file == nullptr)
    return Status::OK();
  std::vector<std::shared_ptr<DataFile>> files = files_;
  files.push_back(file);
  Status committed = CommitLocked(std::move(files));
  if (!committed.ok())
    file->obsolete = true;  // never named by a manifest: removed with the last reference
  return committed;
}

Status ParquetDirectoryStorage::Replace(std::vector<RecordBatchPtr> batches, SchemaPtr schema) {
  std::lock_guard<std::mutex> lock(commit_mutex_);
  SHOAL_RETURN_IF_ERROR(CheckNotDropped());
  SchemaPtr stored = schema_;
  std::vector<columnar::Scalar> missing = missing_;
  std::vector<std::string> defaults = defaults_;
  if (schema != nullptr) {
    SHOAL_ASSIGN_OR_RETURN(stored, StoredSchema(schema));
    // The new file has every column; a column new here has no DEFAULT until one is set.
    missing.clear();
    for (const auto& f : stored->fields())
      missing.emplace_back(f.type);
    defaults.resize(missing.size());
  }
  SHOAL_ASSIGN_OR_RETURN(auto file, WriteFile(batches, version_ + 1, stored));
  std::vector<std::shared_ptr<DataFile>> files;
  if (file != nullptr)
    files.push_back(file);
  Status committed =
      CommitLocked(std::move(files), stored, std::move(missing), std::move(defaults));
  if (!committed.ok() && file != nullptr)
    file->obsolete = true;
  return committed;
}

Status ParquetDirectoryStorage::Rename(SchemaPtr schema) {
  std::lock_guard<std::mutex> lock(commit_mutex_);
  SHOAL_ASSIGN_OR_RETURN(SchemaPtr stored, StoredSchema(schema));
  return CommitLocked(files_, stored, missing_, defaults_);
}

std::vector<std::string> ParquetDirectoryStorage::column_defaults() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return defaults_;
}

Status ParquetDirectoryStorage::SetColumnDefaults(std::vector<std::string> defaults) {
  std::lock_guard<std::mutex> lock(commit_mutex_);
  defaults.resize(missing_.size());
  return CommitLocked(files_, schema_, missing_, std::move(defaults));
}

Status ParquetDirectoryStorage::AddColumn(const columnar::Field& field,
                                          const columnar::Scalar& value,
                                          const std::string& default_sql) {
  std::lock_guard<std::mutex> lock(commit_mutex_);
  std::vector<columnar::Field> fields = schema_->fields();
  fields.push_back(field);
  SHOAL_ASSIGN_OR_RETURN(SchemaPtr stored,
                         StoredSchema(std::make_shared<const columnar::Schema>(std::move(fields))));
  const columnar::DataType& type = stored->fields().back().type;
  if (!value.is_null() && value.type() != type)  // e.g. a timestamp stored at another unit
    return Status::NotImplemented("a {} default for a column stored as {}", value.type().ToString(),
                                  type.ToString());
  std::vector<columnar::Scalar> missing = missing_;
  missing.push_back(value.is_null() ? columnar::Scalar(type) : value);
  std::vector<std::string> defaults = defaults_;
  defaults.push_back(default_sql);
  return CommitLocked(files_, stored, std::move(missing), std::move(defaults));
}

// A DELETE or UPDATE: one part per data file of the version it started from. A replacement is
// streamed into a new file as its rows come; the commit names it in the old file's place.
class ParquetDirectoryStorage::Rewrite final : public TableRewrite {
 public:
  // `storage` outlives the rewrite (its caller holds the storage and its write_mutex()).
  Rewrite(ParquetDirectoryStorage* storage, int64_t version, SchemaPtr schema,
          std::vector<columnar::Scalar> missing, std::vector<std::shared_ptr<DataFile>> files)
      : storage_(storage),
        version_(version),
        schema_(std::move(schema)),
        missing_(std::move(missing)),
        files_(std::move(files)),
        replacements_(files_.size()),
        replaced_(files_.size(), false) {
    for (const auto& f : files_) {
      parts_.push_back(
          std::make_shared<SnapshotTable>(std::vector<parquet::ParquetFileInfo>{f->info}, schema_,
                                          missing_, std::vector<std::shared_ptr<DataFile>>{f}));
    }
  }

  ~Rewrite() override {
    AbandonPart();
    if (committed_)
      return;
    for (const auto& r : replacements_) {  // never named by a manifest
      if (r != nullptr)
        r->obsolete = true;
    }
  }

  Status BeginPart(size_t part) override {
    if (part >= files_.size() || replaced_[part] || current_ != kNone)
      return Status::Internal("rewrite of part {} of {} begun out of turn", part, files_.size());
    current_ = part;
    rows_ = 0;
    return Status::OK();
  }

  Status Write(const RecordBatchPtr& batch) override {
    if (current_ == kNone)
      return Status::Internal("rows written to no part of a rewrite");
    if (batch->num_rows() == 0)
      return Status::OK();
    if (batch->num_columns() != schema_->num_fields())
      return Status::Internal("writing {} columns into a table of {}", batch->num_columns(),
                              schema_->num_fields());
    if (writer_ == nullptr) {
      name_ = storage_->NewFileName(version_);
      SHOAL_ASSIGN_OR_RETURN(writer_, storage_->OpenWriter(name_, schema_));
    }
    SHOAL_RETURN_IF_ERROR(writer_->WriteBatch(batch));
    rows_ += batch->num_rows();
    return Status::OK();
  }

  Status FinishPart() override {
    if (current_ == kNone)
      return Status::Internal("no part of the rewrite to finish");
    const size_t part = current_;
    current_ = kNone;
    std::shared_ptr<DataFile> file;  // none: every row of the part is gone
    if (writer_ != nullptr) {
      Status closed = writer_->Close();
      writer_.reset();
      SHOAL_RETURN_IF_ERROR(closed);
      SHOAL_ASSIGN_OR_RETURN(file, storage_->FinishFile(name_, rows_, schema_));
    }
    replacements_[part] = std::move(file);
    replaced_[part] = true;
    return Status::OK();
  }

  void AbandonPart() override {
    if (writer_ != nullptr)
      writer_->Abort();
    writer_.reset();
    current_ = kNone;
  }

  Result<TableProviderPtr> NewRows() const override {
    std::vector<std::shared_ptr<DataFile>> files = Files();
    std::vector<parquet::ParquetFileInfo> infos;
    infos.reserve(files.size());
    for (const auto& f : files)
      infos.push_back(f->info);
    return TableProviderPtr(
        std::make_shared<SnapshotTable>(std::move(infos), schema_, missing_, files));
  }

  Status Commit() override {
    if (current_ != kNone)
      return Status::Internal("a rewrite committed with a part still being written");
    if (std::find(replaced_.begin(), replaced_.end(), true) == replaced_.end()) {
      committed_ = true;  // nothing changed
      return Status::OK();
    }
    std::lock_guard<std::mutex> lock(storage_->commit_mutex_);
    if (storage_->version_ != version_ - 1)  // a writer that did not hold write_mutex()
      return Status::Internal("table in {} changed under a rewrite (version {}, began at {})",
                              storage_->directory_, storage_->version_, version_ - 1);
    SHOAL_RETURN_IF_ERROR(storage_->CommitLocked(Files()));
    committed_ = true;
    return Status::OK();
  }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  // The files the table has after the rewrite: kept ones and replacements, in order.
  std::vector<std::shared_ptr<DataFile>> Files() const {
    std::vector<std::shared_ptr<DataFile>> files;
    for (size_t i = 0; i < files_.size(); ++i) {
      if (!replaced_[i])
        files.push_back(files_[i]);
      else if (replacements_[i] != nullptr)
        files.push_back(replacements_[i]);
    }
    return files;
  }

  ParquetDirectoryStorage* storage_;
  const int64_t version_;  // of the commit
  const SchemaPtr schema_;
  const std::vector<columnar::Scalar> missing_;
  const std::vector<std::shared_ptr<DataFile>> files_;   // at the start
  std::vector<std::shared_ptr<DataFile>> replacements_;  // per part; null: none or no rows
  std::vector<bool> replaced_;
  size_t current_ = kNone;
  std::unique_ptr<parquet::ParquetWriter> writer_;  // of the current part, from its first row
  std::string name_;
  int64_t rows_ = 0;
  bool committed_ = false;
};

Result<std::unique_ptr<TableRewrite>> ParquetDirectoryStorage::BeginRewrite() {
  std::lock_guard<std::mutex> lock(commit_mutex_);
  return std::unique_ptr<TableRewrite>(new Rewrite(this, version_ + 1, schema_, missing_, files_));
}

void ParquetDirectoryStorage::Drop() {
  std::lock_guard<std::mutex> commit(commit_mutex_);
  dropped_ = true;
  std::lock_guard<std::mutex> lock(mutex_);
  ::unlink((directory_ + "/" + kManifestName).c_str());
  for (const auto& f : files_) {
    f->dropped = true;
    f->obsolete = true;
  }
  if (files_.empty())
    ::rmdir(directory_.c_str());
  files_.clear();
  snapshot_ = std::make_shared<SnapshotTable>(std::vector<parquet::ParquetFileInfo>{}, schema_,
                                              missing_, files_);
}

}  // namespace shoal::io
