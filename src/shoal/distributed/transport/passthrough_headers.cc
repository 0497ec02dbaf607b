#include "shoal/distributed/transport/passthrough_headers.h"

#include <utility>

namespace shoal::distributed {

namespace {

Headers Merge(const Headers& base, const Headers& call) {
  if (call.empty())
    return base;
  Headers out = base;
  for (const auto& [k, v] : call)
    out[k] = v;
  return out;
}

class HeaderChannel final : public WorkerChannel {
 public:
  HeaderChannel(WorkerChannelPtr inner, std::shared_ptr<const Headers> headers)
      : inner_(std::move(inner)), headers_(std::move(headers)) {}

  const std::string& address() const override { return inner_->address(); }

  Result<std::unique_ptr<CoordinatorStream>> OpenCoordinatorChannel(
      const Headers& headers) override {
    return inner_->OpenCoordinatorChannel(Merge(*headers_, headers));
  }

  Result<std::vector<exec::StreamPtr>> ExecuteTask(
      const Headers& headers, const ExecuteTaskRequest& request,
      const std::shared_ptr<exec::TaskContext>& context) override {
    return inner_->ExecuteTask(Merge(*headers_, headers), request, context);
  }

  Result<WorkerInfo> GetWorkerInfo() override { return inner_->GetWorkerInfo(); }

  Result<std::vector<TaskProgress>> GetTaskProgress(const std::string& query_id) override {
    return inner_->GetTaskProgress(query_id);
  }

 private:
  WorkerChannelPtr inner_;
  std::shared_ptr<const Headers> headers_;
};

class HeaderResolver final : public ChannelResolver {
 public:
  HeaderResolver(ChannelResolverPtr inner, Headers headers)
      : inner_(std::move(inner)), headers_(std::make_shared<const Headers>(std::move(headers))) {}

  Result<WorkerChannelPtr> Connect(const std::string& address) override {
    SHOAL_ASSIGN_OR_RETURN(WorkerChannelPtr channel, inner_->Connect(address));
    return WorkerChannelPtr(std::make_shared<HeaderChannel>(std::move(channel), headers_));
  }

 private:
  ChannelResolverPtr inner_;
  std::shared_ptr<const Headers> headers_;
};

}  // namespace

Status CheckHeader(std::string_view key, std::string_view value) {
  if (key.empty() || key.size() > 64)
    return Status::InvalidArgument("header name '{}' must have 1 to 64 characters", key);
  for (char c : key) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!ok)
      return Status::InvalidArgument("header name '{}' has '{}'", key, c)
          .WithHint("header names use lowercase letters, digits, '-', '_' and '.'");
  }
  if (key.ends_with("-bin"))
    return Status::InvalidArgument("header name '{}' must not end in -bin (binary metadata)", key);
  if (value.size() > 4096)
    return Status::InvalidArgument("the value of header '{}' has {} bytes; at most 4096", key,
                                   value.size());
  for (char c : value) {
    if (c < 0x20 || c > 0x7e)
      return Status::InvalidArgument(
          "the value of header '{}' has a byte that is not printable "
          "ASCII (0x{:02x})",
          key, static_cast<unsigned char>(c));
  }
  return Status::OK();
}

Status ParseHeader(std::string_view text, Headers* headers) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos)
    return Status::InvalidArgument("--header '{}' is not KEY=VALUE", text)
        .WithHint("e.g. --header trace-id=abc123");
  std::string_view key = text.substr(0, eq);
  std::string_view value = text.substr(eq + 1);
  SHOAL_RETURN_IF_ERROR(CheckHeader(key, value));
  (*headers)[std::string(key)] = std::string(value);
  return Status::OK();
}

ChannelResolverPtr WithHeaders(ChannelResolverPtr inner, Headers headers) {
  if (headers.empty() || !inner)
    return inner;
  return std::make_shared<HeaderResolver>(std::move(inner), std::move(headers));
}

}  // namespace shoal::distributed
