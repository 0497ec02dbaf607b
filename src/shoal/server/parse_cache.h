// ParseCache: the parse trees of the SQL texts a server ran last, shared by all its connections.
//
// Applications send the same text again and again (a dashboard's queries, an ORM's statements,
// `SELECT 1` health checks), and for a short statement libpg_query's parse and the protobuf
// round trip behind it cost more than binding and planning it. A parse depends on the text
// alone -- never on the catalog, the session or its settings -- so a tree parsed once serves any
// session: what changes between runs (the tables, the settings) is read later, by the binder.
// Texts longer than `max_text_bytes` and failed parses are not kept; the least recently used
// entry leaves when `capacity` are held.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "shoal/common/result.h"
#include "shoal/sql/parser.h"

namespace shoal::server {

class ParseCache {
 public:
  static constexpr size_t kDefaultCapacity = 512;
  static constexpr size_t kDefaultMaxTextBytes = 16 * 1024;

  explicit ParseCache(size_t capacity = kDefaultCapacity,
                      size_t max_text_bytes = kDefaultMaxTextBytes)
      : capacity_(capacity), max_text_bytes_(max_text_bytes) {}

  /// sql::ParseSql(sql), from the cache when the same text was parsed before.
  Result<std::shared_ptr<const sql::ParsedScript>> Parse(std::string_view sql);

  size_t size() const;

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const sql::ParsedScript>>;

  const size_t capacity_;
  const size_t max_text_bytes_;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  // Keys view the texts held in `entries_` (list nodes never move).
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index_;
};

}  // namespace shoal::server
