#include "shoal/exec/join/runtime_filter.h"

#include <chrono>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/exec/hash.h"
#include "shoal/exec/join/runtime_filter_registry.h"
#include "shoal/exec/operators/scan_predicate_filter.h"
#include "shoal/exec/operators/scan_runtime_filters.h"
#include "tests/support/batch_builder.h"
#include "tests/support/plan_test_util.h"

namespace shoal::exec {
namespace {

using columnar::ArrayPtr;
using columnar::DataType;
using testing::MakeArray;

std::vector<std::string> Ints(int64_t from, int64_t to) {
  std::vector<std::string> out;
  for (int64_t v = from; v <= to; ++v)
    out.push_back(std::to_string(v));
  return out;
}

std::vector<int32_t> Selected(const RuntimeFilter& filter, const ArrayPtr& probe) {
  std::vector<uint64_t> hashes;
  std::vector<int32_t> out;
  EXPECT_OK(filter.Select(probe, &hashes, &out));
  return out;
}

std::shared_ptr<const RuntimeFilter> BuildOf(const DataType& type,
                                             const std::vector<std::string>& keys,
                                             bool mergeable = true) {
  auto filter = RuntimeFilter::Build(MakeArray(type, keys), DefaultMemoryPool(), mergeable);
  EXPECT_OK(filter.status());
  return filter.ok() ? *filter : nullptr;
}

std::shared_ptr<const RuntimeFilter> MergeOf(
    const std::vector<std::shared_ptr<const RuntimeFilter>>& parts) {
  auto merged = RuntimeFilter::Merge(parts, DefaultMemoryPool());
  EXPECT_OK(merged.status());
  return merged.ok() ? *merged : nullptr;
}

std::shared_ptr<TaskContext> ContextWithWait(int64_t wait_ms) {
  TaskContext::Options options;
  EXPECT_OK(options.settings.Set("runtime_filter_wait", std::to_string(wait_ms)));
  return std::make_shared<TaskContext>(std::move(options));
}

// Integer keys over a narrow range are a bitmap of the range: exact, probed without hashing.
TEST(RuntimeFilterTest, NarrowIntegerRangeIsABitmap) {
  ArrayPtr build = MakeArray(DataType::Int64(), {"9", "1", "5", "NULL", "5"});
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  EXPECT_EQ(filter->kind(), RuntimeFilter::Kind::kBitmap);
  EXPECT_EQ(filter->num_keys(), 3);
  ASSERT_TRUE(filter->min() && filter->max());
  EXPECT_EQ(filter->min()->ToString(), "1");
  EXPECT_EQ(filter->max()->ToString(), "9");
  // NULL never passes, even though the build side had a NULL key.
  std::vector<std::string> probe = Ints(0, 10);
  probe.push_back("NULL");
  EXPECT_EQ(Selected(*filter, MakeArray(DataType::Int64(), probe)),
            (std::vector<int32_t>{1, 5, 9}));
}

// Few integer keys over a wide range are an exact set of their hashes.
TEST(RuntimeFilterTest, FewKeysOverAWideRangeAreAnExactSet) {
  ArrayPtr build =
      MakeArray(DataType::Int64(), {"-4611686018427387904", "7", "4611686018427387904"});
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  EXPECT_EQ(filter->kind(), RuntimeFilter::Kind::kExact);
  EXPECT_EQ(filter->num_keys(), 3);
  EXPECT_EQ(Selected(*filter, MakeArray(DataType::Int64(), {"7", "8", "4611686018427387904", "NULL",
                                                            "-4611686018427387903"})),
            (std::vector<int32_t>{0, 2}));
}

TEST(RuntimeFilterTest, StringKeysHaveNoRangeButAnExactSet) {
  ArrayPtr build = MakeArray(DataType::Utf8(), {"MED BOX", "SM CASE"});
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  EXPECT_EQ(filter->kind(), RuntimeFilter::Kind::kExact);
  EXPECT_FALSE(filter->min().has_value());
  EXPECT_EQ(
      Selected(*filter, MakeArray(DataType::Utf8(), {"SM CASE", "LG BOX", "NULL", "MED BOX"})),
      (std::vector<int32_t>{0, 3}));
}

TEST(RuntimeFilterTest, DictionaryProbeIsReadByValue) {
  ArrayPtr build = MakeArray(DataType::Utf8(), {"a", "c"});
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  ArrayPtr probe = MakeArray(DataType::Dictionary(columnar::TypeId::kInt32, DataType::Utf8()),
                             {"a", "b", "c", "b", "NULL"});
  EXPECT_EQ(Selected(*filter, probe), (std::vector<int32_t>{0, 2}));
}

TEST(RuntimeFilterTest, NoKeyMeansNothingPasses) {
  ArrayPtr build = MakeArray(DataType::Int32(), {"NULL", "NULL"});
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  EXPECT_EQ(filter->kind(), RuntimeFilter::Kind::kEmpty);
  EXPECT_TRUE(Selected(*filter, MakeArray(DataType::Int32(), {"1", "NULL"})).empty());
}

TEST(RuntimeFilterTest, RangeDropsRowsOutsideItWhateverTheSet) {
  ArrayPtr build = MakeArray(DataType::Date32(), {"2024-01-10", "2024-01-20"});
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  EXPECT_EQ(filter->min()->ToString(), "2024-01-10");
  EXPECT_EQ(Selected(*filter, MakeArray(DataType::Date32(),
                                        {"2024-01-09", "2024-01-10", "2024-01-15", "2024-01-20"})),
            (std::vector<int32_t>{1, 3}));
}

// A large build side is a Bloom filter: every build key passes (no false negatives), and few
// others do (16 bits a key: well under 1%; the bound below leaves room for the hash's spread).
TEST(RuntimeFilterTest, BloomFilterHasNoFalseNegativesAndFewFalsePositives) {
  std::mt19937_64 random(42);
  std::vector<std::string> keys;
  for (int i = 0; i < 20000; ++i)
    keys.push_back(std::to_string(static_cast<int64_t>(random() >> 2) * 2));  // even numbers
  ArrayPtr build = MakeArray(DataType::Int64(), keys);
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  ASSERT_EQ(filter->kind(), RuntimeFilter::Kind::kBloom);
  EXPECT_EQ(filter->num_keys(), 20000);
  // 16 bits a key, rounded up to whole 32-byte blocks only.
  EXPECT_LE(filter->size_bytes(), 20000 * 16 / 8 + 32);
  EXPECT_EQ(Selected(*filter, build).size(), keys.size());
  std::vector<std::string> others;
  for (int i = 0; i < 100000; ++i)
    others.push_back(std::to_string(static_cast<int64_t>(random() >> 2) * 2 + 1));  // odd
  const size_t passed = Selected(*filter, MakeArray(DataType::Int64(), others)).size();
  EXPECT_LT(passed, others.size() / 100) << passed << " false positives of " << others.size();
}

// Select probes a Bloom filter with the CPU's SIMD kernel where it has one (AVX2): it must keep
// exactly the rows the portable per-key test (MayContainHash) keeps, false positives included.
TEST(RuntimeFilterTest, BloomSelectKeepsExactlyWhatThePerKeyTestKeeps) {
  std::mt19937_64 random(7);
  std::vector<std::string> keys;
  for (int i = 0; i < 10000; ++i)
    keys.push_back(std::to_string(static_cast<int64_t>(random() >> 1)));
  ASSERT_OK_AND_ASSIGN(
      auto filter, RuntimeFilter::Build(MakeArray(DataType::Int64(), keys), DefaultMemoryPool()));
  ASSERT_EQ(filter->kind(), RuntimeFilter::Kind::kBloom);
  std::vector<std::string> probe;
  for (int i = 0; i < 200000; ++i)  // inside the build keys' range: only the Bloom test decides
    probe.push_back(std::to_string(static_cast<int64_t>(random() >> 2) + (int64_t{1} << 61)));
  ArrayPtr column = MakeArray(DataType::Int64(), probe);
  std::vector<uint64_t> hashes;
  ASSERT_OK(HashColumns({column}, column->length(), &hashes));
  std::vector<int32_t> expected;
  for (int32_t i = 0; i < static_cast<int32_t>(probe.size()); ++i)
    if (filter->MayContainHash(hashes[static_cast<size_t>(i)]))
      expected.push_back(i);
  EXPECT_GT(expected.size(), 0U);  // some false positives, so both outcomes are checked
  EXPECT_EQ(Selected(*filter, column), expected);
}

// Tasks' partial filters merge into one that passes every key of every part (no false negatives)
// and, where the kind allows, nothing else.
TEST(RuntimeFilterMergeTest, BitmapsUnionIntoOneBitmapOverTheUnionOfTheRanges) {
  auto merged = MergeOf({BuildOf(DataType::Int32(), {"3", "5"}),
                         BuildOf(DataType::Int32(), {"NULL"}),  // an empty part adds nothing
                         BuildOf(DataType::Int32(), {"100", "101"})});
  ASSERT_NE(merged, nullptr);
  EXPECT_EQ(merged->kind(), RuntimeFilter::Kind::kBitmap);
  EXPECT_EQ(merged->num_keys(), 4);
  EXPECT_EQ(merged->min()->ToString(), "3");
  EXPECT_EQ(merged->max()->ToString(), "101");
  EXPECT_EQ(
      Selected(*merged, MakeArray(DataType::Int32(), {"3", "4", "5", "100", "101", "102", "NULL"})),
      (std::vector<int32_t>{0, 2, 3, 4}));
}

// Parts whose ranges start at every offset within a byte of the union's start: each part's bits
// are shifted into place a byte at a time, and every key of the union, and only those, passes.
TEST(RuntimeFilterMergeTest, BitmapsAtAnyBitOffsetUnionExactly) {
  std::set<int64_t> keys;
  std::vector<std::shared_ptr<const RuntimeFilter>> parts;
  for (int64_t start = 0; start < 9; ++start) {
    std::vector<std::string> part;
    for (int64_t v = 100 + start; v < 100 + start * 40 + 30; v += start + 2) {
      part.push_back(std::to_string(v));
      keys.insert(v);
    }
    parts.push_back(BuildOf(DataType::Int64(), part));
  }
  auto merged = MergeOf(parts);
  ASSERT_NE(merged, nullptr);
  EXPECT_EQ(merged->kind(), RuntimeFilter::Kind::kBitmap);
  EXPECT_EQ(merged->num_keys(), static_cast<int64_t>(keys.size()));
  std::vector<std::string> probe;
  std::vector<int32_t> expected;
  for (int64_t v = 90; v < 500; ++v) {
    if (keys.count(v) > 0)
      expected.push_back(static_cast<int32_t>(probe.size()));
    probe.push_back(std::to_string(v));
  }
  EXPECT_EQ(Selected(*merged, MakeArray(DataType::Int64(), probe)), expected);
}

TEST(RuntimeFilterMergeTest, BitmapsTooFarApartBecomeAnExactSetOfTheirValues) {
  auto merged = MergeOf({BuildOf(DataType::Int64(), {"1", "2"}),
                         BuildOf(DataType::Int64(), {"4611686018427387904"}),
                         BuildOf(DataType::Int64(), {"-7", "9000000000000"})});
  ASSERT_NE(merged, nullptr);
  EXPECT_EQ(merged->kind(), RuntimeFilter::Kind::kExact);
  EXPECT_EQ(merged->num_keys(), 5);
  EXPECT_EQ(Selected(*merged, MakeArray(DataType::Int64(), {"1", "2", "3", "4611686018427387904",
                                                            "-7", "9000000000000", "0"})),
            (std::vector<int32_t>{0, 1, 3, 4, 5}));
}

TEST(RuntimeFilterMergeTest, ExactSetsUnionUntilTooBigThenBloom) {
  auto small =
      MergeOf({BuildOf(DataType::Utf8(), {"a", "b"}), BuildOf(DataType::Utf8(), {"b", "c"})});
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->kind(), RuntimeFilter::Kind::kExact);
  EXPECT_EQ(small->num_keys(), 3);
  EXPECT_EQ(Selected(*small, MakeArray(DataType::Utf8(), {"a", "b", "c", "d", "NULL"})),
            (std::vector<int32_t>{0, 1, 2}));
  // Two sets of 3,000 keys each: 6,000 distinct are past kMaxExactKeys.
  std::vector<std::string> a;
  std::vector<std::string> b;
  for (int i = 0; i < 3000; ++i) {
    a.push_back("a" + std::to_string(i));
    b.push_back("b" + std::to_string(i));
  }
  auto big = MergeOf({BuildOf(DataType::Utf8(), a), BuildOf(DataType::Utf8(), b)});
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->kind(), RuntimeFilter::Kind::kBloom);
  EXPECT_EQ(Selected(*big, MakeArray(DataType::Utf8(), a)).size(), a.size());
  EXPECT_EQ(Selected(*big, MakeArray(DataType::Utf8(), b)).size(), b.size());
}

// Bloom parts of different sizes fold into the smallest; every key of every part still passes.
TEST(RuntimeFilterMergeTest, BloomFiltersOfDifferentSizesFoldWithoutFalseNegatives) {
  std::mt19937_64 random(7);
  std::vector<std::vector<std::string>> shares(3);
  std::vector<std::shared_ptr<const RuntimeFilter>> parts;
  const int sizes[3] = {5000, 40000, 9000};
  for (int s = 0; s < 3; ++s) {
    for (int i = 0; i < sizes[s]; ++i)
      shares[static_cast<size_t>(s)].push_back(
          std::to_string(static_cast<int64_t>(random() >> 2) * 2));
    parts.push_back(BuildOf(DataType::Int64(), shares[static_cast<size_t>(s)]));
    ASSERT_EQ(parts.back()->kind(), RuntimeFilter::Kind::kBloom);
  }
  parts.push_back(BuildOf(DataType::Int64(), {"1", "3"}));  // an exact part: inserted
  auto merged = MergeOf(parts);
  ASSERT_NE(merged, nullptr);
  EXPECT_EQ(merged->kind(), RuntimeFilter::Kind::kBloom);
  EXPECT_LE(merged->size_bytes(), parts[0]->size_bytes());
  for (const auto& share : shares)
    EXPECT_EQ(Selected(*merged, MakeArray(DataType::Int64(), share)).size(), share.size());
  EXPECT_EQ(Selected(*merged, MakeArray(DataType::Int64(), {"1", "3"})).size(), 2U);
  // A Bloom filter not built mergeable (any block count) cannot be folded.
  std::vector<std::string> odd;
  for (int i = 0; i < 5000; ++i)
    odd.push_back(std::to_string(static_cast<int64_t>(random() >> 2) * 2 + 1));
  auto plain = BuildOf(DataType::Int64(), odd, /*mergeable=*/false);
  EXPECT_FALSE(RuntimeFilter::Merge({parts[1], plain}, DefaultMemoryPool()).ok());
}

TEST(RuntimeFilterMergeTest, EmptyPartsMergeIntoAFilterNothingPasses) {
  auto merged = MergeOf({BuildOf(DataType::Int32(), {"NULL"}), BuildOf(DataType::Int32(), {})});
  ASSERT_NE(merged, nullptr);
  EXPECT_EQ(merged->kind(), RuntimeFilter::Kind::kEmpty);
  EXPECT_TRUE(Selected(*merged, MakeArray(DataType::Int32(), {"1"})).empty());
  EXPECT_FALSE(
      RuntimeFilter::Merge({BuildOf(DataType::Int32(), {"1"}), BuildOf(DataType::Int64(), {"1"})},
                           DefaultMemoryPool())
          .ok());
}

// The wire form round-trips, and a form that would hang a probe is refused.
TEST(RuntimeFilterMergeTest, PartsRoundTripAndAreChecked) {
  for (const auto& filter :
       {BuildOf(DataType::Int32(), {"3", "5"}), BuildOf(DataType::Utf8(), {"x", "y"}),
        BuildOf(DataType::Int64(), Ints(0, 5000)), BuildOf(DataType::Int32(), {"NULL"})}) {
    ASSERT_OK_AND_ASSIGN(auto copy, RuntimeFilter::FromParts(filter->parts(), DefaultMemoryPool()));
    EXPECT_EQ(copy->Describe(), filter->Describe());
  }
  auto exact = BuildOf(DataType::Utf8(), {"x"});
  std::string full(exact->parts().table.size(), '\x01');
  RuntimeFilter::Parts parts = exact->parts();
  parts.table = full;
  EXPECT_FALSE(RuntimeFilter::FromParts(parts, DefaultMemoryPool()).ok());
  parts = BuildOf(DataType::Int32(), {"3", "5"})->parts();
  parts.max = 1000;  // the bitmap is too short for this range
  EXPECT_FALSE(RuntimeFilter::FromParts(parts, DefaultMemoryPool()).ok());
}

// A partitioned join's partitions each publish a part; the union is published once all are in,
// or, in a task holding only some partitions, only exported.
TEST(RuntimeFilterRegistryTest, PartsArePublishedOrExportedWhenAllArrived) {
  RuntimeFilterRegistry local;
  ASSERT_OK(local.PublishPart(1, 0, 2, BuildOf(DataType::Int32(), {"1"}), DefaultMemoryPool()));
  EXPECT_EQ(local.Find(1), nullptr);
  ASSERT_OK(local.PublishPart(1, 1, 2, BuildOf(DataType::Int32(), {"9"}), DefaultMemoryPool()));
  ASSERT_NE(local.Find(1), nullptr);
  EXPECT_EQ(Selected(*local.Find(1), MakeArray(DataType::Int32(), {"1", "5", "9"})),
            (std::vector<int32_t>{0, 2}));

  RuntimeFilterRegistry task;
  std::vector<std::pair<int, bool>> exported;
  task.SetExport({1}, /*partial_parts=*/true,
                 [&](int id, std::shared_ptr<const RuntimeFilter>, bool complete) {
                   exported.emplace_back(id, complete);
                 });
  ASSERT_OK(task.PublishPart(1, 0, 2, BuildOf(DataType::Int32(), {"1"}), DefaultMemoryPool()));
  ASSERT_OK(task.PublishPart(1, 1, 2, BuildOf(DataType::Int32(), {"2"}), DefaultMemoryPool()));
  EXPECT_EQ(task.Find(1), nullptr);  // only this task's share: never used here
  EXPECT_EQ(exported, (std::vector<std::pair<int, bool>>{{1, false}}));
  task.PublishBuilt(2, BuildOf(DataType::Int32(), {"1"}));  // not asked for: not exported
  EXPECT_NE(task.Find(2), nullptr);
  EXPECT_EQ(exported.size(), 1U);

  // A spilled partition abandons the filter: waiters stop at once.
  RuntimeFilterRegistry spilled;
  spilled.Expect({4});
  ASSERT_OK(spilled.PublishPart(4, 0, 2, nullptr, DefaultMemoryPool()));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(spilled.WaitFor({4}, std::chrono::seconds(30)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  // Waits for one filter share one deadline: a second waiter does not start the time again.
  RuntimeFilterRegistry late;
  late.Expect({5});
  EXPECT_FALSE(late.WaitFor({5}, std::chrono::milliseconds(100)));
  const auto second = std::chrono::steady_clock::now();
  EXPECT_FALSE(late.WaitFor({5}, std::chrono::milliseconds(100)));
  EXPECT_LT(std::chrono::steady_clock::now() - second, std::chrono::milliseconds(60));
}

// A scan waits for a missing filter at most runtime_filter_wait, then reads without it.
TEST(ScanRuntimeFiltersTest, WaitForAFilterThatNeverComesExpires) {
  auto context = ContextWithWait(30);
  context->runtime_filters().Expect({5});
  io::ScanRequest request;
  request.projection = {0};
  request.runtime_filters = {{5, 0}};
  OperatorMetrics metrics;
  ScanRuntimeFilters filters(request, context.get(), &metrics, DefaultMemoryPool());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(filters.columns().empty());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(30));
  EXPECT_EQ(metrics.extra["rf5_wait_expired"], 1);
  EXPECT_GE(metrics.extra["rf5_waited_ms"], 29);
  // Arriving later it still applies, from the next batch on.
  context->runtime_filters().Publish(5, BuildOf(DataType::Int32(), {"2"}));
  EXPECT_EQ(filters.columns().size(), 1U);
}

// A filter of this execution's own joins is published before the probe opens: never waited for.
TEST(ScanRuntimeFiltersTest, DoesNotWaitForAFilterNotExpectedFromElsewhere) {
  auto context = ContextWithWait(60000);
  io::ScanRequest request;
  request.projection = {0};
  request.runtime_filters = {{8, 0}};
  OperatorMetrics metrics;
  ScanRuntimeFilters filters(request, context.get(), &metrics, DefaultMemoryPool());
  EXPECT_TRUE(filters.columns().empty());
  EXPECT_EQ(metrics.extra.count("rf8_waited_ms"), 0U);
}

TEST(ScanRuntimeFiltersTest, AFilterArrivingDuringTheWaitIsUsedFromTheFirstBatch) {
  auto context = ContextWithWait(60000);
  context->runtime_filters().Expect({6});
  io::ScanRequest request;
  request.projection = {0};
  request.runtime_filters = {{6, 0}};
  OperatorMetrics metrics;
  ScanRuntimeFilters filters(request, context.get(), &metrics, DefaultMemoryPool());
  std::thread publisher([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    context->runtime_filters().Publish(6, BuildOf(DataType::Int32(), {"2"}));
  });
  EXPECT_EQ(filters.columns().size(), 1U);
  publisher.join();
  EXPECT_EQ(metrics.extra.count("rf6_wait_expired"), 0U);
  EXPECT_LT(metrics.extra["rf6_waited_ms"], 30000);
}

// A filter that removes nothing is switched off after its sample; its counters say so.
TEST(ScanRuntimeFiltersTest, SwitchesOffAFilterThatRemovesLittle) {
  auto context = testutil::MakeContext();
  ArrayPtr build = MakeArray(DataType::Int64(), Ints(0, 9999));
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  context->runtime_filters().Publish(7, filter);
  io::ScanRequest request;
  request.projection = {0};
  request.runtime_filters = {{7, 0}};
  OperatorMetrics metrics;
  ScanRuntimeFilters filters(request, context.get(), &metrics, DefaultMemoryPool());
  std::vector<std::string> values = Ints(0, 9999);
  values.push_back("-1");  // one row of 10,001 removed
  ArrayPtr column = MakeArray(DataType::Int64(), values);
  int64_t kept_rows = 0;
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(filters.columns().size(), i < 7 ? 1U : 0U) << "batch " << i;
    if (filters.columns().empty())
      break;
    std::vector<int32_t> selection;
    ASSERT_OK_AND_ASSIGN(int64_t kept, filters.Select({column}, column->length(), &selection));
    kept_rows += kept;
  }
  EXPECT_EQ(kept_rows, 7 * 10000);
  EXPECT_EQ(metrics.extra["rf7_switched_off"], 1);
  EXPECT_EQ(metrics.extra["rf7_rows_removed"], 7);
}

// A WHERE folded into a scan runs after the scan's runtime filters. While they keep less than half
// the rows (and before the first measure) it is deferred: columns() name the runtime filter's
// column alone, so a provider decodes the WHERE's columns only for the rows it keeps, and the
// WHERE runs on the batch the provider returns. Once the runtime filter keeps most rows, both run
// in Select.
TEST(ScanPredicateFilterTest, DefersTheWhereBehindARuntimeFilterThatDropsMost) {
  auto context = testutil::MakeContext();
  context->runtime_filters().Publish(9, BuildOf(DataType::Int64(), Ints(0, 7)));
  io::ScanRequest request;
  request.projection = {0, 1};
  request.runtime_filters = {{9, 0}};
  auto schema = std::make_shared<const columnar::Schema>(
      std::vector<columnar::Field>{{"k", DataType::Int64()}, {"v", DataType::Int64()}});
  const DataType kBool = DataType::Boolean();
  auto where = testutil::Call(
      ">", {testutil::Col(1, DataType::Int64()), testutil::Lit(columnar::Scalar::Int64(30))},
      kBool);
  OperatorMetrics metrics;
  ASSERT_OK_AND_ASSIGN(auto filter, ScanPredicateFilter::Make(
                                        *schema, where,
                                        std::make_unique<ScanRuntimeFilters>(
                                            request, context.get(), &metrics, DefaultMemoryPool()),
                                        &metrics, DefaultMemoryPool()));
  ArrayPtr k = MakeArray(DataType::Int64(), Ints(0, 9));
  std::vector<std::string> tens;
  for (int i = 0; i <= 9; ++i)
    tens.push_back(std::to_string(i * 10));
  ArrayPtr v = MakeArray(DataType::Int64(), tens);
  auto batch = columnar::RecordBatch::Make(schema, 10, {k, v});
  // Nothing measured yet: deferred.
  EXPECT_EQ(filter->columns(), (std::vector<int>{0}));
  std::vector<int32_t> selection;
  ASSERT_OK_AND_ASSIGN(int64_t kept, filter->Select({k}, 10, &selection));
  EXPECT_EQ(kept, 8);
  ASSERT_OK_AND_ASSIGN(auto cut, filter->Take(*batch, selection));
  ASSERT_OK_AND_ASSIGN(auto rest, filter->ApplyDeferred(cut));
  EXPECT_EQ(testutil::Rows(std::vector<RecordBatchPtr>{rest}),
            (testutil::Strings{"4|40", "5|50", "6|60", "7|70"}));
  // The runtime filter kept 80%: the WHERE joins it in Select.
  EXPECT_EQ(filter->columns(), (std::vector<int>{0, 1}));
  ASSERT_OK_AND_ASSIGN(kept, filter->Select({k, v}, 10, &selection));
  EXPECT_EQ(kept, 4);
  EXPECT_EQ(selection, (std::vector<int32_t>{4, 5, 6, 7}));
  ASSERT_OK_AND_ASSIGN(auto same, filter->ApplyDeferred(batch));
  EXPECT_EQ(same.get(), batch.get());
  EXPECT_EQ(metrics.extra["filter_rows_in"], 16);
  EXPECT_EQ(metrics.extra["filter_rows_out"], 8);
}

// Before its filter arrives a scan keeps every row; afterwards it filters.
TEST(ScanRuntimeFiltersTest, AppliesAFilterFromWhenItArrives) {
  auto context = testutil::MakeContext();  // filter 3 is not expected from elsewhere: no wait
  io::ScanRequest request;
  request.projection = {1, 0};
  request.runtime_filters = {{3, 0}};
  OperatorMetrics metrics;
  ScanRuntimeFilters filters(request, context.get(), &metrics, DefaultMemoryPool());
  auto batch = testing::MakeBatch({{"v", DataType::Utf8()}, {"k", DataType::Int32()}},
                                  {{"a", "1"}, {"b", "2"}, {"c", "NULL"}});
  ASSERT_OK_AND_ASSIGN(auto before, filters.Apply(batch));
  EXPECT_EQ(before->num_rows(), 3);
  ASSERT_OK_AND_ASSIGN(
      auto filter, RuntimeFilter::Build(MakeArray(DataType::Int32(), {"2"}), DefaultMemoryPool()));
  context->runtime_filters().Publish(3, filter);
  ASSERT_OK_AND_ASSIGN(auto after, filters.Apply(batch));
  ASSERT_EQ(after->num_rows(), 1);
  EXPECT_EQ(after->column(0)->StringValue(0), "b");
  // Row-group pruning by the range: [2, 2] against a block's statistics.
  std::vector<io::ColumnPredicate> asked;
  EXPECT_TRUE(filters.BlockRuledOut([&](const io::ColumnPredicate& p) {
    asked.push_back(p);
    return p.op == io::PredicateOp::kGe;  // the block's values are all below 2
  }));
  ASSERT_FALSE(asked.empty());
  EXPECT_EQ(asked[0].column, 0);
  EXPECT_EQ(metrics.extra["rf3_row_groups_pruned"], 1);
}

}  // namespace
}  // namespace shoal::exec
