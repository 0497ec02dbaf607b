// Session: what one client connection carries between statements — the (shared) catalog and the
// session's own settings — plus the ColumnId allocator the binder and optimizer use while one
// statement is planned.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

/// The value of a query parameter $n for the statement being bound (the server's Bind message):
/// its text, or nullopt for NULL, and the type the client gave it. Without a type the value binds
/// as a quoted literal does (its type comes from where it is used, as PostgreSQL's unknown);
/// `numeric` binds it as a numeric constant written in the query would.
struct QueryParameter {
  std::optional<std::string> text;
  std::optional<columnar::DataType> type;
  bool numeric = false;
};

class Session {
 public:
  explicit Session(CatalogPtr catalog = std::make_shared<Catalog>(), Settings settings = Settings())
      : catalog_(std::move(catalog)), settings_(std::move(settings)) {}

  const CatalogPtr& catalog() const { return catalog_; }

  Settings& settings() { return settings_; }

  const Settings& settings() const { return settings_; }

  /// The values of $1..$n for the statements bound next (empty: a $n is an error, 42P02).
  std::vector<QueryParameter>& parameters() { return parameters_; }
  /// When set, a $n beyond parameters() binds as NULL of unknown type (describing a statement
  /// before its values are known).
  bool& lenient_parameters() { return lenient_parameters_; }
  /// The highest n of a $n the binder has met (reset by whoever reads it).
  int& max_parameter() { return max_parameter_; }

  /// The session's user (current_user, session_user): the server sets the authenticated one.
  std::string& user_name() { return user_name_; }

  /// The allocator of the statement being planned (the binder resets it per statement).
  ColumnIdAllocator& column_ids() { return column_ids_; }

 private:
  CatalogPtr catalog_;
  Settings settings_;
  ColumnIdAllocator column_ids_;
  std::vector<QueryParameter> parameters_;
  bool lenient_parameters_ = false;
  int max_parameter_ = 0;
  std::string user_name_ = "shoal";
};

}  // namespace shoal::sql
