// Backend activity: what `pg_stat_activity` lists, the sessions of the process's PostgreSQL front
// door. The sql layer knows nothing of connections, so the server registers a source at start-up
// (SetBackendActivitySource) and the system catalog asks it each time a statement reads
// pg_stat_activity. Without a source (`shoal sql`, tests) the relation is empty.
//
// Thread safety: the source may be set and read from any thread; it is called without a lock
// held by the catalog, so it may take its own.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace shoal::sql {

/// One session, as pg_stat_activity shows it.
struct BackendActivity {
  int32_t pid = 0;
  std::string database;
  std::string user;
  std::string application_name;
  std::string client_addr;  // empty: NULL (not a TCP client)
  int64_t backend_start_unix_ms = 0;
  int64_t query_start_unix_ms = 0;  // 0: NULL (no statement yet)
  std::string state;                // active, idle
  std::string query;                // the running statement, or the last one
};

using BackendActivitySource = std::function<std::vector<BackendActivity>()>;

/// Sets (or, with an empty function, clears) the source of pg_stat_activity for this process.
void SetBackendActivitySource(BackendActivitySource source);
/// The sessions now (empty without a source).
std::vector<BackendActivity> CurrentBackendActivity();

}  // namespace shoal::sql
