#include "shoal/common/regex/regex_matcher.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/common/regex/regex_compiler.h"

namespace shoal::regex {
namespace {

RegexProgram MustCompile(std::string_view pattern, RegexFlags flags = {}) {
  auto program = RegexCompiler::Compile(pattern, flags);
  EXPECT_TRUE(program.ok()) << pattern << ": " << program.status().ToString();
  return program.ok() ? std::move(program).value() : RegexProgram{};
}

// The text of the first match of `pattern` in `text` (or of its group `group`), "<none>" when
// there is no match, "<unset>" when the group did not take part. Expected values come from
// PostgreSQL 15 (substring(text from pattern) and friends).
std::string Match(std::string_view pattern, std::string_view text, int32_t group = 0,
                  RegexFlags flags = {}) {
  RegexProgram program = MustCompile(pattern, flags);
  RegexMatcher matcher(&program);
  RegexSpan span;
  if (!matcher.Find(text, 0, &span))
    return "<none>";
  RegexSpan g;
  matcher.Groups(text, span, {group}, &g);
  if (!g.matched())
    return "<unset>";
  return std::string(
      text.substr(static_cast<size_t>(g.begin), static_cast<size_t>(g.end - g.begin)));
}

bool Matches(std::string_view pattern, std::string_view text, RegexFlags flags = {}) {
  RegexProgram program = MustCompile(pattern, flags);
  RegexMatcher matcher(&program);
  const bool test = matcher.Test(text);
  RegexSpan span;
  EXPECT_EQ(test, matcher.Find(text, 0, &span)) << pattern << " on " << text;
  return test;
}

TEST(RegexMatcherTest, LiteralsAndOperators) {
  EXPECT_TRUE(Matches("b", "abc"));
  EXPECT_FALSE(Matches("d", "abc"));
  EXPECT_TRUE(Matches("", "abc"));
  EXPECT_TRUE(Matches("a|", "b"));
  EXPECT_EQ(Match("b.", "abcd"), "bc");
  EXPECT_EQ(Match("a.c", "a.c"), "a.c");
  EXPECT_EQ(Match("a\\.c", "abc a.c"), "a.c");
  EXPECT_EQ(Match("x|bc|b", "abcd"), "bc");
  EXPECT_EQ(Match("(?:ab)+", "xababa"), "abab");
  EXPECT_EQ(Match("^a{2}$", "aa"), "aa");
  EXPECT_EQ(Match("^a{2}$", "aaa"), "<none>");
  EXPECT_EQ(Match("^a{2,}$", "aaa"), "aaa");
  EXPECT_EQ(Match("^a{1,2}$", "aaa"), "<none>");
  EXPECT_EQ(Match("x{0}", "x"), "");
  EXPECT_EQ(Match("a{,3}", "a{,3}"), "a{,3}");  // { not followed by a digit is literal
}

TEST(RegexMatcherTest, LeftmostThenLongestOrShortestAsPostgres) {
  EXPECT_EQ(Match("a*?", "aaa"), "");
  EXPECT_EQ(Match("a+?b", "aaab"), "aaab");
  EXPECT_EQ(Match("a+?", "xaaay"), "a");
  EXPECT_EQ(Match("o{1,2}?", "foobar"), "o");
  EXPECT_EQ(Match("(o+?)(o*)", "foobar", 1), "o");
  EXPECT_EQ(Match("(.*?) ", "foo bar", 1), "foo");
  EXPECT_EQ(Match("a{2,3}?", "aaaa"), "aa");
  EXPECT_EQ(Match("a{2,3}", "aaaa"), "aaa");
  EXPECT_EQ(Match("(a{2,3}?)a*", "aaaa", 1), "aa");
  EXPECT_EQ(Match("[a-z]+?(\\d+)", "xyz123abc", 1), "1");
  // The first quantifier decides: x+ makes the whole pattern greedy, so .*? reaches the last y.
  EXPECT_EQ(Match("x+.*?y", "xxaybyb"), "xxayby");
  EXPECT_EQ(Match("(a|ab)(c|bcd)", "abcd", 1), "a");
  EXPECT_EQ(Match("(a|ab)(c|bcd)", "abcd"), "abcd");
  EXPECT_EQ(Match("(ab)*?b", "abab", 1), "<unset>");
  EXPECT_EQ(Match("a(b)?", "ac", 1), "<unset>");
  EXPECT_EQ(Match("(b)(c)", "abc", 2), "c");
  EXPECT_EQ(Match("(b)(c)", "abc", 3), "<unset>");
}

TEST(RegexMatcherTest, ClassesAndEscapes) {
  EXPECT_TRUE(Matches("^\\d+$", "12"));
  EXPECT_TRUE(Matches("^\\w+$", "x_1"));
  EXPECT_TRUE(Matches("\\s", " "));
  EXPECT_FALSE(Matches("[\\d]", "a"));
  EXPECT_TRUE(Matches("[\\d]", "5"));
  EXPECT_TRUE(Matches("[]]", "a]"));
  EXPECT_TRUE(Matches("[a-]", "-"));
  EXPECT_FALSE(Matches("[^]a]", "a"));
  EXPECT_FALSE(Matches("[[:lower:]]", "ABC"));
  EXPECT_TRUE(Matches("[[:lower:]]", "ABC", {.case_insensitive = true}));
  EXPECT_TRUE(Matches("[a-c]", "ABC", {.case_insensitive = true}));
  EXPECT_FALSE(Matches("[^a]", "A", {.case_insensitive = true}));
  EXPECT_TRUE(Matches("\\\\d", "\\d"));
  EXPECT_EQ(Match("\\D+", "12ab3"), "ab");
  EXPECT_EQ(Match("\\x41\\u0042", "xAB"), "AB");
  EXPECT_TRUE(Matches("[[:alpha:]]", "\xC3\xA9"));                           // é
  EXPECT_TRUE(Matches("\xC3\xA9", "\xC3\x89", {.case_insensitive = true}));  // é ~* É
}

TEST(RegexMatcherTest, AnchorsAndWordConstraints) {
  EXPECT_FALSE(Matches("a\\yb", "abc"));
  EXPECT_TRUE(Matches("a\\y", "a b"));
  EXPECT_TRUE(Matches("\\ma", "a b"));
  EXPECT_FALSE(Matches("b\\M", "ab c") == false);
  EXPECT_FALSE(Matches("\\Ab\\Z", "ab"));
  EXPECT_TRUE(Matches("a.b", "a\nb"));
  EXPECT_FALSE(Matches("^b", "a\nb"));
  EXPECT_TRUE(Matches("^b", "a\nb", {.newline_sensitive = true}));
  EXPECT_FALSE(Matches("a.b", "a\nb", {.newline_sensitive = true}));
  EXPECT_FALSE(Matches("a[^x]b", "a\nb", {.newline_sensitive = true}));
  // ^ is the start of the text even when the search starts later.
  RegexProgram program = MustCompile("^a");
  RegexMatcher matcher(&program);
  RegexSpan span;
  EXPECT_TRUE(matcher.Find("aaa", 0, &span));
  EXPECT_FALSE(matcher.Find("aaa", 1, &span));
}

TEST(RegexMatcherTest, FindFromAnOffsetAndInUtf8) {
  RegexProgram program = MustCompile("b(c)");
  RegexMatcher matcher(&program);
  RegexSpan span;
  ASSERT_TRUE(matcher.Find("abcabc", 2, &span));
  EXPECT_EQ(span.begin, 4);
  EXPECT_EQ(span.end, 6);
  EXPECT_EQ(Match("\xE6\x9C\xAC(.)", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", 1),
            "\xE8\xAA\x9E");  // substring('日本語' from '本(.)') = '語'
}

// Patterns that make backtracking engines take exponential time finish in one linear pass.
TEST(RegexMatcherTest, PathologicalPatternsOnLongTextStayLinear) {
  const std::string as(100000, 'a');
  for (const char* pattern : {"(a*)*b", "(a|a)*b", "(a+)+b", "(a|aa)*c", "(.*)*x"})
    EXPECT_FALSE(Matches(pattern, as)) << pattern;
  EXPECT_EQ(Match("(a*)*", as).size(), as.size());
  EXPECT_EQ(Match("(a|a)*$", as).size(), as.size());
  const std::string text = as + "b";
  EXPECT_EQ(Match("(a*)*b", text).size(), text.size());
  EXPECT_EQ(Match("(a|a)*b", text).size(), text.size());
  EXPECT_EQ(Match("a{0,255}b", text).size(), 256u);
}

}  // namespace
}  // namespace shoal::regex
