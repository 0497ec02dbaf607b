#include "shoal/engine/engine_settings.h"

#include <cstdint>
#include <vector>

#include "shoal/common/setting_declaration.h"

namespace shoal::engine {

std::span<const SettingDefinition> EngineSettingDeclarations() {
  static const std::vector<SettingDefinition> kDeclarations = {
      DeclareInt("statement_timeout", 0, 0, INT32_MAX, "server",
                 "Milliseconds a statement of a `shoal server` session may run before it is "
                 "cancelled (57014); 0: no limit"),
      DeclareInt("idle_session_timeout", 0, 0, INT32_MAX, "server",
                 "Milliseconds a `shoal server` session may sit idle, outside a transaction "
                 "block, before the server closes it (57P05); 0: no limit"),
      DeclareInt("idle_in_transaction_session_timeout", 0, 0, INT32_MAX, "server",
                 "Milliseconds a `shoal server` session may sit idle inside a transaction block "
                 "before the server closes it (25P03); 0: no limit"),
      // pgJDBC sets it to 3 when it connects; Shoal already prints floats as PostgreSQL does
      // with any value above 0 (the shortest text that reads back exactly).
      DeclareInt("extra_float_digits", 1, -15, 3, "server",
                 "Accepted for PostgreSQL clients (pgJDBC sets 3); floats are always printed in "
                 "their shortest exact form, PostgreSQL's output for values above 0"),
      DeclareString("application_name", "", "server",
                    "The client's name for itself (the start-up packet's, or SET by the client: "
                    "pgJDBC does)"),
      DeclareEnum("retry_policy", "none", {"none", "query", "task"}, "engine",
                  "What a query on workers does when a worker is lost: none (it fails with the "
                  "worker's error), query (while no row has reached the client, it is planned "
                  "again on the workers that answer and runs again, with a NOTICE) or task (it "
                  "runs as a materialized shuffle on the workers' --shuffle-dir: a failed task "
                  "runs again on another worker, a lost worker's outputs are computed again)"),
      DeclareInt("query_retry_attempts", 3, 1, 10, "engine",
                 "Attempts of a query in all under retry_policy = query"),
  };
  return kDeclarations;
}

}  // namespace shoal::engine
