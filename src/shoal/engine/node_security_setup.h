// The security of this process's connections to other Shoal nodes, as the commands set it up from
// their flags (--tls-cert, --tls-key, --tls-ca, --cluster-secret-file, --insecure): the engine's
// door to distributed/transport/node_security.h, for the CLI.
#pragma once

#include <string_view>

#include "shoal/common/result.h"
#include "shoal/distributed/transport/node_security.h"

namespace shoal::engine {

using distributed::NodeSecurityOptions;

/// Checks `options` as given to `command` (e.g. "shoal worker"), loads the certificates and the
/// cluster secret, and makes them this process's (every later gRPC channel and server uses
/// them). Returns whether the connections are insecure (--insecure).
Result<bool> InstallNodeSecurity(const NodeSecurityOptions& options, std::string_view command);

}  // namespace shoal::engine
