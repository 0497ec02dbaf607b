#include "shoal/distributed/shuffle/task_error.h"

#include <charconv>
#include <string_view>

#include <fmt/format.h>

namespace shoal::distributed::shuffle {

bool IsRetryableTaskError(const Status& status) {
  switch (status.code()) {
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded:
    case StatusCode::kIoError:
    case StatusCode::kOutOfMemory: return true;
    default: return false;
  }
}

std::string TaskErrorReport(const Status& status) {
  return fmt::format("error {} {}", static_cast<int>(status.code()), status.sqlstate());
}

std::optional<std::pair<StatusCode, std::string>> ParseTaskErrorReport(const std::string& text) {
  size_t end = text.size();
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' '))
    --end;
  size_t start = end == 0 ? std::string::npos : text.rfind('\n', end - 1);
  start = start == std::string::npos ? 0 : start + 1;
  std::string_view line(text.data() + start, end - start);
  constexpr std::string_view kPrefix = "error ";
  if (line.substr(0, kPrefix.size()) != kPrefix)
    return std::nullopt;
  line.remove_prefix(kPrefix.size());
  int code = 0;
  auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), code);
  if (ec != std::errc() || code <= 0 || code > static_cast<int>(StatusCode::kInternal) ||
      ptr == line.data() + line.size() || *ptr != ' ')
    return std::nullopt;
  std::string sqlstate(ptr + 1, line.data() + line.size());
  if (sqlstate.size() != 5)
    return std::nullopt;
  return std::make_pair(static_cast<StatusCode>(code), std::move(sqlstate));
}

}  // namespace shoal::distributed::shuffle
