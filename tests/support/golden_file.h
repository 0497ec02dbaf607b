// Test support: golden files, checked-in text a test's output must match (EXPLAIN output, plans).
//
//   EXPECT_TRUE(MatchesGoldenFile(FormatLogicalPlan(*plan), GoldenPath(q))) << "plan of q" << q;
//
// A mismatch fails with a line diff (golden "-", actual "+", a few lines of context, line
// numbers), not two walls of text. With SHOAL_UPDATE_GOLDEN=1 in the environment the file is
// (re)written with the actual text instead and the check passes: regenerate, then review the
// change with git diff before committing it. A missing golden file fails and says how to make it.
#pragma once

#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace shoal::testing {

/// Whether SHOAL_UPDATE_GOLDEN=1: golden files are rewritten rather than compared.
bool UpdatingGoldenFiles();

/// Compares `actual` with the file at `path` (or rewrites it, see above).
::testing::AssertionResult MatchesGoldenFile(std::string_view actual, const std::string& path);

/// The line diff MatchesGoldenFile prints ("" when equal): hunks of "-golden", "+actual" and
/// "  context" lines under "@@ golden line G, actual line A @@" headers, at most `max_lines`.
std::string LineDiff(std::string_view golden, std::string_view actual, int max_lines = 60);

}  // namespace shoal::testing
