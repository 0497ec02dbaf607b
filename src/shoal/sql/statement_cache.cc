#include "shoal/sql/statement_cache.h"

#include "shoal/sql/binder.h"
#include "shoal/sql/catalog.h"
#include "shoal/sql/optimizer/optimizer.h"

namespace shoal::sql {

Result<std::shared_ptr<const BoundStatement>> StatementCache::Bind(
    Session* session, const ParsedScript& script, const ParsedStatement& statement) {
  // Read before binding: a change that lands while the statement binds moves the generation past
  // the one kept, so the entry is dropped at its next use even if binding saw the old catalog.
  const uint64_t generation = session->catalog()->generation();
  if (auto it = index_.find(statement.text); it != index_.end()) {
    if (it->second->generation == generation) {
      entries_.splice(entries_.begin(), entries_, it->second);
      ++hits_;
      return it->second->bound;
    }
    entries_.erase(it->second);
    index_.erase(it);
  }
  SHOAL_ASSIGN_OR_RETURN(BoundStatement bound, Binder(session).Bind(script, statement));
  if (!bound.reusable || capacity_ == 0)
    return std::make_shared<const BoundStatement>(std::move(bound));
  SHOAL_ASSIGN_OR_RETURN(bound.plan, OptimizePlan(bound.plan, &session->column_ids()));
  bound.optimized = true;
  auto kept = std::make_shared<const BoundStatement>(std::move(bound));
  entries_.push_front(Entry{std::string(statement.text), generation, kept});
  index_.emplace(entries_.front().text, entries_.begin());
  if (entries_.size() > capacity_) {
    index_.erase(entries_.back().text);
    entries_.pop_back();
  }
  return kept;
}

}  // namespace shoal::sql
