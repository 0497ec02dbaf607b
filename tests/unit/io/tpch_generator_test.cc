// Rows of every table at SF 0.01 (and two at SF 0.1) against lines of the reference dbgen's
// output, each produced by seeking straight to the row, plus the scale factor and split rules.
#include "shoal/io/tpch/tpch_generator.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/io/text_buffer.h"
#include "shoal/io/tpch/customer_generator.h"
#include "shoal/io/tpch/dates.h"
#include "shoal/io/tpch/nation_generator.h"
#include "shoal/io/tpch/order_generator.h"
#include "shoal/io/tpch/part_generator.h"
#include "shoal/io/tpch/region_generator.h"
#include "shoal/io/tpch/scale.h"
#include "shoal/io/tpch/supplier_generator.h"
#include "shoal/io/tpch/tbl_formatter.h"
#include "shoal/io/tpch/text_pool.h"

namespace shoal::io::tpch {
namespace {

class TpchRowsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto pool = TextPool::Build(2);
    ASSERT_TRUE(pool.ok()) << pool.status();
    pool_ = new std::shared_ptr<const TextPool>(*pool);
  }

  static void TearDownTestSuite() {
    delete pool_;
    pool_ = nullptr;
  }

  static TpchScale Scale(const char* sf) { return TpchScale::Parse(sf).value(); }

  static const TextPool& pool() { return **pool_; }

  // The .tbl text of row `row` (0-based) of a one-row-per-Next table.
  template <typename Generator, typename Row>
  static std::string Format(const char* sf, int64_t row) {
    Generator gen(Scale(sf), pool());
    gen.Seek(row);
    auto r = std::make_unique<Row>();
    gen.Next(r.get());
    TextBuffer out;
    EXPECT_TRUE(TblFormatter::Append(*r, &out).ok());
    return std::string(out.view());
  }

  static std::string LineItems(const char* sf, int64_t order_row) {
    OrderGenerator gen(Scale(sf), pool());
    gen.Seek(order_row);
    auto r = std::make_unique<OrderRow>();
    gen.Next(r.get());
    TextBuffer out;
    EXPECT_TRUE(TblFormatter::AppendLineItems(*r, &out).ok());
    return std::string(out.view());
  }

  static std::string PartSupps(const char* sf, int64_t part_row) {
    PartGenerator gen(Scale(sf), pool());
    gen.Seek(part_row);
    auto r = std::make_unique<PartRow>();
    gen.Next(r.get());
    TextBuffer out;
    EXPECT_TRUE(TblFormatter::AppendPartSupps(*r, &out).ok());
    return std::string(out.view());
  }

  static std::shared_ptr<const TextPool>* pool_;
};

std::shared_ptr<const TextPool>* TpchRowsTest::pool_ = nullptr;

TEST_F(TpchRowsTest, Region) {
  EXPECT_EQ((Format<RegionGenerator, RegionRow>("0.01", 0)),
            "0|AFRICA|lar deposits. blithely final packages cajole. regular waters are final "
            "requests. regular accounts are according to |\n");
  EXPECT_EQ((Format<RegionGenerator, RegionRow>("0.01", 2)),
            "2|ASIA|ges. thinly even pinto beans ca|\n");
  EXPECT_EQ((Format<RegionGenerator, RegionRow>("0.01", 4)),
            "4|MIDDLE EAST|uickly special accounts cajole carefully blithely close requests. "
            "carefully final asymptotes haggle furiousl|\n");
}

TEST_F(TpchRowsTest, Nation) {
  EXPECT_EQ((Format<NationGenerator, NationRow>("0.01", 0)),
            "0|ALGERIA|0| haggle. carefully final deposits detect slyly agai|\n");
  EXPECT_EQ((Format<NationGenerator, NationRow>("0.01", 12)),
            "12|JAPAN|2|ously. final, express gifts cajole a|\n");
  EXPECT_EQ((Format<NationGenerator, NationRow>("0.01", 24)),
            "24|UNITED STATES|1|y final packages. slow foxes cajole quickly. quickly silent "
            "platelets breach ironic accounts. unusual pinto be|\n");
}

TEST_F(TpchRowsTest, Supplier) {
  EXPECT_EQ((Format<SupplierGenerator, SupplierRow>("0.01", 0)),
            "1|Supplier#000000001| N kD4on9OM Ipw3,gf0JBoQDd7tgrzrddZ|17|27-918-335-1736|5755.94|"
            "each slyly above the careful|\n");
  EXPECT_EQ((Format<SupplierGenerator, SupplierRow>("0.01", 21)),
            "22|Supplier#000000022|okiiQFk 8lm6EVX6Q0,bEcO|4|14-144-830-2814|-966.20| ironically "
            "among the deposits. closely expre|\n");
  EXPECT_EQ(
      (Format<SupplierGenerator, SupplierRow>("0.01", 99)),
      "100|Supplier#000000100|rIlN li8zvW22l2slbcx ECP4fL|21|31-351-324-5062|3191.70|es. "
      "regular instructions sleep carefully. slyly ironic packages across the foxes boost |\n");
  // Suppliers with a Better Business Bureau comment (query 16).
  EXPECT_EQ((Format<SupplierGenerator, SupplierRow>("0.1", 357)),
            "358|Supplier#000000358|V3yxhHhHSXqOoc5UPv5TwkVDGKQsG|3|13-831-247-2584|6974.74|ans. "
            "ironicCustomer  requests cajole carefullyComplaintsy regular reque|\n");
  EXPECT_EQ((Format<SupplierGenerator, SupplierRow>("0.1", 851)),
            "852|Supplier#000000852|n3zasd04WljXdo9xMjQRkZKrEB|1|11-574-892-3228|213.41|Customer "
            "s. even asympRecommends haggl|\n");
}

TEST_F(TpchRowsTest, Customer) {
  EXPECT_EQ((Format<CustomerGenerator, CustomerRow>("0.01", 0)),
            "1|Customer#000000001|IVhzIApeRb ot,c,E|15|25-989-741-2988|711.56|BUILDING|to the "
            "even, regular platelets. regular, ironic epitaphs nag e|\n");
  EXPECT_EQ(
      (Format<CustomerGenerator, CustomerRow>("0.01", 10)),
      "11|Customer#000000011|PkWS 3HlXqwTuzrKg633BEi|23|33-464-151-3439|-272.60|BUILDING|"
      "ckages. requests sleep slyly. quickly even pinto beans promise above the slyly regular "
      "pinto beans. |\n");
  EXPECT_EQ((Format<CustomerGenerator, CustomerRow>("0.01", 1499)),
            "1500|Customer#000001500|4zaoUzuWUTNFiNPbmu43|5|15-200-872-4790|6910.79|MACHINERY|s "
            "boost blithely above the fluffily ironic dolphins! ironic accounts|\n");
}

TEST_F(TpchRowsTest, Part) {
  EXPECT_EQ((Format<PartGenerator, PartRow>("0.01", 0)),
            "1|goldenrod lavender spring chocolate lace|Manufacturer#1|Brand#13|PROMO BURNISHED "
            "COPPER|7|JUMBO PKG|901.00|ly. slyly ironi|\n");
  EXPECT_EQ((Format<PartGenerator, PartRow>("0.01", 1000)),
            "1001|plum ivory wheat thistle salmon|Manufacturer#5|Brand#53|LARGE BRUSHED "
            "NICKEL|29|WRAP PACK|902.00|posits x-ray acros|\n");
  EXPECT_EQ((Format<PartGenerator, PartRow>("0.01", 1999)),
            "2000|wheat blush green puff tan|Manufacturer#1|Brand#12|PROMO ANODIZED STEEL|46|SM "
            "BAG|902.00|ajole carefully|\n");
}

TEST_F(TpchRowsTest, PartSupp) {
  std::string first = PartSupps("0.01", 0);
  EXPECT_EQ(
      first.substr(0, first.find('\n') + 1),
      "1|2|3325|771.64|, even theodolites. regular, final theodolites eat after the "
      "carefully pending foxes. furiously regular deposits sleep slyly. carefully bold realms "
      "above the ironic dependencies haggle careful|\n");
  std::string middle = PartSupps("0.01", 1000);
  EXPECT_EQ(middle.substr(0, middle.find('\n') + 1),
            "1001|2|7621|32.48|es. even requests wake slyly final instructions. carefully reg|\n");
  std::string last = PartSupps("0.01", 1999);
  EXPECT_EQ(last.substr(last.rfind('\n', last.size() - 2) + 1),
            "2000|33|8414|798.67|yly ironic dependencies. blithely final theodolites sleep. "
            "furiously ironic accounts wake carefully across the express, regular requests. "
            "carefully regul|\n");
}

TEST_F(TpchRowsTest, Orders) {
  EXPECT_EQ((Format<OrderGenerator, OrderRow>("0.01", 0)),
            "1|370|O|172799.49|1996-01-02|5-LOW|Clerk#000000951|0|nstructions sleep furiously "
            "among |\n");
  // o_orderkey 29989 is order row 7500: keys are sparse, 8 used out of every 32.
  EXPECT_EQ((Format<OrderGenerator, OrderRow>("0.01", 7500)),
            "29989|430|F|28062.96|1994-07-25|4-NOT SPECIFIED|Clerk#000000701|0|le. final accounts "
            "of the furiously final t|\n");
  EXPECT_EQ((Format<OrderGenerator, OrderRow>("0.01", 14999)),
            "60000|1426|P|299401.61|1995-04-21|2-HIGH|Clerk#000000194|0|usual frets use alongside "
            "of the furiou|\n");
}

TEST_F(TpchRowsTest, LineItem) {
  std::string first = LineItems("0.01", 0);
  EXPECT_EQ(first.substr(0, first.find('\n') + 1),
            "1|1552|93|1|17|24710.35|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|DELIVER IN "
            "PERSON|TRUCK|egular courts above the|\n");
  EXPECT_EQ(LineItems("0.01", 7500),
            "29989|1074|10|1|28|27301.96|0.05|0.01|R|F|1994-10-08|1994-10-06|1994-10-19|COLLECT "
            "COD|AIR|metimes. express, final accoun|\n"
            "29989|1984|73|2|1|1885.98|0.02|0.01|R|F|1994-08-20|1994-09-02|1994-08-28|COLLECT "
            "COD|MAIL|s are carefully. packages boost at the re|\n");
  std::string last = LineItems("0.01", 14999);
  EXPECT_EQ(last.substr(last.rfind('\n', last.size() - 2) + 1),
            "60000|836|3|6|45|78157.35|0.04|0.08|N|O|1995-07-23|1995-07-17|1995-07-24|DELIVER IN "
            "PERSON|TRUCK|ke final packages. carefully final fo|\n");
}

TEST(TpchScaleTest, RowCountsFollowDbgen) {
  TpchScale s = TpchScale::Parse("0.01").value();
  EXPECT_EQ(s.part_count(), 2000);
  EXPECT_EQ(s.supplier_count(), 100);
  EXPECT_EQ(s.customer_count(), 1500);
  EXPECT_EQ(s.order_count(), 15000);
  EXPECT_EQ(s.clerk_count(), 1000);
  EXPECT_EQ(s.RowCount(TpchTable::kNation), 25);
  EXPECT_EQ(s.RowCount(TpchTable::kRegion), 5);

  TpchScale ten = TpchScale::Parse("10").value();
  EXPECT_EQ(ten.order_count(), 15'000'000);
  EXPECT_EQ(ten.clerk_count(), 10'000);

  // dbgen truncates: above 1 to an integer, below 1 to thousandths, at least one row.
  EXPECT_EQ(TpchScale::Parse("1.5").value().effective_scale_factor(), 1.0);
  EXPECT_EQ(TpchScale::Parse("1.5").value().part_count(), 200'000);
  EXPECT_EQ(TpchScale::Parse("0.0125").value().part_count(), 2400);
  EXPECT_EQ(TpchScale::Parse("0.0001").value().supplier_count(), 1);
  EXPECT_EQ(TpchScale::Parse(" 0.1 ").value().customer_count(), 15'000);
}

TEST(TpchScaleTest, RejectsBadScaleFactors) {
  for (const char* bad : {"", "abc", "1x", "0", "-1", "-0.5", "nan", "inf", "1e400", "30000"}) {
    auto s = TpchScale::Parse(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(TpchGeneratorTest, PartsSplitLikeDbgen) {
  EXPECT_EQ(TpchGenerator::PartRange(10, 3, 1), (std::pair<int64_t, int64_t>{0, 3}));
  EXPECT_EQ(TpchGenerator::PartRange(10, 3, 2), (std::pair<int64_t, int64_t>{3, 6}));
  EXPECT_EQ(TpchGenerator::PartRange(10, 3, 3), (std::pair<int64_t, int64_t>{6, 10}));
  EXPECT_EQ(TpchGenerator::PartRange(5, 8, 1), (std::pair<int64_t, int64_t>{0, 0}));
  EXPECT_EQ(TpchGenerator::PartRange(5, 8, 8), (std::pair<int64_t, int64_t>{0, 5}));
  EXPECT_EQ(TpchGenerator::OutputPath("d", TpchTable::kLineItem, 0, 1), "d/lineitem.tbl");
  EXPECT_EQ(TpchGenerator::OutputPath("d", TpchTable::kOrders, 3, 2), "d/orders/part-2.tbl");
  EXPECT_EQ(TpchGenerator::OutputPath("d", TpchTable::kPart, 12, 3), "d/part/part-03.tbl");
}

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("shoal-tpch-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::remove_all(path_);
  }

  ~TempDir() { std::filesystem::remove_all(path_); }

  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(TpchGeneratorTest, TinyChunksOnManyThreadsWriteInOrder) {
  const std::vector<TpchTable> tables = {TpchTable::kOrders, TpchTable::kLineItem,
                                         TpchTable::kSupplier, TpchTable::kNation};
  TempDir reference_dir;
  TpchGenOptions reference(TpchScale::Parse("0.01").value());
  reference.output_dir = reference_dir.path();
  reference.threads = 1;
  reference.tables = tables;
  ASSERT_TRUE(TpchGenerator(reference).Run().ok());

  TempDir parts_dir;
  TpchGenOptions parts(TpchScale::Parse("0.01").value());
  parts.output_dir = parts_dir.path();
  parts.threads = 5;
  parts.parts = 3;
  parts.chunk_rows = 7;
  parts.tables = tables;
  auto report = TpchGenerator(parts).Run();
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->tables.size(), tables.size());
  EXPECT_EQ(report->tables[0].table, TpchTable::kNation);
  EXPECT_EQ(report->tables[0].rows, 25);

  for (TpchTable t : tables) {
    std::string name(TpchTableName(t));
    std::string whole = ReadFile(reference_dir.path() + "/" + name + ".tbl");
    std::string joined;
    for (int p = 1; p <= 3; ++p)
      joined += ReadFile(TpchGenerator::OutputPath(parts_dir.path(), t, 3, p));
    EXPECT_FALSE(whole.empty()) << name;
    EXPECT_TRUE(whole == joined) << name << ": parts differ from the single file";
  }
  EXPECT_FALSE(std::filesystem::exists(reference_dir.path() + "/customer.tbl"));
}

TEST(TpchGeneratorTest, UnwritableOutputIsAnIoError) {
  TempDir dir;
  std::filesystem::create_directories(dir.path());
  std::ofstream(dir.path() + "/file") << "x";
  TpchGenOptions options(TpchScale::Parse("0.01").value());
  options.output_dir = dir.path() + "/file/sub";
  auto report = TpchGenerator(options).Run();
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), StatusCode::kIoError);
  EXPECT_NE(report.status().message().find("cannot create directory"), std::string::npos)
      << report.status();
}

TEST(TpchDatesTest, Calendar) {
  EXPECT_EQ(std::string(dates::DateText(dates::kStartDate), 10), "1992-01-01");
  EXPECT_EQ(std::string(dates::DateText(dates::kStartDate + 59), 10), "1992-02-29");
  EXPECT_EQ(std::string(dates::DateText(dates::kCurrentDate), 10), "1995-06-17");
  EXPECT_EQ(std::string(dates::DateText(dates::kStartDate + dates::kDayCount - 1), 10),
            "1998-12-31");
}

}  // namespace
}  // namespace shoal::io::tpch
