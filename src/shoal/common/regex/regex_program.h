// A compiled regular expression: the instruction list a RegexMatcher runs, produced by
// RegexCompiler from PostgreSQL's advanced regular expression (ARE) syntax.
//
// The program is a Thompson NFA written as instructions (Russ Cox's "Pike VM" form): consuming
// instructions test one character (a Unicode code point decoded from UTF-8), kSplit forks two
// threads in priority order, kSave records a capture position and kAssert tests a position
// (^, $, word boundaries). A matcher runs all threads in lock step, so matching is linear in the
// text's length times the program's size, whatever the pattern: no backtracking, no recursion.
// The compiler caps the program's size (kMaxRegexInstructions), so a hostile pattern costs a
// bounded amount of memory and time per character.
//
// Immutable once built; share it between threads freely (each thread needs its own matcher).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace shoal::regex {

/// Most instructions a compiled program may have; a pattern that would need more is refused
/// (2201B) instead of using unbounded memory. Bounded repetition copies its operand, so
/// `(a{255}){255}` alone needs 65,000.
inline constexpr int32_t kMaxRegexInstructions = 100000;

/// Matching options, from the flags of regexp_replace & co. or from `(?i)` in the pattern.
struct RegexFlags {
  bool case_insensitive = false;
  /// PostgreSQL's 'n' flag: `.` and `[^...]` do not match a newline, `^` and `$` also match after
  /// and before one.
  bool newline_sensitive = false;
};

enum class RegexOp : uint8_t {
  kChar,      // the code point `x`
  kAny,       // any character
  kAnyNotNl,  // any character but '\n'
  kClass,     // a character of classes[x]
  kSplit,     // continue at x (preferred) and at y
  kJump,      // continue at x
  kSave,      // capture slot x (2 * group for its start, 2 * group + 1 for its end) = position
  kAssert,    // a position test: assertion
  kMatch,     // the whole pattern matched
};

enum class RegexAssertion : uint8_t {
  kBeginText,        // ^ (without 'n'), \A
  kEndText,          // $ (without 'n'), \Z
  kBeginLine,        // ^ with 'n'
  kEndLine,          // $ with 'n'
  kWordBoundary,     // \y
  kNotWordBoundary,  // \Y
  kWordStart,        // \m
  kWordEnd,          // \M
};

struct RegexInst {
  RegexOp op = RegexOp::kMatch;
  RegexAssertion assertion = RegexAssertion::kBeginText;
  int32_t x = 0;
  int32_t y = 0;
};

/// A bracket expression or class escape: sorted, disjoint, non-adjacent code point ranges, with
/// a bitmap of the ASCII members for the common case.
struct RegexCharClass {
  std::vector<std::pair<char32_t, char32_t>> ranges;
  uint64_t ascii[2] = {0, 0};

  bool Contains(char32_t c) const {
    if (c < 128)
      return ((ascii[c >> 6] >> (c & 63)) & 1) != 0;
    size_t lo = 0, hi = ranges.size();
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (ranges[mid].second < c)
        lo = mid + 1;
      else if (ranges[mid].first > c)
        hi = mid;
      else
        return true;
    }
    return false;
  }
};

/// Whether a whole match prefers the longest or the shortest text at the leftmost position,
/// decided by PostgreSQL's rule: the preference of the first quantifier that has one (`*`, `+`,
/// `?`, `{m,n}` are greedy, their `?` forms are not), greedy when there is none or the pattern
/// has a top-level `|`.
enum class RegexPreference : uint8_t { kLongest, kShortest };

struct RegexProgram {
  std::vector<RegexInst> insts;  // starts at 0
  std::vector<RegexCharClass> classes;
  /// Parenthesised subexpressions that capture, numbered from 1 by their opening parenthesis.
  int32_t num_groups = 0;
  RegexPreference preference = RegexPreference::kLongest;
  /// Every match begins at the start of the text (the pattern starts with ^ or \A).
  bool anchored_start = false;
  /// The pattern is this plain byte string (no operators, case-sensitive): matched with memmem.
  bool is_literal = false;
  std::string literal;
  /// Bytes a match can begin with (bit b of first_bytes[b / 64]); all set when a match can be
  /// empty or begin anywhere. Lets the matcher skip text where no match can start.
  uint64_t first_bytes[4] = {0, 0, 0, 0};
  bool any_first_byte = true;
};

}  // namespace shoal::regex
