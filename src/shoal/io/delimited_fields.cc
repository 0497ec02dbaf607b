#include "shoal/io/delimited_fields.h"

#include <limits>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/decimal.h"
#include "shoal/common/date_text.h"
#include "shoal/common/text.h"

namespace shoal::io {
namespace {

using columnar::DataType;
using columnar::TypeId;

int FractionDigits(columnar::TimeUnit unit) {
  switch (unit) {
    case columnar::TimeUnit::kSecond: return 0;
    case columnar::TimeUnit::kMilli: return 3;
    case columnar::TimeUnit::kMicro: return 6;
    case columnar::TimeUnit::kNano: return 9;
  }
  return 6;
}

// Builds one column's array from its fields, one builder append per row.
class ColumnParser {
 public:
  ColumnParser(const FieldColumn& column, const std::string& null_string,
               std::shared_ptr<MemoryPool> pool, BadField* bad)
      : column_(column), null_string_(null_string), pool_(std::move(pool)), bad_(bad) {}

  Result<columnar::ArrayPtr> Parse() { return ParseColumn(column_.column, column_.rows); }

 private:
  bool IsNull(const FieldSlice& f, bool text_type) const {
    if (f.quoted)
      return false;
    if (f.view() == null_string_)
      return true;
    return !text_type && f.size == 0;
  }

  template <typename Builder, typename Parse>
  Result<columnar::ArrayPtr> Build(Builder* builder, int column, int64_t rows, bool text_type,
                                   const std::string& what, Parse parse) {
    const int num_columns = column_.stride;
    SHOAL_RETURN_IF_ERROR(builder->Reserve(rows));
    for (int64_t r = 0; r < rows; ++r) {
      const FieldSlice& f = column_.fields[static_cast<size_t>(r * num_columns + column)];
      if (IsNull(f, text_type)) {
        SHOAL_RETURN_IF_ERROR(builder->AppendNull());
        continue;
      }
      if (!parse(builder, f.view())) {
        bad_->row = r;
        bad_->what = what;
        return columnar::ArrayPtr();
      }
    }
    return builder->Finish();
  }

  template <typename T>
  Result<columnar::ArrayPtr> BuildInt(const DataType& type, int column, int64_t rows) {
    columnar::FixedWidthBuilder<T> builder(type, pool_);
    return Build(&builder, column, rows, false, type.ToString(),
                 [](columnar::FixedWidthBuilder<T>* b, std::string_view text) {
                   int64_t v = 0;
                   if (!ParseInt64Field(text, &v) ||
                       v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
                       v > static_cast<int64_t>(std::numeric_limits<T>::max()))
                     return false;
                   b->UnsafeAppend(static_cast<T>(v));
                   return true;
                 });
  }

  Result<columnar::ArrayPtr> ParseColumn(int column, int64_t rows) {
    const DataType& type = column_.type;
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
                       if (!ParseDoubleField(text, &v))
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
                       if (!ParseDoubleField(text, &v))
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
        return Build(&builder, column, rows, false, "date",
                     [](columnar::Int32Builder* b, std::string_view text) {
                       auto v = ParseDate(text);
                       if (!v.ok())
                         return false;
                       b->UnsafeAppend(*v);
                       return true;
                     });
      }
      case TypeId::kTimestamp: {
        columnar::Int64Builder builder(type, pool_);
        const int digits = FractionDigits(type.unit());
        const bool zoned = !type.timezone().empty();
        return Build(&builder, column, rows, false, "timestamp",
                     [digits, zoned](columnar::Int64Builder* b, std::string_view text) {
                       auto v = ParseTimestamp(text, digits, zoned);
                       if (!v.ok())
                         return false;
                       b->UnsafeAppend(*v);
                       return true;
                     });
      }
      case TypeId::kBoolean: {
        columnar::BooleanBuilder builder(pool_);
        return Build(&builder, column, rows, false, "boolean",
                     [](columnar::BooleanBuilder* b, std::string_view text) {
                       bool v = false;
                       if (!ParseBoolField(text, &v))
                         return false;
                       b->UnsafeAppend(v);
                       return true;
                     });
      }
      case TypeId::kUtf8: {
        columnar::BinaryBuilder builder(type, pool_);
        const int num_columns = column_.stride;
        int64_t bytes = 0;
        for (int64_t r = 0; r < rows; ++r)
          bytes += column_.fields[static_cast<size_t>(r * num_columns + column)].size;
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
                                      column_.name, type.ToString());
    }
  }

  const FieldColumn& column_;
  const std::string& null_string_;
  std::shared_ptr<MemoryPool> pool_;
  BadField* bad_;
};

}  // namespace

Result<columnar::ArrayPtr> ParseFieldColumn(const FieldColumn& column,
                                            const std::string& null_string,
                                            std::shared_ptr<MemoryPool> pool, BadField* bad) {
  bad->row = -1;
  return ColumnParser(column, null_string, std::move(pool), bad).Parse();
}

}  // namespace shoal::io
