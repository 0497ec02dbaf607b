#include "shoal/sql/statement_cache.h"

#include <gtest/gtest.h>

#include "shoal/io/memory_table_storage.h"
#include "shoal/sql/catalog.h"
#include "shoal/sql/logical_plan.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/sql/tpch_catalog.h"

namespace shoal::sql {
namespace {

class StatementCacheTest : public ::testing::Test {
 protected:
  StatementCacheTest() : session_(testing::MakeTpchCatalog()) {}

  // Binds the first statement of `sql` through the cache.
  Result<std::shared_ptr<const BoundStatement>> Bind(std::string_view sql) {
    SHOAL_ASSIGN_OR_RETURN(ParsedScript script, ParseSql(sql));
    return cache_.Bind(&session_, script, script.statements.at(0));
  }

  Session session_;
  StatementCache cache_;
};

TEST_F(StatementCacheTest, TheSameQueryIsBoundAndOptimizedOnce) {
  const std::string sql = "SELECT l_orderkey FROM lineitem WHERE l_quantity > 1 + 2";
  ASSERT_OK_AND_ASSIGN(auto first, Bind(sql));
  EXPECT_TRUE(first->reusable);
  EXPECT_TRUE(first->optimized);
  ASSERT_OK_AND_ASSIGN(auto second, Bind(sql));
  EXPECT_EQ(first, second);
  EXPECT_EQ(cache_.hits(), 1);
  // The kept plan is the optimizer's: the constant was folded.
  EXPECT_EQ(FormatLogicalPlan(*second->plan).find("1 + 2"), std::string::npos)
      << FormatLogicalPlan(*second->plan);
}

TEST_F(StatementCacheTest, ACatalogChangeDropsWhatWasBoundBefore) {
  ViewEntry view;
  view.schema = "public";
  view.name = "v";
  view.sql = "SELECT 1 AS x";
  view.column_names = {"x"};
  ASSERT_OK(session_.catalog()->CreateView(view));
  ASSERT_OK_AND_ASSIGN(auto before, Bind("SELECT x FROM v"));
  view.sql = "SELECT 'changed' AS x";
  ASSERT_OK(session_.catalog()->CreateView(view, /*replace=*/true));
  ASSERT_OK_AND_ASSIGN(auto after, Bind("SELECT x FROM v"));
  EXPECT_NE(before, after);
  EXPECT_EQ(cache_.hits(), 0);
  EXPECT_EQ(after->plan->output.at(0).type.id(), columnar::TypeId::kUtf8);
  EXPECT_EQ(cache_.size(), 1u);  // the stale entry was replaced, not kept beside it
  // A dropped table is an error again, not a kept plan.
  ASSERT_OK(Bind("SELECT count(*) FROM nation").status());
  ASSERT_OK(session_.catalog()->DropTable("public", "nation"));
  EXPECT_EQ(Bind("SELECT count(*) FROM nation").status().sqlstate(), "42P01");
}

TEST_F(StatementCacheTest, PlansThatReadMoreThanTheCatalogAreNotKept) {
  ASSERT_OK_AND_ASSIGN(auto storage,
                       io::MemoryTableStorage::Make(std::make_shared<const columnar::Schema>(
                           std::vector<columnar::Field>{{"a", columnar::DataType::Int64()}})));
  TableEntry written;
  written.schema = "public";
  written.name = "written";
  written.storage = storage;
  ASSERT_OK(session_.catalog()->RegisterTable(std::move(written)));
  for (const char* sql : {
           "SELECT a FROM written",                // rows committed at bind time
           "SELECT now()",                         // the statement's start
           "SELECT current_timestamp",             //
           "SELECT count(*) FROM pg_class",        // the catalog's rows
           "SELECT * FROM generate_series(1, 3)",  // a function in FROM
           "SELECT current_database()",            // a catalog function
           "EXPLAIN SELECT 1",                     // not a query
       }) {
    ASSERT_OK_AND_ASSIGN(auto first, Bind(sql));
    ASSERT_OK_AND_ASSIGN(auto second, Bind(sql));
    EXPECT_NE(first, second) << sql;
    EXPECT_FALSE(second->optimized) << sql;
  }
  session_.parameters().push_back(QueryParameter{std::string("7"), std::nullopt, false});
  ASSERT_OK_AND_ASSIGN(auto with_parameter, Bind("SELECT $1"));
  EXPECT_FALSE(with_parameter->reusable);
  EXPECT_EQ(cache_.size(), 0u);
  EXPECT_EQ(cache_.hits(), 0);
}

TEST_F(StatementCacheTest, FailuresAreNotKeptAndTheOldestEntryLeaves) {
  EXPECT_FALSE(Bind("SELECT no_such_column FROM nation").ok());
  EXPECT_EQ(cache_.size(), 0u);
  StatementCache small(2);
  for (const char* sql : {"SELECT 1", "SELECT 2", "SELECT 1", "SELECT 3"}) {
    ASSERT_OK_AND_ASSIGN(ParsedScript script, ParseSql(sql));
    ASSERT_OK(small.Bind(&session_, script, script.statements.at(0)).status());
  }
  EXPECT_EQ(small.size(), 2u);
  EXPECT_EQ(small.hits(), 1);
  ASSERT_OK_AND_ASSIGN(ParsedScript again, ParseSql("SELECT 1"));  // kept: used after SELECT 2
  ASSERT_OK(small.Bind(&session_, again, again.statements.at(0)).status());
  EXPECT_EQ(small.hits(), 2);
}

}  // namespace
}  // namespace shoal::sql
