#include "shoal/io/delimited_reader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/decimal.h"
#include "shoal/columnar/pretty_print.h"

namespace shoal::io {
namespace {

using columnar::DataType;
using columnar::TypeId;

constexpr int64_t kReadChunk = 1 << 20;

// An open file descriptor, closed on destruction.
class FileHandle {
 public:
  static Result<FileHandle> Open(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return Status::IoError("cannot open '{}': {}", path, std::strerror(errno));
    return FileHandle(fd, path);
  }
  FileHandle(FileHandle&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
    other.fd_ = -1;
  }
  FileHandle& operator=(FileHandle&&) = delete;
  ~FileHandle() {
    if (fd_ >= 0)
      ::close(fd_);
  }

  // Appends up to `length` bytes at `offset` to `out`; returns the number read (0 at EOF).
  Result<int64_t> ReadAppend(int64_t offset, int64_t length, std::string* out) const {
    size_t old_size = out->size();
    out->resize(old_size + static_cast<size_t>(length));
    int64_t done = 0;
    while (done < length) {
      ssize_t n = ::pread(fd_, out->data() + old_size + done, static_cast<size_t>(length - done),
                          static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR)
          continue;
        out->resize(old_size);
        return Status::IoError("cannot read '{}': {}", path_, std::strerror(errno));
      }
      if (n == 0)
        break;
      done += n;
    }
    out->resize(old_size + static_cast<size_t>(done));
    return done;
  }

 private:
  FileHandle(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
};

// The 1-based line number of byte `offset` of `path` (error path only: re-reads the file).
int64_t LineAt(const std::string& path, int64_t offset) {
  auto file = FileHandle::Open(path);
  if (!file.ok())
    return -1;
  int64_t line = 1;
  std::string chunk;
  for (int64_t pos = 0; pos < offset;) {
    chunk.clear();
    auto n = file->ReadAppend(pos, std::min(kReadChunk, offset - pos), &chunk);
    if (!n.ok() || *n == 0)
      break;
    line += std::count(chunk.begin(), chunk.end(), '\n');
    pos += *n;
  }
  return line;
}

bool ParseInt64(std::string_view text, int64_t* out) {
  if (!text.empty() && text[0] == '+')
    text.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

bool ParseDouble(std::string_view text, double* out) {
  if (!text.empty() && text[0] == '+')
    text.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

bool Digits(std::string_view text, size_t pos, size_t count, int64_t* out) {
  if (pos + count > text.size())
    return false;
  int64_t v = 0;
  for (size_t i = pos; i < pos + count; ++i) {
    char c = text[i];
    if (c < '0' || c > '9')
      return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

bool IsLeap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

// YYYY-MM-DD at the start of `text`; days since 1970-01-01.
bool ParseDatePrefix(std::string_view text, int64_t* days) {
  int64_t y = 0, m = 0, d = 0;
  if (text.size() < 10 || text[4] != '-' || text[7] != '-' || !Digits(text, 0, 4, &y) ||
      !Digits(text, 5, 2, &m) || !Digits(text, 8, 2, &d))
    return false;
  static constexpr int kDaysIn[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1)
    return false;
  int64_t max_day = kDaysIn[m - 1] + (m == 2 && IsLeap(y) ? 1 : 0);
  if (d > max_day)
    return false;
  *days = columnar::DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

bool ParseDate(std::string_view text, int32_t* out) {
  int64_t days = 0;
  if (text.size() != 10 || !ParseDatePrefix(text, &days))
    return false;
  *out = static_cast<int32_t>(days);
  return true;
}

// YYYY-MM-DD[( |T)HH:MM[:SS[.fraction]]][Z] in `unit`.
bool ParseTimestamp(std::string_view text, columnar::TimeUnit unit, int64_t* out) {
  int64_t days = 0;
  if (!ParseDatePrefix(text, &days))
    return false;
  int64_t h = 0, mi = 0, s = 0, nanos = 0;
  size_t pos = 10;
  if (pos < text.size() && text.back() == 'Z')
    text.remove_suffix(1);
  if (pos < text.size()) {
    if ((text[pos] != ' ' && text[pos] != 'T') || !Digits(text, pos + 1, 2, &h) ||
        pos + 3 >= text.size() || text[pos + 3] != ':' || !Digits(text, pos + 4, 2, &mi))
      return false;
    pos += 6;
    if (pos < text.size()) {
      if (text[pos] != ':' || !Digits(text, pos + 1, 2, &s))
        return false;
      pos += 3;
      if (pos < text.size()) {
        if (text[pos] != '.' || pos + 1 == text.size() || text.size() - pos - 1 > 9)
          return false;
        int64_t frac = 0;
        size_t n = text.size() - pos - 1;
        if (!Digits(text, pos + 1, n, &frac))
          return false;
        for (size_t i = n; i < 9; ++i)
          frac *= 10;
        nanos = frac;
      }
    }
    if (h > 23 || mi > 59 || s > 60)
      return false;
  }
  int64_t seconds = days * 86400 + h * 3600 + mi * 60 + s;
  switch (unit) {
    case columnar::TimeUnit::kSecond: *out = seconds; break;
    case columnar::TimeUnit::kMilli: *out = seconds * 1000 + nanos / 1000000; break;
    case columnar::TimeUnit::kMicro: *out = seconds * 1000000 + nanos / 1000; break;
    case columnar::TimeUnit::kNano: *out = seconds * 1000000000 + nanos; break;
  }
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z')
      x = static_cast<char>(x - 'A' + 'a');
    if (x != y)
      return false;
  }
  return true;
}

bool ParseBool(std::string_view text, bool* out) {
  for (std::string_view t : {"true", "t", "1", "yes", "y"}) {
    if (EqualsIgnoreCase(text, t)) {
      *out = true;
      return true;
    }
  }
  for (std::string_view f : {"false", "f", "0", "no", "n"}) {
    if (EqualsIgnoreCase(text, f)) {
      *out = false;
      return true;
    }
  }
  return false;
}

struct FieldSlice {
  const char* data = nullptr;
  uint32_t size = 0;
  bool quoted = false;

  std::string_view view() const { return {data, size}; }
};

// Splits lines of a byte buffer into fields. Quoted fields that need unescaping are copied into
// `arena`, which the caller sizes to the whole buffer so it never reallocates.
class Tokenizer {
 public:
  Tokenizer(const DelimitedOptions& options, int num_columns)
      : options_(options), num_columns_(num_columns) {}

  // Tokenizes the line at `*pos` into `out` (num_columns slices). On success `*pos` is past the
  // line's newline. Errors return a message and the 0-based field index in `*bad_field`.
  bool Line(std::string_view data, size_t* pos, FieldSlice* out, char** arena, std::string* error,
            int* bad_field) {
    size_t p = *pos;
    int field = 0;
    FieldSlice last;
    const char delim = options_.delimiter;
    const char quote = options_.quote;
    while (true) {
      FieldSlice slice;
      if (quote != '\0' && p < data.size() && data[p] == quote) {
        ++p;
        char* start = *arena;
        char* w = start;
        bool closed = false;
        while (p < data.size()) {
          char c = data[p];
          if (options_.escape != '\0' && c == options_.escape && options_.escape != quote &&
              p + 1 < data.size()) {
            *w++ = data[p + 1];
            p += 2;
          } else if (c == quote) {
            if (p + 1 < data.size() && data[p + 1] == quote) {
              *w++ = quote;
              p += 2;
            } else {
              ++p;
              closed = true;
              break;
            }
          } else {
            *w++ = c;
            ++p;
          }
        }
        if (!closed) {
          *error = "unterminated quoted field";
          *bad_field = field;
          return false;
        }
        *arena = w;
        slice = {start, static_cast<uint32_t>(w - start), true};
        if (p < data.size() && data[p] == '\r' && p + 1 < data.size() && data[p + 1] == '\n')
          ++p;
        if (p < data.size() && data[p] != delim && data[p] != '\n') {
          *error = "unexpected character after closing quote";
          *bad_field = field;
          return false;
        }
      } else {
        size_t start = p;
        while (p < data.size() && data[p] != delim && data[p] != '\n')
          ++p;
        size_t stop = p;
        if (stop > start && (p == data.size() || data[p] == '\n') && data[stop - 1] == '\r')
          --stop;
        slice = {data.data() + start, static_cast<uint32_t>(stop - start), false};
      }
      if (field < num_columns_)
        out[field] = slice;
      last = slice;
      ++field;
      if (p < data.size() && data[p] == delim) {
        ++p;
        continue;
      }
      // End of line.
      if (p < data.size())
        ++p;
      break;
    }
    int expected = num_columns_ + (options_.trailing_delimiter ? 1 : 0);
    if (options_.trailing_delimiter && field == num_columns_) {
      *error = "line does not end with the delimiter";
      *bad_field = num_columns_ - 1;
      return false;
    }
    if (options_.trailing_delimiter && field == expected && last.size != 0) {
      *error = "expected " + std::to_string(num_columns_) + " fields, found more";
      *bad_field = num_columns_ - 1;
      return false;
    }
    if (field != expected) {
      *error = "expected " + std::to_string(num_columns_) + " fields, found " +
               std::to_string(field - (options_.trailing_delimiter ? 1 : 0));
      *bad_field = std::min(field, expected) - 1;
      if (*bad_field < 0)
        *bad_field = 0;
      return false;
    }
    *pos = p;
    return true;
  }

 private:
  const DelimitedOptions& options_;
  int num_columns_;
};

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
      SHOAL_ASSIGN_OR_RETURN(auto array, ParseColumn(c, rows));
      columns.push_back(std::move(array));
    }
    return columnar::RecordBatch::Make(schema_, rows, std::move(columns));
  }

 private:
  // Reads the owned bytes plus the rest of the last owned line.
  Status Load() {
    loaded_ = true;
    SHOAL_ASSIGN_OR_RETURN(auto file, FileHandle::Open(path_));
    int64_t read_from = begin_ > 0 ? begin_ - 1 : 0;  // the byte before begin decides the skip
    int64_t want = end_ < 0 ? std::numeric_limits<int64_t>::max() : end_ - read_from;
    int64_t offset = read_from;
    bool eof = false;
    while (want > 0) {
      SHOAL_ASSIGN_OR_RETURN(int64_t n,
                             file.ReadAppend(offset, std::min(want, kReadChunk), &buffer_));
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
        SHOAL_ASSIGN_OR_RETURN(int64_t n, file.ReadAppend(offset, kReadChunk, &buffer_));
        offset += n;
        if (n == 0)
          break;
      }
    }
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

  bool IsNull(const FieldSlice& f, bool text_type) const {
    if (f.quoted)
      return false;
    if (f.view() == options_.null_string)
      return true;
    return !text_type && f.size == 0;
  }

  template <typename Builder, typename Parse>
  Result<columnar::ArrayPtr> Build(Builder* builder, int column, int64_t rows, bool text_type,
                                   const std::string& what, Parse parse) {
    const int num_columns = table_schema_->num_fields();
    SHOAL_RETURN_IF_ERROR(builder->Reserve(rows));
    for (int64_t r = 0; r < rows; ++r) {
      const FieldSlice& f = fields_[static_cast<size_t>(r * num_columns + column)];
      if (IsNull(f, text_type)) {
        SHOAL_RETURN_IF_ERROR(builder->AppendNull());
        continue;
      }
      if (!parse(builder, f.view()))
        return ValueError(r, column, f.view(), what);
    }
    return builder->Finish();
  }

  template <typename T>
  Result<columnar::ArrayPtr> BuildInt(const DataType& type, int column, int64_t rows) {
    columnar::FixedWidthBuilder<T> builder(type, pool_);
    return Build(&builder, column, rows, false, type.ToString(),
                 [](columnar::FixedWidthBuilder<T>* b, std::string_view text) {
                   int64_t v = 0;
                   if (!ParseInt64(text, &v) ||
                       v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
                       v > static_cast<int64_t>(std::numeric_limits<T>::max()))
                     return false;
                   b->UnsafeAppend(static_cast<T>(v));
                   return true;
                 });
  }

  Result<columnar::ArrayPtr> ParseColumn(int column, int64_t rows) {
    const DataType& type = table_schema_->field(column).type;
    switch (type.id()) {
      case TypeId::kInt8: return BuildInt<int8_t>(type, column, rows);
      case TypeId::kInt16: return BuildInt<int16_t>(type, column, rows);
      case TypeId::kInt32: return BuildInt<int32_t>(type, column, rows);
      case TypeId::kInt64: return BuildInt<int64_t>(type, column, rows);
      case TypeId::kFloat32: {
        columnar::Float32Builder builder(type, pool_);
        return Build(&builder, column, rows, false, "float32",
                     [](columnar::Float32Builder* b, std::string_view text) {
                       double v = 0;
                       if (!ParseDouble(text, &v))
                         return false;
                       b->UnsafeAppend(static_cast<float>(v));
                       return true;
                     });
      }
      case TypeId::kFloat64: {
        columnar::Float64Builder builder(type, pool_);
        return Build(&builder, column, rows, false, "float64",
                     [](columnar::Float64Builder* b, std::string_view text) {
                       double v = 0;
                       if (!ParseDouble(text, &v))
                         return false;
                       b->UnsafeAppend(v);
                       return true;
                     });
      }
      case TypeId::kDecimal: {
        const int precision = type.precision();
        const int scale = type.scale();
        if (precision <= 18) {
          columnar::Decimal64Builder builder(type, pool_);
          return Build(&builder, column, rows, false, type.ToString(),
                       [&](columnar::Decimal64Builder* b, std::string_view text) {
                         auto v = columnar::ParseDecimal(text, precision, scale);
                         if (!v.ok())
                           return false;
                         b->UnsafeAppend(static_cast<int64_t>(*v));
                         return true;
                       });
        }
        columnar::Decimal128Builder builder(type, pool_);
        return Build(&builder, column, rows, false, type.ToString(),
                     [&](columnar::Decimal128Builder* b, std::string_view text) {
                       auto v = columnar::ParseDecimal(text, precision, scale);
                       if (!v.ok())
                         return false;
                       b->UnsafeAppend(*v);
                       return true;
                     });
      }
      case TypeId::kDate32: {
        columnar::Int32Builder builder(type, pool_);
        return Build(&builder, column, rows, false, "date (YYYY-MM-DD)",
                     [](columnar::Int32Builder* b, std::string_view text) {
                       int32_t v = 0;
                       if (!ParseDate(text, &v))
                         return false;
                       b->UnsafeAppend(v);
                       return true;
                     });
      }
      case TypeId::kTimestamp: {
        columnar::Int64Builder builder(type, pool_);
        const columnar::TimeUnit unit = type.unit();
        return Build(&builder, column, rows, false, "timestamp",
                     [unit](columnar::Int64Builder* b, std::string_view text) {
                       int64_t v = 0;
                       if (!ParseTimestamp(text, unit, &v))
                         return false;
                       b->UnsafeAppend(v);
                       return true;
                     });
      }
      case TypeId::kBoolean: {
        columnar::BooleanBuilder builder(pool_);
        return Build(&builder, column, rows, false, "boolean",
                     [](columnar::BooleanBuilder* b, std::string_view text) {
                       bool v = false;
                       if (!ParseBool(text, &v))
                         return false;
                       b->UnsafeAppend(v);
                       return true;
                     });
      }
      case TypeId::kUtf8: {
        columnar::BinaryBuilder builder(type, pool_);
        const int num_columns = table_schema_->num_fields();
        int64_t bytes = 0;
        for (int64_t r = 0; r < rows; ++r)
          bytes += fields_[static_cast<size_t>(r * num_columns + column)].size;
        SHOAL_RETURN_IF_ERROR(builder.ReserveData(bytes));
        // Text from outside must be valid UTF-8 before it becomes a utf8 value (PostgreSQL's COPY
        // refuses it too); found by tests/fuzz/csv_mutation_test.cc.
        return Build(&builder, column, rows, true, "utf8 (invalid UTF-8 bytes)",
                     [](columnar::BinaryBuilder* b, std::string_view text) {
                       if (!columnar::IsValidUtf8(reinterpret_cast<const uint8_t*>(text.data()),
                                                  static_cast<int64_t>(text.size())))
                         return false;
                       b->UnsafeAppend(text);
                       return true;
                     });
      }
      default:
        return Status::NotImplemented("reading column {} of type {} from delimited text",
                                      table_schema_->field(column).name, type.ToString());
    }
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
  Tokenizer tokenizer_;

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

DelimitedOptions DelimitedOptions::Tbl() {
  DelimitedOptions options;
  options.delimiter = '|';
  options.quote = '\0';
  options.trailing_delimiter = true;
  return options;
}

DelimitedOptions DelimitedOptions::Csv() {
  return DelimitedOptions();
}

Status DelimitedOptions::Apply(const std::map<std::string, std::string>& options) {
  auto one_char = [](const std::string& key, const std::string& value, bool allow_empty,
                     char* out) -> Status {
    if (value.size() == 1 || (allow_empty && value.empty())) {
      *out = value.empty() ? '\0' : value[0];
      return Status::OK();
    }
    if (value == "\\t") {
      *out = '\t';
      return Status::OK();
    }
    return Status::InvalidArgument("option '{}' must be a single character, got '{}'", key, value);
  };
  for (const auto& [raw_key, value] : options) {
    std::string key = raw_key;
    for (char& c : key)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (key == "delimiter") {
      SHOAL_RETURN_IF_ERROR(one_char(key, value, false, &delimiter));
    } else if (key == "quote") {
      SHOAL_RETURN_IF_ERROR(one_char(key, value, true, &quote));
    } else if (key == "escape") {
      SHOAL_RETURN_IF_ERROR(one_char(key, value, true, &escape));
    } else if (key == "header") {
      bool v = false;
      if (!ParseBool(value, &v))
        return Status::InvalidArgument("option 'header' must be true or false, got '{}'", value);
      header = v;
    } else if (key == "null") {
      null_string = value;
    } else if (key == "split_bytes") {
      int64_t v = 0;
      if (!ParseInt64(value, &v) || v <= 0)
        return Status::InvalidArgument("option 'split_bytes' must be a positive integer, got '{}'",
                                       value);
      split_bytes = v;
    } else {
      return Status::InvalidArgument(
          "unknown option '{}' (known: delimiter, header, quote, escape, null, split_bytes)",
          raw_key);
    }
  }
  if (delimiter == '\n' || delimiter == quote)
    return Status::InvalidArgument("the delimiter must differ from newline and the quote");
  return Status::OK();
}

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
  SHOAL_ASSIGN_OR_RETURN(auto file, FileHandle::Open(path));
  std::string buffer;
  SHOAL_ASSIGN_OR_RETURN(int64_t n, file.ReadAppend(0, kReadChunk, &buffer));
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
    size_t pos = 0;
    std::string_view data(buffer);
    while (pos < data.size() && data[pos] == '\n')
      ++pos;
    if (pos >= data.size())
      return Status::InvalidData("{}: empty file, cannot infer the columns", path);
    Tokenizer counter(probe, 4096);
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
  for (int i = 0; i < num_fields; ++i)
    names.push_back(options.header ? std::string(first[static_cast<size_t>(i)].view())
                                   : "column" + std::to_string(i + 1));
  // Sample: read the start with every column as utf8, then pick the narrowest type that fits.
  std::vector<columnar::Field> text_fields;
  for (const auto& name : names)
    text_fields.emplace_back(name, DataType::Utf8());
  auto text_schema = std::make_shared<columnar::Schema>(text_fields);
  std::vector<int> all;
  for (int i = 0; i < num_fields; ++i)
    all.push_back(i);
  DelimitedReader reader(path, text_schema, options, all, 0, static_cast<int64_t>(buffer.size()),
                         sample_rows, DefaultMemoryPool());
  SHOAL_ASSIGN_OR_RETURN(auto batch, reader.Next());
  std::vector<columnar::Field> fields;
  for (int c = 0; c < num_fields; ++c) {
    bool can_int = true, can_float = true, can_date = true, can_ts = true, can_bool = true;
    bool any = false;
    const columnar::Array* column = batch ? batch->column(c).get() : nullptr;
    for (int64_t r = 0; column != nullptr && r < column->length(); ++r) {
      if (column->IsNull(r))
        continue;
      std::string_view v = column->StringValue(r);
      any = true;
      int64_t i64 = 0;
      double d = 0;
      int32_t date = 0;
      bool b = false;
      can_int = can_int && ParseInt64(v, &i64);
      can_float = can_float && ParseDouble(v, &d);
      can_date = can_date && ParseDate(v, &date);
      can_ts = can_ts && ParseTimestamp(v, columnar::TimeUnit::kMicro, &i64);
      can_bool = can_bool && ParseBool(v, &b) && !ParseInt64(v, &i64);
    }
    DataType type = DataType::Utf8();
    if (any) {
      if (can_int)
        type = DataType::Int64();
      else if (can_float)
        type = DataType::Float64();
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
