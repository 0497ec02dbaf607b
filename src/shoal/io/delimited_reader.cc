#include "shoal/io/delimited_reader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <string_view>

#include "shoal/common/date_text.h"
#include "shoal/io/delimited_fields.h"
#include "shoal/io/delimited_tokenizer.h"
#include "shoal/io/random_access_file.h"

namespace shoal::io {
namespace {

using columnar::DataType;
using columnar::TypeId;

constexpr int64_t kReadChunk = 1 << 20;

size_t Utf8BomLength(std::string_view data) {
  return data.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
}

// How a sampled value looks as a number, for type inference. DuckDB's sniffer does not take text
// with a leading '+' or with leading zeros ("007", "00.5": codes, not quantities) for a number,
// and neither does Shoal.
struct NumberShape {
  bool numeric_text = true;  // may be read as a number at all
  bool plain = false;        // [-]digits[.digits]: exact as a decimal
  int integer_digits = 0;    // without leading zeros
  int fraction_digits = 0;
  int significant_digits = 0;  // first to last non-zero digit
};

NumberShape ShapeOf(std::string_view v) {
  NumberShape shape;
  std::string_view digits = v;
  if (!digits.empty() && digits[0] == '-')
    digits.remove_prefix(1);
  if (!v.empty() && v[0] == '+')
    shape.numeric_text = false;
  if (v.size() >= 2 && v[0] == '0' && v[1] >= '0' && v[1] <= '9')
    shape.numeric_text = false;
  size_t i = 0;
  while (i < digits.size() && digits[i] >= '0' && digits[i] <= '9')
    ++i;
  const size_t integer_end = i;
  size_t fraction_begin = i;
  bool point = false;
  if (i < digits.size() && digits[i] == '.') {
    point = true;
    fraction_begin = ++i;
    while (i < digits.size() && digits[i] >= '0' && digits[i] <= '9')
      ++i;
  }
  if (i != digits.size() || integer_end == 0 || (point && i == fraction_begin))
    return shape;  // not plain (exponent, inf, nan, or not a number)
  shape.plain = true;
  size_t lead = 0;
  while (lead < integer_end && digits[lead] == '0')
    ++lead;
  shape.integer_digits = static_cast<int>(integer_end - lead);
  shape.fraction_digits = static_cast<int>(i - fraction_begin);
  int first = -1, last = -1, k = 0;
  for (char c : digits) {
    if (c == '.')
      continue;
    if (c != '0') {
      if (first < 0)
        first = k;
      last = k;
    }
    ++k;
  }
  shape.significant_digits = first < 0 ? 0 : last - first + 1;
  return shape;
}

// The 1-based line number of byte `offset` of `path` (error path only: re-reads the file).
int64_t LineAt(const std::string& path, int64_t offset) {
  auto file = RandomAccessFile::Open(path);
  if (!file.ok())
    return -1;
  int64_t line = 1;
  std::string chunk;
  for (int64_t pos = 0; pos < offset;) {
    chunk.clear();
    auto n = (*file)->ReadAppend(pos, std::min(kReadChunk, offset - pos), &chunk);
    if (!n.ok() || *n == 0)
      break;
    line += std::count(chunk.begin(), chunk.end(), '\n');
    pos += *n;
  }
  return line;
}

class DelimitedReader : public columnar::RecordBatchReader {
 public:
  DelimitedReader(std::string path, columnar::SchemaPtr schema, DelimitedOptions options,
                  std::vector<int> projection, int64_t begin, int64_t end, int64_t batch_size,
                  std::shared_ptr<MemoryPool> pool)
      : path_(std::move(path)),
        table_schema_(std::move(schema)),
        options_(std::move(options)),
        projection_(std::move(projection)),
        begin_(begin),
        end_(end),
        batch_size_(std::max<int64_t>(1, batch_size)),
        pool_(std::move(pool)),
        tokenizer_(options_, table_schema_->num_fields()) {
    std::vector<columnar::Field> fields;
    for (int c : projection_)
      fields.push_back(table_schema_->field(c));
    schema_ = std::make_shared<columnar::Schema>(std::move(fields));
  }

  const columnar::SchemaPtr& schema() const override { return schema_; }

  Result<columnar::RecordBatchPtr> Next() override {
    if (!loaded_)
      SHOAL_RETURN_IF_ERROR(Load());
    const int num_columns = table_schema_->num_fields();
    std::string_view data(buffer_);
    fields_.resize(static_cast<size_t>(batch_size_ * num_columns));
    row_offsets_.clear();
    char* arena = arena_.data();
    int64_t rows = 0;
    while (rows < batch_size_ && pos_ < data.size() && pos_ < owned_end_) {
      if (data[pos_] == '\n' ||
          (data[pos_] == '\r' && pos_ + 1 < data.size() && data[pos_ + 1] == '\n')) {  // blank line
        pos_ += data[pos_] == '\n' ? 1 : 2;
        continue;
      }
      size_t line_start = pos_;
      std::string error;
      int bad_field = 0;
      FieldSlice* out = fields_.data() + rows * num_columns;
      if (!tokenizer_.Line(data, &pos_, out, &arena, &error, &bad_field))
        return RowError(line_start, bad_field, "", error);
      row_offsets_.push_back(static_cast<int64_t>(line_start));
      ++rows;
    }
    if (rows == 0)
      return columnar::RecordBatchPtr();
    std::vector<columnar::ArrayPtr> columns;
    for (int c : projection_) {
      const columnar::Field& field = table_schema_->field(c);
      FieldColumn column{fields_.data(), num_columns, c, rows, field.type, field.name};
      BadField bad;
      SHOAL_ASSIGN_OR_RETURN(auto array,
                             ParseFieldColumn(column, options_.null_string, pool_, &bad));
      if (bad.row >= 0) {
        const FieldSlice& f = fields_[static_cast<size_t>(bad.row * num_columns + c)];
        return ValueError(bad.row, c, f.view(), bad.what);
      }
      columns.push_back(std::move(array));
    }
    return columnar::RecordBatch::Make(schema_, rows, std::move(columns));
  }

 private:
  // Reads the owned bytes plus the rest of the last owned line.
  Status Load() {
    loaded_ = true;
    SHOAL_ASSIGN_OR_RETURN(auto file, RandomAccessFile::Open(path_));
    int64_t read_from = begin_ > 0 ? begin_ - 1 : 0;  // the byte before begin decides the skip
    int64_t want = end_ < 0 ? std::numeric_limits<int64_t>::max() : end_ - read_from;
    int64_t offset = read_from;
    bool eof = false;
    while (want > 0) {
      SHOAL_ASSIGN_OR_RETURN(int64_t n,
                             file->ReadAppend(offset, std::min(want, kReadChunk), &buffer_));
      offset += n;
      want -= n;
      if (n == 0) {
        eof = true;
        break;
      }
    }
    base_ = read_from;
    size_t start = 0;
    if (begin_ > 0) {
      size_t nl = buffer_.find('\n');
      start = nl == std::string::npos ? buffer_.size() : nl + 1;
    }
    owned_end_ = buffer_.size();
    // Complete the last line (it may run past end_).
    if (!eof && end_ >= 0 && start < owned_end_) {
      size_t search = owned_end_ - 1;
      while (buffer_.find('\n', search) == std::string::npos) {
        search = buffer_.size();
        SHOAL_ASSIGN_OR_RETURN(int64_t n, file->ReadAppend(offset, kReadChunk, &buffer_));
        offset += n;
        if (n == 0)
          break;
      }
    }
    // A UTF-8 byte-order mark (what Windows tools put at the start of "UTF-8" text) is not data.
    if (begin_ == 0)
      start = Utf8BomLength(buffer_);
    pos_ = start;
    if (begin_ == 0 && options_.header && pos_ < buffer_.size()) {
      std::vector<FieldSlice> header(static_cast<size_t>(table_schema_->num_fields()));
      std::string scratch(buffer_.size(), '\0');
      char* arena = scratch.data();
      std::string error;
      int bad_field = 0;
      size_t line_start = pos_;
      if (!tokenizer_.Line(buffer_, &pos_, header.data(), &arena, &error, &bad_field))
        return RowError(line_start, bad_field, "", "header: " + error).status();
    }
    arena_.assign(buffer_.size() + 1, '\0');
    return Status::OK();
  }

  Result<columnar::RecordBatchPtr> RowError(size_t row_offset, int field, std::string_view value,
                                            const std::string& message) const {
    int64_t line = LineAt(path_, base_ + static_cast<int64_t>(row_offset));
    std::string name =
        field < table_schema_->num_fields() ? table_schema_->field(field).name : std::string("?");
    if (value.data() == nullptr ||
        (value.empty() && message.find("cannot parse") == std::string::npos))
      return Status::InvalidData("{}: line {}, column {} ({}): {}", path_, line, field + 1, name,
                                 message);
    return Status::InvalidData("{}: line {}, column {} ({}): {} '{}'", path_, line, field + 1, name,
                               message, value);
  }

  Status ValueError(int64_t row, int column, std::string_view value,
                    const std::string& what) const {
    return RowError(static_cast<size_t>(row_offsets_[static_cast<size_t>(row)]), column, value,
                    "cannot parse as " + what + ":")
        .status();
  }

  std::string path_;
  columnar::SchemaPtr table_schema_;
  columnar::SchemaPtr schema_;
  DelimitedOptions options_;
  std::vector<int> projection_;
  int64_t begin_;
  int64_t end_;
  int64_t batch_size_;
  std::shared_ptr<MemoryPool> pool_;
  DelimitedTokenizer tokenizer_;

  bool loaded_ = false;
  std::string buffer_;  // file bytes from base_
  std::string arena_;   // unescaped quoted fields; as large as buffer_, never reallocated
  int64_t base_ = 0;
  size_t pos_ = 0;
  size_t owned_end_ = 0;  // lines starting at or past this belong to the next range
  std::vector<FieldSlice> fields_;
  std::vector<int64_t> row_offsets_;
};

}  // namespace

Status CheckDelimitedType(const columnar::Field& field) {
  switch (field.type.id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal:
    case TypeId::kDate32:
    case TypeId::kTimestamp:
    case TypeId::kBoolean:
    case TypeId::kUtf8: return Status::OK();
    default:
      return Status::NotImplemented("column {} of type {} in a delimited text file", field.name,
                                    field.type.ToString());
  }
}

Result<columnar::RecordBatchReaderPtr> OpenDelimitedReader(
    std::string path, columnar::SchemaPtr schema, DelimitedOptions options,
    std::vector<int> projection, int64_t begin, int64_t end, int64_t batch_size,
    std::shared_ptr<MemoryPool> pool) {
  for (const auto& field : schema->fields())
    SHOAL_RETURN_IF_ERROR(CheckDelimitedType(field));
  if (schema->num_fields() == 0)
    return Status::InvalidArgument("a delimited table needs at least one column");
  return columnar::RecordBatchReaderPtr(
      new DelimitedReader(std::move(path), std::move(schema), std::move(options),
                          std::move(projection), begin, end, batch_size, std::move(pool)));
}

Result<columnar::SchemaPtr> InferDelimitedSchema(const std::string& path,
                                                 const DelimitedOptions& options, int sample_rows) {
  SHOAL_ASSIGN_OR_RETURN(auto file, RandomAccessFile::Open(path));
  std::string buffer;
  SHOAL_ASSIGN_OR_RETURN(int64_t n, file->ReadAppend(0, kReadChunk, &buffer));
  if (n == kReadChunk) {  // drop a partial last line
    size_t nl = buffer.rfind('\n');
    if (nl != std::string::npos)
      buffer.resize(nl + 1);
  }
  // Count the columns of the first line with a permissive tokenizer.
  DelimitedOptions probe = options;
  probe.trailing_delimiter = false;
  std::vector<FieldSlice> first(4096);
  std::string arena(buffer.size() + 1, '\0');
  char* arena_ptr = arena.data();
  int num_fields = 0;
  {
    // Count fields by tokenizing with a huge column count and reading the error.
    std::string_view data(buffer);
    size_t pos = Utf8BomLength(data);
    while (pos < data.size() && data[pos] == '\n')
      ++pos;
    if (pos >= data.size())
      return Status::InvalidData("{}: empty file, cannot infer the columns", path);
    DelimitedTokenizer counter(probe, 4096);
    std::string error;
    int bad = 0;
    size_t p = pos;
    counter.Line(data, &p, first.data(), &arena_ptr, &error, &bad);
    // "expected 4096 fields, found N"
    size_t found = error.rfind("found ");
    if (found == std::string::npos)
      return Status::InvalidData("{}: line 1: {}", path, error);
    num_fields = std::stoi(error.substr(found + 6));
  }
  if (options.trailing_delimiter && num_fields > 1)
    --num_fields;
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(num_fields));
  for (int i = 0; i < num_fields; ++i)
    names.push_back(options.header ? std::string(first[static_cast<size_t>(i)].view())
                                   : "column" + std::to_string(i + 1));
  // Sample: read the start with every column as utf8, then pick the narrowest type that fits.
  std::vector<columnar::Field> text_fields;
  text_fields.reserve(names.size());
  for (const auto& name : names)
    text_fields.emplace_back(name, DataType::Utf8());
  auto text_schema = std::make_shared<columnar::Schema>(text_fields);
  std::vector<int> all;
  all.reserve(static_cast<size_t>(num_fields));
  for (int i = 0; i < num_fields; ++i)
    all.push_back(i);
  DelimitedReader reader(path, text_schema, options, all, 0, static_cast<int64_t>(buffer.size()),
                         sample_rows, DefaultMemoryPool());
  SHOAL_ASSIGN_OR_RETURN(auto batch, reader.Next());
  std::vector<columnar::Field> fields;
  // Numbers are never inferred lossily: int64, then decimal(38, s) where a double would not keep
  // every digit (more than 15 significant ones) and 38 digits do, then text.
  constexpr int kDoubleExactDigits = 15;
  constexpr int kMaxDecimalDigits = 38;
  for (int c = 0; c < num_fields; ++c) {
    bool can_int = true, can_float = true, can_date = true, can_ts = true, can_bool = true;
    bool all_plain = true;
    int integer_digits = 0, fraction_digits = 0, significant_digits = 0;
    bool any = false;
    const columnar::Array* column = batch ? batch->column(c).get() : nullptr;
    for (int64_t r = 0; column != nullptr && r < column->length(); ++r) {
      if (column->IsNull(r))
        continue;
      std::string_view v = column->StringValue(r);
      any = true;
      int64_t i64 = 0;
      double d = 0;
      bool b = false;
      const NumberShape shape = ShapeOf(v);
      if (!shape.numeric_text) {
        can_int = can_float = all_plain = false;
      } else {
        can_int = can_int && ParseInt64Field(v, &i64);
        can_float = can_float && ParseDoubleField(v, &d);
        all_plain = all_plain && shape.plain;
        integer_digits = std::max(integer_digits, shape.integer_digits);
        fraction_digits = std::max(fraction_digits, shape.fraction_digits);
        significant_digits = std::max(significant_digits, shape.significant_digits);
      }
      can_date = can_date && ParseDate(v).ok();
      can_ts = can_ts && ParseTimestamp(v).ok();
      can_bool = can_bool && ParseBoolField(v, &b) && !ParseInt64Field(v, &i64);
    }
    const bool fits_decimal = integer_digits + fraction_digits <= kMaxDecimalDigits;
    DataType type = DataType::Utf8();
    if (any) {
      if (can_int)
        type = DataType::Int64();
      else if (all_plain && (fraction_digits == 0 || significant_digits > kDoubleExactDigits))
        type =
            fits_decimal ? DataType::Decimal(kMaxDecimalDigits, fraction_digits) : DataType::Utf8();
      else if (can_float)
        type = significant_digits > kDoubleExactDigits ? DataType::Utf8() : DataType::Float64();
      else if (can_date)
        type = DataType::Date32();
      else if (can_ts)
        type = DataType::Timestamp();
      else if (can_bool)
        type = DataType::Boolean();
    }
    fields.emplace_back(names[static_cast<size_t>(c)], type);
  }
  return std::make_shared<columnar::Schema>(std::move(fields));
}

}  // namespace shoal::io
