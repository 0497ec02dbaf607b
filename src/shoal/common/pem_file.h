// Reading the PEM files of TLS (certificates, keys, CA bundles) that the server's front door and
// the gRPC connections between nodes load, with one clear error naming the option and the file
// when it is missing, unreadable or not PEM.
#pragma once

#include <string>
#include <string_view>

#include "shoal/common/result.h"

namespace shoal {

/// The contents of the PEM file `path`, given as `option` (e.g. "--tls-cert", for errors).
/// Fails when the file cannot be read or holds no "-----BEGIN" block.
Result<std::string> ReadPemFile(const std::string& path, std::string_view option);

}  // namespace shoal
