// StatementCache: the bound and optimized plans of the queries one session ran lately, keyed by
// their text, so that a query sent again skips binding and optimizing.
//
// Applications repeat themselves: a dashboard refreshes the same queries, a driver checks its
// connection with `SELECT 1`, a BI tool re-runs the statement a user only re-sorted. For short
// queries binding and optimizing cost more than running them (issue 14: about a third of a
// server's CPU per `SELECT 1`). The parse tree is shared by all sessions (server/parse_cache.h);
// a bound plan is kept per session, because it may hold what only that session sees
// (current_user).
//
// A plan is kept only when binding the same text again would give the same plan as long as the
// catalog stays as it is (BoundStatement::reusable): no snapshot of a table Shoal writes (its
// rows change with every commit, and a kept snapshot would pin old files), no system catalog, no
// catalog function, no function in FROM, no $n parameter, no now(). Each entry remembers the
// catalog's generation when it was bound and is dropped when the catalog has moved on since, so
// a DROP, CREATE OR REPLACE VIEW or a new table that now shadows a name is never missed.
// Settings do not enter: neither the binder nor the optimizer reads them (physical planning
// does, and runs for every statement).
//
// Not thread-safe: a session runs one statement at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "shoal/common/result.h"
#include "shoal/sql/bound_statement.h"
#include "shoal/sql/parser.h"
#include "shoal/sql/session.h"

namespace shoal::sql {

class StatementCache {
 public:
  static constexpr size_t kDefaultCapacity = 64;

  explicit StatementCache(size_t capacity = kDefaultCapacity) : capacity_(capacity) {}

  /// `statement` of `script` bound for `session`: the kept plan when the same text was bound
  /// before and the catalog has not changed since, else bound now (and, when reusable, optimized
  /// and kept). Errors are those of binding and optimizing; failures are never kept.
  Result<std::shared_ptr<const BoundStatement>> Bind(Session* session, const ParsedScript& script,
                                                     const ParsedStatement& statement);

  size_t size() const { return entries_.size(); }
  /// Statements answered from the cache so far (for tests).
  int64_t hits() const { return hits_; }

 private:
  struct Entry {
    std::string text;
    uint64_t generation = 0;
    std::shared_ptr<const BoundStatement> bound;
  };

  const size_t capacity_;
  std::list<Entry> entries_;  // most recently used first
  // Keys view the texts held in `entries_` (list nodes never move).
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index_;
  int64_t hits_ = 0;
};

}  // namespace shoal::sql
