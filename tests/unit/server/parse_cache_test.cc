// ParseCache (src/shoal/server/parse_cache.h): one parse per text, shared; failed parses and long
// texts are not kept; the least recently used entry leaves first; safe from many threads.
#include "shoal/server/parse_cache.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace shoal::server {
namespace {

TEST(ParseCacheTest, TheSameTextIsParsedOnce) {
  ParseCache cache;
  auto first = cache.Parse("select 1; select 2");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ((*first)->statements.size(), 2u);
  auto again = cache.Parse("select 1; select 2");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(first->get(), again->get());
  auto other = cache.Parse("select 1;  select 2");  // another text, another entry
  ASSERT_TRUE(other.ok());
  EXPECT_NE(first->get(), other->get());
  EXPECT_EQ(cache.size(), 2u);
}

TEST(ParseCacheTest, ErrorsAndLongTextsAreNotKept) {
  ParseCache cache(/*capacity=*/8, /*max_text_bytes=*/32);
  auto bad = cache.Parse("selec 1");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().sqlstate(), "42601");
  EXPECT_EQ(cache.Parse("selec 1").status().ToString(), bad.status().ToString());
  const std::string long_text = "select '" + std::string(100, 'x') + "'";
  auto long_first = cache.Parse(long_text);
  auto long_again = cache.Parse(long_text);
  ASSERT_TRUE(long_first.ok() && long_again.ok());
  EXPECT_NE(long_first->get(), long_again->get());
  EXPECT_EQ(cache.size(), 0u);
}

TEST(ParseCacheTest, TheLeastRecentlyUsedLeavesFirst) {
  ParseCache cache(/*capacity=*/2);
  auto a = *cache.Parse("select 'a'");
  auto b = *cache.Parse("select 'b'");
  EXPECT_EQ(cache.Parse("select 'a'")->get(), a.get());  // a is now the most recent
  ASSERT_TRUE(cache.Parse("select 'c'").ok());           // b leaves
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Parse("select 'a'")->get(), a.get());
  EXPECT_NE(cache.Parse("select 'b'")->get(), b.get());
}

TEST(ParseCacheTest, ManyThreads) {
  ParseCache cache(/*capacity=*/16);
  std::vector<std::thread> threads;
  std::vector<int> failures(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        const std::string sql = "select " + std::to_string((i * 7 + t) % 40);
        auto script = cache.Parse(sql);
        if (!script.ok() || (*script)->statements.size() != 1 || (*script)->sql != sql)
          ++failures[t];
      }
    });
  }
  for (auto& t : threads)
    t.join();
  EXPECT_EQ(failures, std::vector<int>(8, 0));
  EXPECT_LE(cache.size(), 16u);
}

}  // namespace
}  // namespace shoal::server
