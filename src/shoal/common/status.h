// Status: the one error model of Shoal.
//
// Every function that can fail because of user input, files, the network or resources returns a
// `Status` (or a `Result<T>`, see result.h) instead of throwing. A Status carries a code, a
// message, optional context frames added as the error travels outward ("while reading
// lineitem.parquet"), and for SQL errors a SQLSTATE and a 1-based character position in the
// statement.
//
// Codes are split into user errors (bad input, missing files, limits) and internal errors (our own
// bugs that were caught as a Status instead of a crash). The code set is small on purpose so that
// it maps one-to-one onto gRPC status codes and PostgreSQL SQLSTATE classes at the edges.
//
// An OK Status holds no allocation; an error Status holds one heap block, so the happy path costs a
// pointer compare.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/core.h>

namespace shoal {

enum class StatusCode : uint8_t {
  kOk = 0,
  kInvalidArgument,   // malformed user input: bad option, bad literal, bad SQL semantics
  kSyntaxError,       // SQL that does not parse
  kNotFound,          // missing table, column, file, function
  kAlreadyExists,     // duplicate name
  kTypeError,         // type mismatch that no implicit cast resolves
  kOutOfRange,        // numeric overflow, index out of bounds on user data
  kOutOfMemory,       // a memory pool refused an allocation over its limit; the OS a thread
  kIoError,           // the OS refused a read or write
  kInvalidData,       // bytes from outside (IPC, Parquet, CSV, wire) that violate their format
  kNotImplemented,    // a valid request Shoal does not support yet
  kCancelled,         // the query was cancelled by the user or a peer
  kUnavailable,       // a peer (worker, coordinator) cannot be reached
  kDeadlineExceeded,  // a timeout elapsed
  kInternal,          // a bug in Shoal caught before it could do harm
};

/// Short stable name of a code, e.g. "InvalidData". Tests and logs match on these.
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message);
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;

  static Status OK() { return {}; }

  template <typename... Args>
  static Status Make(StatusCode code, fmt::format_string<Args...> format, Args&&... args) {
    return Status(code, fmt::format(format, std::forward<Args>(args)...));
  }

  // One factory per code keeps call sites short: Status::InvalidData("bad magic {}", x).
#define SHOAL_STATUS_FACTORY(Name)                                                        \
  template <typename... Args>                                                             \
  static Status Name(fmt::format_string<Args...> format, Args&&... args) {                \
    return Status(StatusCode::k##Name, fmt::format(format, std::forward<Args>(args)...)); \
  }
  SHOAL_STATUS_FACTORY(InvalidArgument)
  SHOAL_STATUS_FACTORY(SyntaxError)
  SHOAL_STATUS_FACTORY(NotFound)
  SHOAL_STATUS_FACTORY(AlreadyExists)
  SHOAL_STATUS_FACTORY(TypeError)
  SHOAL_STATUS_FACTORY(OutOfRange)
  SHOAL_STATUS_FACTORY(OutOfMemory)
  SHOAL_STATUS_FACTORY(IoError)
  SHOAL_STATUS_FACTORY(InvalidData)
  SHOAL_STATUS_FACTORY(NotImplemented)
  SHOAL_STATUS_FACTORY(Cancelled)
  SHOAL_STATUS_FACTORY(Unavailable)
  SHOAL_STATUS_FACTORY(DeadlineExceeded)
  SHOAL_STATUS_FACTORY(Internal)
#undef SHOAL_STATUS_FACTORY

  bool ok() const {
    return state_ == nullptr;
  }

  StatusCode code() const {
    return state_ ? state_->code : StatusCode::kOk;
  }

  /// The message without context frames.
  const std::string& message() const;
  /// Context frames, innermost first, joined by ": " as they are printed.
  const std::string& context() const;
  /// Five-character SQLSTATE; derived from the code unless set explicitly.
  std::string sqlstate() const;

  /// 1-based character position in the SQL text, or 0 when unknown.
  int position() const {
    return state_ ? state_->position : 0;
  }

  /// Optional hint for the user ("did you mean ...?").
  const std::string& hint() const;

  /// Internal errors are Shoal bugs; every other code is the user's or the environment's.
  bool IsInternal() const {
    return code() == StatusCode::kInternal;
  }

  /// Adds an outer context frame: the printed message becomes "<frame>: <previous>".
  Status WithContext(std::string_view frame) &&;
  Status WithContext(std::string_view frame) const&;
  Status WithSqlState(std::string_view sqlstate) &&;
  Status WithPosition(int position) &&;
  Status WithHint(std::string hint) &&;

  /// "InvalidData: reading x.arrow: bad magic". The form used in logs and tests.
  std::string ToString() const;
  /// The message with its context, without the code name; what a user sees after "ERROR:".
  std::string UserMessage() const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code() == b.code() && a.UserMessage() == b.UserMessage();
  }

 private:
  struct State {
    StatusCode code = StatusCode::kOk;
    int position = 0;
    std::string message;
    std::string context;   // outermost first, each followed by ": "
    std::string sqlstate;  // empty: derived from code
    std::string hint;
  };

  std::unique_ptr<State> state_;
};

std::ostream& operator<<(std::ostream& os, const Status& status);

}  // namespace shoal

/// Returns from the enclosing function if `expr` (a Status or Result) is an error.
#define SHOAL_RETURN_IF_ERROR(expr)                             \
  do {                                                          \
    auto&& _shoal_status = ::shoal::internal::ToStatus((expr)); \
    if (!_shoal_status.ok()) [[unlikely]] {                     \
      return std::move(_shoal_status);                          \
    }                                                           \
  } while (false)

namespace shoal::internal {
inline const Status& ToStatus(const Status& s) {
  return s;
}

inline Status ToStatus(Status&& s) {
  return std::move(s);
}
}  // namespace shoal::internal
