#include "shoal/engine/node_security_setup.h"

namespace shoal::engine {

Result<bool> InstallNodeSecurity(const NodeSecurityOptions& options, std::string_view command) {
  SHOAL_ASSIGN_OR_RETURN(auto security, distributed::NodeSecurity::Make(options, command));
  const bool insecure = security->insecure();
  distributed::SetProcessNodeSecurity(std::move(security));
  return insecure;
}

}  // namespace shoal::engine
