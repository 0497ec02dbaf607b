#include "shoal/common/regex/regex_compiler.h"

#include <random>
#include <string>

#include <gtest/gtest.h>

#include "shoal/common/regex/regex_matcher.h"
#include "shoal/common/regex/similar_to_pattern.h"

namespace shoal::regex {
namespace {

// The SQLSTATE and message of compiling `pattern`, "ok" when it compiles.
std::string Error(std::string_view pattern) {
  auto program = RegexCompiler::Compile(pattern, {});
  if (program.ok())
    return "ok";
  return program.status().sqlstate() + " " + program.status().message();
}

TEST(RegexCompilerTest, MalformedPatternsGetPostgresMessages) {
  EXPECT_EQ(Error("*a"), "2201B invalid regular expression: quantifier operand invalid");
  EXPECT_EQ(Error("a**"), "2201B invalid regular expression: quantifier operand invalid");
  EXPECT_EQ(Error("a{1"), "2201B invalid regular expression: braces {} not balanced");
  EXPECT_EQ(Error("a{3,1}"), "2201B invalid regular expression: invalid repetition count(s)");
  EXPECT_EQ(Error("a{256}"), "2201B invalid regular expression: invalid repetition count(s)");
  EXPECT_EQ(Error("(a"), "2201B invalid regular expression: parentheses () not balanced");
  EXPECT_EQ(Error("a)"), "2201B invalid regular expression: parentheses () not balanced");
  EXPECT_EQ(Error("[a"), "2201B invalid regular expression: brackets [] not balanced");
  EXPECT_EQ(Error("[z-a]"), "2201B invalid regular expression: invalid character range");
  EXPECT_EQ(Error("\\q"), "2201B invalid regular expression: invalid escape \\ sequence");
  EXPECT_EQ(Error("a\\"), "2201B invalid regular expression: invalid escape \\ sequence");
  EXPECT_EQ(Error("[[:foo:]]"), "2201B invalid regular expression: invalid character class");
  EXPECT_EQ(Error("x{"), "ok");
  EXPECT_EQ(Error("a{,3}"), "ok");
  EXPECT_EQ(Error("(?i)a"), "ok");
}

TEST(RegexCompilerTest, RefusesBackreferencesAndLookaround) {
  EXPECT_EQ(Error("(a)\\1").substr(0, 5), "0A000");
  EXPECT_EQ(Error("(?=a)").substr(0, 5), "0A000");
  EXPECT_EQ(Error("(?<!a)b").substr(0, 5), "0A000");
}

TEST(RegexCompilerTest, DeepNestingIsRefusedWithoutRecursingIntoIt) {
  std::string deep = std::string(10000, '(') + "a" + std::string(10000, ')');
  EXPECT_EQ(Error(deep).substr(0, 55), "2201B invalid regular expression: regular expression is");
  std::string ok = std::string(kMaxRegexNesting, '(') + "a" + std::string(kMaxRegexNesting, ')');
  EXPECT_EQ(Error(ok), "ok");
}

TEST(RegexCompilerTest, ProgramSizeIsBounded) {
  EXPECT_EQ(Error("(a{255}){255}"), "ok");
  EXPECT_EQ(Error("((a{255}){255}){255}").substr(0, 5), "2201B");
  // Repetitions of something that emits nothing must not loop for ever either.
  EXPECT_EQ(Error("(?:(?:(?:(?:(?:){255}){255}){255}){255}){255}").substr(0, 5), "2201B");
}

TEST(RegexCompilerTest, PreferenceFollowsTheFirstQuantifier) {
  auto pref = [](std::string_view p) { return RegexCompiler::Compile(p, {})->preference; };
  EXPECT_EQ(pref("a*?b+"), RegexPreference::kShortest);
  EXPECT_EQ(pref("a+b*?"), RegexPreference::kLongest);
  EXPECT_EQ(pref("a{2}?b"), RegexPreference::kLongest);  // {m}? has no preference of its own
  EXPECT_EQ(pref("a*?|b"), RegexPreference::kLongest);   // alternation is greedy
  EXPECT_EQ(pref("(a+?)"), RegexPreference::kShortest);
}

// Random bytes and random mixes of regex syntax: every one compiles or fails with a Status, and
// whatever compiles runs over a text.
TEST(RegexCompilerTest, RandomPatternsCompileOrFailCleanly) {
  std::mt19937 rng(20261207);
  const std::string alphabet = "ab()[]{}|*+?.^$\\-:,0129dwsyAZx^";
  const std::string text = "abba 0129 xyz [a] {1,2} \xC3\xA9\n";
  int compiled = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string pattern;
    const size_t len = rng() % 24;
    for (size_t k = 0; k < len; ++k) {
      pattern.push_back(i % 4 == 0 ? static_cast<char>(rng() % 256)
                                   : alphabet[rng() % alphabet.size()]);
    }
    auto program = RegexCompiler::Compile(pattern, {.case_insensitive = (i % 3 == 0)});
    if (!program.ok()) {
      const std::string state = program.status().sqlstate();
      EXPECT_TRUE(state == "2201B" || state == "0A000") << pattern << ": " << state;
      continue;
    }
    ++compiled;
    RegexMatcher matcher(&*program);
    RegexSpan span;
    const bool found = matcher.Find(text, 0, &span);
    EXPECT_EQ(found, matcher.Test(text)) << pattern;
    if (found) {
      EXPECT_LE(span.begin, span.end);
      EXPECT_LE(span.end, static_cast<int64_t>(text.size()));
      RegexSpan groups[3];
      matcher.Groups(text, span, {0, 1, 2}, groups);
      for (const RegexSpan& g : groups) {
        if (g.matched()) {
          EXPECT_GE(g.begin, span.begin) << pattern;
          EXPECT_LE(g.end, span.end) << pattern;
        }
      }
    }
  }
  EXPECT_GT(compiled, 2000);
}

TEST(SimilarToRegexTest, TranslatesAsPostgres) {
  EXPECT_EQ(*SimilarToRegex("a%b_c", std::nullopt), "^(?:a.*b.c)$");
  EXPECT_EQ(*SimilarToRegex("(a|b).$^", std::nullopt), "^(?:(?:a|b)\\.\\$\\^)$");
  EXPECT_EQ(*SimilarToRegex("a#%", std::string_view("#")), "^(?:a\\%)$");
  EXPECT_EQ(*SimilarToRegex("a\\b", std::string_view("")), "^(?:a\\\\b)$");
  EXPECT_EQ(*SimilarToRegex("[\\%]", std::string_view("")), "^(?:[\\\\%])$");
  EXPECT_EQ(*SimilarToRegex("a\\\"b\\\"c", std::nullopt), "^(?:a){1,1}?(b){1,1}(?:c)$");
  EXPECT_EQ(SimilarToRegex("a", std::string_view("xx")).status().sqlstate(), "22025");
  EXPECT_EQ(SimilarToRegex("\\\"\\\"\\\"", std::nullopt).status().sqlstate(), "2200C");
}

}  // namespace
}  // namespace shoal::regex
