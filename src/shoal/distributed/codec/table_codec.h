// Table codecs: how a table scan's table travels inside an encoded plan.
//
// A scan ships its table as (codec id, payload) plus the scan units assigned to the task (units are
// plain data, io/table_provider.h). The codec rebuilds an equivalent TableProvider on the worker:
//  - "shoal.delimited/1" (TBL / CSV external tables): the format, the table schema and the parser
//    options. The units carry the file paths and byte ranges, so the worker needs no catalog entry,
//    only the same files at the same paths (a shared or identical filesystem).
//  - "shoal.catalog/1" (in-memory tables, TPC-H generated with --tpch): memory cannot ship, so the
//    payload is the qualified name and schema, and the worker resolves the name in its own catalog
//    (start workers with the same `--tpch SF`, or the same tables). A missing table or a different
//    schema is a clear error naming the table and the worker.
//  - "shoal.parquet/1" and "shoal.arrow/1" (external Parquet / Arrow tables): file_table_codec.h.
//  - "shoal.memory/1" (in-memory tables up to dist_memory_table_max_bytes, tried before
//    "shoal.catalog/1"): the batches travel inside the plan, memory_table_codec.h.
// Extension codecs register with their own ids; EncodedPlan.codec_ids lists the ids a plan needs
// and a worker refuses a plan that needs an id it lacks, naming the missing ids.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/io/table_provider.h"
#include "shoal/sql/catalog.h"

namespace shoal::distributed {

class TableCodec {
 public:
  virtual ~TableCodec() = default;
  virtual std::string id() const = 0;
  virtual bool CanEncode(const io::TableProvider& table) const = 0;
  virtual Result<std::string> Encode(const io::TableProvider& table,
                                     const std::string& table_name) const = 0;
  virtual Result<io::TableProviderPtr> Decode(const std::string& payload,
                                              const std::string& table_name) const = 0;
};

/// The codecs a process knows, by id. Immutable once built; shared freely.
class TableCodecRegistry {
 public:
  /// The built-in codecs; `catalog` (may be null: in-memory tables cannot be decoded) resolves
  /// "shoal.catalog/1" payloads. Defined in builtin_table_codecs.cc, the one file that knows every
  /// built-in codec.
  static std::shared_ptr<TableCodecRegistry> Builtin(std::shared_ptr<const sql::Catalog> catalog);

  void Add(std::shared_ptr<const TableCodec> codec);
  /// The codec for encoding `table`: the first added that accepts it.
  Result<const TableCodec*> ForTable(const io::TableProvider& table,
                                     const std::string& table_name) const;
  const TableCodec* Find(const std::string& id) const;
  std::vector<std::string> ids() const;
  /// Every codec, in the order they are tried.
  const std::vector<std::shared_ptr<const TableCodec>>& codecs() const { return ordered_; }

 private:
  std::vector<std::shared_ptr<const TableCodec>> ordered_;
  std::map<std::string, const TableCodec*> by_id_;
};

using TableCodecRegistryPtr = std::shared_ptr<const TableCodecRegistry>;

}  // namespace shoal::distributed
