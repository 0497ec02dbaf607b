// The catalog of a server with --data-dir: kept in the data directory so that tables, views,
// indexes and schemas outlive sessions and restarts.
//
//   DIR/catalog             every schema, table, view and index (below), replaced atomically
//   DIR/catalog.lock        held (flock) by the server using DIR: a second server is refused
//   DIR/tables/<id>/        one directory per table Shoal writes (io/parquet_directory_storage.h)
//
// The catalog file is text, one object per line, tab-separated fields escaped as in a table
// manifest (io/table_manifest.h), ending with a checksum line:
//
//   shoal catalog 1
//   schema    <name>
//   table     <schema> <name> <id>                       rows in DIR/tables/<id>
//   external  <schema> <name> <CREATE EXTERNAL TABLE statement>
//   view      <schema> <name> <sql> <column count> <column>... (<schema> <name>)... of what it
//   reads index     <schema> <name> <table> <unique> <nulls distinct> <expressions> <constraint>
//   <column>... checksum  <16 hex digits>
//
// Every change to the catalog writes the whole file anew (temporary file, fsync, rename, fsync of
// the directory) from the catalog's state at that moment, one save at a time, so the file is
// always some complete state and the last save holds the latest. A table's rows are committed
// through its own manifest, not through this file: INSERT, DELETE and UPDATE never write it.
//
// At start-up the file is read back: external tables are created again from their statements (an
// external table whose files are gone is left out with a warning and kept in the file, so that it
// comes back once they do), unique indexes rebuild their key sets from the rows on first use, and
// table directories the catalog does not name (a CREATE TABLE killed before its catalog save) are
// removed.
#pragma once

#include <memory>
#include <string>

#include "shoal/common/result.h"
#include "shoal/sql/catalog.h"

namespace shoal::engine {

/// Opens the catalog kept in `data_dir` (created empty when the directory has none).
Result<std::shared_ptr<sql::Catalog>> OpenDurableCatalog(const std::string& data_dir);

}  // namespace shoal::engine
