// gtest helpers for Shoal's Status / Result error model, shared by every test suite.
//
// Failures print the whole Status (code, context and message) and the expression that produced it,
// so a failing test says what went wrong without a debugger.
#pragma once

#include <ostream>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "shoal/common/result.h"
#include "shoal/common/status.h"

namespace shoal::testing {

/// The Status of a Status or a Result, by value so that temporaries may be passed.
inline Status StatusOf(const Status& status) {
  return status;
}

template <typename T>
Status StatusOf(const Result<T>& result) {
  return result.status();
}

inline ::testing::AssertionResult StatusHasCode(const char* code_expr, const char* status_expr,
                                                StatusCode code, const Status& status) {
  if (status.code() == code)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << status_expr << " returned " << status.ToString() << ", expected code "
         << StatusCodeName(code) << " (" << code_expr << ")";
}

}  // namespace shoal::testing

namespace shoal {

// gtest prints values through PrintTo found by argument-dependent lookup; without this a
// StatusCode shows up as "1-byte object <06>".
inline void PrintTo(StatusCode code, std::ostream* os) {
  *os << StatusCodeName(code);
}

}  // namespace shoal

// The switch guards against a dangling else, as gtest's own macros do; the trailing else lets
// callers stream more context: EXPECT_OK(st) << "while reading " << path;
#define SHOAL_TEST_OK_IMPL(fail, expr)                                                 \
  switch (0)                                                                           \
  case 0:                                                                              \
  default:                                                                             \
    if (const ::shoal::Status _shoal_test_status = ::shoal::testing::StatusOf((expr)); \
        _shoal_test_status.ok())                                                       \
      ;                                                                                \
    else                                                                               \
      fail() << #expr " returned " << _shoal_test_status.ToString() << " "

/// Fails the test (and returns from it) unless `expr`, a Status or a Result, is OK.
#define ASSERT_OK(expr) SHOAL_TEST_OK_IMPL(FAIL, expr)
/// Records a failure unless `expr`, a Status or a Result, is OK.
#define EXPECT_OK(expr) SHOAL_TEST_OK_IMPL(ADD_FAILURE, expr)

#define SHOAL_ASSERT_OK_AND_ASSIGN_IMPL(result_name, lhs, rexpr)      \
  auto&& result_name = (rexpr);                                       \
  if (!result_name.ok())                                              \
    FAIL() << #rexpr " returned " << result_name.status().ToString(); \
  lhs = std::move(result_name).MoveValueUnsafe()

/// `ASSERT_OK_AND_ASSIGN(auto array, builder.Finish());` declares `array` or fails the test.
#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  SHOAL_ASSERT_OK_AND_ASSIGN_IMPL(SHOAL_CONCAT(_shoal_test_result_, __LINE__), lhs, rexpr)

#define SHOAL_TEST_STATUS_CODE_IMPL(fail, code, expr)                                      \
  switch (0)                                                                               \
  case 0:                                                                                  \
  default:                                                                                 \
    if (const ::testing::AssertionResult _shoal_test_ok = ::shoal::testing::StatusHasCode( \
            #code, #expr, code, ::shoal::testing::StatusOf((expr)));                       \
        _shoal_test_ok)                                                                    \
      ;                                                                                    \
    else                                                                                   \
      fail() << _shoal_test_ok.message() << " "

/// `EXPECT_STATUS_CODE(StatusCode::kOutOfRange, ParseDecimal("1e40", 5, 0));`
#define EXPECT_STATUS_CODE(code, expr) SHOAL_TEST_STATUS_CODE_IMPL(ADD_FAILURE, code, expr)
#define ASSERT_STATUS_CODE(code, expr) SHOAL_TEST_STATUS_CODE_IMPL(FAIL, code, expr)
