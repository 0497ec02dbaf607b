// The built-in table codecs (table_codec.h) and the registry that holds them all. Kept apart from
// table_codec.cc so the codec interface and its registry know no concrete codec (file_table_codec.h
// includes table_codec.h; only this file includes both).
#include <utility>

#include <fmt/format.h>

#include "shoal/distributed/codec/file_table_codec.h"
#include "shoal/distributed/codec/memory_table_codec.h"
#include "shoal/distributed/codec/table_codec.h"
#include "shoal/distributed/codec/type_codec.h"
#include "shoal/io/delimited_table.h"

namespace shoal::distributed {

namespace {

class DelimitedTableCodec final : public TableCodec {
 public:
  std::string id() const override { return "shoal.delimited/1"; }

  // Provider casts, not plan nodes: io::TableProvider names no format a codec could switch on,
  // and the codec needs the concrete table's parser options.
  bool CanEncode(const io::TableProvider& table) const override {
    return dynamic_cast<const io::DelimitedTable*>(&table) != nullptr;
  }

  Result<std::string> Encode(const io::TableProvider& table, const std::string&) const override {
    const auto& t = dynamic_cast<const io::DelimitedTable&>(table);
    proto::DelimitedTableProto m;
    m.set_format(t.kind() == "tbl" ? static_cast<uint32_t>(io::DelimitedFormat::kTbl)
                                   : static_cast<uint32_t>(io::DelimitedFormat::kCsv));
    EncodeSchema(*t.schema(), m.mutable_schema());
    const io::DelimitedOptions& o = t.options();
    m.set_delimiter(static_cast<unsigned char>(o.delimiter));
    m.set_quote(static_cast<unsigned char>(o.quote));
    m.set_escape(static_cast<unsigned char>(o.escape));
    m.set_header(o.header);
    m.set_trailing_delimiter(o.trailing_delimiter);
    m.set_null_string(o.null_string);
    m.set_split_bytes(o.split_bytes);
    return m.SerializeAsString();
  }

  Result<io::TableProviderPtr> Decode(const std::string& payload,
                                      const std::string& table_name) const override {
    proto::DelimitedTableProto m;
    if (!m.ParseFromString(payload) || m.format() > 1)
      return Status::InvalidData("encoded plan: malformed delimited table '{}'", table_name);
    SHOAL_ASSIGN_OR_RETURN(auto schema, DecodeSchema(m.schema()));
    for (const auto& field : schema->fields())
      SHOAL_RETURN_IF_ERROR(io::CheckDelimitedType(field));
    auto as_char = [](int32_t v) { return static_cast<char>(static_cast<unsigned char>(v)); };
    io::DelimitedOptions o;
    o.delimiter = as_char(m.delimiter());
    o.quote = as_char(m.quote());
    o.escape = as_char(m.escape());
    o.header = m.header();
    o.trailing_delimiter = m.trailing_delimiter();
    o.null_string = m.null_string();
    o.split_bytes = m.split_bytes();
    // No file list: the task's scan units name the files and byte ranges to read.
    return io::TableProviderPtr(std::make_shared<io::DelimitedTable>(
        static_cast<io::DelimitedFormat>(m.format()), std::vector<io::ListedFile>{},
        std::move(schema), std::move(o)));
  }
};

class CatalogTableCodec final : public TableCodec {
 public:
  explicit CatalogTableCodec(std::shared_ptr<const sql::Catalog> catalog)
      : catalog_(std::move(catalog)) {}

  std::string id() const override { return "shoal.catalog/1"; }

  // Only in-memory tables: any other kind without a codec of its own is refused by name rather
  // than looked up by name on workers, which could find a different table.
  bool CanEncode(const io::TableProvider& table) const override { return table.kind() == "memory"; }

  Result<std::string> Encode(const io::TableProvider& table,
                             const std::string& table_name) const override {
    proto::CatalogTableProto m;
    auto dot = table_name.find('.');
    if (dot == std::string::npos) {
      m.set_schema_name(std::string(sql::kDefaultSchema));
      m.set_table_name(table_name);
    } else {
      m.set_schema_name(table_name.substr(0, dot));
      m.set_table_name(table_name.substr(dot + 1));
    }
    EncodeSchema(*table.schema(), m.mutable_schema());
    const int64_t num_rows = table.statistics().num_rows;
    if (num_rows >= 0)
      m.set_num_rows(num_rows);
    return m.SerializeAsString();
  }

  Result<io::TableProviderPtr> Decode(const std::string& payload,
                                      const std::string& table_name) const override {
    proto::CatalogTableProto m;
    if (!m.ParseFromString(payload))
      return Status::InvalidData("encoded plan: malformed catalog table '{}'", table_name);
    if (!catalog_)
      return Status::NotImplemented(
          "table {} is held in the coordinator's memory and this "
          "worker has no catalog to find it in",
          table_name);
    Result<sql::TableEntry> entry = catalog_->LookupTable(m.schema_name(), m.table_name());
    if (!entry.ok()) {
      return Status::NotFound(
                 "table {} is held in the coordinator's memory and this worker has "
                 "no table of that name",
                 table_name)
          .WithHint(
              "start every worker with the same tables (e.g. `shoal worker --tpch SF` for "
              "the in-memory TPC-H tables); a table made by CREATE TABLE AS or filled by "
              "INSERT travels to workers only up to dist_memory_table_max_bytes: raise that "
              "setting, or write the table to Parquet files on a shared filesystem (COPY ... TO) "
              "and query them as an external table");
    }
    SHOAL_ASSIGN_OR_RETURN(auto schema, DecodeSchema(m.schema()));
    const auto& mine = *entry->provider->schema();
    bool same = mine.num_fields() == schema->num_fields();
    for (int i = 0; same && i < mine.num_fields(); ++i)
      same = mine.field(i).type == schema->field(i).type;
    if (!same)
      return Status::InvalidArgument(
          "table {} differs between the coordinator ({}) and this "
          "worker ({})",
          table_name, schema->ToString(), mine.ToString());
    const int64_t my_rows = entry->provider->statistics().num_rows;
    if (m.has_num_rows() && my_rows >= 0 && my_rows != m.num_rows())
      return Status::InvalidArgument(
                 "table {} has {} rows in the coordinator's memory but {} on this worker",
                 table_name, m.num_rows(), my_rows)
          .WithHint(
              "in-memory tables do not travel to workers, each worker uses its own copy: "
              "load the same data on every worker (same `--tpch SF`), or do not change the "
              "coordinator's copy (INSERT, CREATE TABLE AS) before a distributed query");
    return entry->provider;
  }

 private:
  std::shared_ptr<const sql::Catalog> catalog_;
};

}  // namespace

std::shared_ptr<TableCodecRegistry> TableCodecRegistry::Builtin(
    std::shared_ptr<const sql::Catalog> catalog) {
  auto registry = std::make_shared<TableCodecRegistry>();
  registry->Add(std::make_shared<DelimitedTableCodec>());
  registry->Add(std::make_shared<FileTableCodec>(FileTableCodec::Format::kParquet));
  registry->Add(std::make_shared<FileTableCodec>(FileTableCodec::Format::kArrow));
  // Before the catalog codec: a memory table it accepts travels inside the plan (bound 0 here:
  // none; encoders bound it per query, MemoryTableCodec::ForQuery).
  registry->Add(std::make_shared<MemoryTableCodec>(0));
  registry->Add(std::make_shared<CatalogTableCodec>(std::move(catalog)));
  return registry;
}

}  // namespace shoal::distributed
