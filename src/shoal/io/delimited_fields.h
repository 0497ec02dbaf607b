// Field parsers of the delimited reader: TBL/CSV field text to typed values (integers, floats,
// decimals, dates and timestamps through common/date_text.h, booleans, UTF-8-checked text), and
// a whole column of tokenized fields (delimited_tokenizer.h) into one array. The second stage of
// delimited_reader.h, which turns a field that does not parse into an error naming its line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "shoal/columnar/array.h"
#include "shoal/common/memory_pool.h"
#include "shoal/io/delimited_tokenizer.h"
#include "shoal/io/field_text.h"

namespace shoal::io {

/// One column of a batch of tokenized rows: row r's field is fields[r * stride + column].
struct FieldColumn {
  const FieldSlice* fields = nullptr;
  int stride = 0;
  int column = 0;
  int64_t rows = 0;
  columnar::DataType type;
  std::string name;
};

/// The first field that did not parse: its row (-1: none) and what it should have been.
struct BadField {
  int64_t row = -1;
  std::string what;
};

/// Parses the column into an array of its type. An unquoted field equal to `null_string` is
/// NULL, and so is an empty unquoted field of a non-text column. A field that does not parse
/// fills `*bad` and returns a null array (the caller words the error).
Result<columnar::ArrayPtr> ParseFieldColumn(const FieldColumn& column,
                                            const std::string& null_string,
                                            std::shared_ptr<MemoryPool> pool, BadField* bad);

}  // namespace shoal::io
