// A catalog with the eight TPC-H tables' schemas and no data, for binder and optimizer tests.
// Keys are int64, money decimal(15,2), dates date32, strings utf8 (as Shoal's TPC-H generator).
// The tables report the statistics of scale factor 1 (row counts; distinct counts and ranges of
// the keys and of the columns the queries filter on), so that join ordering sees realistic sizes.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shoal/columnar/schema.h"
#include "shoal/io/table_provider.h"
#include "shoal/sql/catalog.h"

namespace shoal::sql::testing {

/// A provider that only has a schema; planning works, scanning yields nothing.
class SchemaOnlyProvider : public io::TableProvider {
 public:
  explicit SchemaOnlyProvider(columnar::SchemaPtr schema, io::TableStatistics statistics = {})
      : schema_(std::move(schema)), statistics_(std::move(statistics)) {}

  const columnar::SchemaPtr& schema() const override { return schema_; }

  io::TableStatistics statistics() const override { return statistics_; }

  std::string kind() const override { return "memory"; }

  Result<std::vector<io::ScanUnit>> PlanScan(const io::ScanRequest&) const override {
    return std::vector<io::ScanUnit>{};
  }

  Result<columnar::RecordBatchReaderPtr> OpenUnit(const io::ScanUnit&, const io::ScanRequest&,
                                                  const io::ScanContext&) const override {
    return Status::NotImplemented("schema-only table");
  }

 private:
  columnar::SchemaPtr schema_;
  io::TableStatistics statistics_;
};

/// Days since 1970-01-01 of a proleptic Gregorian date.
inline int32_t TpchDays(int y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  int era = (y >= 0 ? y : y - 399) / 400;
  int yoe = y - era * 400;
  int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/// Statistics of one column: distinct count and optionally a range.
struct TpchColumnStats {
  const char* name;
  int64_t distinct;
  std::optional<columnar::Scalar> min = std::nullopt;
  std::optional<columnar::Scalar> max = std::nullopt;
};

/// SF 1 statistics for a table of `schema`: `rows` rows; listed columns get their stats.
inline io::TableStatistics TpchStatistics(const columnar::Schema& schema, int64_t rows,
                                          const std::vector<TpchColumnStats>& columns) {
  io::TableStatistics stats;
  stats.num_rows = rows;
  stats.columns.resize(static_cast<size_t>(schema.num_fields()));
  for (auto& c : stats.columns)
    c.null_count = 0;
  for (const auto& c : columns) {
    for (int i = 0; i < schema.num_fields(); ++i) {
      if (schema.field(i).name == c.name) {
        auto& s = stats.columns[static_cast<size_t>(i)];
        s.distinct_count = c.distinct;
        s.min = c.min;
        s.max = c.max;
      }
    }
  }
  return stats;
}

inline std::shared_ptr<Catalog> MakeTpchCatalog() {
  using columnar::DataType;
  using columnar::Field;
  const DataType key = DataType::Int64();
  const DataType money = DataType::Decimal(15, 2);
  const DataType date = DataType::Date32();
  const DataType text = DataType::Utf8();
  const DataType i32 = DataType::Int32();
  using columnar::Scalar;
  auto date_stats = [](const char* name, int64_t distinct, int32_t min, int32_t max) {
    return TpchColumnStats{name, distinct, Scalar::Date32(min), Scalar::Date32(max)};
  };
  auto int_stats = [](const char* name, int64_t distinct, int64_t min, int64_t max) {
    return TpchColumnStats{name, distinct, Scalar::Int64(min), Scalar::Int64(max)};
  };
  auto money_stats = [](const char* name, int64_t distinct, int64_t min_cents, int64_t max_cents) {
    return TpchColumnStats{name, distinct, Scalar::Decimal(min_cents, 15, 2),
                           Scalar::Decimal(max_cents, 15, 2)};
  };
  std::map<std::string, std::pair<int64_t, std::vector<TpchColumnStats>>> stats = {
      {"region", {5, {int_stats("r_regionkey", 5, 0, 4), {"r_name", 5}}}},
      {"nation",
       {25,
        {int_stats("n_nationkey", 25, 0, 24), {"n_name", 25}, int_stats("n_regionkey", 5, 0, 4)}}},
      {"part",
       {200000,
        {int_stats("p_partkey", 200000, 1, 200000),
         {"p_name", 199997},
         {"p_mfgr", 5},
         {"p_brand", 25},
         {"p_type", 150},
         {"p_size", 50},
         {"p_container", 40}}}},
      {"supplier",
       {10000,
        {int_stats("s_suppkey", 10000, 1, 10000),
         {"s_name", 10000},
         int_stats("s_nationkey", 25, 0, 24)}}},
      {"partsupp",
       {800000,
        {int_stats("ps_partkey", 200000, 1, 200000),
         int_stats("ps_suppkey", 10000, 1, 10000),
         {"ps_availqty", 9999}}}},
      {"customer",
       {150000,
        {int_stats("c_custkey", 150000, 1, 150000),
         int_stats("c_nationkey", 25, 0, 24),
         {"c_mktsegment", 5},
         {"c_phone", 150000},
         money_stats("c_acctbal", 140187, -99999, 999999)}}},
      {"orders",
       {1500000,
        {int_stats("o_orderkey", 1500000, 1, 6000000),
         int_stats("o_custkey", 99996, 1, 149999),
         {"o_orderstatus", 3},
         {"o_orderpriority", 5},
         date_stats("o_orderdate", 2406, TpchDays(1992, 1, 1), TpchDays(1998, 8, 2))}}},
      {"lineitem",
       {6001215,
        {int_stats("l_orderkey", 1500000, 1, 6000000),
         int_stats("l_partkey", 200000, 1, 200000),
         int_stats("l_suppkey", 10000, 1, 10000),
         {"l_returnflag", 3},
         {"l_linestatus", 2},
         {"l_shipmode", 7},
         {"l_shipinstruct", 4},
         money_stats("l_quantity", 50, 100, 5000),
         money_stats("l_discount", 11, 0, 10),
         date_stats("l_shipdate", 2526, TpchDays(1992, 1, 2), TpchDays(1998, 12, 1)),
         date_stats("l_commitdate", 2466, TpchDays(1992, 1, 31), TpchDays(1998, 10, 31)),
         date_stats("l_receiptdate", 2554, TpchDays(1992, 1, 4), TpchDays(1998, 12, 31))}}},
  };
  auto catalog = std::make_shared<Catalog>();
  auto add = [&](const char* name, std::vector<Field> fields) {
    for (auto& f : fields)
      f.nullable = false;
    auto schema = std::make_shared<const columnar::Schema>(std::move(fields));
    const auto& [rows, columns] = stats.at(name);
    auto provider =
        std::make_shared<SchemaOnlyProvider>(schema, TpchStatistics(*schema, rows, columns));
    auto status = catalog->RegisterTable(name, provider, /*insertable=*/true);
    (void)status;
  };
  add("region", {{"r_regionkey", key}, {"r_name", text}, {"r_comment", text}});
  add("nation",
      {{"n_nationkey", key}, {"n_name", text}, {"n_regionkey", key}, {"n_comment", text}});
  add("part", {{"p_partkey", key},
               {"p_name", text},
               {"p_mfgr", text},
               {"p_brand", text},
               {"p_type", text},
               {"p_size", i32},
               {"p_container", text},
               {"p_retailprice", money},
               {"p_comment", text}});
  add("supplier", {{"s_suppkey", key},
                   {"s_name", text},
                   {"s_address", text},
                   {"s_nationkey", key},
                   {"s_phone", text},
                   {"s_acctbal", money},
                   {"s_comment", text}});
  add("partsupp", {{"ps_partkey", key},
                   {"ps_suppkey", key},
                   {"ps_availqty", i32},
                   {"ps_supplycost", money},
                   {"ps_comment", text}});
  add("customer", {{"c_custkey", key},
                   {"c_name", text},
                   {"c_address", text},
                   {"c_nationkey", key},
                   {"c_phone", text},
                   {"c_acctbal", money},
                   {"c_mktsegment", text},
                   {"c_comment", text}});
  add("orders", {{"o_orderkey", key},
                 {"o_custkey", key},
                 {"o_orderstatus", text},
                 {"o_totalprice", money},
                 {"o_orderdate", date},
                 {"o_orderpriority", text},
                 {"o_clerk", text},
                 {"o_shippriority", i32},
                 {"o_comment", text}});
  add("lineitem", {{"l_orderkey", key},
                   {"l_partkey", key},
                   {"l_suppkey", key},
                   {"l_linenumber", i32},
                   {"l_quantity", money},
                   {"l_extendedprice", money},
                   {"l_discount", money},
                   {"l_tax", money},
                   {"l_returnflag", text},
                   {"l_linestatus", text},
                   {"l_shipdate", date},
                   {"l_commitdate", date},
                   {"l_receiptdate", date},
                   {"l_shipinstruct", text},
                   {"l_shipmode", text},
                   {"l_comment", text}});
  return catalog;
}

}  // namespace shoal::sql::testing
