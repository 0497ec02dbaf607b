#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/exec/join/join_hash_table.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/io/memory_table.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)
using sql::JoinType;
using Mode = HashJoinExec::Mode;

// One row of the random inputs: key k (int64), key s (utf8), value v (int64); any may be NULL.
struct Row {
  std::optional<int64_t> k;
  std::optional<std::string> s;
  std::optional<int64_t> v;
};

std::vector<Field> RowFields(const std::string& prefix) {
  return {{prefix + "k", DataType::Int64()},
          {prefix + "s", DataType::Utf8()},
          {prefix + "v", DataType::Int64()}};
}

template <typename T>
std::string Text(const std::optional<T>& v) {
  if (!v)
    return "NULL";
  if constexpr (std::is_same_v<T, std::string>) {
    return *v;
  } else {
    return std::to_string(*v);
  }
}

std::string RowText(const Row& r) {
  return Text(r.k) + "|" + Text(r.s) + "|" + Text(r.v);
}

std::vector<Row> RandomRows(std::mt19937_64* rng, int n, int key_range) {
  std::vector<Row> rows;
  auto chance = [&](int percent) { return static_cast<int>((*rng)() % 100) < percent; };
  for (int i = 0; i < n; ++i) {
    Row r;
    if (!chance(10))
      r.k = static_cast<int64_t>((*rng)() % static_cast<uint64_t>(key_range));
    if (!chance(10))
      r.s = "s" + std::to_string((*rng)() % 3);
    if (!chance(10))
      r.v = static_cast<int64_t>((*rng)() % 100);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::shared_ptr<io::MemoryTable> ToTable(const std::vector<Row>& rows, const std::string& prefix,
                                         int per_batch) {
  std::vector<TextRow> text;
  for (const Row& r : rows)
    text.push_back({Text(r.k), Text(r.s), Text(r.v)});
  return MakeTable(RowFields(prefix), text, per_batch);
}

// The naive reference: every pair of rows compared, SQL NULL rules spelled out.
struct Reference {
  bool multi_key = false;
  bool residual = false;  // left.v < right.v

  bool KeyNull(const Row& r) const { return !r.k || (multi_key && !r.s); }

  bool Matches(const Row& l, const Row& r) const {
    if (KeyNull(l) || KeyNull(r) || *l.k != *r.k || (multi_key && *l.s != *r.s))
      return false;
    return !residual || (l.v && r.v && *l.v < *r.v);
  }

  Strings Run(JoinType type, const std::vector<Row>& left, const std::vector<Row>& right) const {
    Strings out;
    std::vector<bool> right_matched(right.size(), false);
    bool right_null_key = false;
    for (const Row& r : right)
      right_null_key |= KeyNull(r);
    for (const Row& l : left) {
      bool matched = false;
      for (size_t j = 0; j < right.size(); ++j) {
        if (!Matches(l, right[j]))
          continue;
        matched = true;
        right_matched[j] = true;
        if (type == JoinType::kInner || type == JoinType::kLeft || type == JoinType::kRight ||
            type == JoinType::kFull)
          out.push_back(RowText(l) + "|" + RowText(right[j]));
      }
      switch (type) {
        case JoinType::kLeft:
        case JoinType::kFull:
          if (!matched)
            out.push_back(RowText(l) + "|NULL|NULL|NULL");
          break;
        case JoinType::kSemi:
          if (matched)
            out.push_back(RowText(l));
          break;
        case JoinType::kAnti:
          if (!matched)
            out.push_back(RowText(l));
          break;
        case JoinType::kNullAwareAnti:
          if (right.empty() || (!right_null_key && !KeyNull(l) && !matched))
            out.push_back(RowText(l));
          break;
        case JoinType::kMark: {
          std::string mark = matched                                              ? "t"
                             : (!right.empty() && (KeyNull(l) || right_null_key)) ? "NULL"
                                                                                  : "f";
          out.push_back(RowText(l) + "|" + mark);
          break;
        }
        default: break;
      }
    }
    if (type == JoinType::kRight || type == JoinType::kFull) {
      for (size_t j = 0; j < right.size(); ++j) {
        if (!right_matched[j])
          out.push_back("NULL|NULL|NULL|" + RowText(right[j]));
      }
    }
    // The right side's rows some left row matches (each once), or those none matches.
    if (type == JoinType::kRightSemi || type == JoinType::kRightAnti) {
      for (size_t j = 0; j < right.size(); ++j) {
        if (right_matched[j] == (type == JoinType::kRightSemi))
          out.push_back(RowText(right[j]));
      }
    }
    return Sorted(out);
  }
};

constexpr JoinType kAllTypes[] = {JoinType::kInner,         JoinType::kLeft, JoinType::kRight,
                                  JoinType::kFull,          JoinType::kSemi, JoinType::kAnti,
                                  JoinType::kNullAwareAnti, JoinType::kMark, JoinType::kRightSemi,
                                  JoinType::kRightAnti};

std::vector<sql::ExprPtr> Keys(bool multi_key) {
  std::vector<sql::ExprPtr> keys = {Col(0, DataType::Int64())};
  if (multi_key)
    keys.push_back(Col(1, DataType::Utf8()));
  return keys;
}

struct JoinInputs {
  std::shared_ptr<io::MemoryTable> left, right;
};

Result<ExecPlanPtr> MakeJoin(const JoinInputs& in, JoinType type, Mode mode, bool multi_key,
                             bool residual) {
  ExecPlanPtr left = Scan(in.left, 3);
  ExecPlanPtr right = Scan(in.right, 2);
  if (mode == Mode::kPartitioned) {
    SHOAL_ASSIGN_OR_RETURN(left,
                           RepartitionExec::Make(left, Partitioning::Hash(Keys(multi_key), 3)));
    SHOAL_ASSIGN_OR_RETURN(right,
                           RepartitionExec::Make(right, Partitioning::Hash(Keys(multi_key), 3)));
  }
  sql::ExprPtr filter;
  if (residual)
    filter = Call("<", {Col(2, DataType::Int64()), Col(5, DataType::Int64())}, DataType::Boolean());
  SHOAL_ASSIGN_OR_RETURN(auto join, HashJoinExec::Make(left, right, Keys(multi_key),
                                                       Keys(multi_key), type, filter, mode));
  return ExecPlanPtr(std::move(join));
}

class HashJoinRandomTest : public ::testing::TestWithParam<std::tuple<int64_t, Mode>> {};

TEST_P(HashJoinRandomTest, EveryJoinTypeMatchesTheNaiveReference) {
  const auto [batch_size, mode] = GetParam();
  std::mt19937_64 rng(42);
  // Sizes include empty sides; key ranges give many duplicates (4) or few (30).
  const std::pair<int, int> sizes[] = {{40, 30}, {0, 20}, {25, 0}, {60, 45}};
  int checked_rows = 0;
  for (const auto& [nl, nr] : sizes) {
    for (int key_range : {4, 30}) {
      std::vector<Row> left_rows = RandomRows(&rng, nl, key_range);
      std::vector<Row> right_rows = RandomRows(&rng, nr, key_range);
      JoinInputs in{ToTable(left_rows, "l", 7), ToTable(right_rows, "r", 5)};
      for (bool multi_key : {false, true}) {
        for (bool residual : {false, true}) {
          Reference ref{multi_key, residual};
          for (JoinType type : kAllTypes) {
            if (mode == Mode::kPartitioned &&
                (type == JoinType::kNullAwareAnti || type == JoinType::kMark)) {
              EXPECT_STATUS_CODE(StatusCode::kNotImplemented,
                                 MakeJoin(in, type, mode, multi_key, residual));
              continue;
            }
            SCOPED_TRACE(fmt::format("type={} sizes={}x{} keys={} multi={} residual={}",
                                     sql::JoinTypeName(type), nl, nr, key_range, multi_key,
                                     residual));
            ASSERT_OK_AND_ASSIGN(ExecPlanPtr join, MakeJoin(in, type, mode, multi_key, residual));
            ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(join, MakeContext(batch_size)));
            for (const auto& b : batches) {
              EXPECT_LE(b->num_rows(), batch_size);
              EXPECT_GT(b->num_rows(), 0);
              EXPECT_EQ(*b->schema(), *join->schema());
            }
            Strings expected = ref.Run(type, left_rows, right_rows);
            EXPECT_EQ(Sorted(Rows(batches)), expected);
            checked_rows += static_cast<int>(expected.size());
          }
        }
      }
    }
  }
  EXPECT_GT(checked_rows, 1000);
}

INSTANTIATE_TEST_SUITE_P(BatchSizesAndModes, HashJoinRandomTest,
                         ::testing::Combine(::testing::Values(1, 2, 8192),
                                            ::testing::Values(Mode::kCollectBuild,
                                                              Mode::kPartitioned)));

// A small hand-checked case per NULL-sensitive type, so the reference itself is pinned down.
class HashJoinNullRulesTest : public ::testing::Test {
 protected:
  Strings Run(const std::vector<TextRow>& left, const std::vector<TextRow>& right, JoinType type) {
    std::vector<Field> lf = {{"a", DataType::Int32()}};
    std::vector<Field> rf = {{"b", DataType::Int32()}};
    // All rows in one batch (none: no batch).
    auto join = HashJoinExec::Make(Scan(MakeTable(lf, left, 100), 1),
                                   Scan(MakeTable(rf, right, 100), 1), {Col(0, DataType::Int32())},
                                   {Col(0, DataType::Int32())}, type, nullptr, Mode::kCollectBuild);
    EXPECT_OK(join);
    auto batches = CollectAll(*join, MakeContext());
    EXPECT_OK(batches);
    return batches.ok() ? Rows(*batches) : Strings{};
  }
};

TEST_F(HashJoinNullRulesTest, NullAwareAnti) {
  EXPECT_EQ(Run({{"1"}, {"2"}, {"NULL"}}, {{"2"}, {"3"}}, JoinType::kNullAwareAnti),
            (Strings{"1"}));
  // A NULL on the build side: NOT IN is never true.
  EXPECT_EQ(Run({{"1"}, {"2"}, {"NULL"}}, {{"2"}, {"NULL"}}, JoinType::kNullAwareAnti), Strings{});
  // An empty build side: every row, NULL keys included.
  EXPECT_EQ(Run({{"1"}, {"NULL"}}, {}, JoinType::kNullAwareAnti), (Strings{"1", "NULL"}));
  // Plain anti keeps NULL keys.
  EXPECT_EQ(Run({{"1"}, {"2"}, {"NULL"}}, {{"2"}, {"NULL"}}, JoinType::kAnti),
            (Strings{"1", "NULL"}));
}

TEST_F(HashJoinNullRulesTest, Mark) {
  EXPECT_EQ(Run({{"1"}, {"2"}, {"NULL"}}, {{"2"}, {"3"}}, JoinType::kMark),
            (Strings{"1|f", "2|t", "NULL|NULL"}));
  EXPECT_EQ(Run({{"1"}, {"2"}, {"NULL"}}, {{"2"}, {"NULL"}}, JoinType::kMark),
            (Strings{"1|NULL", "2|t", "NULL|NULL"}));
  EXPECT_EQ(Run({{"1"}, {"NULL"}}, {}, JoinType::kMark), (Strings{"1|f", "NULL|f"}));
}

TEST(HashJoinTest, KeysOfManyTypes) {
  std::vector<Field> lf = {
      {"d", DataType::Decimal(15, 2)}, {"t", DataType::Date32()}, {"x", DataType::Utf8()}};
  std::vector<Field> rf = {
      {"d", DataType::Decimal(15, 2)}, {"t", DataType::Date32()}, {"y", DataType::Int32()}};
  auto left = MakeBatch(lf, {{"1.50", "2024-01-01", "a"},
                             {"1.50", "2024-01-02", "b"},
                             {"2.00", "2024-01-01", "c"},
                             {"NULL", "2024-01-01", "d"}});
  auto right = MakeBatch(rf, {{"1.50", "2024-01-01", "10"},
                              {"1.50", "2024-01-01", "11"},
                              {"2.00", "2024-01-02", "12"},
                              {"NULL", "2024-01-01", "13"}});
  auto lt = Scan(MakeTable(lf, {left}), 1);
  auto rt = Scan(MakeTable(rf, {right}), 1);
  auto keys_l =
      std::vector<sql::ExprPtr>{Col(0, DataType::Decimal(15, 2)), Col(1, DataType::Date32())};
  ASSERT_OK_AND_ASSIGN(auto join, HashJoinExec::Make(lt, rt, keys_l, keys_l, JoinType::kInner,
                                                     nullptr, Mode::kCollectBuild));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(join, MakeContext()));
  EXPECT_EQ(Sorted(Rows(batches)), (Strings{"1.50|2024-01-01|a|1.50|2024-01-01|10",
                                            "1.50|2024-01-01|a|1.50|2024-01-01|11"}));
  // Keys of different types are a plan error.
  EXPECT_STATUS_CODE(
      StatusCode::kTypeError,
      HashJoinExec::Make(lt, rt, {Col(2, DataType::Utf8())}, {Col(2, DataType::Int32())},
                         JoinType::kInner, nullptr, Mode::kCollectBuild));
}

TEST(HashJoinTest, ComputedKeysAndDescribe) {
  std::mt19937_64 rng(7);
  auto left_rows = RandomRows(&rng, 30, 10);
  auto right_rows = RandomRows(&rng, 20, 10);
  JoinInputs in{ToTable(left_rows, "l", 4), ToTable(right_rows, "r", 3)};
  // left.k + 1 = right.k
  auto lk = Call("+", {Col(0, DataType::Int64()), Lit(Scalar::Int64(1))}, DataType::Int64());
  ASSERT_OK_AND_ASSIGN(auto join, HashJoinExec::Make(Scan(in.left, 2), Scan(in.right, 2), {lk},
                                                     {Col(0, DataType::Int64())}, JoinType::kInner,
                                                     nullptr, Mode::kCollectBuild));
  EXPECT_EQ(join->Describe(false), "type=" + std::string(sql::JoinTypeName(JoinType::kInner)) +
                                       ", mode=collect_build, on=[(#0 + 1) = #0]");
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(join, MakeContext(3)));
  Strings expected;
  for (const Row& l : left_rows) {
    for (const Row& r : right_rows) {
      if (l.k && r.k && *l.k + 1 == *r.k)
        expected.push_back(RowText(l) + "|" + RowText(r));
    }
  }
  EXPECT_FALSE(expected.empty());
  EXPECT_EQ(Sorted(Rows(batches)), Sorted(expected));
}

// Partitions pulled one after another on one thread: the collect-build right join still emits
// the unmatched build rows exactly once, from the partition that finishes last.
TEST(HashJoinTest, CollectBuildEmitsUnmatchedBuildRowsOnce) {
  std::mt19937_64 rng(11);
  auto left_rows = RandomRows(&rng, 30, 12);
  auto right_rows = RandomRows(&rng, 25, 12);
  JoinInputs in{ToTable(left_rows, "l", 4), ToTable(right_rows, "r", 3)};
  ASSERT_OK_AND_ASSIGN(auto join, MakeJoin(in, JoinType::kFull, Mode::kCollectBuild, false, false));
  auto context = MakeContext(4);
  std::vector<StreamPtr> streams;
  for (int p = 0; p < join->num_partitions(); ++p) {
    ASSERT_OK_AND_ASSIGN(StreamPtr s, join->Execute(p, context));
    streams.push_back(std::move(s));
  }
  Strings all;
  std::vector<size_t> unmatched_per_partition;
  for (auto& s : streams) {
    size_t unmatched = 0;
    for (;;) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr b, s->Next());
      if (!b)
        break;
      for (auto& row : Rows({b})) {
        unmatched += row.rfind("NULL|NULL|NULL|", 0) == 0;
        all.push_back(std::move(row));
      }
    }
    unmatched_per_partition.push_back(unmatched);
  }
  EXPECT_EQ(Sorted(all), (Reference{false, false}.Run(JoinType::kFull, left_rows, right_rows)));
  ASSERT_EQ(unmatched_per_partition.size(), 3u);
  EXPECT_EQ(unmatched_per_partition[0], 0u);
  EXPECT_EQ(unmatched_per_partition[1], 0u);
  EXPECT_GT(unmatched_per_partition[2], 0u);
  auto totals = context->metrics().Sum(join.get());
  EXPECT_EQ(totals.extra["build_rows"], 25);  // built once for all three partitions
}

// A build input of `n` partitions whose streams each give one row (k = the partition number)
// only once every partition's stream has been asked for its first batch, as partitions that
// depend on each other do (the builds of a partitioned join below, whose runtime filter is the
// union of all partitions' keys). Waits at most 10 s, then fails naming what it waited for.
class RendezvousExec final : public ExecutionPlan {
 public:
  explicit RendezvousExec(int n)
      : ExecutionPlan(PlanKind::kValues, std::make_shared<columnar::Schema>(
                                             std::vector<Field>{{"k", DataType::Int32()}})),
        n_(n),
        state_(std::make_shared<State>()) {}

  std::string_view name() const override { return "Rendezvous"; }

  std::vector<ExecPlanPtr> children() const override { return {}; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr>) const override {
    return ExecPlanPtr(std::make_shared<RendezvousExec>(n_));
  }

  Partitioning output_partitioning() const override { return Partitioning::Unknown(n_); }

  Result<StreamPtr> Execute(int partition, const std::shared_ptr<TaskContext>&) const override {
    return StreamPtr(new Stream(schema(), partition, n_, state_));
  }

  std::string Describe(bool) const override { return fmt::format("n={}", n_); }

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable arrived;
    int count = 0;
  };

  class Stream final : public columnar::RecordBatchReader {
   public:
    Stream(columnar::SchemaPtr schema, int partition, int n, std::shared_ptr<State> state)
        : schema_(std::move(schema)), partition_(partition), n_(n), state_(std::move(state)) {}

    const columnar::SchemaPtr& schema() const override { return schema_; }

    Result<RecordBatchPtr> Next() override {
      if (done_)
        return RecordBatchPtr();
      done_ = true;
      std::unique_lock<std::mutex> lock(state_->mutex);
      ++state_->count;
      state_->arrived.notify_all();
      if (!state_->arrived.wait_for(lock, std::chrono::seconds(10),
                                    [&] { return state_->count >= n_; })) {
        return Status::Internal("partition {} waited 10 s for the other partitions to start",
                                partition_);
      }
      return MakeBatch({{"k", DataType::Int32()}}, {{std::to_string(partition_)}});
    }

   private:
    columnar::SchemaPtr schema_;
    int partition_;
    int n_;
    std::shared_ptr<State> state_;
    bool done_ = false;
  };

  int n_;
  std::shared_ptr<State> state_;
};

// A collect-build join reads every partition of its build input at once: pulled one after
// another, the build input's plan ran on one core while the probe streams waited.
TEST(HashJoinTest, CollectBuildReadsItsBuildPartitionsAtOnce) {
  auto probe = Scan(MakeTable({{"k", DataType::Int32()}}, {{"0"}, {"1"}, {"2"}, {"5"}}, 2), 1);
  ASSERT_OK_AND_ASSIGN(auto join,
                       HashJoinExec::Make(probe, std::make_shared<RendezvousExec>(3),
                                          {Col(0, DataType::Int32())}, {Col(0, DataType::Int32())},
                                          JoinType::kInner, nullptr, Mode::kCollectBuild));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(join, MakeContext()));
  EXPECT_EQ(Sorted(Rows(batches)), (Strings{"0|0", "1|1", "2|2"}));
}

TEST(HashJoinTest, ManyDuplicatesSplitIntoBoundedBatches) {
  // 200 x 300 rows on one key: 60000 output rows from single probe batches.
  std::vector<Row> left_rows(200, Row{1, "a", 1});
  std::vector<Row> right_rows(300, Row{1, "b", 2});
  JoinInputs in{ToTable(left_rows, "l", 200), ToTable(right_rows, "r", 300)};
  for (Mode mode : {Mode::kCollectBuild, Mode::kPartitioned}) {
    ASSERT_OK_AND_ASSIGN(auto join, MakeJoin(in, JoinType::kInner, mode, false, false));
    ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(join, MakeContext(1000)));
    int64_t rows = 0;
    for (const auto& b : batches) {
      EXPECT_LE(b->num_rows(), 1000);
      rows += b->num_rows();
    }
    EXPECT_EQ(rows, 60000);
  }
}

TEST(HashJoinTest, MemoryReturnsToZero) {
  std::mt19937_64 rng(3);
  auto left_rows = RandomRows(&rng, 300, 20);
  auto right_rows = RandomRows(&rng, 200, 20);
  JoinInputs in{ToTable(left_rows, "l", 16), ToTable(right_rows, "r", 16)};
  for (Mode mode : {Mode::kCollectBuild, Mode::kPartitioned}) {
    auto query_pool = MemoryPool::MakeRoot("test query");
    {
      ASSERT_OK_AND_ASSIGN(auto join, MakeJoin(in, JoinType::kFull, mode, true, true));
      auto context = MakeContext(16, 2, query_pool);
      {
        // Complete run.
        ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(join, context));
        EXPECT_FALSE(batches.empty());
      }
      EXPECT_EQ(query_pool->bytes_used(), 0);
      // Early destruction after the first batch.
      ASSERT_OK_AND_ASSIGN(StreamPtr stream, join->Execute(0, context));
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
      ASSERT_NE(batch, nullptr);
      EXPECT_GT(query_pool->bytes_used(), 0);
      batch.reset();
      stream.reset();
      context.reset();  // the registry drops the shared build of a finished context
    }
    EXPECT_EQ(query_pool->bytes_used(), 0);
    EXPECT_GT(query_pool->peak_bytes(), 0);
  }
}

TEST(HashJoinTest, BuildRefusedOverTheMemoryLimit) {
  std::mt19937_64 rng(5);
  auto left_rows = RandomRows(&rng, 100, 20);
  auto right_rows = RandomRows(&rng, 5000, 20);
  JoinInputs in{ToTable(left_rows, "l", 100), ToTable(right_rows, "r", 1000)};
  ASSERT_OK_AND_ASSIGN(auto join,
                       MakeJoin(in, JoinType::kInner, Mode::kCollectBuild, false, false));
  auto context = MakeContext(8192, 2, MemoryPool::MakeRoot("small query", 64 * 1024));
  EXPECT_STATUS_CODE(StatusCode::kOutOfMemory, CollectAll(join, context));
}

TEST(HashJoinTest, CancellationStopsTheStream) {
  std::mt19937_64 rng(9);
  auto left_rows = RandomRows(&rng, 200, 5);
  auto right_rows = RandomRows(&rng, 50, 5);
  JoinInputs in{ToTable(left_rows, "l", 10), ToTable(right_rows, "r", 10)};
  for (Mode mode : {Mode::kCollectBuild, Mode::kPartitioned}) {
    ASSERT_OK_AND_ASSIGN(auto join, MakeJoin(in, JoinType::kInner, mode, false, false));
    auto context = MakeContext(2);
    ASSERT_OK_AND_ASSIGN(StreamPtr stream, join->Execute(0, context));
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr first, stream->Next());
    ASSERT_NE(first, nullptr);
    context->Cancel();
    EXPECT_STATUS_CODE(StatusCode::kCancelled, stream->Next());
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr after, stream->Next());
    EXPECT_EQ(after, nullptr);
    // A stream that starts after the cancellation never builds.
    ASSERT_OK_AND_ASSIGN(StreamPtr late, join->Execute(1, context));
    EXPECT_STATUS_CODE(StatusCode::kCancelled, late->Next());
  }
}

// Key comparison is mostly shadowed by the 64-bit hash check, so it is tested directly.
TEST(HashJoinTest, KeepEqualKeysComparesByValue) {
  auto check = [](const DataType& type, const Strings& probe, const Strings& build,
                  const std::vector<int32_t>& p, const std::vector<int32_t>& b,
                  const std::vector<int32_t>& expected_probe) {
    auto pa = shoal::testing::MakeArray(type, probe);
    auto ba = shoal::testing::MakeArray(type, build);
    std::vector<int32_t> pp = p, bb = b;
    int64_t kept = KeepEqualKeys(*pa, *ba, pp.data(), bb.data(), static_cast<int64_t>(pp.size()));
    pp.resize(static_cast<size_t>(kept));
    EXPECT_EQ(pp, expected_probe) << type.ToString();
  };
  // Pairs (0,0) (1,1) (2,2) (3,0).
  const std::vector<int32_t> p = {0, 1, 2, 3}, b = {0, 1, 2, 0};
  check(DataType::Utf8(), {"ab", "abc", "", "ab"}, {"ab", "abd", "", "x"}, p, b, {0, 2, 3});
  check(DataType::Float64(), {"0.0", "NaN", "1.5", "-0.0"}, {"-0.0", "NaN", "2.5", "9"}, p, b,
        {0, 1, 3});
  check(DataType::Float32(), {"1", "2", "3", "1"}, {"1", "3", "3", "0"}, p, b, {0, 2, 3});
  check(DataType::Boolean(), {"t", "f", "t", "f"}, {"t", "t", "t", "f"}, p, b, {0, 2});
  check(DataType::Decimal(30, 2), {"1.00", "2.50", "-3.00", "1.00"}, {"1.00", "2.51", "-3.00", "0"},
        p, b, {0, 2, 3});
  check(DataType::Int16(), {"1", "2", "3", "1"}, {"1", "2", "4", "0"}, p, b, {0, 1, 3});
  check(DataType::Date32(), {"2024-01-01", "2024-01-02", "2024-01-03", "2024-01-01"},
        {"2024-01-01", "2024-01-01", "2024-01-03", "2000-01-01"}, p, b, {0, 2, 3});
}

TEST(HashJoinTest, PlanErrors) {
  std::mt19937_64 rng(1);
  JoinInputs in{ToTable(RandomRows(&rng, 5, 3), "l", 5), ToTable(RandomRows(&rng, 5, 3), "r", 5)};
  EXPECT_STATUS_CODE(StatusCode::kInternal,
                     HashJoinExec::Make(Scan(in.left, 1), Scan(in.right, 1), {}, {},
                                        JoinType::kInner, nullptr, Mode::kCollectBuild));
  // Partitioned mode needs equal partition counts.
  EXPECT_STATUS_CODE(
      StatusCode::kInternal,
      HashJoinExec::Make(Scan(in.left, 1),
                         *RepartitionExec::Make(Scan(in.right, 1), Partitioning::RoundRobin(2)),
                         Keys(false), Keys(false), JoinType::kInner, nullptr, Mode::kPartitioned));
  // A residual that is not boolean.
  EXPECT_STATUS_CODE(
      StatusCode::kTypeError,
      HashJoinExec::Make(Scan(in.left, 1), Scan(in.right, 1), Keys(false), Keys(false),
                         JoinType::kInner, Col(2, DataType::Int64()), Mode::kCollectBuild));
}

}  // namespace
}  // namespace shoal::exec
