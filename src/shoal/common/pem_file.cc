#include "shoal/common/pem_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace shoal {

Result<std::string> ReadPemFile(const std::string& path, std::string_view option) {
  if (path.empty())
    return Status::InvalidArgument("{} is empty: it must name a PEM file", option);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    return Status::InvalidArgument("{} {}: cannot read the file: {}", option, path,
                                   std::strerror(error))
        .WithHint("pass the path of a PEM file this user can read");
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  std::string text = contents.str();
  if (text.find("-----BEGIN ") == std::string::npos)
    return Status::InvalidArgument("{} {}: the file holds no PEM block (-----BEGIN ...)", option,
                                   path)
        .WithHint(
            "certificates, keys and CA bundles must be PEM files, e.g. as made by "
            "scripts/make-test-certs.sh");
  return text;
}

}  // namespace shoal
