#include "shoal/common/logging.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>

#include "shoal/common/log_context.h"

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

LogFormat FormatFromEnvironment() {
  const char* env = std::getenv("SHOAL_LOG_FORMAT");
  return env != nullptr && std::string_view(env) == "json" ? LogFormat::kJson : LogFormat::kText;
}

std::atomic<int>& FormatSlot() {
  static std::atomic<int> format{static_cast<int>(FormatFromEnvironment())};
  return format;
}

thread_local std::string t_query_id;  // NOLINT: the logging thread's context (log_context.h)
thread_local std::string t_task_key;  // NOLINT

const char* LevelWord(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarning: return "warning";
    case LogLevel::kError: return "error";
  }
  return "?";
}

// A JSON string literal of `text` (control characters as \u00XX; other bytes as they are: the
// messages are UTF-8).
void AppendJsonString(std::string* out, std::string_view text) {
  *out += '"';
  for (char c : text) {
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
          *out += buf;
        } else {
          *out += c;
        }
    }
  }
  *out += '"';
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

void SetLogFormat(LogFormat format) {
  FormatSlot().store(static_cast<int>(format));
}

LogFormat GetLogFormat() {
  return static_cast<LogFormat>(FormatSlot().load(std::memory_order_relaxed));
}

ScopedLogContext::ScopedLogContext(std::string_view query_id, std::string_view task_key)
    : saved_query_id_(std::move(t_query_id)), saved_task_key_(std::move(t_task_key)) {
  t_query_id = std::string(query_id);
  t_task_key = std::string(task_key);
}

ScopedLogContext::~ScopedLogContext() {
  t_query_id = std::move(saved_query_id_);
  t_task_key = std::move(saved_task_key_);
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
  if (GetLogFormat() == LogFormat::kJson) {
    char time[48];
    std::snprintf(time, sizeof(time), "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<long>(micros));
    std::string out = "{\"time\":\"";
    out += time;
    out += "\",\"level\":\"";
    out += LevelWord(level);
    out += "\",\"role\":";
    {
      std::lock_guard<std::mutex> lock(LogMutex());
      AppendJsonString(&out, Role());
    }
    out += ",\"query_id\":";
    if (t_query_id.empty())
      out += "null";
    else
      AppendJsonString(&out, t_query_id);
    out += ",\"task\":";
    if (t_task_key.empty())
      out += "null";
    else
      AppendJsonString(&out, t_task_key);
    out += ",\"file\":";
    AppendJsonString(&out, base);
    out += ",\"line\":" + std::to_string(line) + ",\"message\":";
    AppendJsonString(&out, message);
    out += "}\n";
    std::lock_guard<std::mutex> lock(LogMutex());
    std::fwrite(out.data(), 1, out.size(), stderr);
    return;
  }
  std::lock_guard<std::mutex> lock(LogMutex());
  std::fprintf(stderr, "%s %02d:%02d:%02d.%06ld %s %s:%d] %.*s\n", LevelName(level), tm.tm_hour,
               tm.tm_min, tm.tm_sec, static_cast<long>(micros), Role().c_str(), base, line,
               static_cast<int>(message.size()), message.data());
}

}  // namespace internal
}  // namespace shoal
