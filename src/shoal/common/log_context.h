// What every log line says besides its message: the format of the lines (logging.h's text, or one
// JSON object a line) and the query and task the logging thread works for, so that one grep for a
// query id follows it across the coordinator and every worker.
//
// The format comes from the SHOAL_LOG_FORMAT environment variable (`json`; anything else: text) or
// SetLogFormat() (`shoal server --log-format json`, `shoal worker --log-format json`). A JSON line
// is {"time": "2026-12-03T14:00:00.123456Z", "level": "info", "role": ..., "query_id": ...,
// "task": ..., "file": ..., "line": ..., "message": ...}; query_id and task are null when the
// thread works for none. Text lines are as they always were (scripts read them).
//
// The context is per thread: ScopedLogContext sets it for a scope (a statement on the server, a
// task's handler on a worker) and puts back what was there before.
#pragma once

#include <string>
#include <string_view>

namespace shoal {

enum class LogFormat : int { kText = 0, kJson = 1 };

void SetLogFormat(LogFormat format);
LogFormat GetLogFormat();

class ScopedLogContext {
 public:
  /// `task_key` empty: the query's own work (the coordinator), no task.
  ScopedLogContext(std::string_view query_id, std::string_view task_key);
  ~ScopedLogContext();
  ScopedLogContext(const ScopedLogContext&) = delete;
  ScopedLogContext& operator=(const ScopedLogContext&) = delete;

 private:
  std::string saved_query_id_;
  std::string saved_task_key_;
};

}  // namespace shoal
