// Session: what one client connection carries between statements — the (shared) catalog and the
// session's own settings — plus the ColumnId allocator the binder and optimizer use while one
// statement is planned.
#pragma once

#include <memory>
#include <utility>

#include "shoal/common/settings.h"
#include "shoal/sql/catalog.h"
#include "shoal/sql/expr.h"

namespace shoal::sql {

/// Hands out query-wide unique ColumnIds. One per statement: reset it before binding the next.
class ColumnIdAllocator {
 public:
  ColumnId Next() { return next_++; }

  ColumnId peek() const { return next_; }

  void Reset() { next_ = 0; }

 private:
  ColumnId next_ = 0;
};

class Session {
 public:
  explicit Session(CatalogPtr catalog = std::make_shared<Catalog>(), Settings settings = Settings())
      : catalog_(std::move(catalog)), settings_(std::move(settings)) {}

  const CatalogPtr& catalog() const { return catalog_; }

  Settings& settings() { return settings_; }

  const Settings& settings() const { return settings_; }

  /// The allocator of the statement being planned (the binder resets it per statement).
  ColumnIdAllocator& column_ids() { return column_ids_; }

 private:
  CatalogPtr catalog_;
  Settings settings_;
  ColumnIdAllocator column_ids_;
};

}  // namespace shoal::sql
