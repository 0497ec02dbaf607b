// All 22 TPC-H queries (tests/data/tpch/queries, validation parameters) must parse, bind and
// optimize; a mutation smoke test checks that random token edits never crash the front end.
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "shoal/sql/binder.h"
#include "shoal/sql/optimizer/optimizer.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/sql/tpch_catalog.h"

namespace shoal::sql {
namespace {

std::string ReadQuery(int n) {
  std::string path = fmt::format("{}/q{:02d}.sql", SHOAL_TPCH_QUERY_DIR, n);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class TpchQueryTest : public ::testing::TestWithParam<int> {};

TEST_P(TpchQueryTest, ParsesBindsAndOptimizes) {
  std::string sql = ReadQuery(GetParam());
  ASSERT_FALSE(sql.empty()) << "missing query file " << GetParam();
  Session session(testing::MakeTpchCatalog());
  ASSERT_OK_AND_ASSIGN(BoundStatement bound, BindSql(&session, sql));
  ASSERT_EQ(bound.kind, StatementKind::kQuery);
  ASSERT_NE(bound.plan, nullptr);
  ASSERT_OK_AND_ASSIGN(LogicalPlanPtr optimized, OptimizePlan(bound.plan, &session.column_ids()));
  // The optimizer keeps the query's result columns.
  ASSERT_EQ(optimized->output.size(), bound.plan->output.size());
  for (size_t i = 0; i < optimized->output.size(); ++i) {
    EXPECT_EQ(optimized->output[i].id, bound.plan->output[i].id);
    EXPECT_EQ(optimized->output[i].type, bound.plan->output[i].type);
  }
  std::string text = FormatLogicalPlan(*optimized);
  // No comma-list cross join survives: join ordering connects Q2, Q8 and Q9 too.
  EXPECT_EQ(text.find("CrossJoin"), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(AllQueries, TpchQueryTest, ::testing::Range(1, 23),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return fmt::format("q{:02d}", info.param);
                         });

// Splits on whitespace and punctuation so edits hit whole tokens.
std::vector<std::string> Tokenize(const std::string& sql) {
  std::vector<std::string> tokens;
  std::string current;
  auto is_op = [](char c) { return std::string_view("<>=!|:").find(c) != std::string_view::npos; };
  for (size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (c == '\'') {
      // A string literal is one token.
      size_t end = sql.find('\'', i + 1);
      end = end == std::string::npos ? sql.size() : end + 1;
      if (!current.empty())
        tokens.push_back(current);
      current.clear();
      tokens.push_back(sql.substr(i, end - i));
      i = end - 1;
      continue;
    }
    if (is_op(c) && !current.empty() && is_op(current.back())) {
      current += c;
      continue;
    }
    if (!is_op(c) && !current.empty() && is_op(current.back())) {
      tokens.push_back(current);
      current.clear();
    }
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '%' ||
        c == '#') {
      current += c;
      continue;
    }
    if (!current.empty())
      tokens.push_back(current);
    current.clear();
    if (is_op(c))
      current += c;
    else if (!std::isspace(static_cast<unsigned char>(c)))
      tokens.push_back(std::string(1, c));
  }
  if (!current.empty())
    tokens.push_back(current);
  return tokens;
}

TEST(TpchMutationTest, RandomTokenEditsNeverCrash) {
  std::mt19937 rng(20240601);
  auto catalog = testing::MakeTpchCatalog();
  std::vector<std::vector<std::string>> queries;
  std::vector<std::string> vocabulary = {"select", "from",  "where", "(",    ")",      ",",
                                         "and",    "or",    "not",   "null", "1",      "'x'",
                                         "*",      "+",     "=",     "in",   "exists", "group",
                                         "by",     "order", "case",  "end",  "sum",    "date"};
  for (int q = 1; q <= 22; ++q) {
    queries.push_back(Tokenize(ReadQuery(q)));
    for (const auto& t : queries.back())
      vocabulary.push_back(t);
  }
  int parsed = 0, bound = 0, optimized = 0;
  constexpr int kMutations = 4000;
  for (int i = 0; i < kMutations; ++i) {
    auto tokens = queries[rng() % queries.size()];
    int edits = rng() % 3 == 0 ? 2 : 1;
    for (int e = 0; e < edits && !tokens.empty(); ++e) {
      size_t pos = rng() % tokens.size();
      switch (rng() % 4) {
        case 0: tokens.erase(tokens.begin() + static_cast<long>(pos)); break;
        case 1: tokens[pos] = vocabulary[rng() % vocabulary.size()]; break;
        case 2:
          tokens.insert(tokens.begin() + static_cast<long>(pos),
                        vocabulary[rng() % vocabulary.size()]);
          break;
        default: std::swap(tokens[pos], tokens[rng() % tokens.size()]); break;
      }
    }
    std::string sql;
    for (const auto& t : tokens)
      sql += t + " ";
    Session session(catalog);
    auto script = ParseSql(sql);
    if (!script.ok()) {
      EXPECT_FALSE(script.status().IsInternal()) << sql << "\n" << script.status().ToString();
      continue;
    }
    ++parsed;
    Binder binder(&session);
    for (const auto& statement : script->statements) {
      auto b = binder.Bind(*script, statement);
      if (!b.ok()) {
        EXPECT_FALSE(b.status().IsInternal()) << sql << "\n" << b.status().ToString();
        continue;
      }
      ++bound;
      if (!b->plan)
        continue;
      auto o = OptimizePlan(b->plan, &session.column_ids());
      EXPECT_TRUE(o.ok() || !o.status().IsInternal()) << sql << "\n" << o.status().ToString();
      if (o.ok()) {
        ++optimized;
        FormatLogicalPlan(**o, true);
      }
    }
  }
  // The edits must exercise all three stages, not just the parser's error path.
  // (Measured with this seed: see the printed counts; thresholds are about half of them.)
  std::printf("mutations: %d, parsed %d, bound %d, optimized %d\n", kMutations, parsed, bound,
              optimized);
  EXPECT_GT(parsed, kMutations / 16);
  EXPECT_GT(bound, kMutations / 50);
  EXPECT_GT(optimized, kMutations / 50);
}

}  // namespace
}  // namespace shoal::sql
