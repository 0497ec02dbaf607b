#include "shoal/server/pg_result_builder.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <type_traits>

#include <fmt/format.h>

#include "shoal/common/date_text.h"
#include "shoal/server/pg_types.h"
#include "shoal/server/pg_wire.h"

namespace shoal::server {

using columnar::Array;
using columnar::ArrayPtr;
using columnar::DataType;
using columnar::MonthDayNano;
using columnar::TypeId;

namespace {

constexpr uint32_t kOidOid = 26;

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

template <typename T>
bool ParseNumber(std::string_view text, T* out) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if constexpr (std::is_floating_point_v<T>) {
    // from_chars takes inf, infinity and nan in any case, as float8in does, but no '+'.
    if (begin != end && *begin == '+') {
      ++begin;
    }
  }
  auto [ptr, ec] = std::from_chars(begin, end, *out);
  return ec == std::errc() && ptr == end && begin != end;
}

// "-12.340" -> integer digits 2 (without leading zeros), fraction digits 3; false when the
// text is not a plain decimal number (NaN, Infinity, exponents).
bool DecimalShape(std::string_view text, int* integer_digits, int* fraction_digits) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
    ++i;
  }
  size_t int_start = i;
  while (i < text.size() && IsDigit(text[i])) {
    ++i;
  }
  size_t int_end = i;
  size_t frac = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && IsDigit(text[i])) {
      ++i;
      ++frac;
    }
  }
  if (i != text.size() || (int_end == int_start && frac == 0)) {
    return false;
  }
  while (int_start < int_end && text[int_start] == '0') {
    ++int_start;
  }
  *integer_digits = static_cast<int>(int_end - int_start);
  *fraction_digits = static_cast<int>(frac);
  return true;
}

int Nibble(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

// bytea_output = hex: "\x0aff".
bool ParseByteaHex(std::string_view text, std::string* out) {
  out->clear();
  if (text.size() < 2 || text[0] != '\\' || text[1] != 'x' || text.size() % 2 != 0) {
    return false;
  }
  for (size_t i = 2; i < text.size(); i += 2) {
    int hi = Nibble(text[i]);
    int lo = Nibble(text[i + 1]);
    if (hi < 0 || lo < 0) {
      return false;
    }
    out->push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

// Converts one text chunk with `parse(text, T*) -> bool`; null when a value does not parse.
template <typename T, typename Parse>
Result<ArrayPtr> ConvertFixed(const Array& text, const DataType& type,
                              const std::shared_ptr<MemoryPool>& pool, Parse parse) {
  columnar::FixedWidthBuilder<T> builder(type, pool);
  SHOAL_RETURN_IF_ERROR(builder.Reserve(text.length()));
  for (int64_t i = 0; i < text.length(); ++i) {
    if (text.IsNull(i)) {
      SHOAL_RETURN_IF_ERROR(builder.AppendNull());
      continue;
    }
    T value{};
    if (!parse(text.StringValue(i), &value)) {
      return ArrayPtr();
    }
    builder.UnsafeAppend(value);
  }
  return builder.Finish();
}

Result<ArrayPtr> ConvertBool(const Array& text, const std::shared_ptr<MemoryPool>& pool) {
  columnar::BooleanBuilder builder(pool);
  SHOAL_RETURN_IF_ERROR(builder.Reserve(text.length()));
  for (int64_t i = 0; i < text.length(); ++i) {
    if (text.IsNull(i)) {
      SHOAL_RETURN_IF_ERROR(builder.AppendNull());
      continue;
    }
    std::string_view v = text.StringValue(i);
    if (v != "t" && v != "f") {
      return ArrayPtr();
    }
    builder.UnsafeAppend(v == "t");
  }
  return builder.Finish();
}

Result<ArrayPtr> ConvertBytea(const Array& text, const std::shared_ptr<MemoryPool>& pool) {
  columnar::BinaryBuilder builder(DataType::Binary(), pool);
  SHOAL_RETURN_IF_ERROR(builder.Reserve(text.length()));
  std::string bytes;
  for (int64_t i = 0; i < text.length(); ++i) {
    if (text.IsNull(i)) {
      SHOAL_RETURN_IF_ERROR(builder.AppendNull());
      continue;
    }
    if (!ParseByteaHex(text.StringValue(i), &bytes)) {
      return ArrayPtr();
    }
    SHOAL_RETURN_IF_ERROR(builder.Append(bytes));
  }
  return builder.Finish();
}

// One text chunk as `type`; null when some value is not of that type.
Result<ArrayPtr> Convert(const Array& text, const DataType& type,
                         const std::shared_ptr<MemoryPool>& pool) {
  switch (type.id()) {
    case TypeId::kBoolean: return ConvertBool(text, pool);
    case TypeId::kInt16: return ConvertFixed<int16_t>(text, type, pool, ParseNumber<int16_t>);
    case TypeId::kInt32: return ConvertFixed<int32_t>(text, type, pool, ParseNumber<int32_t>);
    case TypeId::kInt64: return ConvertFixed<int64_t>(text, type, pool, ParseNumber<int64_t>);
    case TypeId::kFloat32: return ConvertFixed<float>(text, type, pool, ParseNumber<float>);
    case TypeId::kFloat64: return ConvertFixed<double>(text, type, pool, ParseNumber<double>);
    case TypeId::kDecimal: {
      auto parse = [&](std::string_view v, auto* out) {
        int integer_digits = 0;
        int fraction_digits = 0;
        if (!DecimalShape(v, &integer_digits, &fraction_digits)) {
          return false;
        }
        auto unscaled = columnar::ParseDecimal(v, type.precision(), type.scale());
        if (!unscaled.ok()) {
          return false;
        }
        *out = static_cast<std::remove_pointer_t<decltype(out)>>(*unscaled);
        return true;
      };
      if (type.byte_width() == 8) {
        return ConvertFixed<int64_t>(text, type, pool, parse);
      }
      return ConvertFixed<columnar::int128_t>(text, type, pool, parse);
    }
    case TypeId::kDate32:
      return ConvertFixed<int32_t>(text, type, pool, [](std::string_view v, int32_t* out) {
        auto days = ParseDate(v);
        if (!days.ok()) {
          return false;
        }
        *out = *days;
        return true;
      });
    case TypeId::kTimestamp: {
      const bool zoned = !type.timezone().empty();
      return ConvertFixed<int64_t>(text, type, pool, [zoned](std::string_view v, int64_t* out) {
        auto micros = ParseTimestamp(v, 6, zoned);
        if (!micros.ok()) {
          return false;
        }
        *out = *micros;
        return true;
      });
    }
    case TypeId::kInterval:
      return ConvertFixed<MonthDayNano>(text, type, pool,
                                        [](std::string_view v, MonthDayNano* out) {
                                          auto interval = ParsePgIntervalText(v);
                                          if (!interval.ok()) {
                                            return false;
                                          }
                                          *out = *interval;
                                          return true;
                                        });
    case TypeId::kBinary: return ConvertBytea(text, pool);
    default: return ArrayPtr();
  }
}

// numeric without a modifier: the decimal type holding every value of the column, or utf8 when
// none does (NaN, Infinity, more than 38 digits).
DataType UnconstrainedNumericType(const std::vector<ArrayPtr>& chunks) {
  int max_integer = 0;
  int max_fraction = 0;
  for (const ArrayPtr& chunk : chunks) {
    for (int64_t i = 0; i < chunk->length(); ++i) {
      if (chunk->IsNull(i)) {
        continue;
      }
      int integer_digits = 0;
      int fraction_digits = 0;
      if (!DecimalShape(chunk->StringValue(i), &integer_digits, &fraction_digits)) {
        return DataType::Utf8();
      }
      max_integer = std::max(max_integer, integer_digits);
      max_fraction = std::max(max_fraction, fraction_digits);
    }
  }
  const int precision = std::max(1, max_integer + max_fraction);
  if (precision > DataType::kMaxDecimalPrecision) {
    return DataType::Utf8();
  }
  return DataType::Decimal(precision, max_fraction);
}

}  // namespace

Result<std::vector<PgColumn>> ParseRowDescription(std::string_view body) {
  MessageReader in(body);
  SHOAL_ASSIGN_OR_RETURN(int16_t count, in.Int16());
  if (count < 0) {
    return ProtocolViolation("RowDescription with a negative column count");
  }
  std::vector<PgColumn> columns(static_cast<size_t>(count));
  for (PgColumn& column : columns) {
    SHOAL_ASSIGN_OR_RETURN(std::string_view name, in.CString());
    column.name = std::string(name);
    SHOAL_RETURN_IF_ERROR(in.Int32().status());  // table OID
    SHOAL_RETURN_IF_ERROR(in.Int16().status());  // attribute number
    SHOAL_ASSIGN_OR_RETURN(int32_t oid, in.Int32());
    column.type_oid = static_cast<uint32_t>(oid);
    SHOAL_ASSIGN_OR_RETURN(column.type_length, in.Int16());
    SHOAL_ASSIGN_OR_RETURN(column.type_modifier, in.Int32());
    SHOAL_ASSIGN_OR_RETURN(column.format, in.Int16());
  }
  SHOAL_RETURN_IF_ERROR(in.ExpectEnd("RowDescription"));
  return columns;
}

DataType PgColumnType(uint32_t oid, int32_t modifier) {
  switch (oid) {
    case pg_oid::kBool: return DataType::Boolean();
    case pg_oid::kInt2: return DataType::Int16();
    case pg_oid::kInt4: return DataType::Int32();
    case pg_oid::kInt8:
    case kOidOid: return DataType::Int64();
    case pg_oid::kFloat4: return DataType::Float32();
    case pg_oid::kFloat8: return DataType::Float64();
    case pg_oid::kNumeric: {
      // atttypmod: ((precision << 16) | scale) + 4.
      if (modifier >= 4) {
        const int precision = ((modifier - 4) >> 16) & 0xFFFF;
        const int scale = (modifier - 4) & 0xFFFF;
        if (precision >= 1 && precision <= DataType::kMaxDecimalPrecision && scale <= precision) {
          return DataType::Decimal(precision, scale);
        }
      }
      return DataType::Utf8();  // decided by the values (UnconstrainedNumericType)
    }
    case pg_oid::kDate: return DataType::Date32();
    case pg_oid::kTimestamp: return DataType::Timestamp(columnar::TimeUnit::kMicro);
    case pg_oid::kTimestampTz: return DataType::Timestamp(columnar::TimeUnit::kMicro, "UTC");
    case pg_oid::kInterval: return DataType::Interval();
    case pg_oid::kBytea: return DataType::Binary();
    default: return DataType::Utf8();
  }
}

Result<MonthDayNano> ParsePgIntervalText(std::string_view text) {
  auto bad = [&] {
    return Status::InvalidArgument("invalid interval text: \"{}\"", text).WithSqlState("22007");
  };
  int64_t months = 0;
  int64_t days = 0;
  int64_t micros = 0;
  bool any = false;
  bool time_seen = false;
  size_t i = 0;
  auto skip_blanks = [&] {
    while (i < text.size() && text[i] == ' ') {
      ++i;
    }
  };
  skip_blanks();
  while (i < text.size()) {
    bool negative = false;
    if (text[i] == '-' || text[i] == '+') {
      negative = text[i] == '-';
      ++i;
    }
    size_t digits = i;
    while (i < text.size() && IsDigit(text[i])) {
      ++i;
    }
    if (i == digits || i - digits > 18) {
      return bad();
    }
    int64_t number = 0;
    std::from_chars(text.data() + digits, text.data() + i, number);
    if (i < text.size() && text[i] == ':') {
      // [+-]HH:MM:SS[.ffffff], the last part.
      if (time_seen) {
        return bad();
      }
      time_seen = true;
      auto two = [&](int64_t* out) {
        if (i + 2 > text.size() || !IsDigit(text[i]) || !IsDigit(text[i + 1])) {
          return false;
        }
        *out = (text[i] - '0') * 10 + (text[i + 1] - '0');
        i += 2;
        return true;
      };
      int64_t minutes = 0;
      int64_t seconds = 0;
      ++i;
      if (!two(&minutes) || i >= text.size() || text[i] != ':') {
        return bad();
      }
      ++i;
      if (!two(&seconds) || minutes > 59 || seconds > 59) {
        return bad();
      }
      int64_t fraction = 0;
      if (i < text.size() && text[i] == '.') {
        ++i;
        int n = 0;
        while (i < text.size() && IsDigit(text[i]) && n < 6) {
          fraction = fraction * 10 + (text[i] - '0');
          ++i;
          ++n;
        }
        if (n == 0 || (i < text.size() && IsDigit(text[i]))) {
          return bad();
        }
        for (; n < 6; ++n) {
          fraction *= 10;
        }
      }
      if (number > 2562047788) {  // hours of int64 microseconds
        return bad();
      }
      int64_t value = ((number * 60 + minutes) * 60 + seconds) * 1000000 + fraction;
      micros = negative ? -value : value;
    } else {
      if (time_seen || number > INT32_MAX) {
        return bad();
      }
      const int64_t value = negative ? -number : number;
      skip_blanks();
      size_t unit_start = i;
      while (i < text.size() && text[i] >= 'a' && text[i] <= 'z') {
        ++i;
      }
      std::string_view unit = text.substr(unit_start, i - unit_start);
      if (unit == "year" || unit == "years") {
        months += value * 12;
      } else if (unit == "mon" || unit == "mons") {
        months += value;
      } else if (unit == "day" || unit == "days") {
        days += value;
      } else {
        return bad();
      }
      if (months > INT32_MAX || months < INT32_MIN || days > INT32_MAX || days < INT32_MIN) {
        return bad();
      }
    }
    any = true;
    if (i < text.size() && text[i] != ' ') {
      return bad();
    }
    skip_blanks();
  }
  if (!any) {
    return bad();
  }
  return MonthDayNano{static_cast<int32_t>(months), static_cast<int32_t>(days), micros * 1000};
}

PgResultBuilder::PgResultBuilder(std::vector<PgColumn> columns, std::shared_ptr<MemoryPool> pool)
    : columns_(std::move(columns)), pool_(std::move(pool)) {
  for (size_t c = 0; c < columns_.size(); ++c) {
    text_.push_back(std::make_unique<columnar::BinaryBuilder>(DataType::Utf8(), pool_));
  }
  chunks_.resize(columns_.size());
}

Status PgResultBuilder::AddDataRow(std::string_view body) {
  MessageReader in(body);
  SHOAL_ASSIGN_OR_RETURN(int16_t count, in.Int16());
  if (count != static_cast<int16_t>(columns_.size())) {
    return ProtocolViolation(
        fmt::format("DataRow has {} values for a result of {} columns", count, columns_.size()));
  }
  for (size_t c = 0; c < columns_.size(); ++c) {
    SHOAL_ASSIGN_OR_RETURN(int32_t length, in.Int32());
    if (length < 0) {
      SHOAL_RETURN_IF_ERROR(text_[c]->AppendNull());
      continue;
    }
    SHOAL_ASSIGN_OR_RETURN(std::string_view value, in.Bytes(static_cast<size_t>(length)));
    SHOAL_RETURN_IF_ERROR(text_[c]->Append(value));
  }
  SHOAL_RETURN_IF_ERROR(in.ExpectEnd("DataRow"));
  ++num_rows_;
  bool full = text_.empty() || text_[0]->length() >= kChunkRows;
  for (const auto& text : text_) {
    full = full || text->data_length() >= kChunkBytes;
  }
  if (full) {
    SHOAL_RETURN_IF_ERROR(FinishChunk());
  }
  return Status::OK();
}

Status PgResultBuilder::FinishChunk() {
  if (text_.empty() || text_[0]->length() == 0) {
    return Status::OK();  // (rows of no columns are counted by num_rows_ alone)
  }
  for (size_t c = 0; c < columns_.size(); ++c) {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr chunk, text_[c]->Finish());
    chunks_[c].push_back(std::move(chunk));
  }
  return Status::OK();
}

Result<std::pair<columnar::SchemaPtr, std::vector<columnar::RecordBatchPtr>>>
PgResultBuilder::Finish() {
  SHOAL_RETURN_IF_ERROR(FinishChunk());
  const size_t num_chunks = chunks_.empty() ? 0 : chunks_[0].size();
  std::vector<columnar::Field> fields;
  for (size_t c = 0; c < columns_.size(); ++c) {
    const PgColumn& column = columns_[c];
    if (column.format != 0) {
      return Status::NotImplemented("results in binary format are not supported (column \"{}\")",
                                    column.name);
    }
    DataType type = PgColumnType(column.type_oid, column.type_modifier);
    if (column.type_oid == pg_oid::kNumeric && type.id() == TypeId::kUtf8) {
      type = UnconstrainedNumericType(chunks_[c]);
    }
    if (type.id() != TypeId::kUtf8) {
      std::vector<ArrayPtr> converted;
      for (const ArrayPtr& chunk : chunks_[c]) {
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr array, Convert(*chunk, type, pool_));
        if (array == nullptr) {
          break;  // a value that is not of the type: the column stays text
        }
        converted.push_back(std::move(array));
      }
      if (converted.size() == num_chunks) {
        chunks_[c] = std::move(converted);
      } else {
        type = DataType::Utf8();
      }
    }
    fields.emplace_back(column.name, type);
  }
  auto schema = std::make_shared<columnar::Schema>(std::move(fields));
  std::vector<columnar::RecordBatchPtr> batches;
  for (size_t k = 0; k < num_chunks; ++k) {
    std::vector<ArrayPtr> arrays;
    for (auto& column_chunks : chunks_) {
      arrays.push_back(std::move(column_chunks[k]));
    }
    const int64_t rows = arrays.empty() ? 0 : arrays[0]->length();
    batches.push_back(columnar::RecordBatch::Make(schema, rows, std::move(arrays)));
  }
  if (columns_.empty() && num_rows_ > 0) {
    // A result without columns still has rows (SELECT FROM t): one batch of no columns.
    batches.push_back(columnar::RecordBatch::Make(schema, num_rows_, {}));
  }
  chunks_.clear();
  return std::make_pair(std::move(schema), std::move(batches));
}

}  // namespace shoal::server
