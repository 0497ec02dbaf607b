#include "tests/support/golden_file.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace shoal::testing {

namespace {

constexpr int kContext = 2;

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos)
      break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// One line of an edit script: ' ' both, '-' golden only, '+' actual only.
struct Edit {
  char op;
  size_t golden_line;  // 0-based position in the golden lines (the next one for '+')
  size_t actual_line;
  std::string_view text;
};

// The shortest edit script by longest common subsequence: golden files are small (a plan is a
// few hundred lines at most), so the quadratic table is cheap.
std::vector<Edit> EditScript(const std::vector<std::string_view>& a,
                             const std::vector<std::string_view>& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  std::vector<Edit> edits;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      edits.push_back({' ', i, j, a[i]});
      ++i;
      ++j;
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      edits.push_back({'-', i, j, a[i]});  // removals first, as diff -u prints them
      ++i;
    } else {
      edits.push_back({'+', i, j, b[j]});
      ++j;
    }
  }
  return edits;
}

std::string ReadFile(const std::string& path, bool* found) {
  std::ifstream in(path, std::ios::binary);
  *found = static_cast<bool>(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

bool UpdatingGoldenFiles() {
  const char* env = std::getenv("SHOAL_UPDATE_GOLDEN");
  return env != nullptr && std::string_view(env) == "1";
}

std::string LineDiff(std::string_view golden, std::string_view actual, int max_lines) {
  if (golden == actual)
    return "";
  const std::vector<Edit> edits = EditScript(SplitLines(golden), SplitLines(actual));
  // Lines within kContext of a change are shown; the others are elided between hunks.
  std::vector<bool> shown(edits.size(), false);
  for (size_t k = 0; k < edits.size(); ++k) {
    if (edits[k].op == ' ')
      continue;
    const size_t lo = k >= kContext ? k - kContext : 0;
    for (size_t x = lo; x < std::min(edits.size(), k + kContext + 1); ++x)
      shown[x] = true;
  }
  std::string out;
  int lines = 0;
  for (size_t k = 0; k < edits.size(); ++k) {
    if (!shown[k])
      continue;
    if (lines >= max_lines) {
      out += "... (diff cut short)\n";
      break;
    }
    if (k == 0 || !shown[k - 1]) {
      out += "@@ golden line " + std::to_string(edits[k].golden_line + 1) + ", actual line " +
             std::to_string(edits[k].actual_line + 1) + " @@\n";
    }
    out += edits[k].op;
    out += edits[k].op == ' ' ? " " : "";
    out.append(edits[k].text);
    out += '\n';
    ++lines;
  }
  if (!golden.empty() && !actual.empty() && (golden.back() == '\n') != (actual.back() == '\n'))
    out += "(the texts differ in the newline at the end)\n";
  return out;
}

::testing::AssertionResult MatchesGoldenFile(std::string_view actual, const std::string& path) {
  if (UpdatingGoldenFiles()) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << actual;
    out.close();
    if (!out)
      return ::testing::AssertionFailure() << "cannot write golden file " << path;
    return ::testing::AssertionSuccess();
  }
  bool found = false;
  const std::string golden = ReadFile(path, &found);
  if (!found) {
    return ::testing::AssertionFailure()
           << "missing golden file " << path << "; run with SHOAL_UPDATE_GOLDEN=1 to create it";
  }
  if (golden == actual)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "output differs from golden file " << path << " (- golden, + actual):\n"
         << LineDiff(golden, actual)
         << "If the change is intended, rerun with SHOAL_UPDATE_GOLDEN=1 and review the diff.";
}

}  // namespace shoal::testing
