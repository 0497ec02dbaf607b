#include "shoal/sql/catalog.h"

#include <algorithm>

#include "shoal/common/edit_distance.h"
#include "shoal/io/memory_table_storage.h"

namespace shoal::sql {

namespace {

std::string_view SchemaOrDefault(std::string_view schema) {
  return schema.empty() ? kDefaultSchema : schema;
}

std::string QualifiedName(std::string_view schema, std::string_view name) {
  if (schema.empty() || schema == kDefaultSchema)
    return std::string(name);
  return fmt::format("{}.{}", schema, name);
}

}  // namespace

Catalog::Catalog() {
  schemas_.emplace(std::string(kDefaultSchema), Schema{});
}

Result<io::TableStoragePtr> Catalog::CreateTableStorage(const columnar::SchemaPtr& schema) const {
  if (store_ != nullptr)
    return store_->CreateTableStorage(schema);
  SHOAL_ASSIGN_OR_RETURN(auto storage, io::MemoryTableStorage::Make(schema));
  return io::TableStoragePtr(std::move(storage));
}

CatalogContents Catalog::Contents() const {
  std::lock_guard<std::mutex> lock(mutex_);
  CatalogContents out;
  for (const auto& [schema_name, schema] : schemas_) {
    out.schemas.push_back(schema_name);
    for (const auto& [name, table] : schema.tables)
      out.tables.push_back(Fresh(table));
    for (const auto& [name, view] : schema.views)
      out.views.push_back(view);
    for (const auto& [name, index] : schema.indexes)
      out.indexes.push_back(index);
  }
  return out;
}

Status Catalog::Persist() const {
  // Every change ends here, after it took effect: a plan bound before this point is stale.
  generation_.fetch_add(1, std::memory_order_acq_rel);
  return store_ == nullptr ? Status::OK() : store_->Save(*this);
}

TableEntry Catalog::Fresh(TableEntry entry) {
  if (entry.storage != nullptr)
    entry.provider = entry.storage->Snapshot();
  return entry;
}

Status Catalog::RegisterTable(TableEntry entry, bool replace) {
  if (entry.storage == nullptr && entry.provider == nullptr)
    return Status::InvalidArgument("table \"{}\" has no provider", entry.name);
  entry.insertable = entry.insertable || entry.storage != nullptr;
  if (entry.storage != nullptr)  // held snapshots keep files: lookups take a fresh one instead
    entry.provider = nullptr;
  if (entry.schema.empty())
    entry.schema = std::string(kDefaultSchema);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    SHOAL_ASSIGN_OR_RETURN(Schema * schema, FindSchemaLocked(entry.schema));
    if (schema->views.count(entry.name) > 0 || schema->indexes.count(entry.name) > 0 ||
        (!replace && schema->tables.count(entry.name) > 0)) {
      return Status::AlreadyExists("relation \"{}\" already exists",
                                   QualifiedName(entry.schema, entry.name))
          .WithSqlState("42P07");
    }
    // A table Shoal writes is never replaced behind its users' backs (a server's --tpch tables
    // over a data directory that has a table of that name): that would drop its rows.
    if (auto it = schema->tables.find(entry.name);
        replace && it != schema->tables.end() && it->second.storage != nullptr)
      return Status::AlreadyExists("relation \"{}\" already exists and holds rows Shoal wrote",
                                   QualifiedName(entry.schema, entry.name))
          .WithSqlState("42P07")
          .WithHint("Drop or rename the table first.");
    if (replace)  // the replaced table's indexes go with it
      std::erase_if(schema->indexes, [&](const auto& kv) { return kv.second.table == entry.name; });
    std::string key = entry.name;
    schema->tables.insert_or_assign(std::move(key), std::move(entry));
  }
  return Persist();
}

Status Catalog::CreateSchema(std::string_view name, bool if_not_exists) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (schemas_.count(name) > 0) {
    if (if_not_exists)
      return Status::OK();
    return Status::AlreadyExists("schema \"{}\" already exists", name).WithSqlState("42P06");
  }
  schemas_.emplace(std::string(name), Schema{});
  lock.unlock();
  return Persist();
}

bool Catalog::HasSchema(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return schemas_.count(name) > 0;
}

Result<Catalog::Schema*> Catalog::FindSchemaLocked(std::string_view name) {
  auto it = schemas_.find(SchemaOrDefault(name));
  if (it == schemas_.end())
    return Status::NotFound("schema \"{}\" does not exist", name).WithSqlState("3F000");
  return &it->second;
}

Result<const Catalog::Schema*> Catalog::FindSchemaLocked(std::string_view name) const {
  auto it = schemas_.find(SchemaOrDefault(name));
  if (it == schemas_.end())
    return Status::NotFound("schema \"{}\" does not exist", name).WithSqlState("3F000");
  return &it->second;
}

std::vector<std::string> Catalog::NamesLocked(const Schema& schema) const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : schema.tables)
    names.push_back(name);
  for (const auto& [name, entry] : schema.views)
    names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

Status Catalog::RegisterTable(std::string_view schema_name, std::string_view name,
                              io::TableProviderPtr provider, bool insertable, bool replace) {
  if (provider == nullptr)
    return Status::InvalidArgument("table \"{}\" has no provider", name);
  TableEntry entry{std::string(SchemaOrDefault(schema_name)), std::string(name),
                   std::move(provider)};
  entry.insertable = insertable;
  // Rows in memory that INSERT may add to move into a storage. (Another provider marked
  // insertable, a test's, binds INSERT but cannot run it.)
  if (const auto* memory = dynamic_cast<const io::MemoryTable*>(entry.provider.get());
      insertable && memory != nullptr) {
    SHOAL_ASSIGN_OR_RETURN(entry.storage,
                           io::MemoryTableStorage::Make(memory->schema(), memory->batches()));
  }
  return RegisterTable(std::move(entry), replace);
}

Status Catalog::CreateView(ViewEntry view, bool replace) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (view.schema.empty())
    view.schema = std::string(kDefaultSchema);
  SHOAL_ASSIGN_OR_RETURN(Schema * schema, FindSchemaLocked(view.schema));
  if (schema->tables.count(view.name) > 0 || schema->indexes.count(view.name) > 0 ||
      (!replace && schema->views.count(view.name) > 0)) {
    return Status::AlreadyExists("relation \"{}\" already exists",
                                 QualifiedName(view.schema, view.name))
        .WithSqlState("42P07");
  }
  std::string key = view.name;
  schema->views.insert_or_assign(key, std::move(view));
  lock.unlock();
  return Persist();
}

Result<CatalogObject> Catalog::Lookup(std::string_view schema_name, std::string_view name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  SHOAL_ASSIGN_OR_RETURN(const Schema* schema, FindSchemaLocked(schema_name));
  CatalogObject object;
  if (auto it = schema->tables.find(name); it != schema->tables.end()) {
    object.table = Fresh(it->second);
    return object;
  }
  if (auto it = schema->views.find(name); it != schema->views.end()) {
    object.view = it->second;
    return object;
  }
  Status status =
      Status::NotFound("relation \"{}\" does not exist", QualifiedName(schema_name, name))
          .WithSqlState("42P01");
  std::string close = ClosestMatch(name, NamesLocked(*schema));
  if (!close.empty())
    return std::move(status).WithHint(fmt::format("Perhaps you meant \"{}\".", close));
  return status;
}

Result<TableEntry> Catalog::LookupTable(std::string_view schema, std::string_view name) const {
  SHOAL_ASSIGN_OR_RETURN(CatalogObject object, Lookup(schema, name));
  if (!object.table) {
    return Status::InvalidArgument("\"{}\" is not a table", QualifiedName(schema, name))
        .WithSqlState("42809");
  }
  return *object.table;
}

Status Catalog::DropTable(std::string_view schema_name, std::string_view name, bool if_exists) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto schema = FindSchemaLocked(schema_name);
  if (!schema.ok())
    return if_exists ? Status::OK() : schema.status();
  if (auto it = (*schema)->tables.find(name); it != (*schema)->tables.end()) {
    TableEntry dropped = std::move(it->second);
    (*schema)->tables.erase(it);
    std::erase_if((*schema)->indexes, [&](const auto& kv) { return kv.second.table == name; });
    lock.unlock();
    SHOAL_RETURN_IF_ERROR(Persist());
    if (store_ != nullptr)
      store_->Dropped(dropped);
    return Status::OK();
  }
  if ((*schema)->views.count(name) > 0) {
    return Status::InvalidArgument("\"{}\" is not a table", QualifiedName(schema_name, name))
        .WithSqlState("42809")
        .WithHint("Use DROP VIEW to remove a view.");
  }
  if (if_exists)
    return Status::OK();
  return Status::NotFound("table \"{}\" does not exist", QualifiedName(schema_name, name))
      .WithSqlState("42P01");
}

Status Catalog::DropView(std::string_view schema_name, std::string_view name, bool if_exists) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto schema = FindSchemaLocked(schema_name);
  if (!schema.ok())
    return if_exists ? Status::OK() : schema.status();
  if ((*schema)->views.erase(std::string(name)) > 0) {
    lock.unlock();
    return Persist();
  }
  if ((*schema)->tables.count(name) > 0) {
    return Status::InvalidArgument("\"{}\" is not a view", QualifiedName(schema_name, name))
        .WithSqlState("42809")
        .WithHint("Use DROP TABLE to remove a table.");
  }
  if (if_exists)
    return Status::OK();
  return Status::NotFound("view \"{}\" does not exist", QualifiedName(schema_name, name))
      .WithSqlState("42P01");
}

Status Catalog::CheckDropLocked(bool views, std::string_view schema_name, std::string_view name,
                                bool if_exists, bool* exists) const {
  *exists = false;
  auto schema = FindSchemaLocked(schema_name);
  if (!schema.ok())
    return if_exists ? Status::OK() : schema.status();
  bool is_table = (*schema)->tables.count(name) > 0;
  bool is_view = (*schema)->views.count(name) > 0;
  if (views ? is_view : is_table) {
    *exists = true;
    return Status::OK();
  }
  if (views && is_table) {
    return Status::InvalidArgument("\"{}\" is not a view", QualifiedName(schema_name, name))
        .WithSqlState("42809")
        .WithHint("Use DROP TABLE to remove a table.");
  }
  if (!views && is_view) {
    return Status::InvalidArgument("\"{}\" is not a table", QualifiedName(schema_name, name))
        .WithSqlState("42809")
        .WithHint("Use DROP VIEW to remove a view.");
  }
  if (if_exists)
    return Status::OK();
  return Status::NotFound("{} \"{}\" does not exist", views ? "view" : "table",
                          QualifiedName(schema_name, name))
      .WithSqlState("42P01");
}

Status Catalog::DropRelations(bool views,
                              const std::vector<std::pair<std::string, std::string>>& objects,
                              bool if_exists, bool cascade) {
  using Key = std::pair<std::string, std::string>;
  std::unique_lock<std::mutex> lock(mutex_);
  // What the statement names (kind checked), then every view depending on those, breadth first,
  // each with the object it depends on (PostgreSQL lists them in this order).
  std::vector<Key> named;
  for (const auto& [schema, name] : objects) {
    bool exists = false;
    SHOAL_RETURN_IF_ERROR(CheckDropLocked(views, schema, name, if_exists, &exists));
    Key key{std::string(SchemaOrDefault(schema)), name};
    if (exists && std::find(named.begin(), named.end(), key) == named.end())
      named.push_back(std::move(key));
  }
  auto is_view = [&](const Key& k) {
    auto it = schemas_.find(k.first);
    return it != schemas_.end() && it->second.views.count(k.second) > 0;
  };
  auto describe = [&](const Key& k) {
    return fmt::format("{} {}", is_view(k) ? "view" : "table", QualifiedName(k.first, k.second));
  };
  std::vector<Key> doomed = named;
  std::vector<std::string> dependencies;  // "view v2 depends on view v1", outside `named` only
  for (size_t i = 0; i < doomed.size(); ++i) {
    for (const auto& [schema_name, schema] : schemas_) {
      for (const auto& [name, view] : schema.views) {
        Key dependent{schema_name, name};
        if (std::find(view.depends_on.begin(), view.depends_on.end(), doomed[i]) ==
            view.depends_on.end())
          continue;
        bool known = std::find(doomed.begin(), doomed.end(), dependent) != doomed.end();
        if (!known)
          doomed.push_back(dependent);
        if (std::find(named.begin(), named.end(), dependent) == named.end() && !known)
          dependencies.push_back(
              fmt::format("{} depends on {}", describe(dependent), describe(doomed[i])));
      }
    }
  }
  if (!dependencies.empty() && !cascade) {
    std::string detail;
    for (const auto& d : dependencies)
      detail += d + "; ";
    return (named.size() == 1
                ? Status::InvalidArgument("cannot drop {} because other objects depend on it",
                                          describe(named.front()))
                : Status::InvalidArgument(
                      "cannot drop desired object(s) because other objects depend on them"))
        .WithSqlState("2BP01")
        .WithHint(detail + "Use DROP ... CASCADE to drop the dependent objects too.");
  }
  std::vector<TableEntry> dropped;
  for (const auto& k : doomed) {
    auto& schema = schemas_.at(k.first);
    if (schema.views.erase(k.second) > 0)
      continue;
    if (auto it = schema.tables.find(k.second); it != schema.tables.end()) {
      dropped.push_back(std::move(it->second));
      schema.tables.erase(it);
      std::erase_if(schema.indexes, [&](const auto& kv) { return kv.second.table == k.second; });
    }
  }
  lock.unlock();
  SHOAL_RETURN_IF_ERROR(Persist());
  for (const auto& table : dropped) {
    if (store_ != nullptr)
      store_->Dropped(table);
  }
  return Status::OK();
}

Status Catalog::CheckNoDependentViewsLocked(std::string_view schema_name, std::string_view name,
                                            const std::string& what) const {
  const std::pair<std::string, std::string> key{std::string(SchemaOrDefault(schema_name)),
                                                std::string(name)};
  for (const auto& [s, schema] : schemas_) {
    for (const auto& [view_name, view] : schema.views) {
      if (std::find(view.depends_on.begin(), view.depends_on.end(), key) == view.depends_on.end())
        continue;
      return Status::InvalidArgument("cannot {} because view {} depends on it", what,
                                     QualifiedName(s, view_name))
          .WithSqlState("2BP01")
          .WithHint(fmt::format(
              "Shoal keeps a view as the text of its query, which names {}: drop the view, make "
              "the change, then create the view again.",
              QualifiedName(schema_name, name)));
    }
  }
  return Status::OK();
}

Status Catalog::CheckNoDependentViews(std::string_view schema, std::string_view name,
                                      const std::string& what) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return CheckNoDependentViewsLocked(schema, name, what);
}

Status Catalog::RenameRelation(std::string_view schema_name, std::string_view name,
                               const std::string& new_name) {
  std::unique_lock<std::mutex> lock(mutex_);
  SHOAL_ASSIGN_OR_RETURN(Schema * schema, FindSchemaLocked(schema_name));
  auto table = schema->tables.find(name);
  auto view = schema->views.find(name);
  if (table == schema->tables.end() && view == schema->views.end())
    return Status::NotFound("relation \"{}\" does not exist", QualifiedName(schema_name, name))
        .WithSqlState("42P01");
  if (schema->tables.count(new_name) > 0 || schema->views.count(new_name) > 0 ||
      schema->indexes.count(new_name) > 0)
    return Status::AlreadyExists("relation \"{}\" already exists", new_name).WithSqlState("42P07");
  SHOAL_RETURN_IF_ERROR(CheckNoDependentViewsLocked(
      schema_name, name,
      fmt::format("rename {} {}", table != schema->tables.end() ? "table" : "view",
                  QualifiedName(schema_name, name))));
  if (table != schema->tables.end()) {
    TableEntry entry = std::move(table->second);
    schema->tables.erase(table);
    entry.name = new_name;
    schema->tables.emplace(new_name, std::move(entry));
    for (auto& [index_name, index] : schema->indexes) {
      if (index.table == name)
        index.table = new_name;
    }
  } else {
    ViewEntry entry = std::move(view->second);
    schema->views.erase(view);
    entry.name = new_name;
    schema->views.emplace(new_name, std::move(entry));
  }
  lock.unlock();
  return Persist();
}

Status Catalog::RenameIndexColumn(std::string_view schema_name, std::string_view table,
                                  const std::string& column, const std::string& new_name) {
  std::unique_lock<std::mutex> lock(mutex_);
  SHOAL_ASSIGN_OR_RETURN(Schema * schema, FindSchemaLocked(schema_name));
  bool changed = false;
  for (auto& [index_name, index] : schema->indexes) {
    if (index.table != table || index.has_expressions)
      continue;
    for (auto& c : index.columns) {
      if (c == column) {
        c = new_name;
        changed = true;
      }
    }
  }
  lock.unlock();
  return changed ? Persist() : Status::OK();
}

Status Catalog::CreateIndex(IndexEntry index, bool if_not_exists) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (index.schema.empty())
    index.schema = std::string(kDefaultSchema);
  SHOAL_ASSIGN_OR_RETURN(Schema * schema, FindSchemaLocked(index.schema));
  if (schema->tables.count(index.table) == 0)
    return Status::NotFound("relation \"{}\" does not exist",
                            QualifiedName(index.schema, index.table))
        .WithSqlState("42P01");
  if (schema->tables.count(index.name) > 0 || schema->views.count(index.name) > 0 ||
      schema->indexes.count(index.name) > 0) {
    if (if_not_exists)
      return Status::OK();
    return Status::AlreadyExists("relation \"{}\" already exists",
                                 QualifiedName(index.schema, index.name))
        .WithSqlState("42P07");
  }
  std::string key = index.name;
  schema->indexes.emplace(std::move(key), std::move(index));
  lock.unlock();
  return Persist();
}

Status Catalog::DropIndexes(const std::vector<std::pair<std::string, std::string>>& names,
                            bool if_exists) {
  std::unique_lock<std::mutex> lock(mutex_);
  std::vector<std::pair<Schema*, std::string>> doomed;
  for (const auto& [schema_name, name] : names) {
    auto schema = FindSchemaLocked(schema_name);
    if (!schema.ok()) {
      if (if_exists)
        continue;
      return schema.status();
    }
    auto it = (*schema)->indexes.find(name);
    if (it == (*schema)->indexes.end()) {
      if ((*schema)->tables.count(name) > 0 || (*schema)->views.count(name) > 0)
        return Status::InvalidArgument("\"{}\" is not an index", QualifiedName(schema_name, name))
            .WithSqlState("42809");
      if (if_exists)
        continue;
      return Status::NotFound("index \"{}\" does not exist", QualifiedName(schema_name, name))
          .WithSqlState("42704");
    }
    if (!it->second.constraint.empty())
      return Status::InvalidArgument(
                 "cannot drop index {} because constraint {} on table {} requires it", name, name,
                 it->second.table)
          .WithSqlState("2BP01")
          .WithHint(fmt::format("You can drop constraint {} on table {} instead.", name,
                                it->second.table));
    doomed.emplace_back(*schema, name);
  }
  for (auto& [schema, name] : doomed)
    schema->indexes.erase(name);
  lock.unlock();
  return doomed.empty() ? Status::OK() : Persist();
}

std::vector<IndexEntry> Catalog::IndexesOf(std::string_view schema_name,
                                           std::string_view table) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<IndexEntry> out;
  auto schema = FindSchemaLocked(schema_name);
  if (!schema.ok())
    return out;
  for (const auto& [name, index] : (*schema)->indexes) {
    if (index.table == table)
      out.push_back(index);
  }
  return out;
}

std::string Catalog::UnusedRelationName(std::string_view schema_name,
                                        const std::string& base) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto schema = FindSchemaLocked(schema_name);
  if (!schema.ok())
    return base;
  auto taken = [&](const std::string& n) {
    return (*schema)->tables.count(n) > 0 || (*schema)->views.count(n) > 0 ||
           (*schema)->indexes.count(n) > 0;
  };
  if (!taken(base))
    return base;
  for (int i = 1;; ++i) {
    std::string name = base + std::to_string(i);
    if (!taken(name))
      return name;
  }
}

std::vector<std::string> Catalog::ListNames(std::string_view schema_name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto schema = FindSchemaLocked(schema_name);
  if (!schema.ok())
    return {};
  return NamesLocked(**schema);
}

std::vector<std::string> Catalog::SchemaNames() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [name, schema] : schemas_)
    names.push_back(name);
  return names;
}

}  // namespace shoal::sql
