// Test support: record batches written as text, and gtest assertions on arrays and batches.
//
// Tests state their data the way a reader thinks of it, as rows of SQL-ish literals:
//
//   auto batch = MakeBatch({{"a", DataType::Int32()}, {"s", DataType::Utf8()}},
//                          {{"1", "x"}, {"NULL", "y"}});
//
// Each value is parsed according to its column's type:
//   NULL (any case)            a null of any type
//   boolean                    t, f, true, false (any case)
//   int* / uint*               decimal integers, range-checked
//   float32 / float64          C literals, plus NaN, Infinity, -Infinity (as psql prints them)
//   decimal(p, s)              ParseDecimal (rounds half away from zero to the scale)
//   date32                     YYYY-MM-DD, optionally followed by " BC"
//   timestamp(unit, tz)        YYYY-MM-DD[ |T]HH:MM:SS[.fraction][Z|+HH|+HH:MM|-HH...]; an offset
//                              converts to UTC; a fraction finer than the unit is an error
//   interval                   PostgreSQL's output: "1 year 2 mons 3 days 04:05:06.5", "-1 days"
//   utf8                       the text itself; "\NULL" spells the four-letter string NULL
//   binary                     "\x0aff" as hex bytes (psql's bytea output), otherwise the raw bytes
//   dictionary<i, v>           a value of v; the column is dictionary-encoded in order of first use
//   null                       only NULL
//
// Text that does not parse is an error naming the row, the column and the reason: TryMakeBatch
// returns it, MakeBatch aborts with it (test data is part of the test, so a typo there is a bug).
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/record_batch.h"
#include "tests/support/gtest_util.h"

namespace shoal::testing {

using columnar::ArrayPtr;
using columnar::DataType;
using columnar::Field;
using columnar::RecordBatchPtr;

using TextRow = std::vector<std::string>;

/// Appends the value `text` (see the table above) to `builder`, whose type decides the parsing.
Status AppendText(columnar::ArrayBuilder* builder, std::string_view text);

/// An array of `type` from one text value per element.
Result<ArrayPtr> TryMakeArray(const DataType& type, const std::vector<std::string>& values,
                              const std::shared_ptr<MemoryPool>& pool = DefaultMemoryPool());
ArrayPtr MakeArray(const DataType& type, const std::vector<std::string>& values,
                   const std::shared_ptr<MemoryPool>& pool = DefaultMemoryPool());

/// A batch of `fields` from rows of text values (each row has one value per field).
Result<RecordBatchPtr> TryMakeBatch(const std::vector<Field>& fields,
                                    const std::vector<TextRow>& rows,
                                    const std::shared_ptr<MemoryPool>& pool = DefaultMemoryPool());
RecordBatchPtr MakeBatch(const std::vector<Field>& fields, const std::vector<TextRow>& rows,
                         const std::shared_ptr<MemoryPool>& pool = DefaultMemoryPool());

/// Equality with a readable failure: the first differing element (or the differing type, length
/// or null count) and both arrays printed.
::testing::AssertionResult AssertArraysEqual(const char* a_expr, const char* b_expr,
                                             const columnar::Array& a, const columnar::Array& b);
::testing::AssertionResult AssertArraysEqual(const char* a_expr, const char* b_expr,
                                             const ArrayPtr& a, const ArrayPtr& b);
/// Equality with a readable failure: differing schema, row count or first differing cell, and
/// both batches printed as tables.
::testing::AssertionResult AssertBatchesEqual(const char* a_expr, const char* b_expr,
                                              const columnar::RecordBatch& a,
                                              const columnar::RecordBatch& b);
::testing::AssertionResult AssertBatchesEqual(const char* a_expr, const char* b_expr,
                                              const RecordBatchPtr& a, const RecordBatchPtr& b);

/// The elements of an array as text (FormatValue; nulls as "NULL"), for compact expectations:
/// EXPECT_EQ(ArrayToStrings(*array), (std::vector<std::string>{"1", "NULL"})).
std::vector<std::string> ArrayToStrings(const columnar::Array& array);

}  // namespace shoal::testing

namespace shoal::columnar {

// Readable gtest output for EXPECT_EQ on types and schemas ("decimal(15,2)", not raw bytes).
inline void PrintTo(const DataType& type, std::ostream* os) {
  *os << type.ToString();
}

inline void PrintTo(const Schema& schema, std::ostream* os) {
  *os << schema.ToString();
}

}  // namespace shoal::columnar

#define EXPECT_ARRAYS_EQUAL(a, b) EXPECT_PRED_FORMAT2(::shoal::testing::AssertArraysEqual, a, b)
#define ASSERT_ARRAYS_EQUAL(a, b) ASSERT_PRED_FORMAT2(::shoal::testing::AssertArraysEqual, a, b)
#define EXPECT_BATCHES_EQUAL(a, b) EXPECT_PRED_FORMAT2(::shoal::testing::AssertBatchesEqual, a, b)
#define ASSERT_BATCHES_EQUAL(a, b) ASSERT_PRED_FORMAT2(::shoal::testing::AssertBatchesEqual, a, b)
