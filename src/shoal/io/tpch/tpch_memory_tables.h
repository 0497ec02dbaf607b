// TPC-H tables in memory: generates a scale factor's eight tables with the dbgen-exact generator
// straight into columnar batches (no .tbl text in between), as MemoryTables. Behind `shoal sql
// --tpch SF`, `shoal worker --tpch SF`, `shoal tpchgen --format parquet|csv` and the TPC-H answer
// tests (engine/tpch_tables.h registers them in a session's catalog).
//
// Column types (the standard TPC-H types, as DuckDB's tpch extension declares them):
//  * keys (*_KEY) int64; other integers (p_size, ps_availqty, l_linenumber, o_shippriority) int32;
//  * money, l_quantity, l_discount and l_tax decimal(15,2);
//  * dates date32; flags and every other string utf8.
// Each table is a list of batches of kTpchBatchRows rows so that scans can run in parallel.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "shoal/columnar/record_batch.h"
#include "shoal/columnar/schema.h"
#include "shoal/common/result.h"
#include "shoal/io/memory_table.h"
#include "shoal/io/tpch/scale.h"
#include "shoal/io/tpch/text_pool.h"
#include "shoal/io/tpch/tpch_table.h"

namespace shoal::io::tpch {

inline constexpr int64_t kTpchBatchRows = 8192;

/// The schema of a TPC-H table (column names as in the TPC-H specification, lower case).
columnar::SchemaPtr TpchSchema(TpchTable table);

/// The rows the generator iterates for `table`: parts for partsupp, orders for lineitem (each
/// produces several rows), the table's own rows otherwise.
int64_t TpchParentRows(const TpchScale& scale, TpchTable table);

/// The rows of `table` that come from parent rows [begin, end) (see TpchParentRows), as batches of
/// kTpchBatchRows rows; exact per range (the generator seeks), so ranges can be made in parallel.
Result<std::vector<columnar::RecordBatchPtr>> GenerateTpchBatches(const TpchScale& scale,
                                                                  const TextPool& text,
                                                                  TpchTable table, int64_t begin,
                                                                  int64_t end);

/// Generates one table of `scale` in memory.
Result<std::shared_ptr<MemoryTable>> MakeTpchTable(const TpchScale& scale, TpchTable table);

/// A generated table and its TPC-H name ("lineitem").
struct NamedTpchTable {
  std::string name;
  std::shared_ptr<MemoryTable> table;
};

/// Generates the eight tables of `scale` (sharing one text pool across them).
Result<std::vector<NamedTpchTable>> MakeTpchTables(const TpchScale& scale);

}  // namespace shoal::io::tpch
