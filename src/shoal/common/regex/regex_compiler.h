// RegexCompiler: PostgreSQL's advanced regular expression (ARE) syntax to a RegexProgram.
//
// The subset analysts use: literals and escapes (\d \w \s \D \W \S, \t \n \r \f \v \e \a, \xhh,
// \uhhhh, \Uhhhhhhhh, \. and every other non-alphanumeric), `.`, bracket expressions (ranges,
// negation, [:alpha:]-style classes, [.c.] and [=c=] of one character, escapes inside), anchors
// ^ $ \A \Z, word constraints \y \Y \m \M, capturing ( ) and non-capturing (?: ) groups,
// alternation |, the quantifiers * + ? {m} {m,} {m,n} and their non-greedy forms, and the
// options (?i) (?c) (?n) (?s) (?q) at the start of the pattern and the ***= director.
// Backreferences and lookaround are refused with 0A000; a malformed pattern gets SQLSTATE 2201B
// and PostgreSQL's message ("invalid regular expression: parentheses () not balanced").
//
// Compiling is bounded: parentheses nest at most kMaxRegexNesting deep (checked before the parser
// recurses, so `((((...))))` ten thousand deep is an error, never a stack overflow), repetition
// counts are at most 255 as in PostgreSQL, and the program at most kMaxRegexInstructions long.
#pragma once

#include <string_view>

#include "shoal/common/regex/regex_program.h"
#include "shoal/common/result.h"

namespace shoal::regex {

/// Deepest nesting of parentheses and brackets a pattern may have.
inline constexpr int kMaxRegexNesting = 500;

class RegexCompiler {
 public:
  /// Compiles `pattern` (UTF-8). Errors: 2201B for a malformed or too large pattern, 0A000 for
  /// syntax Shoal does not implement (backreferences, lookahead, lookbehind).
  static Result<RegexProgram> Compile(std::string_view pattern, RegexFlags flags);
};

}  // namespace shoal::regex
