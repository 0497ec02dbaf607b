// The flags that secure a command's connections to other Shoal nodes (docs/security.md):
// --tls-cert, --tls-key, --tls-ca, --cluster-secret-file and --insecure, declared once for
// `shoal worker`, `shoal sql`, `shoal server` and `shoal task`, plus the hidden test settings
// that make requests unsigned or already expired (to show that workers refuse them).
#pragma once

#include <CLI/CLI.hpp>

#include "shoal/engine/node_security_setup.h"

namespace shoal::cli {

/// Adds the flags to `cmd`, filling `options`. `with_cert_and_key`: false for `shoal server`,
/// whose --tls-cert/--tls-key (its front door's) serve the node connections too.
void AddNodeSecurityFlags(CLI::App* cmd, engine::NodeSecurityOptions* options,
                          bool with_cert_and_key = true);

/// InstallNodeSecurity for `command`. With --insecure and a non-empty `what`, prints a warning
/// to stderr that `what` goes unprotected (the long-running services say so; `shoal sql`, whose
/// stderr carries query errors, does not).
Status SetUpNodeSecurity(const engine::NodeSecurityOptions& options, std::string_view command,
                         std::string_view what);

}  // namespace shoal::cli
