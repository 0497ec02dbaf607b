// Table constraints of in-memory tables, checked as PostgreSQL checks them: NOT NULL (23502) on
// every INSERT, and unique indexes — PRIMARY KEY and UNIQUE constraints and CREATE UNIQUE INDEX —
// (23505) by CREATE UNIQUE INDEX over the rows a table has and by every INSERT.
//
// Each unique index keeps, as its catalog IndexState, a Grouper (exec/row_key/grouper.h) over its
// key columns that holds every key of the table: a row whose key has a NULL part is never a
// duplicate and is skipped, unless the index is NULLS NOT DISTINCT. An INSERT consumes its rows'
// keys in row order; a key whose group id is not the next new one already existed, in the table
// or earlier in the same INSERT. DELETE and UPDATE rewrite a table (CommitRewriteChecked) and
// ALTER TABLE ... ADD COLUMN replaces its rows (ReplaceChecked): the new rows are checked as a
// whole and the sets are built again from them.
//
// Concurrency and failure: the checks of one INSERT and its append happen under the mutexes of
// all the table's unique indexes (taken in name order), so concurrent INSERTs into one table are
// checked one after the other. A refused INSERT has already put some of its keys into the
// groupers: they are dropped and rebuilt from the table's rows on next use, which keeps the
// common path (no violation) a single pass over the new rows.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "shoal/columnar/record_batch.h"
#include "shoal/common/result.h"
#include "shoal/io/table_storage.h"
#include "shoal/sql/catalog.h"

namespace shoal::engine {

/// A fresh, empty state for a unique index (the catalog entry's `state`).
std::shared_ptr<sql::IndexState> MakeUniqueKeyState();

/// CREATE UNIQUE INDEX: records the keys `table` has; 23505 naming a duplicated key if any.
Status BuildUniqueIndex(const sql::IndexEntry& index, const io::TableStorage& table);

/// INSERT into the table `name`: checks the rows of `batches` against its NOT NULL columns and
/// against every unique index of `indexes` (all of the table), then appends them to `table`, all
/// under the indexes' locks.
Status AppendChecked(const std::string& name, const std::vector<sql::IndexEntry>& indexes,
                     io::TableStorage* table, std::vector<columnar::RecordBatchPtr> batches);

/// NOT NULL (23502) of the columns of `schema` over `batch`, new rows of the table `name`.
Status CheckNotNullRows(const std::string& name, const columnar::Schema& schema,
                        const columnar::RecordBatch& batch);

/// DELETE / UPDATE of a table of columns `schema`: the rows `rewrite` would leave (their NOT NULL
/// columns checked by the caller as it wrote them) are checked against every unique index of
/// `indexes` (all of the table) as a whole, then committed.
Status CommitRewriteChecked(const std::vector<sql::IndexEntry>& indexes,
                            const columnar::Schema& schema, io::TableRewrite* rewrite);

/// ALTER TABLE ... ADD COLUMN of the table `name`: `batches` are all its new rows; they are checked
/// as AppendChecked does (as a whole, not against the old rows), then replace the table's rows.
/// With a `schema` the rows have new columns.
Status ReplaceChecked(const std::string& name, const std::vector<sql::IndexEntry>& indexes,
                      io::TableStorage* table, std::vector<columnar::RecordBatchPtr> batches,
                      const columnar::SchemaPtr& schema = nullptr);

}  // namespace shoal::engine
