#include "shoal/sql/catalog.h"

#include "shoal/common/edit_distance.h"

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

Status Catalog::CreateSchema(std::string_view name, bool if_not_exists) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (schemas_.count(name) > 0) {
    if (if_not_exists)
      return Status::OK();
    return Status::AlreadyExists("schema \"{}\" already exists", name).WithSqlState("42P06");
  }
  schemas_.emplace(std::string(name), Schema{});
  return Status::OK();
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
  std::lock_guard<std::mutex> lock(mutex_);
  SHOAL_ASSIGN_OR_RETURN(Schema * schema, FindSchemaLocked(schema_name));
  if (schema->views.count(name) > 0 || (!replace && schema->tables.count(name) > 0)) {
    return Status::AlreadyExists("relation \"{}\" already exists", QualifiedName(schema_name, name))
        .WithSqlState("42P07");
  }
  TableEntry entry{std::string(SchemaOrDefault(schema_name)), std::string(name),
                   std::move(provider), insertable};
  schema->tables.insert_or_assign(std::string(name), std::move(entry));
  return Status::OK();
}

Status Catalog::CreateView(ViewEntry view, bool replace) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (view.schema.empty())
    view.schema = std::string(kDefaultSchema);
  SHOAL_ASSIGN_OR_RETURN(Schema * schema, FindSchemaLocked(view.schema));
  if (schema->tables.count(view.name) > 0 || (!replace && schema->views.count(view.name) > 0)) {
    return Status::AlreadyExists("relation \"{}\" already exists",
                                 QualifiedName(view.schema, view.name))
        .WithSqlState("42P07");
  }
  std::string key = view.name;
  schema->views.insert_or_assign(key, std::move(view));
  return Status::OK();
}

Result<CatalogObject> Catalog::Lookup(std::string_view schema_name, std::string_view name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  SHOAL_ASSIGN_OR_RETURN(const Schema* schema, FindSchemaLocked(schema_name));
  CatalogObject object;
  if (auto it = schema->tables.find(name); it != schema->tables.end()) {
    object.table = it->second;
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
  std::lock_guard<std::mutex> lock(mutex_);
  auto schema = FindSchemaLocked(schema_name);
  if (!schema.ok())
    return if_exists ? Status::OK() : schema.status();
  if ((*schema)->tables.erase(std::string(name)) > 0)
    return Status::OK();
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
  std::lock_guard<std::mutex> lock(mutex_);
  auto schema = FindSchemaLocked(schema_name);
  if (!schema.ok())
    return if_exists ? Status::OK() : schema.status();
  if ((*schema)->views.erase(std::string(name)) > 0)
    return Status::OK();
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

std::vector<std::string> Catalog::ListNames(std::string_view schema_name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto schema = FindSchemaLocked(schema_name);
  if (!schema.ok())
    return {};
  return NamesLocked(**schema);
}

}  // namespace shoal::sql
