#include "shoal/engine/tpch_tables.h"

#include "shoal/io/tpch/tpch_memory_tables.h"

namespace shoal::engine {

Status RegisterTpchTables(const io::tpch::TpchScale& scale, sql::Catalog* catalog) {
  SHOAL_ASSIGN_OR_RETURN(auto tables, io::tpch::MakeTpchTables(scale));
  for (auto& named : tables) {
    SHOAL_RETURN_IF_ERROR(catalog->RegisterTable(named.name, std::move(named.table),
                                                 /*insertable=*/false, /*replace=*/true));
  }
  return Status::OK();
}

}  // namespace shoal::engine
