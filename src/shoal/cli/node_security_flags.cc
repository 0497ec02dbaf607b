#include "shoal/cli/node_security_flags.h"

#include <iostream>

namespace shoal::cli {

void AddNodeSecurityFlags(CLI::App* cmd, engine::NodeSecurityOptions* options,
                          bool with_cert_and_key) {
  if (with_cert_and_key) {
    cmd->add_option("--tls-cert", options->tls_cert,
                    "PEM certificate (chain) this node presents to other Shoal nodes");
    cmd->add_option("--tls-key", options->tls_key, "PEM private key of --tls-cert");
  }
  cmd->add_option("--tls-ca", options->tls_ca,
                  "PEM CA certificate: other nodes' certificates must chain to it (mutual TLS)");
  cmd->add_option("--cluster-secret-file", options->cluster_secret_file,
                  "File holding the cluster secret that signs every request between nodes (not "
                  "readable by other users; the same on every node)");
  cmd->add_flag("--insecure", options->insecure,
                "Talk to other nodes over plain TCP, unauthenticated (anyone who reaches a "
                "worker's port can run plans on it)");
  // Hidden (empty group): for the integration tests of refusals only.
  cmd->add_option("--test-auth-ttl-ms", options->token_ttl_ms)->group("");
  cmd->add_flag("--test-unsigned-requests", options->unsigned_requests)->group("");
}

Status SetUpNodeSecurity(const engine::NodeSecurityOptions& options, std::string_view command,
                         std::string_view what) {
  SHOAL_ASSIGN_OR_RETURN(bool insecure, engine::InstallNodeSecurity(options, command));
  if (insecure && !what.empty()) {
    std::cerr << "WARNING:  " << command << " --insecure: " << what
              << " use plain TCP without certificates or signed requests\n";
  }
  return Status::OK();
}

}  // namespace shoal::cli
