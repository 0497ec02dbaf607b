// TPC-H tables in a session: registers the eight in-memory TPC-H tables of a scale factor
// (io/tpch/tpch_memory_tables.h) in a catalog. Behind `shoal sql --tpch SF`, `shoal worker --tpch
// SF` and the tests that run TPC-H on one node or on in-process workers.
#pragma once

#include "shoal/common/status.h"
#include "shoal/io/tpch/scale.h"
#include "shoal/sql/catalog.h"

namespace shoal::engine {

/// Generates the eight tables of `scale` and registers them in `catalog`'s public schema under
/// their TPC-H names (replacing tables of those names).
Status RegisterTpchTables(const io::tpch::TpchScale& scale, sql::Catalog* catalog);

}  // namespace shoal::engine
