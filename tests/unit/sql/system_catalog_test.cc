#include "shoal/sql/system_catalog/system_catalog.h"

#include <gtest/gtest.h>

#include "shoal/io/memory_table.h"
#include "shoal/sql/system_catalog/backend_activity.h"
#include "tests/support/gtest_util.h"

namespace shoal::sql {
namespace {

using columnar::DataType;
using columnar::Field;

CatalogPtr MakeCatalog() {
  auto catalog = std::make_shared<Catalog>();
  auto schema = std::make_shared<columnar::Schema>(
      std::vector<Field>{Field("a", DataType::Int32(), false), Field("b", DataType::Utf8())});
  auto table = io::MemoryTable::Make(schema);
  EXPECT_TRUE(table.ok());
  EXPECT_OK(catalog->RegisterTable("t", *table));
  IndexEntry index;
  index.schema = "public";
  index.name = "t_pkey";
  index.table = "t";
  index.columns = {"a"};
  index.unique = true;
  index.constraint = "PRIMARY KEY";
  EXPECT_OK(catalog->CreateIndex(index));
  return catalog;
}

int64_t NumRows(const io::TableProviderPtr& table) {
  return static_cast<const io::MemoryTable&>(*table).num_rows();
}

TEST(SystemCatalogTest, OidsAreStableAndDistinct) {
  EXPECT_EQ(RelationOid("public", "t"), RelationOid("public", "t"));
  EXPECT_NE(RelationOid("public", "t"), RelationOid("s", "t"));
  EXPECT_NE(RelationOid("ab", "c"), RelationOid("a", "bc"));
  EXPECT_GE(RelationOid("public", "t"), 16384);
  EXPECT_LT(RelationOid("public", "t"), int64_t{1} << 31);
  EXPECT_EQ(NamespaceOid("pg_catalog"), 11);
  EXPECT_EQ(NamespaceOid("public"), 2200);
}

TEST(SystemCatalogTest, RelationsComeFromTheCatalog) {
  auto catalog = MakeCatalog();
  SystemCatalogContext context;
  context.catalog = catalog.get();
  context.user_name = "me";
  ASSERT_OK_AND_ASSIGN(auto attributes, BuildSystemRelation(context, "pg_catalog", "pg_attribute"));
  ASSERT_OK_AND_ASSIGN(auto index, BuildSystemRelation(context, "", "pg_index"));
  EXPECT_EQ(NumRows(index), 1);
  ASSERT_OK_AND_ASSIGN(auto columns, BuildSystemRelation(context, "information_schema", "columns"));
  EXPECT_GT(NumRows(attributes), NumRows(columns) - 1);  // pg_attribute also lists index columns
  ASSERT_OK_AND_ASSIGN(auto policies, BuildSystemRelation(context, "pg_catalog", "pg_policy"));
  EXPECT_EQ(NumRows(policies), 0);
  EXPECT_EQ(policies->schema()->field(0).name, "oid");
  EXPECT_FALSE(BuildSystemRelation(context, "pg_catalog", "pg_nothing").ok());
  EXPECT_TRUE(IsSystemRelation("", "pg_class"));
  EXPECT_FALSE(IsSystemRelation("", "columns"));  // information_schema is not on the path
}

TEST(SystemCatalogTest, DefinitionsOfIndexesAndConstraints) {
  auto catalog = MakeCatalog();
  auto indexes = IndexDefinitions(*catalog);
  ASSERT_EQ(indexes.size(), 1u);
  EXPECT_EQ(indexes[0].oid, RelationOid("public", "t_pkey"));
  EXPECT_EQ(indexes[0].text, "CREATE UNIQUE INDEX t_pkey ON public.t USING btree (a)");
  auto constraints = ConstraintDefinitions(*catalog);
  ASSERT_EQ(constraints.size(), 1u);
  EXPECT_EQ(constraints[0].text, "PRIMARY KEY (a)");
}

TEST(SystemCatalogTest, StatActivityListsTheSessionsOfTheSource) {
  auto catalog = MakeCatalog();
  SystemCatalogContext context;
  context.catalog = catalog.get();
  ASSERT_OK_AND_ASSIGN(auto none, BuildSystemRelation(context, "pg_catalog", "pg_stat_activity"));
  EXPECT_EQ(NumRows(none), 0);
  SetBackendActivitySource([] {
    return std::vector<BackendActivity>{
        {7, "shoal", "alice", "psql", "127.0.0.1", 1000, 2000, "active", "select 1"},
        {8, "shoal", "bob", "", "", 1000, 0, "idle", ""}};
  });
  ASSERT_OK_AND_ASSIGN(auto two, BuildSystemRelation(context, "pg_catalog", "pg_stat_activity"));
  SetBackendActivitySource({});
  EXPECT_EQ(NumRows(two), 2);
  EXPECT_EQ(two->schema()->field(2).name, "pid");
  EXPECT_TRUE(two->schema()->FieldIndex("query_start").has_value());
}

}  // namespace
}  // namespace shoal::sql
