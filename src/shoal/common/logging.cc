#include "shoal/common/logging.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>

namespace shoal {
namespace {

LogLevel LevelFromEnvironment() {
  const char* env = std::getenv("SHOAL_LOG_LEVEL");
  if (env == nullptr)
    return LogLevel::kWarning;
  std::string_view v(env);
  if (v == "debug")
    return LogLevel::kDebug;
  if (v == "info")
    return LogLevel::kInfo;
  if (v == "error")
    return LogLevel::kError;
  return LogLevel::kWarning;
}

std::atomic<int>& LevelSlot() {
  static std::atomic<int> level{static_cast<int>(LevelFromEnvironment())};
  return level;
}

std::mutex& LogMutex() {
  static std::mutex mu;
  return mu;
}

std::string& Role() {
  static std::string role = "shoal";
  return role;
}

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "D";
    case LogLevel::kInfo: return "I";
    case LogLevel::kWarning: return "W";
    case LogLevel::kError: return "E";
  }
  return "?";
}

}  // namespace

void SetLogLevel(LogLevel level) {
  LevelSlot().store(static_cast<int>(level));
}

LogLevel GetLogLevel() {
  return static_cast<LogLevel>(LevelSlot().load(std::memory_order_relaxed));
}

void SetLogRole(std::string_view role) {
  std::lock_guard<std::mutex> lock(LogMutex());
  Role() = std::string(role);
}

namespace internal {

void EmitLog(LogLevel level, const char* file, int line, std::string_view message) {
  auto now = std::chrono::system_clock::now();
  auto secs = std::chrono::system_clock::to_time_t(now);
  auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
      1000000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  const char* base = std::strrchr(file, '/');
  base = base ? base + 1 : file;
  std::lock_guard<std::mutex> lock(LogMutex());
  std::fprintf(stderr, "%s %02d:%02d:%02d.%06ld %s %s:%d] %.*s\n", LevelName(level), tm.tm_hour,
               tm.tm_min, tm.tm_sec, static_cast<long>(micros), Role().c_str(), base, line,
               static_cast<int>(message.size()), message.data());
}

}  // namespace internal
}  // namespace shoal
