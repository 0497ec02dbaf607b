#include "shoal/sql/binder.h"

#include <gtest/gtest.h>

#include "shoal/sql/literal_parsing.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/sql/tpch_catalog.h"

namespace shoal::sql {
namespace {

class BinderTest : public ::testing::Test {
 protected:
  BinderTest() : session_(testing::MakeTpchCatalog()) {}

  Result<BoundStatement> Bind(std::string_view sql) { return BindSql(&session_, sql); }

  Status BindError(std::string_view sql) {
    auto r = Bind(sql);
    EXPECT_FALSE(r.ok()) << sql;
    return r.ok() ? Status::OK() : r.status();
  }

  std::string Plan(std::string_view sql) {
    auto r = Bind(sql);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && r->plan ? FormatLogicalPlan(*r->plan) : "";
  }

  Session session_;
};

TEST_F(BinderTest, UnknownColumnHasPositionAndHint) {
  Status s = BindError("SELECT l_orderkey FROM lineitem WHERE l_shipdat > DATE '1998-01-01'");
  EXPECT_EQ(s.sqlstate(), "42703");
  EXPECT_EQ(s.message(), "column \"l_shipdat\" does not exist");
  EXPECT_EQ(s.position(), 39);
  EXPECT_EQ(s.hint(), "Perhaps you meant to reference the column \"l_shipdate\".");
}

TEST_F(BinderTest, UnknownQualifiedColumnAndTable) {
  Status s = BindError("SELECT n.n_nam FROM nation n");
  EXPECT_EQ(s.sqlstate(), "42703");
  EXPECT_EQ(s.message(), "column \"n.n_nam\" does not exist");
  EXPECT_EQ(s.position(), 8);
  EXPECT_EQ(s.hint(), "Perhaps you meant to reference the column \"n.n_name\".");
  Status t = BindError("SELECT 1 FROM lineitems");
  EXPECT_EQ(t.sqlstate(), "42P01");
  EXPECT_EQ(t.message(), "relation \"lineitems\" does not exist");
  EXPECT_EQ(t.position(), 15);
  EXPECT_EQ(t.hint(), "Perhaps you meant \"lineitem\".");
  Status u = BindError("SELECT x.n_name FROM nation");
  EXPECT_EQ(u.sqlstate(), "42P01");
  EXPECT_EQ(u.message(), "missing FROM-clause entry for table \"x\"");
}

TEST_F(BinderTest, AmbiguousColumnIsRefused) {
  Status s = BindError("SELECT n_name FROM nation n1, nation n2");
  EXPECT_EQ(s.sqlstate(), "42702");
  EXPECT_EQ(s.message(), "column reference \"n_name\" is ambiguous");
  EXPECT_EQ(s.position(), 8);
  EXPECT_OK(Bind("SELECT n1.n_name, n2.n_name FROM nation n1, nation n2"));
}

TEST_F(BinderTest, TypeErrors) {
  Status s = BindError("SELECT 1 FROM nation WHERE n_nationkey");
  EXPECT_EQ(s.sqlstate(), "42804");
  EXPECT_EQ(s.message(), "argument of WHERE must be type boolean, not type bigint");
  Status f = BindError("SELECT upper(n_nationkey) FROM nation");
  EXPECT_EQ(f.sqlstate(), "42883");
  EXPECT_EQ(f.message(), "function upper(bigint) does not exist");
  EXPECT_EQ(f.position(), 8);
  Status o = BindError("SELECT n_name + 1 FROM nation");
  EXPECT_EQ(o.sqlstate(), "42883");
  EXPECT_EQ(o.message(), "operator does not exist: text + integer");
  Status bad_date = BindError("SELECT 1 FROM orders WHERE o_orderdate < '1995-13-01'");
  EXPECT_EQ(bad_date.sqlstate(), "22008");  // month 13: a field out of range, as PostgreSQL
}

TEST_F(BinderTest, UngroupedColumnIsRefused) {
  Status s = BindError("SELECT n_name, count(*) FROM nation");
  EXPECT_EQ(s.sqlstate(), "42803");
  EXPECT_NE(s.message().find("must appear in the GROUP BY clause"), std::string::npos);
  Status w = BindError("SELECT 1 FROM nation WHERE count(*) > 1");
  EXPECT_EQ(w.sqlstate(), "42803");
  EXPECT_EQ(w.message(), "aggregate functions are not allowed in WHERE");
  Status n = BindError("SELECT sum(count(*)) FROM nation");
  EXPECT_EQ(n.sqlstate(), "42803");
}

TEST_F(BinderTest, UnknownStringLiteralTakesTheOtherSidesType) {
  EXPECT_EQ(Plan("SELECT o_orderkey FROM orders WHERE o_orderdate <= '1998-09-02'"),
            "Projection: o_orderkey\n"
            "  Filter: o_orderdate <= DATE '1998-09-02'\n"
            "    Scan: orders projection=[o_orderkey, o_custkey, o_orderstatus, o_totalprice, "
            "o_orderdate, o_orderpriority, o_clerk, o_shippriority, o_comment]\n");
}

TEST_F(BinderTest, DateAndIntervalLiterals) {
  ASSERT_OK_AND_ASSIGN(auto days, ParseDate("1998-12-01"));
  EXPECT_EQ(days, 10561);
  EXPECT_EQ(Plan("SELECT DATE '1998-12-01' - INTERVAL '90' DAY, interval '3 months', "
                 "extract(year from DATE '1995-01-01')"),
            // date - interval is a timestamp, as in PostgreSQL: the date is read as its midnight.
            "Projection: TIMESTAMP '1998-12-01 00:00:00' - INTERVAL '90 days' AS ?column?, "
            "INTERVAL '3 months' AS interval, extract(year FROM DATE '1995-01-01') AS extract\n"
            "  Values: rows=1\n");
}

TEST_F(BinderTest, DecimalArithmeticTypes) {
  ASSERT_OK_AND_ASSIGN(auto b, Bind("SELECT l_extendedprice * (1 - l_discount), "
                                    "sum(l_quantity), avg(l_quantity), count(*), "
                                    "l_discount between 0.06 - 0.01 and 0.06 + 0.01 "
                                    "FROM lineitem GROUP BY 1, 5"));
  const auto& out = b.plan->output;
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].type, columnar::DataType::Decimal(31, 4));
  EXPECT_EQ(out[1].type, columnar::DataType::Decimal(38, 2));
  EXPECT_EQ(out[2].type, columnar::DataType::Float64());
  EXPECT_EQ(out[3].type, columnar::DataType::Int64());
  EXPECT_FALSE(out[3].nullable);
  EXPECT_EQ(out[4].type, columnar::DataType::Boolean());
}

TEST_F(BinderTest, GroupByAliasOrdinalAndOrderBy) {
  EXPECT_EQ(Plan("SELECT n_regionkey AS r, count(*) AS c FROM nation GROUP BY r "
                 "ORDER BY c DESC, 1 NULLS FIRST LIMIT 3 OFFSET 1"),
            "Limit: offset=1, fetch=3\n"
            "  Sort: c DESC NULLS FIRST, r ASC NULLS FIRST\n"
            "    Projection: n_regionkey AS r, count(*) AS c\n"
            "      Aggregate: groupBy=[n_regionkey], aggr=[count(*)]\n"
            "        Scan: nation projection=[n_nationkey, n_name, n_regionkey, n_comment]\n");
}

TEST_F(BinderTest, OrderByHiddenExpressionIsDroppedAtTheEnd) {
  EXPECT_EQ(Plan("SELECT n_name FROM nation ORDER BY n_nationkey + 1"),
            "Projection: n_name\n"
            "  Sort: n_nationkey + 1 ASC NULLS LAST\n"
            "    Projection: n_name, n_nationkey + 1\n"
            "      Scan: nation projection=[n_nationkey, n_name, n_regionkey, n_comment]\n");
  Status s = BindError("SELECT DISTINCT n_name FROM nation ORDER BY n_nationkey");
  EXPECT_EQ(s.sqlstate(), "42P10");
}

TEST_F(BinderTest, JoinsOfEveryKind) {
  EXPECT_OK(Bind("SELECT * FROM nation JOIN region ON n_regionkey = r_regionkey"));
  EXPECT_OK(Bind("SELECT * FROM nation LEFT JOIN region ON n_regionkey = r_regionkey"));
  EXPECT_OK(Bind("SELECT * FROM nation RIGHT OUTER JOIN region ON n_regionkey = r_regionkey"));
  EXPECT_OK(Bind("SELECT * FROM nation FULL JOIN region ON n_regionkey = r_regionkey"));
  EXPECT_OK(Bind("SELECT * FROM nation CROSS JOIN region"));
  ASSERT_OK_AND_ASSIGN(auto b, Bind("SELECT * FROM nation n1 JOIN nation n2 USING (n_nationkey)"));
  // USING merges the key: n_nationkey once, then the other columns of both sides.
  EXPECT_EQ(b.plan->output.size(), 7u);
  ASSERT_OK_AND_ASSIGN(auto left, Bind("SELECT r_name FROM nation LEFT JOIN region "
                                       "ON n_regionkey = r_regionkey"));
  EXPECT_TRUE(left.plan->output[0].nullable);
}

TEST_F(BinderTest, SubqueriesAndCorrelation) {
  ASSERT_OK_AND_ASSIGN(auto b, Bind("SELECT o_orderkey FROM orders WHERE EXISTS "
                                    "(SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey)"));
  std::string text = FormatLogicalPlan(*b.plan);
  EXPECT_NE(text.find("Subquery: EXISTS (<subquery>)"), std::string::npos) << text;
  EXPECT_NE(text.find("l_orderkey = outer(o_orderkey)"), std::string::npos) << text;
  EXPECT_OK(
      Bind("SELECT n_name FROM nation WHERE n_regionkey NOT IN (SELECT r_regionkey "
           "FROM region) AND n_nationkey > ALL (SELECT 1) AND n_nationkey = ANY (SELECT 2)"));
  EXPECT_OK(
      Bind("SELECT (SELECT max(r_name) FROM region WHERE r_regionkey = n_regionkey) "
           "FROM nation"));
  Status s = BindError("SELECT (SELECT r_name, r_regionkey FROM region) FROM nation");
  EXPECT_EQ(s.sqlstate(), "42601");
}

TEST_F(BinderTest, SetOperationsValuesAndCtes) {
  ASSERT_OK_AND_ASSIGN(auto u, Bind("SELECT 1 UNION SELECT 2.5 ORDER BY 1"));
  EXPECT_EQ(u.plan->output[0].type, columnar::DataType::Decimal(11, 1));
  EXPECT_OK(Bind("SELECT n_name FROM nation INTERSECT ALL SELECT r_name FROM region"));
  EXPECT_OK(Bind("SELECT n_name FROM nation EXCEPT SELECT r_name FROM region"));
  ASSERT_OK_AND_ASSIGN(auto v, Bind("VALUES (1, 'a'), (2, NULL)"));
  EXPECT_EQ(v.plan->output[1].type, columnar::DataType::Utf8());
  EXPECT_EQ(v.plan->output[0].name, "column1");
  EXPECT_OK(
      Bind("WITH x AS (SELECT n_name AS nm FROM nation), y(a) AS (SELECT nm FROM x) "
           "SELECT a FROM y, x WHERE a = nm"));
  Status s = BindError("SELECT 1 UNION SELECT 1, 2");
  EXPECT_EQ(s.sqlstate(), "42601");
}

TEST_F(BinderTest, ExpressionsOfManyKinds) {
  EXPECT_OK(
      Bind("SELECT CASE WHEN n_nationkey > 1 THEN 'big' ELSE 'small' END, "
           "CASE n_regionkey WHEN 1 THEN 1.5 END, CAST(n_nationkey AS double precision), "
           "n_nationkey::text, n_name LIKE 'A%', n_name ILIKE 'a%', n_name NOT LIKE 'b%', "
           "n_name IS NULL, n_name IS NOT DISTINCT FROM 'x', n_nationkey IN (1, 2, 3), "
           "coalesce(n_name, 'none'), nullif(n_nationkey, 3), substring(n_name from 1 for 2), "
           "n_name || '!', -n_nationkey, abs(n_nationkey) FROM nation"));
  EXPECT_OK(
      Bind("SELECT count(DISTINCT n_regionkey), sum(n_nationkey) FILTER (WHERE n_nationkey > 3) "
           "FROM nation"));
  ASSERT_OK_AND_ASSIGN(auto w, Bind("SELECT n_name, row_number() OVER (PARTITION BY n_regionkey "
                                    "ORDER BY n_name DESC), sum(n_nationkey) OVER (ORDER BY n_name "
                                    "ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM nation"));
  std::string text = FormatLogicalPlan(*w.plan);
  EXPECT_NE(text.find("Window: row_number() OVER (PARTITION BY n_regionkey ORDER BY n_name DESC)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ROWS BETWEEN 1 PRECEDING AND CURRENT ROW"), std::string::npos) << text;
  Status s = BindError("SELECT row_number() FROM nation");
  EXPECT_EQ(s.sqlstate(), "42809");
}

TEST_F(BinderTest, DdlAndUtilityStatements) {
  ASSERT_OK_AND_ASSIGN(auto create, Bind("CREATE TABLE t (a int NOT NULL, b varchar(10), "
                                         "c decimal(12,2), d date, PRIMARY KEY (b))"));
  EXPECT_EQ(create.kind, StatementKind::kCreateTable);
  EXPECT_EQ(create.table_schema->ToString(),
            "a: int32 not null, b: utf8 not null, c: decimal(12,2), d: date32");
  Status exists = BindError("CREATE TABLE nation (a int)");
  EXPECT_EQ(exists.sqlstate(), "42P07");
  EXPECT_OK(Bind("CREATE TABLE IF NOT EXISTS nation (a int)"));

  ASSERT_OK_AND_ASSIGN(auto ctas, Bind("CREATE TABLE t2 AS SELECT n_name, n_nationkey + 1 AS k "
                                       "FROM nation"));
  EXPECT_EQ(ctas.kind, StatementKind::kCreateTableAs);
  // CREATE TABLE AS columns have no NOT NULL constraint, whatever the query (PostgreSQL).
  EXPECT_EQ(ctas.table_schema->ToString(), "n_name: utf8, k: int64");

  ASSERT_OK_AND_ASSIGN(auto insert, Bind("INSERT INTO region (r_name, r_regionkey, r_comment) "
                                         "VALUES ('x', 7, 'c')"));
  EXPECT_EQ(insert.kind, StatementKind::kInsert);
  EXPECT_EQ(insert.plan->output[0].name, "r_regionkey");
  EXPECT_EQ(insert.plan->output[0].type, columnar::DataType::Int64());
  Status missing = BindError("INSERT INTO region (r_name) VALUES ('x')");
  EXPECT_EQ(missing.sqlstate(), "23502");
  Status too_many = BindError("INSERT INTO region VALUES (1, 'a', 'b', 'c')");
  EXPECT_EQ(too_many.sqlstate(), "42601");

  ASSERT_OK_AND_ASSIGN(auto view, Bind("CREATE VIEW v (nm) AS SELECT n_name FROM nation"));
  EXPECT_EQ(view.kind, StatementKind::kCreateView);
  EXPECT_EQ(view.view.column_names, std::vector<std::string>{"nm"});
  ASSERT_OK(session_.catalog()->CreateView(view.view));
  ASSERT_OK_AND_ASSIGN(auto use, Bind("SELECT nm FROM v WHERE nm = 'FRANCE'"));
  EXPECT_EQ(use.plan->output[0].name, "nm");

  ASSERT_OK_AND_ASSIGN(auto drop, Bind("DROP TABLE IF EXISTS nope, nation"));
  EXPECT_EQ(drop.kind, StatementKind::kDropTable);
  EXPECT_EQ(drop.drop_objects.size(), 2u);
  Status drop_view_as_table = BindError("DROP TABLE v");
  EXPECT_EQ(drop_view_as_table.sqlstate(), "42809");
  Status drop_missing = BindError("DROP VIEW nope");
  EXPECT_EQ(drop_missing.sqlstate(), "42P01");

  ASSERT_OK_AND_ASSIGN(auto explain, Bind("EXPLAIN ANALYZE VERBOSE SELECT 1"));
  EXPECT_EQ(explain.kind, StatementKind::kExplain);
  EXPECT_TRUE(explain.analyze);
  EXPECT_TRUE(explain.verbose);
  ASSERT_NE(explain.explained, nullptr);
  EXPECT_EQ(explain.explained->kind, StatementKind::kQuery);

  ASSERT_OK_AND_ASSIGN(auto show_all, Bind("SHOW ALL"));
  EXPECT_EQ(show_all.kind, StatementKind::kShowAll);
  ASSERT_OK_AND_ASSIGN(auto reset_all, Bind("RESET ALL"));
  EXPECT_EQ(reset_all.kind, StatementKind::kResetAll);
  Status unknown_setting = BindError("SET no_such_setting_xyz = 1");
  EXPECT_EQ(unknown_setting.code(), StatusCode::kNotFound);
}

TEST_F(BinderTest, ParametersBindAsTheSessionsValues) {
  // Without values (a plain statement): PostgreSQL's "there is no parameter $1".
  Status missing = BindError("SELECT $1");
  EXPECT_EQ(missing.sqlstate(), "42P02");
  EXPECT_EQ(missing.position(), 8);
  // With values (the server's Bind): a typed one becomes a constant of its type, an untyped one
  // takes the type of what it is compared with, as a quoted literal does.
  session_.parameters() = {QueryParameter{std::string("41"), DataType::Int64(), false},
                           QueryParameter{std::string("7"), std::nullopt, false},
                           QueryParameter{std::nullopt, DataType::Date32(), false}};
  auto bound = BindSql(&session_, "SELECT $1 + 1 AS a, $3 AS d FROM nation WHERE n_nationkey = $2");
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  EXPECT_EQ(bound->plan->output[0].type, DataType::Int64());
  EXPECT_EQ(bound->plan->output[1].type, DataType::Date32());
  EXPECT_EQ(session_.max_parameter(), 3);
  session_.parameters().clear();
}

TEST_F(BinderTest, UnsupportedFeaturesAreNotImplementedNotCrashes) {
  EXPECT_EQ(BindError("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n FROM r) SEARCH DEPTH "
                      "FIRST BY n SET o SELECT * FROM r")
                .code(),
            StatusCode::kNotImplemented);
  EXPECT_EQ(
      BindError("SELECT * FROM ROWS FROM (generate_series(1, 3), generate_series(1, 2))").code(),
      StatusCode::kNotImplemented);
  EXPECT_EQ(BindError("UPDATE nation SET n_name = 'x'").code(), StatusCode::kNotImplemented);
}

}  // namespace
}  // namespace shoal::sql

namespace shoal::sql {
namespace {

// CREATE INDEX names (PostgreSQL's: table_columns_idx, a number appended when taken), the
// indexes PRIMARY KEY / UNIQUE constraints imply, and the catalog's namespace and DROP rules.
TEST(IndexCatalogTest, NamesConstraintsAndDrops) {
  Session session(testing::MakeTpchCatalog());
  auto create = BindSql(&session, "CREATE INDEX ON nation (n_name, n_regionkey)");
  ASSERT_OK(create.status());
  EXPECT_EQ(create->kind, StatementKind::kCreateIndex);
  EXPECT_EQ(create->index.name, "nation_n_name_n_regionkey_idx");
  EXPECT_FALSE(create->index.unique);
  ASSERT_OK(session.catalog()->CreateIndex(create->index));
  auto again = BindSql(&session, "CREATE INDEX ON nation (n_name, n_regionkey)");
  ASSERT_OK(again.status());
  EXPECT_EQ(again->index.name, "nation_n_name_n_regionkey_idx1");
  // An index name is a relation name: no table or view may take it, nor another index.
  auto clash = session.catalog()->CreateIndex(create->index);
  EXPECT_EQ(clash.sqlstate(), "42P07");
  EXPECT_OK(session.catalog()->CreateIndex(create->index, /*if_not_exists=*/true));

  auto table = BindSql(&session, "CREATE TABLE t (a int PRIMARY KEY, b int, c int, UNIQUE (b, c))");
  ASSERT_OK(table.status());
  ASSERT_EQ(table->indexes.size(), 2u);
  EXPECT_EQ(table->indexes[0].name, "t_pkey");
  EXPECT_EQ(table->indexes[0].constraint, "PRIMARY KEY");
  EXPECT_EQ(table->indexes[1].name, "t_b_c_key");
  EXPECT_EQ(table->indexes[1].columns, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(BindSql(&session, "CREATE TABLE u (a int PRIMARY KEY, b int PRIMARY KEY)")
                .status()
                .sqlstate(),
            "42P16");
  EXPECT_EQ(BindSql(&session, "CREATE TABLE u (a int, UNIQUE (zz))").status().sqlstate(), "42703");
  EXPECT_EQ(BindSql(&session, "CREATE INDEX ON nation USING nope (n_name)").status().sqlstate(),
            "42704");
  EXPECT_EQ(BindSql(&session, "CREATE INDEX ON nation (nope)").status().sqlstate(), "42703");

  // DROP INDEX: all or none; 42704 for a missing one, 42809 for a table.
  EXPECT_EQ(
      session.catalog()
          ->DropIndexes({{"public", "nation_n_name_n_regionkey_idx"}, {"public", "nope"}}, false)
          .sqlstate(),
      "42704");
  EXPECT_EQ(session.catalog()->IndexesOf("public", "nation").size(), 1u);
  EXPECT_EQ(session.catalog()->DropIndexes({{"public", "nation"}}, false).sqlstate(), "42809");
  EXPECT_OK(session.catalog()->DropIndexes({{"public", "nope"}}, true));
  // Dropping the table drops its indexes.
  ASSERT_OK(session.catalog()->DropRelations(false, {{"public", "nation"}}, false, true));
  EXPECT_TRUE(session.catalog()->IndexesOf("public", "nation").empty());
}

// Arrays and records (binder_arrays.cc): PostgreSQL's array types are lists, ARRAY[...] takes
// the common type of its elements, subscripts give the element type, unnest in the select list
// becomes a TableFunction below the projection, and misuse is refused with PostgreSQL's SQLSTATE.
TEST_F(BinderTest, ArrayTypes) {
  using columnar::DataType;
  ASSERT_OK_AND_ASSIGN(auto b, Bind("SELECT ARRAY[1, 2], ARRAY[1, 2.5], '{a}'::text[], "
                                    "CAST(NULL AS int ARRAY), '{{1}}'::bigint[][], "
                                    "(ARRAY[1, 2])[1], (ARRAY['a'])[1:1], ROW(1, 'x')"));
  const auto& out = b.plan->output;
  ASSERT_EQ(out.size(), 8u);
  EXPECT_EQ(out[0].type, DataType::List(DataType::Int32()));
  EXPECT_EQ(out[1].type.id(), columnar::TypeId::kList);
  EXPECT_EQ(out[1].type.item_field().type.id(), columnar::TypeId::kDecimal);
  EXPECT_EQ(out[2].type, DataType::List(DataType::Utf8()));
  EXPECT_EQ(out[3].type, DataType::List(DataType::Int32()));
  EXPECT_EQ(out[4].type, DataType::List(DataType::List(DataType::Int64())));
  EXPECT_EQ(out[5].type, DataType::Int32());
  EXPECT_EQ(out[6].type, DataType::List(DataType::Utf8()));
  EXPECT_EQ(out[7].type, DataType::Struct({columnar::Field("f1", DataType::Int32()),
                                           columnar::Field("f2", DataType::Utf8())}));
  ASSERT_OK_AND_ASSIGN(auto agg, Bind("SELECT array_agg(n_name ORDER BY n_name) FROM nation"));
  EXPECT_EQ(agg.plan->output[0].type, DataType::List(DataType::Utf8()));
  EXPECT_NE(Plan("SELECT n_name, unnest(ARRAY[1, 2]) FROM nation").find("TableFunction"),
            std::string::npos);
  EXPECT_EQ(BindError("SELECT ARRAY[]").sqlstate(), "42P18");
  EXPECT_EQ(BindError("SELECT (1)[1]").sqlstate(), "42804");
  EXPECT_EQ(BindError("SELECT * FROM unnest(1)").sqlstate(), "42883");
  EXPECT_EQ(BindError("SELECT (ROW(1)).nope").sqlstate(), "42703");
  EXPECT_EQ(BindError("SELECT ARRAY[1] @> ARRAY['a']").sqlstate(), "42883");
}

}  // namespace
}  // namespace shoal::sql
