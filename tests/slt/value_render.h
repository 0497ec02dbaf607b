// How query results become text in .slt files. The runner renders every value itself, from the
// column type, so expected results do not change when the engine's own printer does:
//   NULL for nulls; (empty) for the empty string; true / false; integers in decimal; decimals with
//   exactly their scale; floats rounded to 12 significant digits (float32: 6) in shortest form,
//   -0 as 0, NaN, Infinity, -Infinity; dates, timestamps, intervals and binary as
//   columnar::FormatValue spells them; tab, newline and carriage return inside text as \t \n \r.
// Type characters of the query header are checked against the column types (README.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shoal/columnar/array.h"
#include "tests/slt/engine.h"

namespace shoal::slt {

using Row = std::vector<std::string>;

/// Text of element i of `array` under the rules above.
std::string RenderValue(const columnar::Array& array, int64_t i);

/// `v` rounded to `significant_digits`, printed in the shortest form that reads back as the
/// rounded value ("0.3", "100", "1e+20").
std::string RenderFloat(double v, int significant_digits);

/// Every row of `result`. Fails if a batch does not match the schema.
Result<std::vector<Row>> RenderRows(const QueryResult& result);

/// Whether a column of `type` may be declared with type character `c` (I R T B D P ?).
bool TypeCharAccepts(char c, const columnar::DataType& type);

/// The type character --complete writes for a column of `type`.
char CanonicalTypeChar(const columnar::DataType& type);

}  // namespace shoal::slt
