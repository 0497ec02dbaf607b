#include "shoal/engine/durable_catalog.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shoal/common/logging.h"
#include "shoal/engine/query_runner.h"
#include "shoal/engine/table_constraints.h"
#include "shoal/io/parquet_directory_storage.h"
#include "shoal/io/table_manifest.h"
#include "shoal/io/temporary_path.h"
#include "shoal/sql/binder.h"
#include "shoal/sql/parser.h"

namespace shoal::engine {

namespace {

using io::EscapeField;

constexpr std::string_view kHeader = "shoal catalog 1";

std::string Line(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0)
      out += '\t';
    out += EscapeField(fields[i]);
  }
  out += '\n';
  return out;
}

// Removes a table directory that no catalog names (its files, then itself).
void RemoveTableDirectory(const std::string& dir) {
  if (DIR* d = ::opendir(dir.c_str())) {
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..")
        names.push_back(dir + "/" += name);
    }
    ::closedir(d);
    for (const auto& n : names)
      ::unlink(n.c_str());
  }
  ::rmdir(dir.c_str());
}

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

class DurableCatalogStore final : public sql::CatalogStore {
 public:
  DurableCatalogStore(std::string data_dir, int lock_fd)
      : data_dir_(std::move(data_dir)), tables_dir_(data_dir_ + "/tables"), lock_fd_(lock_fd) {}

  ~DurableCatalogStore() override {
    if (lock_fd_ >= 0)
      ::close(lock_fd_);
  }

  Result<io::TableStoragePtr> CreateTableStorage(const columnar::SchemaPtr& schema) override {
    static thread_local std::mt19937_64 random(std::random_device{}());
    for (;;) {
      std::string dir = fmt::format("{}/{:016x}", tables_dir_, random());
      struct stat st {};
      if (::stat(dir.c_str(), &st) == 0)
        continue;
      SHOAL_ASSIGN_OR_RETURN(auto storage, io::ParquetDirectoryStorage::Create(dir, schema));
      // The new directory's entry must survive a crash once the catalog names it.
      SHOAL_RETURN_IF_ERROR(io::SyncDirectory(tables_dir_));
      return io::TableStoragePtr(std::move(storage));
    }
  }

  Status Save(const sql::Catalog& catalog) override {
    std::lock_guard<std::mutex> lock(save_mutex_);
    sql::CatalogContents contents = catalog.Contents();
    std::string text(kHeader);
    text += '\n';
    for (const auto& s : contents.schemas)
      text += Line({"schema", s});
    std::set<std::pair<std::string, std::string>> saved;
    for (const auto& t : contents.tables) {
      if (t.storage != nullptr && !t.storage->location().empty()) {
        text += Line({"table", t.schema, t.name, Basename(t.storage->location())});
      } else if (!t.definition.empty()) {
        text += Line({"external", t.schema, t.name, t.definition});
      } else {
        continue;  // a table the server makes at each start (--tpch): not the catalog's to keep
      }
      saved.emplace(t.schema, t.name);
    }
    for (const auto& line : unresolved_)
      text += line;
    for (const auto& v : contents.views) {
      std::vector<std::string> f{"view", v.schema, v.name, v.sql,
                                 std::to_string(v.column_names.size())};
      f.insert(f.end(), v.column_names.begin(), v.column_names.end());
      for (const auto& [schema, name] : v.depends_on) {
        f.push_back(schema);
        f.push_back(name);
      }
      text += Line(f);
    }
    for (const auto& i : contents.indexes) {
      if (saved.count({i.schema, i.table}) == 0)
        continue;
      std::vector<std::string> f{"index",
                                 i.schema,
                                 i.name,
                                 i.table,
                                 i.unique ? "1" : "0",
                                 i.nulls_distinct ? "1" : "0",
                                 i.has_expressions ? "1" : "0",
                                 i.constraint};
      f.insert(f.end(), i.columns.begin(), i.columns.end());
      text += Line(f);
    }
    text += Line({"checksum", io::ChecksumText(text)});
    return io::WriteFileAtomically(data_dir_ + "/catalog", text);
  }

  void Dropped(const sql::TableEntry& table) override {
    if (table.storage != nullptr)
      table.storage->Drop();
  }

  Status Load(sql::Catalog* catalog);

 private:
  Status LoadExternal(sql::Catalog* catalog, const std::vector<std::string>& f,
                      const std::string& line);

  const std::string data_dir_;
  const std::string tables_dir_;
  int lock_fd_;
  std::mutex save_mutex_;
  // External tables whose files were missing at start-up: written back as they were.
  std::vector<std::string> unresolved_;
};

Status DurableCatalogStore::LoadExternal(sql::Catalog* catalog, const std::vector<std::string>& f,
                                         const std::string& line) {
  auto made = [&]() -> Status {
    // Bound against an empty scratch catalog: only the statement's own content matters.
    auto scratch = std::make_shared<sql::Catalog>();
    (void)scratch->CreateSchema(f[1], /*if_not_exists=*/true);
    auto session = std::make_shared<sql::Session>(scratch);
    SHOAL_ASSIGN_OR_RETURN(auto script, sql::ParseSql(f[3]));
    if (script.statements.size() != 1)
      return Status::InvalidData("not one statement");
    sql::Binder binder(session.get());
    SHOAL_ASSIGN_OR_RETURN(auto bound, binder.Bind(script, script.statements[0]));
    SHOAL_ASSIGN_OR_RETURN(auto provider, MakeExternalTable(bound));
    sql::TableEntry entry{f[1], f[2], std::move(provider)};
    entry.definition = f[3];
    return catalog->RegisterTable(std::move(entry));
  }();
  if (!made.ok()) {
    SHOAL_LOG_WARNING("external table {}.{} is left out of the catalog until it can be read: {}",
                      f[1], f[2], made.ToString());
    unresolved_.push_back(line + "\n");
  }
  return Status::OK();
}

Status DurableCatalogStore::Load(sql::Catalog* catalog) {
  const std::string path = data_dir_ + "/catalog";
  struct stat st {};
  std::set<std::string> referenced;
  if (::stat(path.c_str(), &st) == 0) {
    SHOAL_ASSIGN_OR_RETURN(std::string text, io::ReadWholeFile(path));
    const size_t last = text.rfind("checksum\t");
    if (text.rfind(kHeader, 0) != 0 || last == std::string::npos || text.back() != '\n' ||
        io::ChecksumText(std::string_view(text).substr(0, last)) !=
            text.substr(last + 9, text.size() - last - 10))
      return Status::InvalidData("{} is damaged (incomplete or wrong checksum)", path)
          .WithHint("restore it from a backup; Shoal never leaves it half written");
    std::istringstream in(text.substr(0, last));
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::vector<std::string> f = io::SplitFields(line);
      Status st_line;
      if (f[0] == "schema" && f.size() == 2) {
        st_line = catalog->CreateSchema(f[1], /*if_not_exists=*/true);
      } else if (f[0] == "table" && f.size() == 4) {
        referenced.insert(f[3]);
        auto storage = io::ParquetDirectoryStorage::Open(tables_dir_ + "/" + f[3]);
        if (!storage.ok())
          return std::move(storage).status().WithContext(
              fmt::format("opening table {}.{}", f[1], f[2]));
        sql::TableEntry entry{f[1], f[2], nullptr};
        entry.storage = std::move(*storage);
        st_line = catalog->RegisterTable(std::move(entry));
      } else if (f[0] == "external" && f.size() == 4) {
        st_line = LoadExternal(catalog, f, line);
      } else if (f[0] == "view" && f.size() >= 5) {
        sql::ViewEntry view;
        view.schema = f[1];
        view.name = f[2];
        view.sql = f[3];
        size_t columns = std::stoul(f[4]);
        if (f.size() < 5 + columns || (f.size() - 5 - columns) % 2 != 0)
          return Status::InvalidData("{}: bad view line for {}", path, f[2]);
        view.column_names.assign(f.begin() + 5, f.begin() + 5 + static_cast<long>(columns));
        for (size_t i = 5 + columns; i + 1 < f.size(); i += 2)
          view.depends_on.emplace_back(f[i], f[i + 1]);
        st_line = catalog->CreateView(std::move(view));
      } else if (f[0] == "index" && f.size() >= 8) {
        sql::IndexEntry index;
        index.schema = f[1];
        index.name = f[2];
        index.table = f[3];
        index.unique = f[4] == "1";
        index.nulls_distinct = f[5] == "1";
        index.has_expressions = f[6] == "1";
        index.constraint = f[7];
        index.columns.assign(f.begin() + 8, f.end());
        if (index.unique)
          index.state = MakeUniqueKeyState();  // keys read from the rows on first use
        // An index of an external table left out above goes with it.
        if (catalog->LookupTable(index.schema, index.table).ok())
          st_line = catalog->CreateIndex(std::move(index));
      } else {
        return Status::InvalidData("{}: unexpected line '{}'", path, line);
      }
      if (!st_line.ok())
        return std::move(st_line).WithContext(fmt::format("reading {}", path));
    }
  }
  // Directories no catalog names: a CREATE TABLE that never committed.
  if (DIR* d = ::opendir(tables_dir_.c_str())) {
    std::vector<std::string> doomed;
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != ".." && referenced.count(name) == 0)
        doomed.push_back(tables_dir_ + "/" + name);
    }
    ::closedir(d);
    for (const auto& dir : doomed)
      RemoveTableDirectory(dir);
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<sql::Catalog>> OpenDurableCatalog(const std::string& data_dir) {
  if (::mkdir(data_dir.c_str(), 0700) != 0 && errno != EEXIST)
    return Status::IoError("cannot create the data directory {}: {}", data_dir,
                           std::strerror(errno));
  const std::string tables = data_dir + "/tables";
  if (::mkdir(tables.c_str(), 0700) != 0 && errno != EEXIST)
    return Status::IoError("cannot create {}: {}", tables, std::strerror(errno));
  const std::string lock_path = data_dir + "/catalog.lock";
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    return Status::IoError("cannot open {}: {}", lock_path, std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return Status::Unavailable("another server is using the data directory {}", data_dir)
        .WithHint("stop it first, or give this server another --data-dir");
  }
  auto store = std::make_shared<DurableCatalogStore>(data_dir, fd);
  auto catalog = std::make_shared<sql::Catalog>();
  SHOAL_RETURN_IF_ERROR(store->Load(catalog.get()));
  catalog->SetStore(store);
  SHOAL_RETURN_IF_ERROR(store->Save(*catalog));
  return catalog;
}

}  // namespace shoal::engine
