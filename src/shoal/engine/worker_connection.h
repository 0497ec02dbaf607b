// WorkerConnection: how a session reaches its workers (the --workers value, passthrough headers,
// the version to check). Its own header because both execution_modes.h, which connects, and
// in_process_workers.h, which starts the inproc:N workers execution_modes uses, need it.
#pragma once

#include <string>
#include <vector>

namespace shoal::engine {

/// The workers a session runs its queries on (`shoal sql --workers ... --header ...
/// --worker-version ...`).
struct WorkerConnection {
  /// "HOST:PORT,HOST:PORT", "file:PATH", "dns:NAME:PORT" (worker_resolver.h) or "inproc:N".
  std::string workers;
  /// Passthrough headers, "KEY=VALUE" each.
  std::vector<std::string> headers;
  /// The version workers must report; empty: not checked.
  std::string worker_version;
};

}  // namespace shoal::engine
