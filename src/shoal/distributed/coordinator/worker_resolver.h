// WorkerResolver: where the coordinator finds its workers. The coordinator asks its resolver at
// every query (and at CheckWorkers), so a worker list that changes between queries — a file an
// orchestrator rewrites, a DNS name whose records follow a scaling group — is picked up without
// restarting the coordinator. A query keeps the list it was planned with.
//
// Three implementations, chosen by the text of `shoal sql --workers` (MakeWorkerResolver):
//  - "HOST:PORT,HOST:PORT": a static list;
//  - "file:PATH": one HOST:PORT per line, `#` starts a comment; the file is re-read when its
//    modification time or size changed since the last query;
//  - "dns:NAME:PORT": every A and AAAA record of NAME (getaddrinfo), each with PORT.
//
// Thread safety: Resolve may be called from many threads at once.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "shoal/common/result.h"

namespace shoal::distributed {

class WorkerResolver {
 public:
  virtual ~WorkerResolver() = default;
  /// The current workers, never empty (an empty list is an error naming the source).
  virtual Result<std::vector<std::string>> Resolve() = 0;
  /// The source, for errors and logs ("file /etc/shoal/workers").
  virtual std::string Describe() const = 0;
};

using WorkerResolverPtr = std::shared_ptr<WorkerResolver>;

class StaticWorkerResolver final : public WorkerResolver {
 public:
  explicit StaticWorkerResolver(std::vector<std::string> workers) : workers_(std::move(workers)) {}

  Result<std::vector<std::string>> Resolve() override;
  std::string Describe() const override;

 private:
  std::vector<std::string> workers_;
};

class FileWorkerResolver final : public WorkerResolver {
 public:
  explicit FileWorkerResolver(std::string path) : path_(std::move(path)) {}

  Result<std::vector<std::string>> Resolve() override;
  std::string Describe() const override;

  /// How many times the file was (re-)read: for tests that a file is read only when it changed.
  int reads() const;

 private:
  std::string path_;
  mutable std::mutex mutex_;
  bool cached_ = false;
  int64_t mtime_ns_ = 0;
  int64_t size_ = -1;
  std::vector<std::string> workers_;
  int reads_ = 0;
};

class DnsWorkerResolver final : public WorkerResolver {
 public:
  DnsWorkerResolver(std::string name, int port) : name_(std::move(name)), port_(port) {}

  Result<std::vector<std::string>> Resolve() override;
  std::string Describe() const override;

 private:
  std::string name_;
  int port_;
};

/// Checks that `address` is HOST:PORT (or [IPV6]:PORT) with a port in 1..65535.
Status CheckWorkerAddress(std::string_view address);

/// Parses a static list, "file:PATH" or "dns:NAME:PORT" (see above).
Result<WorkerResolverPtr> MakeWorkerResolver(std::string_view spec);

}  // namespace shoal::distributed
