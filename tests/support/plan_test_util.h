// Test support for the exec tests: physical plans over in-memory tables written as text rows, a
// task context per run, and results as text rows for compact expectations.
//
//   auto table = MakeTable({{"k", DataType::Int32()}, {"s", DataType::Utf8()}},
//                          {{"1", "x"}, {"NULL", "y"}}, /*per_batch=*/1);
//   ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(SortExec::Make(Scan(table, 2), keys).value(),
//                                                 MakeContext()));
//   EXPECT_EQ(Rows(batches), (Strings{"1|x", "NULL|y"}));
//
// The expression and scan builders come from plan_builders.h (shared with bench/); this adds the
// text rows of batch_builder.h and the gtest checks. Bad test data (text that does not parse, a
// table that cannot be made) aborts with the reason: it is a bug in the test, not an outcome.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shoal/exec/expr/evaluator.h"
#include "tests/support/batch_builder.h"
#include "tests/support/plan_builders.h"

namespace shoal::exec::testutil {

using shoal::testing::MakeBatch;
using shoal::testing::TextRow;
using Strings = std::vector<std::string>;

/// A context with `batch_size`, a pool of `threads` threads and `pool` as the query's memory pool
/// (null: a fresh unlimited one); the exec settings are registered.
std::shared_ptr<TaskContext> MakeContext(int64_t batch_size = 8192, int threads = 2,
                                         std::shared_ptr<MemoryPool> pool = nullptr);

/// A memory table of `fields` from text rows (see batch_builder.h), `per_batch` rows to a batch
/// (the last one may be shorter; no rows: no batches).
std::shared_ptr<io::MemoryTable> MakeTable(
    const std::vector<Field>& fields, const std::vector<TextRow>& rows, int per_batch,
    const std::shared_ptr<MemoryPool>& pool = DefaultMemoryPool());

/// A memory table of `fields` holding `batches` as they are.
std::shared_ptr<io::MemoryTable> MakeTable(const std::vector<Field>& fields,
                                           std::vector<RecordBatchPtr> batches);

/// A scan of `table` in `partitions` partitions; `projection` lists the columns (empty: all).
ExecPlanPtr Scan(const std::shared_ptr<io::MemoryTable>& table, int partitions,
                 std::vector<int> projection = {});

/// Every row of every batch as text, one string per row ("1|x|NULL"), in stream order.
Strings Rows(const std::vector<RecordBatchPtr>& batches);

/// `rows` sorted: for plans whose partitions (or hash tables) give rows in no fixed order.
Strings Sorted(Strings rows);

}  // namespace shoal::exec::testutil
