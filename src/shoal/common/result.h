// Result<T>: a value or an error Status, for functions that produce something and can fail.
//
// C++20 on GCC 12 has no std::expected, so Shoal keeps its own small type. Accessing the value of
// an error Result is a bug in Shoal, caught by SHOAL_CHECK; user-facing paths always test ok() or
// use SHOAL_ASSIGN_OR_RETURN.
#pragma once

#include <optional>
#include <type_traits>
#include <utility>

#include "shoal/common/check.h"
#include "shoal/common/status.h"

namespace shoal {

template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<T, Status>, "Result<Status> makes no sense");

 public:
  // Implicit on purpose: `return value;` and `return Status::NotFound(...)` both work.
  Result(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)

  Result(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    SHOAL_CHECK(!status_.ok(), "Result constructed from an OK Status without a value");
  }

  // Implicit too, for values convertible to T (`return std::make_unique<Derived>(...)` into a
  // Result<std::unique_ptr<Base>>). The constraint excludes T, Status and Result itself (no
  // Result converts to T), so this never hides the copy and move constructors.
  // NOLINTBEGIN(google-explicit-constructor, bugprone-forwarding-reference-overload)
  template <typename U>

  requires(std::is_convertible_v<U&&, T> && !std::is_same_v<std::decay_t<U>, T> &&
           !std::is_same_v<std::decay_t<U>, Status>) Result(U&& value)
      : value_(std::forward<U>(value)) {}

  // NOLINTEND(google-explicit-constructor, bugprone-forwarding-reference-overload)

  bool ok() const { return status_.ok(); }

  const Status& status() const& { return status_; }

  Status status() && { return std::move(status_); }

  const T& value() const& {
    SHOAL_CHECK(ok(), "value() of an error Result: {}", status_.ToString());
    return *value_;
  }

  T& value() & {
    SHOAL_CHECK(ok(), "value() of an error Result: {}", status_.ToString());
    return *value_;
  }

  T value() && {
    SHOAL_CHECK(ok(), "value() of an error Result: {}", status_.ToString());
    return std::move(*value_);
  }

  /// Moves the value out; the caller has checked ok().
  T MoveValueUnsafe() { return std::move(*value_); }

  const T& operator*() const& { return value(); }

  T& operator*() & { return value(); }

  const T* operator->() const { return &value(); }

  T* operator->() { return &value(); }

  T ValueOr(T fallback) && { return ok() ? std::move(*value_) : std::move(fallback); }

 private:
  Status status_;
  std::optional<T> value_;
};

namespace internal {
template <typename T>
const Status& ToStatus(const Result<T>& r) {
  return r.status();
}

template <typename T>
Status ToStatus(Result<T>&& r) {
  return std::move(r).status();
}
}  // namespace internal

}  // namespace shoal

#define SHOAL_CONCAT_INNER(a, b) a##b
#define SHOAL_CONCAT(a, b) SHOAL_CONCAT_INNER(a, b)

#define SHOAL_ASSIGN_OR_RETURN_IMPL(result_name, lhs, rexpr) \
  auto&& result_name = (rexpr);                              \
  if (!result_name.ok()) [[unlikely]] {                      \
    return std::move(result_name).status();                  \
  }                                                          \
  lhs = std::move(result_name).MoveValueUnsafe()

/// `SHOAL_ASSIGN_OR_RETURN(auto x, MakeX());` declares x from a Result or returns its error.
#define SHOAL_ASSIGN_OR_RETURN(lhs, rexpr) \
  SHOAL_ASSIGN_OR_RETURN_IMPL(SHOAL_CONCAT(_shoal_result_, __LINE__), lhs, rexpr)
