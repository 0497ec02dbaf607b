// Minimal leveled logging to stderr. Every process (shell, coordinator, worker) logs the same way
// so that interleaved output from worker processes stays readable: one line per message, prefixed
// with the level, the time and the process role.
//
// The level comes from the SHOAL_LOG_LEVEL environment variable (debug, info, warning, error;
// default warning) or SetLogLevel(). Formatting happens only when the level is enabled.
#pragma once

#include <string_view>

#include <fmt/core.h>

namespace shoal {

enum class LogLevel : int { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
/// A short name printed in every line, e.g. "worker:50051"; set once by the process's main.
void SetLogRole(std::string_view role);

namespace internal {
void EmitLog(LogLevel level, const char* file, int line, std::string_view message);
}  // namespace internal

}  // namespace shoal

#define SHOAL_LOG(level, ...)                                                                     \
  do {                                                                                            \
    if (static_cast<int>(::shoal::LogLevel::level) >= static_cast<int>(::shoal::GetLogLevel())) { \
      ::shoal::internal::EmitLog(::shoal::LogLevel::level, __FILE__, __LINE__,                    \
                                 ::fmt::format(__VA_ARGS__));                                     \
    }                                                                                             \
  } while (false)

#define SHOAL_LOG_DEBUG(...) SHOAL_LOG(kDebug, __VA_ARGS__)
#define SHOAL_LOG_INFO(...) SHOAL_LOG(kInfo, __VA_ARGS__)
#define SHOAL_LOG_WARNING(...) SHOAL_LOG(kWarning, __VA_ARGS__)
#define SHOAL_LOG_ERROR(...) SHOAL_LOG(kError, __VA_ARGS__)
