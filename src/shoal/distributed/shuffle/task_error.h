// How a failed materialized-shuffle task tells its driver what went wrong, and whether the
// driver runs it again. A failed `shoal task` prints its error's code and SQLSTATE as the last
// line of its stdout; a worker running tasks for a remote driver passes them in the gRPC status
// details (stage_file_service.cc). The driver retries only what may succeed on another attempt.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "shoal/common/status.h"

namespace shoal::distributed::shuffle {

/// Whether a task that failed with `status` may succeed when run again (elsewhere): lost
/// processes and workers, transport and I/O failures, memory pressure. SQL errors, out-of-range
/// values, bad data and every other deterministic error would fail the same way on every
/// attempt, so they are never retried.
bool IsRetryableTaskError(const Status& status);

/// The line a failed `shoal task` prints last on stdout so that its driver learns the error's
/// code and SQLSTATE (the message itself goes to stderr): "error CODE SQLSTATE".
std::string TaskErrorReport(const Status& status);

/// The code and SQLSTATE of a TaskErrorReport on the last line of `text`; nullopt if none.
std::optional<std::pair<StatusCode, std::string>> ParseTaskErrorReport(const std::string& text);

}  // namespace shoal::distributed::shuffle
