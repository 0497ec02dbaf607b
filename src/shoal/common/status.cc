#include "shoal/common/status.h"

#include <ostream>

namespace shoal {
namespace {
const std::string kEmpty;
}  // namespace

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "InvalidArgument";
    case StatusCode::kSyntaxError: return "SyntaxError";
    case StatusCode::kNotFound: return "NotFound";
    case StatusCode::kAlreadyExists: return "AlreadyExists";
    case StatusCode::kTypeError: return "TypeError";
    case StatusCode::kOutOfRange: return "OutOfRange";
    case StatusCode::kOutOfMemory: return "OutOfMemory";
    case StatusCode::kIoError: return "IoError";
    case StatusCode::kInvalidData: return "InvalidData";
    case StatusCode::kNotImplemented: return "NotImplemented";
    case StatusCode::kCancelled: return "Cancelled";
    case StatusCode::kUnavailable: return "Unavailable";
    case StatusCode::kDeadlineExceeded: return "DeadlineExceeded";
    case StatusCode::kInternal: return "Internal";
  }
  return "Unknown";
}

Status::Status(StatusCode code, std::string message) {
  if (code != StatusCode::kOk) {
    state_ = std::make_unique<State>();
    state_->code = code;
    state_->message = std::move(message);
  }
}

Status::Status(const Status& other)
    : state_(other.state_ ? std::make_unique<State>(*other.state_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) {
    state_ = other.state_ ? std::make_unique<State>(*other.state_) : nullptr;
  }
  return *this;
}

const std::string& Status::message() const {
  return state_ ? state_->message : kEmpty;
}

const std::string& Status::context() const {
  return state_ ? state_->context : kEmpty;
}

const std::string& Status::hint() const {
  return state_ ? state_->hint : kEmpty;
}

std::string Status::sqlstate() const {
  if (!state_)
    return "00000";
  if (!state_->sqlstate.empty())
    return state_->sqlstate;
  // PostgreSQL's classes, so clients that branch on SQLSTATE behave as with PostgreSQL.
  switch (state_->code) {
    case StatusCode::kOk: return "00000";
    case StatusCode::kInvalidArgument: return "22023";   // invalid_parameter_value
    case StatusCode::kSyntaxError: return "42601";       // syntax_error
    case StatusCode::kNotFound: return "42704";          // undefined_object
    case StatusCode::kAlreadyExists: return "42710";     // duplicate_object
    case StatusCode::kTypeError: return "42804";         // datatype_mismatch
    case StatusCode::kOutOfRange: return "22003";        // numeric_value_out_of_range
    case StatusCode::kOutOfMemory: return "53200";       // out_of_memory
    case StatusCode::kIoError: return "58030";           // io_error
    case StatusCode::kInvalidData: return "22P04";       // bad_copy_file_format
    case StatusCode::kNotImplemented: return "0A000";    // feature_not_supported
    case StatusCode::kCancelled: return "57014";         // query_canceled
    case StatusCode::kUnavailable: return "08006";       // connection_failure
    case StatusCode::kDeadlineExceeded: return "57014";  // query_canceled (statement timeout)
    case StatusCode::kInternal: return "XX000";          // internal_error
  }
  return "XX000";
}

Status Status::WithContext(std::string_view frame) && {
  if (state_) {
    state_->context.insert(0, std::string(frame) + ": ");
  }
  return std::move(*this);
}

Status Status::WithContext(std::string_view frame) const& {
  return Status(*this).WithContext(frame);
}

Status Status::WithSqlState(std::string_view sqlstate) && {
  if (state_)
    state_->sqlstate = std::string(sqlstate);
  return std::move(*this);
}

Status Status::WithPosition(int position) && {
  if (state_)
    state_->position = position;
  return std::move(*this);
}

Status Status::WithHint(std::string hint) && {
  if (state_)
    state_->hint = std::move(hint);
  return std::move(*this);
}

std::string Status::UserMessage() const {
  if (!state_)
    return "OK";
  return state_->context + state_->message;
}

std::string Status::ToString() const {
  if (!state_)
    return "OK";
  std::string out(StatusCodeName(state_->code));
  out += ": ";
  out += UserMessage();
  if (!state_->hint.empty()) {
    out += " (hint: " + state_->hint + ")";
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const Status& status) {
  return os << status.ToString();
}

}  // namespace shoal
