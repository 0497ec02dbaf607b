// Invariant checks. These guard Shoal's own assumptions, never user input: a failed check means a
// bug in Shoal, so it prints file, line, the condition and a message, and aborts. Bad input must be
// reported with a Status instead (status.h).
//
// SHOAL_CHECK is always on; SHOAL_DCHECK only in debug builds (NDEBUG unset), for checks on hot
// paths. The comparison forms print both operands, which is what one wants in a crash report.
#pragma once

#include <string>

#include <fmt/core.h>

namespace shoal::internal {

[[noreturn]] void CheckFailed(const char* file, int line, const char* condition,
                              const std::string& message);

template <typename A, typename B>
[[noreturn]] void CheckOpFailed(const char* file, int line, const char* expr, const A& a,
                                const B& b) {
  CheckFailed(file, line, expr, fmt::format("left = {}, right = {}", a, b));
}

}  // namespace shoal::internal

#define SHOAL_CHECK(cond, ...)                                                               \
  do {                                                                                       \
    if (!(cond)) [[unlikely]] {                                                              \
      ::shoal::internal::CheckFailed(__FILE__, __LINE__, #cond, ::fmt::format(__VA_ARGS__)); \
    }                                                                                        \
  } while (false)

#define SHOAL_CHECK_OP(op, a, b)                                                                   \
  do {                                                                                             \
    const auto& _shoal_a = (a);                                                                    \
    const auto& _shoal_b = (b);                                                                    \
    if (!(_shoal_a op _shoal_b)) [[unlikely]] {                                                    \
      ::shoal::internal::CheckOpFailed(__FILE__, __LINE__, #a " " #op " " #b, _shoal_a, _shoal_b); \
    }                                                                                              \
  } while (false)

#define SHOAL_CHECK_EQ(a, b) SHOAL_CHECK_OP(==, a, b)
#define SHOAL_CHECK_NE(a, b) SHOAL_CHECK_OP(!=, a, b)
#define SHOAL_CHECK_LT(a, b) SHOAL_CHECK_OP(<, a, b)
#define SHOAL_CHECK_LE(a, b) SHOAL_CHECK_OP(<=, a, b)
#define SHOAL_CHECK_GT(a, b) SHOAL_CHECK_OP(>, a, b)
#define SHOAL_CHECK_GE(a, b) SHOAL_CHECK_OP(>=, a, b)

#ifdef NDEBUG
#define SHOAL_DCHECK(cond, ...) \
  do {                          \
  } while (false && (cond))
#define SHOAL_DCHECK_LE(a, b) SHOAL_DCHECK((a) <= (b), "")
#define SHOAL_DCHECK_LT(a, b) SHOAL_DCHECK((a) < (b), "")
#else
#define SHOAL_DCHECK(cond, ...) SHOAL_CHECK(cond, __VA_ARGS__)
#define SHOAL_DCHECK_LE(a, b) SHOAL_CHECK_LE(a, b)
#define SHOAL_DCHECK_LT(a, b) SHOAL_CHECK_LT(a, b)
#endif
