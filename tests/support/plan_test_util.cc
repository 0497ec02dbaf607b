#include "tests/support/plan_test_util.h"

#include <algorithm>
#include <utility>

#include "shoal/common/check.h"

namespace shoal::exec::testutil {

std::shared_ptr<TaskContext> MakeContext(int64_t batch_size, int threads,
                                         std::shared_ptr<MemoryPool> pool) {
  TaskContext::Options options;
  EXPECT_OK(options.settings.Set("batch_size", std::to_string(batch_size)));
  options.pool = std::move(pool);
  options.threads = std::make_shared<ThreadPool>(threads);
  return std::make_shared<TaskContext>(std::move(options));
}

std::shared_ptr<io::MemoryTable> MakeTable(const std::vector<Field>& fields,
                                           const std::vector<TextRow>& rows, int per_batch,
                                           const std::shared_ptr<MemoryPool>& pool) {
  SHOAL_CHECK(per_batch > 0, "MakeTable: {} rows per batch", per_batch);
  const auto step = static_cast<size_t>(per_batch);
  std::vector<RecordBatchPtr> batches;
  for (size_t i = 0; i < rows.size(); i += step) {
    std::vector<TextRow> part(
        rows.begin() + static_cast<std::ptrdiff_t>(i),
        rows.begin() + static_cast<std::ptrdiff_t>(std::min(rows.size(), i + step)));
    batches.push_back(MakeBatch(fields, part, pool));
  }
  return MakeTable(fields, std::move(batches));
}

std::shared_ptr<io::MemoryTable> MakeTable(const std::vector<Field>& fields,
                                           std::vector<RecordBatchPtr> batches) {
  auto table = TableOf(fields, std::move(batches));
  SHOAL_CHECK(table.ok(), "MakeTable: bad test data: {}", table.status().ToString());
  return std::move(table).value();
}

ExecPlanPtr Scan(const std::shared_ptr<io::MemoryTable>& table, int partitions,
                 std::vector<int> projection) {
  auto scan = ScanOf(table, partitions, std::move(projection));
  SHOAL_CHECK(scan.ok(), "Scan: bad test plan: {}", scan.status().ToString());
  return std::move(scan).value();
}

Strings Rows(const std::vector<RecordBatchPtr>& batches) {
  Strings out;
  for (const auto& b : batches) {
    std::vector<std::vector<std::string>> cols;
    for (int c = 0; c < b->num_columns(); ++c)
      cols.push_back(shoal::testing::ArrayToStrings(*b->column(c)));
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      std::string row;
      for (size_t c = 0; c < cols.size(); ++c)
        row += (c ? "|" : "") + cols[c][static_cast<size_t>(r)];
      out.push_back(std::move(row));
    }
  }
  return out;
}

Strings Sorted(Strings rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace shoal::exec::testutil
