#include "shoal/distributed/coordinator/worker_resolver.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <arpa/inet.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "shoal/common/text.h"

namespace shoal::distributed {

namespace {

Result<int> ParsePort(std::string_view text, std::string_view what) {
  int port = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || port < 1 ||
      port > 65535)
    return Status::InvalidArgument("{}: port '{}' is not a number in 1..65535", what, text);
  return port;
}

}  // namespace

Status CheckWorkerAddress(std::string_view address) {
  size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0)
    return Status::InvalidArgument("worker address '{}' is not HOST:PORT", address);
  std::string_view host = address.substr(0, colon);
  if (host.front() == '[' && host.back() != ']')
    return Status::InvalidArgument("worker address '{}' is not HOST:PORT or [IPV6]:PORT", address);
  return ParsePort(address.substr(colon + 1), fmt::format("worker address '{}'", address)).status();
}

Result<std::vector<std::string>> StaticWorkerResolver::Resolve() {
  if (workers_.empty())
    return Status::InvalidArgument("the worker list is empty")
        .WithHint("give at least one worker, e.g. --workers 127.0.0.1:7001");
  return workers_;
}

std::string StaticWorkerResolver::Describe() const {
  return fmt::format("static list {}", fmt::join(workers_, ","));
}

Result<std::vector<std::string>> FileWorkerResolver::Resolve() {
  std::lock_guard<std::mutex> lock(mutex_);
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0)
    return Status::IoError("cannot read the worker list file {}: {}", path_, std::strerror(errno))
        .WithHint("the file holds one HOST:PORT per line");
  const int64_t mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 +
                           static_cast<int64_t>(st.st_mtim.tv_nsec);
  const int64_t size = static_cast<int64_t>(st.st_size);
  if (cached_ && mtime_ns == mtime_ns_ && size == size_)
    return workers_;
  std::ifstream in(path_);
  if (!in)
    return Status::IoError("cannot read the worker list file {}: {}", path_, std::strerror(errno));
  std::vector<std::string> workers;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    std::string_view text = line;
    if (size_t hash = text.find('#'); hash != std::string_view::npos)
      text = text.substr(0, hash);
    text = Trim(text);
    if (text.empty())
      continue;
    Status valid = CheckWorkerAddress(text);
    if (!valid.ok())
      return std::move(valid)
          .WithContext(fmt::format("worker list file {} line {}", path_, line_number))
          .WithHint("each line holds one HOST:PORT; # starts a comment");
    workers.emplace_back(text);
  }
  if (workers.empty())
    return Status::InvalidArgument("the worker list file {} lists no worker", path_)
        .WithHint("write one HOST:PORT per line");
  ++reads_;
  // Cached only after a successful read, so a half-written file is read again next time.
  cached_ = true;
  mtime_ns_ = mtime_ns;
  size_ = size;
  workers_ = workers;
  return workers;
}

std::string FileWorkerResolver::Describe() const {
  return fmt::format("file {}", path_);
}

int FileWorkerResolver::reads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reads_;
}

Result<std::vector<std::string>> DnsWorkerResolver::Resolve() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int rc = ::getaddrinfo(name_.c_str(), nullptr, &hints, &found);
  if (rc != 0) {
    return Status::Unavailable("cannot resolve the worker name {}: {}", name_,
                               rc == EAI_SYSTEM ? std::strerror(errno) : ::gai_strerror(rc))
        .WithHint("check the name given to --workers dns:NAME:PORT and the machine's DNS");
  }
  std::set<std::string> addresses;  // sorted and unique: getaddrinfo repeats per protocol
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    if (a->ai_family == AF_INET) {
      auto* in = reinterpret_cast<sockaddr_in*>(a->ai_addr);
      if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text)))
        addresses.insert(fmt::format("{}:{}", text, port_));
    } else if (a->ai_family == AF_INET6) {
      auto* in6 = reinterpret_cast<sockaddr_in6*>(a->ai_addr);
      if (::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text)))
        addresses.insert(fmt::format("[{}]:{}", text, port_));
    }
  }
  ::freeaddrinfo(found);
  if (addresses.empty())
    return Status::Unavailable("the worker name {} has no IPv4 or IPv6 address", name_);
  return std::vector<std::string>(addresses.begin(), addresses.end());
}

std::string DnsWorkerResolver::Describe() const {
  return fmt::format("DNS name {} port {}", name_, port_);
}

Result<WorkerResolverPtr> MakeWorkerResolver(std::string_view spec) {
  spec = Trim(spec);
  if (spec.starts_with("file:")) {
    std::string_view path = spec.substr(5);
    if (path.empty())
      return Status::InvalidArgument("--workers file: needs a path, e.g. file:/etc/shoal/workers");
    return WorkerResolverPtr(std::make_shared<FileWorkerResolver>(std::string(path)));
  }
  if (spec.starts_with("dns:")) {
    std::string_view rest = spec.substr(4);
    size_t colon = rest.rfind(':');
    if (colon == std::string_view::npos || colon == 0)
      return Status::InvalidArgument("--workers '{}' is not dns:NAME:PORT", spec)
          .WithHint("e.g. dns:shoal-workers.internal:7001");
    SHOAL_ASSIGN_OR_RETURN(int port,
                           ParsePort(rest.substr(colon + 1), fmt::format("--workers '{}'", spec)));
    return WorkerResolverPtr(
        std::make_shared<DnsWorkerResolver>(std::string(rest.substr(0, colon)), port));
  }
  std::vector<std::string> workers;
  std::string_view rest = spec;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view address = Trim(rest.substr(0, comma));
    if (!address.empty()) {
      SHOAL_RETURN_IF_ERROR(CheckWorkerAddress(address));
      workers.emplace_back(address);
    }
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  if (workers.empty())
    return Status::InvalidArgument(
        "--workers needs HOST:PORT[,HOST:PORT...], file:PATH or dns:NAME:PORT, got '{}'", spec);
  return WorkerResolverPtr(std::make_shared<StaticWorkerResolver>(std::move(workers)));
}

}  // namespace shoal::distributed
