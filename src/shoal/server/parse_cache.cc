#include "shoal/server/parse_cache.h"

namespace shoal::server {

Result<std::shared_ptr<const sql::ParsedScript>> ParseCache::Parse(std::string_view sql) {
  const bool cacheable = capacity_ > 0 && sql.size() <= max_text_bytes_;
  if (cacheable) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = index_.find(sql); it != index_.end()) {
      entries_.splice(entries_.begin(), entries_, it->second);
      return it->second->second;
    }
  }
  // Parsed outside the lock: connections parsing different texts do not wait for each other.
  SHOAL_ASSIGN_OR_RETURN(sql::ParsedScript parsed, sql::ParseSql(sql));
  auto script = std::make_shared<const sql::ParsedScript>(std::move(parsed));
  if (!cacheable) {
    return script;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (index_.count(sql) == 0) {  // another connection may have added it meanwhile
    entries_.emplace_front(std::string(sql), script);
    index_.emplace(entries_.front().first, entries_.begin());
    if (entries_.size() > capacity_) {
      index_.erase(entries_.back().first);
      entries_.pop_back();
    }
  }
  return script;
}

size_t ParseCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace shoal::server
