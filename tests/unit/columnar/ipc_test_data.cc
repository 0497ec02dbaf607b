#include "tests/unit/columnar/ipc_test_data.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "shoal/columnar/bitmap.h"
#include "shoal/columnar/builder.h"
#include "shoal/columnar/ipc/format/message_generated.h"
#include "shoal/columnar/pretty_print.h"

namespace shoal::columnar::ipc::testing {
namespace {

template <typename T>
ArrayPtr Finish(FixedWidthBuilder<T>& b) {
  auto r = b.Finish();
  SHOAL_CHECK(r.ok(), "{}", r.status().ToString());
  return *r;
}

ArrayPtr FinishAny(ArrayBuilder& b) {
  auto r = b.Finish();
  SHOAL_CHECK(r.ok(), "{}", r.status().ToString());
  return *r;
}

}  // namespace

SchemaPtr AllTypesSchema() {
  std::vector<Field> fields = {
      {"null", DataType::Null()},
      {"bool", DataType::Boolean()},
      {"i8", DataType::Int8()},
      {"i16", DataType::Int16()},
      {"i32", DataType::Int32(), false, {{"comment", "not null"}}},
      {"i64", DataType::Int64()},
      {"u8", DataType::UInt8()},
      {"u16", DataType::UInt16()},
      {"u32", DataType::UInt32()},
      {"u64", DataType::UInt64()},
      {"f32", DataType::Float32()},
      {"f64", DataType::Float64()},
      {"dec15_2", DataType::Decimal(15, 2), true, {{"sql_type", "numeric(15,2)"}, {"k2", ""}}},
      {"dec18_0", DataType::Decimal(18, 0)},
      {"dec38_4", DataType::Decimal(38, 4)},
      {"dec20_20", DataType::Decimal(20, 20)},
      {"date", DataType::Date32()},
      {"ts_s", DataType::Timestamp(TimeUnit::kSecond)},
      {"ts_ms_tz", DataType::Timestamp(TimeUnit::kMilli, "UTC")},
      {"ts_us", DataType::Timestamp(TimeUnit::kMicro)},
      {"ts_ns_tz", DataType::Timestamp(TimeUnit::kNano, "America/New_York")},
      {"interval", DataType::Interval()},
      {"utf8", DataType::Utf8(), false},
      {"binary", DataType::Binary()},
      {"dict_utf8", DataType::Dictionary(TypeId::kInt32, DataType::Utf8())},
      {"dict8_utf8", DataType::Dictionary(TypeId::kInt8, DataType::Utf8(), true)},
      {"dict_u16_i64", DataType::Dictionary(TypeId::kUInt16, DataType::Int64())},
      {"dict_dec", DataType::Dictionary(TypeId::kInt64, DataType::Decimal(10, 3))},
  };
  return std::make_shared<const Schema>(
      std::move(fields), KeyValueMetadata{{"origin", "shoal ipc test"}, {"empty", ""}});
}

SchemaPtr NestedSchema() {
  const DataType point = DataType::Struct({{"x", DataType::Int32()}, {"label", DataType::Utf8()}});
  std::vector<Field> fields = {
      {"ints", DataType::List(DataType::Int32())},
      {"strings_not_null", DataType::List(Field("element", DataType::Utf8(), false)), false},
      {"large", DataType::LargeList(DataType::Decimal(15, 2))},
      {"fixed", DataType::FixedSizeList(DataType::Float64(), 3)},
      {"matrix", DataType::List(DataType::List(DataType::Int64()))},
      {"points", DataType::List(point)},
      {"record",
       DataType::Struct({{"id", DataType::Int64(), false},
                         {"tags", DataType::List(DataType::Utf8())},
                         {"attrs", DataType::Map(DataType::Utf8(), DataType::Int32())},
                         {"when", DataType::Date32()}}),
       true,
       {{"comment", "struct of list"}}},
      {"map", DataType::Map(DataType::Utf8(), DataType::Decimal(38, 4))},
      {"map_of_lists", DataType::Map(DataType::Int32(), DataType::List(DataType::Boolean()))},
      {"fixed_structs", DataType::FixedSizeList(point, 2)},
  };
  return std::make_shared<const Schema>(std::move(fields));
}

SchemaPtr SchemaOf(const std::vector<DataType>& types) {
  std::vector<Field> fields;
  for (size_t i = 0; i < types.size(); ++i)
    fields.emplace_back(fmt::format("c{}", i), types[i]);
  return std::make_shared<const Schema>(std::move(fields));
}

std::string RandomData::RandomString(bool utf8) {
  static const char* const kPieces[] = {"a", "b", "Z", " ", "0", "é", "ß", "日本", "😀", "\t", ""};
  std::string s;
  const int64_t n = Uniform(0, 12);
  for (int64_t i = 0; i < n; ++i) {
    if (utf8) {
      s += kPieces[Uniform(0, static_cast<int64_t>(std::size(kPieces)) - 1)];
    } else {
      s.push_back(static_cast<char>(Uniform(0, 255)));
    }
  }
  return s;
}

ArrayPtr RandomData::DictionaryArray(const DataType& type, const ArrayPtr& dictionary,
                                     int64_t length, double null_probability) {
  std::bernoulli_distribution is_null(null_probability);
  DataType index_type = [&] {
    switch (type.index_type()) {
      case TypeId::kInt8: return DataType::Int8();
      case TypeId::kInt16: return DataType::Int16();
      case TypeId::kInt64: return DataType::Int64();
      case TypeId::kUInt8: return DataType::UInt8();
      case TypeId::kUInt16: return DataType::UInt16();
      case TypeId::kUInt32: return DataType::UInt32();
      case TypeId::kUInt64: return DataType::UInt64();
      default: return DataType::Int32();
    }
  }();
  // Indices travel as an int64 array appended through AppendFrom so one loop serves every width.
  Int64Builder wide(DataType::Int64(), pool_);
  for (int64_t i = 0; i < length; ++i) {
    if (is_null(rng_) || dictionary->length() == 0) {
      SHOAL_CHECK(wide.AppendNull().ok(), "");
    } else {
      SHOAL_CHECK(wide.Append(Uniform(0, dictionary->length() - 1)).ok(), "");
    }
  }
  ArrayPtr wide_indices = Finish(wide);
  // Narrow by value through a typed builder of the index type.
  switch (index_type.id()) {
#define SHOAL_NARROW(ID, T)                                                              \
  case TypeId::ID: {                                                                     \
    FixedWidthBuilder<T> b(index_type, pool_);                                           \
    for (int64_t i = 0; i < length; ++i) {                                               \
      if (wide_indices->IsNull(i)) {                                                     \
        SHOAL_CHECK(b.AppendNull().ok(), "");                                            \
      } else {                                                                           \
        SHOAL_CHECK(b.Append(static_cast<T>(wide_indices->Value<int64_t>(i))).ok(), ""); \
      }                                                                                  \
    }                                                                                    \
    auto r = MakeDictionaryArray(Finish(b), dictionary, type.ordered());                 \
    SHOAL_CHECK(r.ok(), "{}", r.status().ToString());                                    \
    return *r;                                                                           \
  }
    SHOAL_NARROW(kInt8, int8_t)
    SHOAL_NARROW(kInt16, int16_t)
    SHOAL_NARROW(kInt32, int32_t)
    SHOAL_NARROW(kInt64, int64_t)
    SHOAL_NARROW(kUInt8, uint8_t)
    SHOAL_NARROW(kUInt16, uint16_t)
    SHOAL_NARROW(kUInt32, uint32_t)
    SHOAL_NARROW(kUInt64, uint64_t)
#undef SHOAL_NARROW
    default: break;
  }
  SHOAL_CHECK(false, "index type {}", index_type.ToString());
  return nullptr;
}

ArrayPtr RandomData::Array(const DataType& type, int64_t length, double null_probability) {
  std::bernoulli_distribution is_null(null_probability);
  auto nulls = [&] { return is_null(rng_); };
  switch (type.id()) {
    case TypeId::kNull: {
      NullBuilder b(pool_);
      SHOAL_CHECK(b.AppendNulls(length).ok(), "");
      return FinishAny(b);
    }
    case TypeId::kBoolean: {
      BooleanBuilder b(pool_);
      for (int64_t i = 0; i < length; ++i)
        SHOAL_CHECK((nulls() ? b.AppendNull() : b.Append(Uniform(0, 1) == 1)).ok(), "");
      return FinishAny(b);
    }
#define SHOAL_INT_CASE(ID, T)                                                              \
  case TypeId::ID: {                                                                       \
    FixedWidthBuilder<T> b(type, pool_);                                                   \
    for (int64_t i = 0; i < length; ++i) {                                                 \
      T v = static_cast<T>(rng_());                                                        \
      if (Uniform(0, 9) == 0)                                                              \
        v = Uniform(0, 1) ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min(); \
      SHOAL_CHECK((nulls() ? b.AppendNull() : b.Append(v)).ok(), "");                      \
    }                                                                                      \
    return Finish(b);                                                                      \
  }
      SHOAL_INT_CASE(kInt8, int8_t)
      SHOAL_INT_CASE(kInt16, int16_t)
      SHOAL_INT_CASE(kInt32, int32_t)
      SHOAL_INT_CASE(kInt64, int64_t)
      SHOAL_INT_CASE(kUInt8, uint8_t)
      SHOAL_INT_CASE(kUInt16, uint16_t)
      SHOAL_INT_CASE(kUInt32, uint32_t)
      SHOAL_INT_CASE(kUInt64, uint64_t)
#undef SHOAL_INT_CASE
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      static const double kSpecial[] = {0.0,
                                        -0.0,
                                        std::numeric_limits<double>::infinity(),
                                        -std::numeric_limits<double>::infinity(),
                                        std::numeric_limits<double>::quiet_NaN(),
                                        1e308,
                                        5e-324};
      auto value = [&] {
        if (Uniform(0, 9) == 0)
          return kSpecial[Uniform(0, static_cast<int64_t>(std::size(kSpecial)) - 1)];
        return std::uniform_real_distribution<double>(-1e6, 1e6)(rng_);
      };
      if (type.id() == TypeId::kFloat32) {
        Float32Builder b(type, pool_);
        for (int64_t i = 0; i < length; ++i)
          SHOAL_CHECK((nulls() ? b.AppendNull() : b.Append(static_cast<float>(value()))).ok(), "");
        return Finish(b);
      }
      Float64Builder b(type, pool_);
      for (int64_t i = 0; i < length; ++i)
        SHOAL_CHECK((nulls() ? b.AppendNull() : b.Append(value())).ok(), "");
      return Finish(b);
    }
    case TypeId::kDecimal: {
      const int128_t max = MaxUnscaled(type.precision());
      auto value = [&]() -> int128_t {
        switch (Uniform(0, 5)) {
          case 0: return max;
          case 1: return -max;
          case 2: return 0;
          default: {
            int128_t v = (static_cast<int128_t>(rng_()) << 64) | rng_();
            v %= max;
            return v;
          }
        }
      };
      if (type.bit_width() == 64) {
        Decimal64Builder b(type, pool_);
        for (int64_t i = 0; i < length; ++i) {
          SHOAL_CHECK((nulls() ? b.AppendNull() : b.Append(static_cast<int64_t>(value()))).ok(),
                      "");
        }
        return Finish(b);
      }
      Decimal128Builder b(type, pool_);
      for (int64_t i = 0; i < length; ++i)
        SHOAL_CHECK((nulls() ? b.AppendNull() : b.Append(value())).ok(), "");
      return Finish(b);
    }
    case TypeId::kDate32: {
      Int32Builder b(type, pool_);
      for (int64_t i = 0; i < length; ++i) {
        auto v = static_cast<int32_t>(Uniform(-719162, 2932896));  // years 1..9999
        SHOAL_CHECK((nulls() ? b.AppendNull() : b.Append(v)).ok(), "");
      }
      return Finish(b);
    }
    case TypeId::kTimestamp: {
      Int64Builder b(type, pool_);
      const int64_t seconds = 253402300799;  // 9999-12-31 23:59:59
      int64_t per_second = 1;
      for (int u = 0; u < static_cast<int>(type.unit()); ++u)
        per_second *= 1000;
      const int64_t bound = type.unit() == TimeUnit::kNano ? std::numeric_limits<int64_t>::max() / 2
                                                           : seconds * per_second;
      for (int64_t i = 0; i < length; ++i)
        SHOAL_CHECK((nulls() ? b.AppendNull() : b.Append(Uniform(-bound, bound))).ok(), "");
      return Finish(b);
    }
    case TypeId::kInterval: {
      IntervalBuilder b(type, pool_);
      for (int64_t i = 0; i < length; ++i) {
        MonthDayNano v{static_cast<int32_t>(Uniform(-1200, 1200)),
                       static_cast<int32_t>(Uniform(-400, 400)),
                       Uniform(-86'400'000'000'000, 86'400'000'000'000)};
        SHOAL_CHECK((nulls() ? b.AppendNull() : b.Append(v)).ok(), "");
      }
      return Finish(b);
    }
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      BinaryBuilder b(type, pool_);
      for (int64_t i = 0; i < length; ++i) {
        if (nulls()) {
          SHOAL_CHECK(b.AppendNull().ok(), "");
        } else {
          SHOAL_CHECK(b.Append(RandomString(type.id() == TypeId::kUtf8)).ok(), "");
        }
      }
      return FinishAny(b);
    }
    case TypeId::kDictionary: {
      // A dictionary of distinct-ish values; occasionally one null entry, as Arrow allows.
      const int64_t size = Uniform(1, 20);
      ArrayPtr dictionary = Array(type.value_type(), size, Uniform(0, 3) == 0 ? 0.1 : 0.0);
      return DictionaryArray(type, dictionary, length, null_probability);
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap: return NestedArray(type, length, null_probability);
  }
  SHOAL_CHECK(false, "type {}", type.ToString());
  return nullptr;
}

BufferPtr RandomData::RandomValidity(int64_t length, double null_probability, int64_t* null_count) {
  *null_count = 0;
  if (null_probability <= 0)
    return nullptr;
  std::bernoulli_distribution is_null(null_probability);
  auto bits = Buffer::AllocateZeroed(bitmap::BytesForBits(length), pool_);
  SHOAL_CHECK(bits.ok(), "");
  for (int64_t i = 0; i < length; ++i) {
    if (is_null(rng_))
      ++*null_count;
    else
      bitmap::SetBit((*bits)->mutable_data(), i);
  }
  return *null_count == 0 ? nullptr : *bits;
}

ArrayPtr RandomData::NestedArray(const DataType& type, int64_t length, double null_probability) {
  int64_t null_count = 0;
  BufferPtr validity = RandomValidity(length, null_probability, &null_count);
  auto valid = [&](int64_t i) {
    return validity == nullptr || bitmap::GetBit(validity->data(), i);
  };
  const double child_nulls = null_probability > 0 ? null_probability : 0.0;
  switch (type.id()) {
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      // Null lists usually own no items, but sometimes do, as other writers may produce.
      std::vector<int64_t> offsets(static_cast<size_t>(length) + 1, 0);
      for (int64_t i = 0; i < length; ++i) {
        const int64_t n = valid(i) || Uniform(0, 4) == 0 ? Uniform(0, 4) : 0;
        offsets[static_cast<size_t>(i) + 1] = offsets[static_cast<size_t>(i)] + n;
      }
      const int64_t items = offsets.back();
      ArrayPtr child;
      if (type.id() == TypeId::kMap) {
        const Field& key = type.key_field();
        const Field& value = type.value_field();
        child = Array::MakeNested(type.item_type(), items, {nullptr},
                                  {Array(key.type, items, 0.0),
                                   Array(value.type, items, value.nullable ? child_nulls : 0.0)},
                                  0);
      } else {
        child = Array(type.item_type(), items, type.item_field().nullable ? child_nulls : 0.0);
      }
      const bool large = type.id() == TypeId::kLargeList;
      auto buffer = Buffer::Allocate((length + 1) * (large ? 8 : 4), pool_);
      SHOAL_CHECK(buffer.ok(), "");
      for (int64_t i = 0; i <= length; ++i) {
        if (large)
          (*buffer)->mutable_data_as<int64_t>()[i] = offsets[static_cast<size_t>(i)];
        else
          (*buffer)->mutable_data_as<int32_t>()[i] =
              static_cast<int32_t>(offsets[static_cast<size_t>(i)]);
      }
      return Array::MakeNested(type, length, {validity, *buffer}, {child}, null_count);
    }
    case TypeId::kFixedSizeList: {
      ArrayPtr child = Array(type.item_type(), length * type.list_size(),
                             type.item_field().nullable ? child_nulls : 0.0);
      return Array::MakeNested(type, length, {validity}, {child}, null_count);
    }
    case TypeId::kStruct: {
      std::vector<ArrayPtr> children;
      for (const Field& f : type.fields())
        children.push_back(Array(f.type, length, f.nullable ? child_nulls : 0.0));
      return Array::MakeNested(type, length, {validity}, std::move(children), null_count);
    }
    default: break;
  }
  SHOAL_CHECK(false, "type {}", type.ToString());
  return nullptr;
}

RecordBatchPtr RandomData::Batch(const SchemaPtr& schema, int64_t rows, double null_probability) {
  std::vector<ArrayPtr> columns;
  for (const Field& f : schema->fields())
    columns.push_back(Array(f.type, rows, f.nullable ? null_probability : 0.0));
  return RecordBatch::Make(schema, rows, std::move(columns));
}

uint64_t TouchAllValues(const RecordBatch& batch, int64_t max_rows) {
  uint64_t hash = 1469598103934665603ULL;
  std::string text;
  for (const ArrayPtr& column : batch.columns()) {
    const int64_t n = std::min(column->length(), max_rows);
    for (int64_t i = 0; i < n; ++i) {
      if (!column->IsValid(i))
        continue;
      text.clear();
      AppendValue(*column, i, &text);
      for (char c : text)
        hash = (hash ^ static_cast<uint8_t>(c)) * 1099511628211ULL;
    }
  }
  return hash;
}

std::vector<std::string> MessageKinds(const std::string& bytes) {
  namespace fbs = ::shoal::columnar::ipc::flatbuf;
  std::vector<std::string> kinds;
  size_t p = bytes.compare(0, 6, "ARROW1") == 0 ? 8 : 0;
  while (p + 8 <= bytes.size()) {
    int32_t length;
    std::memcpy(&length, bytes.data() + p + 4, 4);
    if (length <= 0)
      break;
    const auto* message = fbs::GetMessage(bytes.data() + p + 8);
    switch (message->header_type()) {
      case fbs::MessageHeader::Schema: kinds.push_back("schema"); break;
      case fbs::MessageHeader::RecordBatch: kinds.push_back("batch"); break;
      case fbs::MessageHeader::DictionaryBatch:
        kinds.push_back(message->header_as_DictionaryBatch()->is_delta() ? "delta" : "dictionary");
        break;
      default: kinds.push_back("other"); break;
    }
    p += 8 + static_cast<size_t>(length) + static_cast<size_t>(message->body_length());
  }
  return kinds;
}

Result<std::string> WriteIpc(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                             bool file_format, WriteOptions options) {
  BufferSink sink;
  SHOAL_ASSIGN_OR_RETURN(auto writer, file_format ? MakeFileWriter(&sink, schema, options)
                                                  : MakeStreamWriter(&sink, schema, options));
  for (const auto& b : batches)
    SHOAL_RETURN_IF_ERROR(writer->WriteBatch(*b));
  SHOAL_RETURN_IF_ERROR(writer->Close());
  return sink.TakeBytes();
}

}  // namespace shoal::columnar::ipc::testing
