#include "shoal/sql/system_catalog/system_catalog.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <variant>

#include <fmt/format.h>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/pg_type.h"
#include "shoal/columnar/record_batch.h"
#include "shoal/common/check.h"
#include "shoal/common/memory_pool.h"
#include "shoal/io/memory_table.h"
#include "shoal/sql/function_registry.h"
#include "shoal/sql/system_catalog/backend_activity.h"

namespace shoal::sql {

namespace {

using columnar::DataType;
using columnar::Field;
using columnar::TypeId;

// Each system relation as PostgreSQL 15 declares it: column names and a type code each
// (o oid, n name, t text or an array's text form, c "char", b boolean, h smallint, i integer,
// l bigint, f real). Copied from PostgreSQL 15's pg_attribute.
struct RelationSpec {
  std::string_view schema;
  std::string_view name;
  std::string_view columns;
};

const RelationSpec kSpecs[] = {
    {"pg_catalog", "pg_class",
     "oid:o relname:n relnamespace:o reltype:o reloftype:o relowner:o relam:o relfilenode:o "
     "reltablespace:o relpages:i reltuples:f relallvisible:i reltoastrelid:o relhasindex:b "
     "relisshared:b relpersistence:c relkind:c relnatts:h relchecks:h relhasrules:b "
     "relhastriggers:b relhassubclass:b relrowsecurity:b relforcerowsecurity:b relispopulated:b "
     "relreplident:c relispartition:b relrewrite:o relfrozenxid:o relminmxid:o relacl:t "
     "reloptions:t relpartbound:t"},
    {"pg_catalog", "pg_namespace", "oid:o nspname:n nspowner:o nspacl:t"},
    {"pg_catalog", "pg_attribute",
     "attrelid:o attname:n atttypid:o attstattarget:i attlen:h attnum:h attndims:i attcacheoff:i "
     "atttypmod:i attbyval:b attalign:c attstorage:c attcompression:c attnotnull:b atthasdef:b "
     "atthasmissing:b attidentity:c attgenerated:c attisdropped:b attislocal:b attinhcount:i "
     "attcollation:o attacl:t attoptions:t attfdwoptions:t attmissingval:t"},
    {"pg_catalog", "pg_type",
     "oid:o typname:n typnamespace:o typowner:o typlen:h typbyval:b typtype:c typcategory:c "
     "typispreferred:b typisdefined:b typdelim:c typrelid:o typsubscript:o typelem:o typarray:o "
     "typinput:o typoutput:o typreceive:o typsend:o typmodin:o typmodout:o typanalyze:o typalign:c "
     "typstorage:c typnotnull:b typbasetype:o typtypmod:i typndims:i typcollation:o "
     "typdefaultbin:t typdefault:t typacl:t"},
    {"pg_catalog", "pg_attrdef", "oid:o adrelid:o adnum:h adbin:t"},
    {"pg_catalog", "pg_index",
     "indexrelid:o indrelid:o indnatts:h indnkeyatts:h indisunique:b indnullsnotdistinct:b "
     "indisprimary:b indisexclusion:b indimmediate:b indisclustered:b indisvalid:b indcheckxmin:b "
     "indisready:b indislive:b indisreplident:b indkey:t indcollation:t indclass:t indoption:t "
     "indexprs:t indpred:t"},
    {"pg_catalog", "pg_description", "objoid:o classoid:o objsubid:i description:t"},
    {"pg_catalog", "pg_database",
     "oid:o datname:n datdba:o encoding:i datlocprovider:c datistemplate:b datallowconn:b "
     "datconnlimit:i datfrozenxid:o datminmxid:o dattablespace:o datcollate:t datctype:t "
     "daticulocale:t datcollversion:t datacl:t"},
    {"pg_catalog", "pg_roles",
     "rolname:n rolsuper:b rolinherit:b rolcreaterole:b rolcreatedb:b rolcanlogin:b "
     "rolreplication:b rolconnlimit:i rolpassword:t rolvaliduntil:t rolbypassrls:b rolconfig:t "
     "oid:o"},
    {"pg_catalog", "pg_user",
     "usename:n usesysid:o usecreatedb:b usesuper:b userepl:b usebypassrls:b passwd:t valuntil:t "
     "useconfig:t"},
    {"pg_catalog", "pg_settings",
     "name:t setting:t unit:t category:t short_desc:t extra_desc:t context:t vartype:t source:t "
     "min_val:t max_val:t enumvals:t boot_val:t reset_val:t sourcefile:t sourceline:i "
     "pending_restart:b"},
    {"pg_catalog", "pg_am", "oid:o amname:n amhandler:o amtype:c"},
    {"pg_catalog", "pg_stat_activity",
     "datid:o datname:n pid:i leader_pid:i usesysid:o usename:n application_name:t "
     "client_addr:t client_hostname:t client_port:i backend_start:T xact_start:T "
     "query_start:T state_change:T wait_event_type:t wait_event:t state:t backend_xid:t "
     "backend_xmin:t query_id:l query:t backend_type:t"},
    {"pg_catalog", "pg_proc",
     "oid:o proname:n pronamespace:o proowner:o prolang:o procost:f prorows:f provariadic:o "
     "prosupport:o prokind:c prosecdef:b proleakproof:b proisstrict:b proretset:b provolatile:c "
     "proparallel:c pronargs:h pronargdefaults:h prorettype:o proargtypes:t proallargtypes:t "
     "proargmodes:t proargnames:t proargdefaults:t protrftypes:t prosrc:t probin:t prosqlbody:t "
     "proconfig:t proacl:t"},
    {"pg_catalog", "pg_auth_members", "roleid:o member:o grantor:o admin_option:b"},
    {"pg_catalog", "pg_inherits", "inhrelid:o inhparent:o inhseqno:i inhdetachpending:b"},
    {"pg_catalog", "pg_constraint",
     "oid:o conname:n connamespace:o contype:c condeferrable:b condeferred:b convalidated:b "
     "conrelid:o contypid:o conindid:o conparentid:o confrelid:o confupdtype:c confdeltype:c "
     "confmatchtype:c conislocal:b coninhcount:i connoinherit:b conkey:t confkey:t conpfeqop:t "
     "conppeqop:t conffeqop:t confdelsetcols:t conexclop:t conbin:t"},
    {"pg_catalog", "pg_policy",
     "oid:o polname:n polrelid:o polcmd:c polpermissive:b polroles:t polqual:t polwithcheck:t"},
    {"pg_catalog", "pg_trigger",
     "oid:o tgrelid:o tgparentid:o tgname:n tgfoid:o tgtype:h tgenabled:c tgisinternal:b "
     "tgconstrrelid:o tgconstrindid:o tgconstraint:o tgdeferrable:b tginitdeferred:b tgnargs:h "
     "tgattr:t tgargs:t tgqual:t tgoldtable:n tgnewtable:n"},
    {"pg_catalog", "pg_rewrite",
     "oid:o rulename:n ev_class:o ev_type:c ev_enabled:c is_instead:b ev_qual:t ev_action:t"},
    {"pg_catalog", "pg_statistic_ext",
     "oid:o stxrelid:o stxname:n stxnamespace:o stxowner:o stxstattarget:i stxkeys:t stxkind:t "
     "stxexprs:t"},
    {"pg_catalog", "pg_publication",
     "oid:o pubname:n pubowner:o puballtables:b pubinsert:b pubupdate:b pubdelete:b pubtruncate:b "
     "pubviaroot:b"},
    {"pg_catalog", "pg_publication_rel", "oid:o prpubid:o prrelid:o prqual:t prattrs:t"},
    {"pg_catalog", "pg_publication_namespace", "oid:o pnpubid:o pnnspid:o"},
    {"pg_catalog", "pg_collation",
     "oid:o collname:n collnamespace:o collowner:o collprovider:c collisdeterministic:b "
     "collencoding:i collcollate:t collctype:t colliculocale:t collversion:t"},
    {"pg_catalog", "pg_tables",
     "schemaname:n tablename:n tableowner:n tablespace:n hasindexes:b hasrules:b hastriggers:b "
     "rowsecurity:b"},
    {"pg_catalog", "pg_views", "schemaname:n viewname:n viewowner:n definition:t"},
    {"pg_catalog", "pg_indexes", "schemaname:n tablename:n indexname:n tablespace:n indexdef:t"},
    {"pg_catalog", "pg_tablespace", "oid:o spcname:n spcowner:o spcacl:t spcoptions:t"},
    {"pg_catalog", "pg_extension",
     "oid:o extname:n extowner:o extnamespace:o extrelocatable:b extversion:t extconfig:t "
     "extcondition:t"},
    {"pg_catalog", "pg_enum", "oid:o enumtypid:o enumsortorder:f enumlabel:n"},
    {"pg_catalog", "pg_range",
     "rngtypid:o rngsubtype:o rngmultitypid:o rngcollation:o rngsubopc:o rngcanonical:o "
     "rngsubdiff:o"},
    {"pg_catalog", "pg_foreign_table", "ftrelid:o ftserver:o ftoptions:t"},
    {"pg_catalog", "pg_foreign_server",
     "oid:o srvname:n srvowner:o srvfdw:o srvtype:t srvversion:t srvacl:t srvoptions:t"},
    {"pg_catalog", "pg_foreign_data_wrapper",
     "oid:o fdwname:n fdwowner:o fdwhandler:o fdwvalidator:o fdwacl:t fdwoptions:t"},
    {"pg_catalog", "pg_sequence",
     "seqrelid:o seqtypid:o seqstart:l seqincrement:l seqmax:l seqmin:l seqcache:l seqcycle:b"},
    {"pg_catalog", "pg_depend",
     "classid:o objid:o objsubid:i refclassid:o refobjid:o refobjsubid:i deptype:c"},
    {"information_schema", "schemata",
     "catalog_name:n schema_name:n schema_owner:n default_character_set_catalog:n "
     "default_character_set_schema:n default_character_set_name:n sql_path:t"},
    {"information_schema", "tables",
     "table_catalog:n table_schema:n table_name:n table_type:t self_referencing_column_name:n "
     "reference_generation:t user_defined_type_catalog:n user_defined_type_schema:n "
     "user_defined_type_name:n is_insertable_into:t is_typed:t commit_action:t"},
    {"information_schema", "columns",
     "table_catalog:n table_schema:n table_name:n column_name:n ordinal_position:i "
     "column_default:t is_nullable:t data_type:t character_maximum_length:i "
     "character_octet_length:i numeric_precision:i numeric_precision_radix:i numeric_scale:i "
     "datetime_precision:i interval_type:t interval_precision:i character_set_catalog:n "
     "character_set_schema:n character_set_name:n collation_catalog:n collation_schema:n "
     "collation_name:n domain_catalog:n domain_schema:n domain_name:n udt_catalog:n udt_schema:n "
     "udt_name:n scope_catalog:n scope_schema:n scope_name:n maximum_cardinality:i "
     "dtd_identifier:n is_self_referencing:t is_identity:t identity_generation:t identity_start:t "
     "identity_increment:t identity_maximum:t identity_minimum:t identity_cycle:t is_generated:t "
     "generation_expression:t is_updatable:t"},
    {"information_schema", "views",
     "table_catalog:n table_schema:n table_name:n view_definition:t check_option:t is_updatable:t "
     "is_insertable_into:t is_trigger_updatable:t is_trigger_deletable:t "
     "is_trigger_insertable_into:t"},
};

DataType TypeOfCode(char code) {
  switch (code) {
    case 'o':
    case 'l': return DataType::Int64();
    case 'b': return DataType::Boolean();
    case 'h': return DataType::Int16();
    case 'i': return DataType::Int32();
    case 'f': return DataType::Float32();
    case 'T': return DataType::Timestamp(columnar::TimeUnit::kMicro, "UTC");
    default: return DataType::Utf8();
  }
}

int64_t PgOidOfCode(char code) {
  switch (code) {
    case 'o': return columnar::pg_oid::kOid;
    case 'n': return columnar::pg_oid::kName;
    case 'c': return columnar::pg_oid::kChar;
    case 'b': return columnar::pg_oid::kBool;
    case 'h': return columnar::pg_oid::kInt2;
    case 'i': return columnar::pg_oid::kInt4;
    case 'l': return columnar::pg_oid::kInt8;
    case 'f': return columnar::pg_oid::kFloat4;
    case 'T': return columnar::pg_oid::kTimestampTz;
    default: return columnar::pg_oid::kText;
  }
}

struct SpecColumn {
  std::string name;
  char code;
};

std::vector<SpecColumn> ColumnsOf(const RelationSpec& spec) {
  std::vector<SpecColumn> columns;
  std::string_view rest = spec.columns;
  while (!rest.empty()) {
    size_t space = rest.find(' ');
    std::string_view item = rest.substr(0, space);
    size_t colon = item.find(':');
    columns.push_back({std::string(item.substr(0, colon)), item[colon + 1]});
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  }
  return columns;
}

const RelationSpec* FindSpec(std::string_view schema, std::string_view name) {
  if (schema.empty())
    schema = kPgCatalogSchema;
  for (const auto& spec : kSpecs) {
    if (spec.schema == schema && spec.name == name)
      return &spec;
  }
  return nullptr;
}

using Value = std::variant<std::monostate, bool, int64_t, double, std::string>;

// A value as the column's type wants it (a builder bug, not input, if they disagree).
int64_t AsInt(const Value& v) {
  if (const auto* b = std::get_if<bool>(&v))
    return *b ? 1 : 0;
  if (const auto* d = std::get_if<double>(&v))
    return static_cast<int64_t>(*d);
  return std::get<int64_t>(v);
}

std::string AsText(const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v))
    return *s;
  if (const auto* b = std::get_if<bool>(&v))
    return *b ? "t" : "f";
  if (const auto* i = std::get_if<int64_t>(&v))
    return std::to_string(*i);
  return fmt::format("{}", std::get<double>(v));
}

/// Rows of one relation, filled by column name (columns left unset are NULL).
class RowSet {
 public:
  explicit RowSet(const RelationSpec& spec) : columns_(ColumnsOf(spec)) {
    for (size_t i = 0; i < columns_.size(); ++i)
      index_[columns_[i].name] = i;
  }

  void NewRow() { rows_.emplace_back(columns_.size()); }

  RowSet& Set(std::string_view column, bool value) { return Put(column, Value(value)); }
  RowSet& Set(std::string_view column, int value) {
    return Put(column, Value(static_cast<int64_t>(value)));
  }
  RowSet& Set(std::string_view column, int64_t value) { return Put(column, Value(value)); }
  RowSet& Set(std::string_view column, double value) { return Put(column, Value(value)); }
  RowSet& Set(std::string_view column, char value) {
    return Put(column, Value(std::string(1, value)));
  }
  RowSet& Set(std::string_view column, const char* value) {
    return Put(column, Value(std::string(value)));
  }
  RowSet& Set(std::string_view column, std::string_view value) {
    return Put(column, Value(std::string(value)));
  }
  RowSet& Set(std::string_view column, const std::string& value) {
    return Put(column, Value(value));
  }

  Result<io::TableProviderPtr> Finish() const {
    std::vector<Field> fields;
    for (const auto& c : columns_)
      fields.emplace_back(c.name, TypeOfCode(c.code), true);
    auto schema = std::make_shared<columnar::Schema>(std::move(fields));
    std::vector<columnar::ArrayPtr> arrays;
    for (size_t col = 0; col < columns_.size(); ++col) {
      auto builder = columnar::MakeBuilder(TypeOfCode(columns_[col].code), DefaultMemoryPool());
      SHOAL_RETURN_IF_ERROR(builder->Reserve(static_cast<int64_t>(rows_.size())));
      for (const auto& row : rows_) {
        const Value& v = row[col];
        if (std::holds_alternative<std::monostate>(v)) {
          SHOAL_RETURN_IF_ERROR(builder->AppendNull());
          continue;
        }
        switch (TypeOfCode(columns_[col].code).id()) {
          case TypeId::kBoolean:
            SHOAL_RETURN_IF_ERROR(
                static_cast<columnar::BooleanBuilder&>(*builder).Append(AsInt(v) != 0));
            break;
          case TypeId::kInt16:
            SHOAL_RETURN_IF_ERROR(static_cast<columnar::Int16Builder&>(*builder).Append(
                static_cast<int16_t>(AsInt(v))));
            break;
          case TypeId::kInt32:
            SHOAL_RETURN_IF_ERROR(static_cast<columnar::Int32Builder&>(*builder).Append(
                static_cast<int32_t>(AsInt(v))));
            break;
          case TypeId::kInt64:
          case TypeId::kTimestamp:  // microseconds since the epoch
            SHOAL_RETURN_IF_ERROR(static_cast<columnar::Int64Builder&>(*builder).Append(AsInt(v)));
            break;
          case TypeId::kFloat32: {
            const double d = std::holds_alternative<double>(v) ? std::get<double>(v)
                                                               : static_cast<double>(AsInt(v));
            SHOAL_RETURN_IF_ERROR(
                static_cast<columnar::Float32Builder&>(*builder).Append(static_cast<float>(d)));
            break;
          }
          default:
            SHOAL_RETURN_IF_ERROR(
                static_cast<columnar::BinaryBuilder&>(*builder).Append(AsText(v)));
            break;
        }
      }
      SHOAL_ASSIGN_OR_RETURN(auto array, builder->Finish());
      arrays.push_back(std::move(array));
    }
    std::vector<columnar::RecordBatchPtr> batches;
    if (!rows_.empty())
      batches.push_back(columnar::RecordBatch::Make(schema, static_cast<int64_t>(rows_.size()),
                                                    std::move(arrays)));
    SHOAL_ASSIGN_OR_RETURN(auto table, io::MemoryTable::Make(schema, std::move(batches)));
    return io::TableProviderPtr(std::move(table));
  }

 private:
  RowSet& Put(std::string_view column, Value value) {
    auto it = index_.find(std::string(column));
    SHOAL_CHECK(it != index_.end(), "no system catalog column {}", column);
    rows_.back()[it->second] = std::move(value);
    return *this;
  }

  std::vector<SpecColumn> columns_;
  std::map<std::string, size_t> index_;
  std::vector<std::vector<Value>> rows_;
};

uint64_t Fnv1a(std::string_view kind, std::string_view schema, std::string_view name) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ULL;
    }
    h ^= 0xff;  // separator: ("ab", "c") and ("a", "bc") differ
    h *= 1099511628211ULL;
  };
  mix(kind);
  mix(schema);
  mix(name);
  return h;
}

int64_t HashOid(std::string_view kind, std::string_view schema, std::string_view name) {
  constexpr uint64_t kFirst = 16384;
  constexpr uint64_t kEnd = uint64_t{1} << 31;
  return static_cast<int64_t>(kFirst + Fnv1a(kind, schema, name) % (kEnd - kFirst));
}

/// A relation of the snapshot the builders read.
struct Relation {
  std::string schema;
  std::string name;
  char kind = 'r';  // r table, v view, i index
  std::vector<Field> columns;
  std::vector<char> codes;  // system relations: their columns' type codes
  bool system = false;
  bool insertable = false;
  std::string view_sql;
  std::optional<IndexEntry> index;
};

struct Snapshot {
  std::vector<std::string> schemas;
  std::vector<Relation> relations;
};

Snapshot TakeSnapshot(const SystemCatalogContext& context, bool with_columns) {
  Snapshot snap;
  const Catalog& catalog = *context.catalog;
  snap.schemas = catalog.SchemaNames();
  for (const auto& spec : kSpecs) {
    Relation r;
    r.schema = spec.schema;
    r.name = spec.name;
    r.kind = 'v';  // PostgreSQL's own relations are tables or views; to a client both read alike
    r.system = true;
    for (const auto& c : ColumnsOf(spec)) {
      r.columns.emplace_back(c.name, TypeOfCode(c.code), true);
      r.codes.push_back(c.code);
    }
    snap.relations.push_back(std::move(r));
  }
  for (const auto& schema : snap.schemas) {
    for (const auto& name : catalog.ListNames(schema)) {
      auto object = catalog.Lookup(schema, name);
      if (!object.ok())
        continue;  // dropped meanwhile
      Relation r;
      r.schema = schema;
      r.name = name;
      if (object->table) {
        r.kind = 'r';
        r.insertable = object->table->insertable;
        const auto& fields = object->table->provider->schema()->fields();
        r.columns.assign(fields.begin(), fields.end());
        std::vector<Field> table_columns = r.columns;
        snap.relations.push_back(std::move(r));
        for (auto& index : catalog.IndexesOf(schema, name)) {
          Relation ir;
          ir.schema = schema;
          ir.name = index.name;
          ir.kind = 'i';
          for (const auto& key : index.columns) {
            auto it = std::find_if(table_columns.begin(), table_columns.end(),
                                   [&key](const Field& f) { return f.name == key; });
            ir.columns.push_back(it != table_columns.end() ? *it : Field(key, DataType::Utf8()));
          }
          ir.index = std::move(index);
          snap.relations.push_back(std::move(ir));
        }
      } else {
        r.kind = 'v';
        r.view_sql = object->view->sql;
        if (with_columns && context.view_columns)
          r.columns = context.view_columns(*object->view);
        snap.relations.push_back(std::move(r));
      }
    }
  }
  return snap;
}

std::string QuoteIdentifier(std::string_view name) {
  bool plain =
      !name.empty() && (std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) {
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      plain = false;
  }
  if (plain)
    return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"')
      out += '"';
    out += c;
  }
  return out + "\"";
}

std::string JoinColumns(const std::vector<std::string>& columns, bool quote) {
  std::string out;
  for (const auto& c : columns) {
    if (!out.empty())
      out += ", ";
    out += quote ? QuoteIdentifier(c) : c;
  }
  return out;
}

std::string IndexDefinition(const IndexEntry& index) {
  return fmt::format("CREATE {}INDEX {} ON {}.{} USING btree ({})", index.unique ? "UNIQUE " : "",
                     QuoteIdentifier(index.name), QuoteIdentifier(index.schema),
                     QuoteIdentifier(index.table),
                     JoinColumns(index.columns, !index.has_expressions));
}

int64_t RelationOidOf(const Relation& r) {
  return RelationOid(r.schema, r.name);
}

int64_t OwnerOid(std::string_view schema) {
  return schema == kDefaultSchema ? kDatabaseOwnerRoleOid : kSessionUserOid;
}

// ------------------------------------------------------------------------------------------
// pg_catalog

void FillNamespaces(const Snapshot& snap, RowSet& rows) {
  std::set<std::string> names(snap.schemas.begin(), snap.schemas.end());
  names.insert(std::string(kPgCatalogSchema));
  names.insert(std::string(kInformationSchema));
  for (const auto& name : names) {
    rows.NewRow();
    rows.Set("oid", NamespaceOid(name)).Set("nspname", name).Set("nspowner", OwnerOid(name));
    if (name == kDefaultSchema)  // PostgreSQL 15's grants on public
      rows.Set("nspacl", "{pg_database_owner=UC/pg_database_owner,=U/pg_database_owner}");
  }
}

void FillClasses(const Snapshot& snap, RowSet& rows) {
  for (const auto& r : snap.relations) {
    rows.NewRow();
    bool has_index = false;
    for (const auto& other : snap.relations)
      has_index |= other.index && other.schema == r.schema && other.index->table == r.name;
    rows.Set("oid", RelationOidOf(r))
        .Set("relname", r.name)
        .Set("relnamespace", NamespaceOid(r.schema))
        .Set("reltype", 0)
        .Set("reloftype", 0)
        .Set("relowner", kSessionUserOid)
        .Set("relam", r.kind == 'i'   ? 403
                      : r.kind == 'r' ? 2
                                      : 0)
        .Set("relfilenode", r.kind == 'v' ? 0 : RelationOidOf(r))
        .Set("reltablespace", 0)
        .Set("relpages", 0)
        .Set("reltuples", -1.0)
        .Set("relallvisible", 0)
        .Set("reltoastrelid", 0)
        .Set("relhasindex", has_index)
        .Set("relisshared", false)
        .Set("relpersistence", 'p')
        .Set("relkind", r.kind)
        .Set("relnatts", static_cast<int64_t>(r.columns.size()))
        .Set("relchecks", 0)
        .Set("relhasrules", r.kind == 'v')
        .Set("relhastriggers", false)
        .Set("relhassubclass", false)
        .Set("relrowsecurity", false)
        .Set("relforcerowsecurity", false)
        .Set("relispopulated", true)
        .Set("relreplident", r.kind == 'r' ? 'd' : 'n')
        .Set("relispartition", false)
        .Set("relrewrite", 0)
        .Set("relfrozenxid", 0)
        .Set("relminmxid", 0);
  }
}

void FillAttributes(const Snapshot& snap, RowSet& rows) {
  for (const auto& r : snap.relations) {
    for (size_t i = 0; i < r.columns.size(); ++i) {
      const Field& f = r.columns[i];
      columnar::PgType pg = columnar::PgTypeOf(f.type);
      int64_t type_oid = r.system ? PgOidOfCode(r.codes[i]) : pg.oid;
      rows.NewRow();
      rows.Set("attrelid", RelationOidOf(r))
          .Set("attname", f.name)
          .Set("atttypid", type_oid)
          .Set("attstattarget", -1)
          .Set("attlen", static_cast<int64_t>(pg.length))
          .Set("attnum", static_cast<int64_t>(i + 1))
          .Set("attndims", 0)
          .Set("attcacheoff", -1)
          .Set("atttypmod", static_cast<int64_t>(r.system ? -1 : pg.modifier))
          .Set("attbyval", pg.length > 0 && pg.length <= 8)
          .Set("attalign", pg.length == 8   ? 'd'
                           : pg.length == 2 ? 's'
                           : pg.length == 1 ? 'c'
                                            : 'i')
          .Set("attstorage", pg.length > 0 ? 'p' : 'x')
          .Set("attcompression", std::string())
          .Set("attnotnull", !f.nullable)
          .Set("atthasdef", false)
          .Set("atthasmissing", false)
          .Set("attidentity", std::string())
          .Set("attgenerated", std::string())
          .Set("attisdropped", false)
          .Set("attislocal", true)
          .Set("attinhcount", 0)
          .Set("attcollation", type_oid == columnar::pg_oid::kText ? 100 : 0);
    }
  }
}

void FillTypes(RowSet& rows) {
  for (const auto& t : SystemTypes()) {
    rows.NewRow();
    rows.Set("oid", t.oid)
        .Set("typname", t.typname)
        .Set("typnamespace", kPgCatalogNamespaceOid)
        .Set("typowner", kSessionUserOid)
        .Set("typlen", static_cast<int64_t>(t.length))
        .Set("typbyval", t.length > 0 && t.length <= 8)
        .Set("typtype", 'b')
        .Set("typcategory", t.category)
        .Set("typispreferred", false)
        .Set("typisdefined", true)
        .Set("typdelim", ',')
        .Set("typrelid", 0)
        .Set("typelem", 0)
        .Set("typarray", 0)
        .Set("typnotnull", false)
        .Set("typbasetype", 0)
        .Set("typtypmod", -1)
        .Set("typndims", 0)
        .Set("typcollation", t.category == 'S' ? 100 : 0);
  }
}

void FillIndexes(const Snapshot& snap, RowSet& rows) {
  for (const auto& r : snap.relations) {
    if (!r.index)
      continue;
    const IndexEntry& index = *r.index;
    const Relation* table = nullptr;
    for (const auto& t : snap.relations) {
      if (t.kind == 'r' && t.schema == index.schema && t.name == index.table)
        table = &t;
    }
    std::string keys;
    for (const auto& key : index.columns) {
      int attnum = 0;
      for (size_t i = 0; table != nullptr && i < table->columns.size(); ++i) {
        if (table->columns[i].name == key)
          attnum = static_cast<int>(i + 1);
      }
      keys += (keys.empty() ? "" : " ") + std::to_string(attnum);
    }
    const auto num_keys = static_cast<int64_t>(index.columns.size());
    rows.NewRow();
    rows.Set("indexrelid", RelationOidOf(r))
        .Set("indrelid", RelationOid(index.schema, index.table))
        .Set("indnatts", num_keys)
        .Set("indnkeyatts", num_keys)
        .Set("indisunique", index.unique)
        .Set("indnullsnotdistinct", !index.nulls_distinct)
        .Set("indisprimary", index.constraint == "PRIMARY KEY")
        .Set("indisexclusion", false)
        .Set("indimmediate", true)
        .Set("indisclustered", false)
        .Set("indisvalid", true)
        .Set("indcheckxmin", false)
        .Set("indisready", true)
        .Set("indislive", true)
        .Set("indisreplident", false)
        .Set("indkey", keys);
  }
}

void FillConstraints(const Snapshot& snap, RowSet& rows) {
  for (const auto& r : snap.relations) {
    if (!r.index || r.index->constraint.empty())
      continue;
    const IndexEntry& index = *r.index;
    rows.NewRow();
    rows.Set("oid", ConstraintOid(index.schema, index.name))
        .Set("conname", index.name)
        .Set("connamespace", NamespaceOid(index.schema))
        .Set("contype", index.constraint == "PRIMARY KEY" ? 'p' : 'u')
        .Set("condeferrable", false)
        .Set("condeferred", false)
        .Set("convalidated", true)
        .Set("conrelid", RelationOid(index.schema, index.table))
        .Set("contypid", 0)
        .Set("conindid", RelationOidOf(r))
        .Set("conparentid", 0)
        .Set("confrelid", 0)
        .Set("confupdtype", ' ')
        .Set("confdeltype", ' ')
        .Set("confmatchtype", ' ')
        .Set("conislocal", true)
        .Set("coninhcount", 0)
        .Set("connoinherit", true);
  }
}

void FillDatabases(RowSet& rows) {
  rows.NewRow();
  rows.Set("oid", kDatabaseOid)
      .Set("datname", kDatabaseName)
      .Set("datdba", kSessionUserOid)
      .Set("encoding", 6)  // UTF8
      .Set("datlocprovider", 'c')
      .Set("datistemplate", false)
      .Set("datallowconn", true)
      .Set("datconnlimit", -1)
      .Set("datfrozenxid", 0)
      .Set("datminmxid", 1)
      .Set("dattablespace", 1663)
      .Set("datcollate", "C")
      .Set("datctype", "C");
}

std::mutex& BackendActivityMutex() {
  static std::mutex mutex;
  return mutex;
}

BackendActivitySource& BackendActivitySourceSlot() {
  static BackendActivitySource source;
  return source;
}

void FillStatActivity(RowSet& rows) {
  for (const BackendActivity& b : CurrentBackendActivity()) {
    rows.NewRow();
    rows.Set("datid", kDatabaseOid)
        .Set("datname", b.database)
        .Set("pid", static_cast<int64_t>(b.pid))
        .Set("usesysid", kSessionUserOid)
        .Set("usename", b.user)
        .Set("application_name", b.application_name)
        .Set("backend_start", b.backend_start_unix_ms * 1000)
        .Set("state", b.state)
        .Set("query", b.query)
        .Set("backend_type", "client backend");
    if (!b.client_addr.empty())
      rows.Set("client_addr", b.client_addr);
    if (b.query_start_unix_ms != 0)
      rows.Set("query_start", b.query_start_unix_ms * 1000)
          .Set("state_change", b.query_start_unix_ms * 1000);
  }
}

void FillRoles(const SystemCatalogContext& context, RowSet& rows) {
  struct Role {
    int64_t oid;
    std::string name;
    bool login;
  };
  for (const Role& role : {Role{kSessionUserOid, context.user_name, true},
                           Role{kDatabaseOwnerRoleOid, "pg_database_owner", false}}) {
    rows.NewRow();
    rows.Set("rolname", role.name)
        .Set("rolsuper", role.login)
        .Set("rolinherit", true)
        .Set("rolcreaterole", role.login)
        .Set("rolcreatedb", role.login)
        .Set("rolcanlogin", role.login)
        .Set("rolreplication", false)
        .Set("rolconnlimit", -1)
        .Set("rolpassword", "********")
        .Set("rolbypassrls", role.login)
        .Set("oid", role.oid);
  }
}

void FillUsers(const SystemCatalogContext& context, RowSet& rows) {
  rows.NewRow();
  rows.Set("usename", context.user_name)
      .Set("usesysid", kSessionUserOid)
      .Set("usecreatedb", true)
      .Set("usesuper", true)
      .Set("userepl", false)
      .Set("usebypassrls", true)
      .Set("passwd", "********");
}

void FillSettings(const SystemCatalogContext& context, RowSet& rows) {
  // What the server reports at start-up (ParameterStatus) beside the session's own settings.
  std::map<std::string, std::pair<std::string, std::string>> all = {
      {"client_encoding", {"UTF8", "Sets the client's character set encoding."}},
      {"DateStyle", {"ISO, MDY", "Sets the display format for date and time values."}},
      {"integer_datetimes", {"on", "Shows whether datetimes are integer based."}},
      {"IntervalStyle", {"postgres", "Sets the display format for interval values."}},
      {"max_identifier_length", {"63", "Shows the maximum identifier length."}},
      {"search_path", {"\"$user\", public", "Sets the schema search order for names."}},
      {"server_encoding", {"UTF8", "Shows the server (database) character set encoding."}},
      {"server_version", {"15.0", "Shows the server version."}},
      {"server_version_num", {"150000", "Shows the server version as an integer."}},
      {"standard_conforming_strings",
       {"on", "Causes '...' strings to treat backslashes literally."}},
      {"TimeZone", {"UTC", "Sets the time zone for displaying and interpreting time stamps."}},
      {"transaction_isolation",
       {"read committed", "Sets the current transaction's isolation level."}},
  };
  if (context.settings != nullptr) {
    for (const auto& entry : context.settings->All())
      all[entry.name] = {entry.value, entry.description};
  }
  for (const auto& [name, value] : all) {
    rows.NewRow();
    rows.Set("name", name)
        .Set("setting", value.first)
        .Set("category", "Shoal")
        .Set("short_desc", value.second)
        .Set("context", "user")
        .Set("vartype", "string")
        .Set("source", "default")
        .Set("boot_val", value.first)
        .Set("reset_val", value.first)
        .Set("pending_restart", false);
  }
}

void FillAccessMethods(RowSet& rows) {
  // PostgreSQL 15's access methods: heap for tables, btree for Shoal's indexes, and the others
  // clients may list.
  struct Method {
    int oid;
    const char* name;
    int handler;
    char type;
  };
  for (const Method& m :
       {Method{2, "heap", 3, 't'}, Method{403, "btree", 330, 'i'}, Method{405, "hash", 331, 'i'},
        Method{783, "gist", 332, 'i'}, Method{2742, "gin", 333, 'i'},
        Method{4000, "spgist", 334, 'i'}, Method{3580, "brin", 335, 'i'}}) {
    rows.NewRow();
    rows.Set("oid", m.oid).Set("amname", m.name).Set("amhandler", m.handler).Set("amtype", m.type);
  }
}

void FillProcedures(RowSet& rows) {
  // Shoal's functions, as built-ins of pg_catalog (no signatures: psql's \df lists only the
  // functions of other schemas, and Shoal has no user-defined functions).
  const auto& registry = FunctionRegistry::Global();
  std::set<std::pair<std::string, char>> seen;
  for (const auto& name : registry.Names()) {
    const FunctionDefinition* def = registry.Find(name);
    if (def == nullptr)
      continue;
    char kind = def->kind == FunctionKind::kAggregate ? 'a'
                : def->kind == FunctionKind::kWindow  ? 'w'
                                                      : 'f';
    if (!seen.insert({name, kind}).second)
      continue;
    rows.NewRow();
    rows.Set("oid", HashOid("proc", kPgCatalogSchema, name))
        .Set("proname", name)
        .Set("pronamespace", kPgCatalogNamespaceOid)
        .Set("proowner", kSessionUserOid)
        .Set("prolang", 12)
        .Set("prokind", kind)
        .Set("prosecdef", false)
        .Set("proretset", false)
        .Set("provolatile", 'i')
        .Set("pronargs", 0)
        .Set("pronargdefaults", 0)
        .Set("prorettype", 0)
        .Set("proargtypes", std::string());
  }
}

void FillPgTables(const SystemCatalogContext& context, const Snapshot& snap, RowSet& rows) {
  for (const auto& r : snap.relations) {
    if (r.kind != 'r' || r.system)
      continue;
    bool has_index = false;
    for (const auto& other : snap.relations)
      has_index |= other.index && other.schema == r.schema && other.index->table == r.name;
    rows.NewRow();
    rows.Set("schemaname", r.schema)
        .Set("tablename", r.name)
        .Set("tableowner", context.user_name)
        .Set("hasindexes", has_index)
        .Set("hasrules", false)
        .Set("hastriggers", false)
        .Set("rowsecurity", false);
  }
}

void FillPgViews(const SystemCatalogContext& context, const Snapshot& snap, RowSet& rows) {
  for (const auto& r : snap.relations) {
    if (r.kind != 'v' || r.system)
      continue;
    rows.NewRow();
    rows.Set("schemaname", r.schema)
        .Set("viewname", r.name)
        .Set("viewowner", context.user_name)
        .Set("definition", r.view_sql);
  }
}

void FillPgIndexes(const Snapshot& snap, RowSet& rows) {
  for (const auto& r : snap.relations) {
    if (!r.index)
      continue;
    rows.NewRow();
    rows.Set("schemaname", r.schema)
        .Set("tablename", r.index->table)
        .Set("indexname", r.name)
        .Set("indexdef", IndexDefinition(*r.index));
  }
}

// ------------------------------------------------------------------------------------------
// information_schema

std::string_view YesNo(bool b) {
  return b ? "YES" : "NO";
}

void FillSchemata(const SystemCatalogContext& context, const Snapshot& snap, RowSet& rows) {
  std::set<std::string> names(snap.schemas.begin(), snap.schemas.end());
  names.insert(std::string(kPgCatalogSchema));
  names.insert(std::string(kInformationSchema));
  for (const auto& name : names) {
    rows.NewRow();
    rows.Set("catalog_name", kDatabaseName)
        .Set("schema_name", name)
        .Set("schema_owner",
             name == kDefaultSchema ? std::string("pg_database_owner") : context.user_name);
  }
}

void FillInfoTables(const Snapshot& snap, RowSet& rows) {
  for (const auto& r : snap.relations) {
    if (r.kind == 'i')
      continue;
    rows.NewRow();
    rows.Set("table_catalog", kDatabaseName)
        .Set("table_schema", r.schema)
        .Set("table_name", r.name)
        .Set("table_type", r.kind == 'r' ? "BASE TABLE" : "VIEW")
        .Set("is_insertable_into", YesNo(r.kind == 'r' && r.insertable))
        .Set("is_typed", "NO");
  }
}

/// information_schema.columns's description of a type: data_type, then the numeric and datetime
/// facets.
void SetColumnType(const DataType& type, char code, RowSet& rows) {
  columnar::PgType pg = columnar::PgTypeOf(type);
  int64_t oid = code != 0 ? PgOidOfCode(code) : pg.oid;
  std::string data_type;
  std::string udt;
  for (const auto& t : SystemTypes()) {
    if (t.oid == oid) {
      // information_schema spells every array type ARRAY (udt_name tells which).
      data_type = t.category == 'A' ? "ARRAY" : t.display;
      udt = t.typname;
    }
  }
  if (oid == columnar::pg_oid::kName || oid == columnar::pg_oid::kOid ||
      oid == columnar::pg_oid::kChar)
    data_type = oid == columnar::pg_oid::kChar ? "\"char\"" : udt;
  rows.Set("data_type", data_type)
      .Set("udt_catalog", kDatabaseName)
      .Set("udt_schema", kPgCatalogSchema)
      .Set("udt_name", udt);
  switch (oid) {
    case columnar::pg_oid::kInt2:
      rows.Set("numeric_precision", 16).Set("numeric_precision_radix", 2).Set("numeric_scale", 0);
      break;
    case columnar::pg_oid::kInt4:
      rows.Set("numeric_precision", 32).Set("numeric_precision_radix", 2).Set("numeric_scale", 0);
      break;
    case columnar::pg_oid::kInt8:
      rows.Set("numeric_precision", 64).Set("numeric_precision_radix", 2).Set("numeric_scale", 0);
      break;
    case columnar::pg_oid::kFloat4:
      rows.Set("numeric_precision", 24).Set("numeric_precision_radix", 2);
      break;
    case columnar::pg_oid::kFloat8:
      rows.Set("numeric_precision", 53).Set("numeric_precision_radix", 2);
      break;
    case columnar::pg_oid::kNumeric:
      rows.Set("numeric_precision_radix", 10);
      if (pg.modifier >= 4)
        rows.Set("numeric_precision", (pg.modifier - 4) >> 16)
            .Set("numeric_scale", (pg.modifier - 4) & 0xffff);
      break;
    case columnar::pg_oid::kDate: rows.Set("datetime_precision", 0); break;
    case columnar::pg_oid::kTimestamp:
    case columnar::pg_oid::kTimestampTz:
    case columnar::pg_oid::kInterval: rows.Set("datetime_precision", 6); break;
    case columnar::pg_oid::kText: rows.Set("character_octet_length", 1073741824); break;
    default: break;
  }
}

void FillColumns(const Snapshot& snap, RowSet& rows) {
  for (const auto& r : snap.relations) {
    if (r.kind == 'i')
      continue;
    for (size_t i = 0; i < r.columns.size(); ++i) {
      const Field& f = r.columns[i];
      rows.NewRow();
      rows.Set("table_catalog", kDatabaseName)
          .Set("table_schema", r.schema)
          .Set("table_name", r.name)
          .Set("column_name", f.name)
          .Set("ordinal_position", static_cast<int64_t>(i + 1))
          .Set("is_nullable", YesNo(f.nullable))
          .Set("dtd_identifier", std::to_string(i + 1))
          .Set("is_self_referencing", "NO")
          .Set("is_identity", "NO")
          .Set("identity_cycle", "NO")
          .Set("is_generated", "NEVER")
          .Set("is_updatable", YesNo(r.kind == 'r' && r.insertable));
      SetColumnType(f.type, r.system ? r.codes[i] : 0, rows);
    }
  }
}

void FillInfoViews(const Snapshot& snap, RowSet& rows) {
  for (const auto& r : snap.relations) {
    if (r.kind != 'v' || r.system)
      continue;
    rows.NewRow();
    rows.Set("table_catalog", kDatabaseName)
        .Set("table_schema", r.schema)
        .Set("table_name", r.name)
        .Set("view_definition", r.view_sql)
        .Set("check_option", "NONE")
        .Set("is_updatable", "NO")
        .Set("is_insertable_into", "NO")
        .Set("is_trigger_updatable", "NO")
        .Set("is_trigger_deletable", "NO")
        .Set("is_trigger_insertable_into", "NO");
  }
}

}  // namespace

const std::vector<SystemType>& SystemTypes() {
  static const std::vector<SystemType> kTypes = {
      {16, "bool", "boolean", 1, 'B'},
      {17, "bytea", "bytea", -1, 'U'},
      {18, "char", "\"char\"", 1, 'Z'},
      {19, "name", "name", 64, 'S'},
      {20, "int8", "bigint", 8, 'N'},
      {21, "int2", "smallint", 2, 'N'},
      {23, "int4", "integer", 4, 'N'},
      {24, "regproc", "regproc", 4, 'N'},
      {25, "text", "text", -1, 'S'},
      {26, "oid", "oid", 4, 'N'},
      {700, "float4", "real", 4, 'N'},
      {701, "float8", "double precision", 8, 'N'},
      {705, "unknown", "unknown", -2, 'X'},
      {1042, "bpchar", "character", -1, 'S'},
      {1043, "varchar", "character varying", -1, 'S'},
      {1082, "date", "date", 4, 'D'},
      {1114, "timestamp", "timestamp without time zone", 8, 'D'},
      {1184, "timestamptz", "timestamp with time zone", 8, 'D'},
      {1186, "interval", "interval", 16, 'T'},
      {1700, "numeric", "numeric", -1, 'N'},
      {2205, "regclass", "regclass", 4, 'N'},
      {2206, "regtype", "regtype", 4, 'N'},
      {4089, "regnamespace", "regnamespace", 4, 'N'},
      // Records and the array types of Shoal's element types (columnar/pg_type.h).
      {2249, "record", "record", -1, 'P'},
      {1000, "_bool", "boolean[]", -1, 'A'},
      {1001, "_bytea", "bytea[]", -1, 'A'},
      {1005, "_int2", "smallint[]", -1, 'A'},
      {1007, "_int4", "integer[]", -1, 'A'},
      {1009, "_text", "text[]", -1, 'A'},
      {1016, "_int8", "bigint[]", -1, 'A'},
      {1021, "_float4", "real[]", -1, 'A'},
      {1022, "_float8", "double precision[]", -1, 'A'},
      {1115, "_timestamp", "timestamp without time zone[]", -1, 'A'},
      {1182, "_date", "date[]", -1, 'A'},
      {1185, "_timestamptz", "timestamp with time zone[]", -1, 'A'},
      {1187, "_interval", "interval[]", -1, 'A'},
      {1231, "_numeric", "numeric[]", -1, 'A'},
      {2287, "_record", "record[]", -1, 'A'},
  };
  return kTypes;
}

bool IsSystemSchema(std::string_view schema) {
  return schema == kPgCatalogSchema || schema == kInformationSchema;
}

bool IsSystemRelation(std::string_view schema, std::string_view name) {
  return FindSpec(schema, name) != nullptr;
}

int64_t NamespaceOid(std::string_view schema) {
  if (schema == kPgCatalogSchema)
    return kPgCatalogNamespaceOid;
  if (schema == kDefaultSchema)
    return kPublicNamespaceOid;
  if (schema == kInformationSchema)
    return kInformationSchemaNamespaceOid;
  return HashOid("namespace", "", schema);
}

int64_t RelationOid(std::string_view schema, std::string_view name) {
  return HashOid("relation", schema, name);
}

int64_t ConstraintOid(std::string_view schema, std::string_view name) {
  return HashOid("constraint", schema, name);
}

std::vector<NamedOid> RelationOids(const SystemCatalogContext& context) {
  std::vector<NamedOid> out;
  for (const auto& r : TakeSnapshot(context, /*with_columns=*/false).relations) {
    std::string text = r.schema == kDefaultSchema || r.schema == kPgCatalogSchema
                           ? QuoteIdentifier(r.name)
                           : QuoteIdentifier(r.schema) + "." + QuoteIdentifier(r.name);
    out.push_back({RelationOidOf(r), r.schema, r.name, std::move(text)});
  }
  return out;
}

std::vector<NamedOid> NamespaceOids(const Catalog& catalog) {
  std::set<std::string> names;
  for (const auto& s : catalog.SchemaNames())
    names.insert(s);
  names.insert(std::string(kPgCatalogSchema));
  names.insert(std::string(kInformationSchema));
  std::vector<NamedOid> out;
  out.reserve(names.size());
  for (const auto& name : names)
    out.push_back({NamespaceOid(name), name, name, QuoteIdentifier(name)});
  return out;
}

std::vector<NamedOid> IndexDefinitions(const Catalog& catalog) {
  std::vector<NamedOid> out;
  for (const auto& schema : catalog.SchemaNames()) {
    for (const auto& name : catalog.ListNames(schema)) {
      for (const auto& index : catalog.IndexesOf(schema, name))
        out.push_back(
            {RelationOid(schema, index.name), schema, index.name, IndexDefinition(index)});
    }
  }
  return out;
}

std::vector<NamedOid> IndexColumns(const Catalog& catalog) {
  std::vector<NamedOid> out;
  for (const auto& schema : catalog.SchemaNames()) {
    for (const auto& name : catalog.ListNames(schema)) {
      for (const auto& index : catalog.IndexesOf(schema, name)) {
        for (size_t i = 0; i < index.columns.size(); ++i)
          out.push_back(
              {RelationOid(schema, index.name), schema, std::to_string(i + 1),
               index.has_expressions ? index.columns[i] : QuoteIdentifier(index.columns[i])});
      }
    }
  }
  return out;
}

std::vector<NamedOid> ConstraintDefinitions(const Catalog& catalog) {
  std::vector<NamedOid> out;
  for (const auto& schema : catalog.SchemaNames()) {
    for (const auto& name : catalog.ListNames(schema)) {
      for (const auto& index : catalog.IndexesOf(schema, name)) {
        if (index.constraint.empty())
          continue;
        out.push_back({ConstraintOid(schema, index.name), schema, index.name,
                       fmt::format("{} ({})", index.constraint, JoinColumns(index.columns, true))});
      }
    }
  }
  return out;
}

Result<io::TableProviderPtr> BuildSystemRelation(const SystemCatalogContext& context,
                                                 std::string_view schema, std::string_view name) {
  const RelationSpec* spec = FindSpec(schema, name);
  if (spec == nullptr)
    return Status::NotFound("relation \"{}.{}\" does not exist", schema, name)
        .WithSqlState("42P01");
  RowSet rows(*spec);
  const std::string_view n = spec->name;
  auto snapshot = [&context](bool with_columns) { return TakeSnapshot(context, with_columns); };
  if (spec->schema == kInformationSchema) {
    if (n == "schemata")
      FillSchemata(context, snapshot(false), rows);
    else if (n == "tables")
      FillInfoTables(snapshot(false), rows);
    else if (n == "columns")
      FillColumns(snapshot(true), rows);
    else if (n == "views")
      FillInfoViews(snapshot(false), rows);
  } else if (n == "pg_namespace") {
    FillNamespaces(snapshot(false), rows);
  } else if (n == "pg_class") {
    FillClasses(snapshot(true), rows);
  } else if (n == "pg_attribute") {
    FillAttributes(snapshot(true), rows);
  } else if (n == "pg_type") {
    FillTypes(rows);
  } else if (n == "pg_index") {
    FillIndexes(snapshot(false), rows);
  } else if (n == "pg_constraint") {
    FillConstraints(snapshot(false), rows);
  } else if (n == "pg_database") {
    FillDatabases(rows);
  } else if (n == "pg_roles") {
    FillRoles(context, rows);
  } else if (n == "pg_user") {
    FillUsers(context, rows);
  } else if (n == "pg_settings") {
    FillSettings(context, rows);
  } else if (n == "pg_stat_activity") {
    FillStatActivity(rows);
  } else if (n == "pg_am") {
    FillAccessMethods(rows);
  } else if (n == "pg_proc") {
    FillProcedures(rows);
  } else if (n == "pg_tables") {
    FillPgTables(context, snapshot(false), rows);
  } else if (n == "pg_views") {
    FillPgViews(context, snapshot(false), rows);
  } else if (n == "pg_indexes") {
    FillPgIndexes(snapshot(false), rows);
  } else if (n == "pg_description") {
    rows.NewRow();
    rows.Set("objoid", kPublicNamespaceOid)
        .Set("classoid", kNamespaceClassOid)
        .Set("objsubid", 0)
        .Set("description", kPublicSchemaComment);
  } else if (n == "pg_tablespace") {
    rows.NewRow();
    rows.Set("oid", 1663).Set("spcname", "pg_default").Set("spcowner", kSessionUserOid);
  } else if (n == "pg_collation") {
    rows.NewRow();
    rows.Set("oid", 100)
        .Set("collname", "default")
        .Set("collnamespace", kPgCatalogNamespaceOid)
        .Set("collowner", kSessionUserOid)
        .Set("collprovider", 'd')
        .Set("collisdeterministic", true)
        .Set("collencoding", -1);
    rows.NewRow();
    rows.Set("oid", 950)
        .Set("collname", "C")
        .Set("collnamespace", kPgCatalogNamespaceOid)
        .Set("collowner", kSessionUserOid)
        .Set("collprovider", 'c')
        .Set("collisdeterministic", true)
        .Set("collencoding", -1)
        .Set("collcollate", "C")
        .Set("collctype", "C");
  }
  // Every other relation (pg_attrdef, pg_inherits, pg_policy, ...): no rows.
  return rows.Finish();
}

void SetBackendActivitySource(BackendActivitySource source) {
  std::lock_guard<std::mutex> lock(BackendActivityMutex());
  BackendActivitySourceSlot() = std::move(source);
}

std::vector<BackendActivity> CurrentBackendActivity() {
  BackendActivitySource source;
  {
    std::lock_guard<std::mutex> lock(BackendActivityMutex());
    source = BackendActivitySourceSlot();
  }
  return source ? source() : std::vector<BackendActivity>();
}

}  // namespace shoal::sql
