#include "shoal/columnar/scalar.h"

#include <algorithm>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/pretty_print.h"

namespace shoal::columnar {

Scalar Scalar::FromArray(const Array& array, int64_t i) {
  if (array.type_id() == TypeId::kDictionary) {
    Scalar s = FromArray(*array.dictionary(), array.IsNull(i) ? 0 : array.DictionaryIndex(i));
    if (array.IsNull(i))
      return Scalar(array.type().value_type());
    return s;
  }
  if (array.IsNull(i))
    return Scalar(array.type());
  const DataType& t = array.type();
  switch (t.id()) {
    case TypeId::kNull: return Scalar(t);
    case TypeId::kBoolean: return Scalar(t, Storage(static_cast<int64_t>(array.BoolValue(i))));
    case TypeId::kInt8: return FromInt(t, array.Value<int8_t>(i));
    case TypeId::kInt16: return FromInt(t, array.Value<int16_t>(i));
    case TypeId::kInt32:
    case TypeId::kDate32: return FromInt(t, array.Value<int32_t>(i));
    case TypeId::kInt64:
    case TypeId::kTimestamp: return FromInt(t, array.Value<int64_t>(i));
    case TypeId::kUInt8: return FromInt(t, array.Value<uint8_t>(i));
    case TypeId::kUInt16: return FromInt(t, array.Value<uint16_t>(i));
    case TypeId::kUInt32: return FromInt(t, array.Value<uint32_t>(i));
    case TypeId::kUInt64: return FromInt(t, static_cast<int64_t>(array.Value<uint64_t>(i)));
    case TypeId::kFloat32: return FromFloat(t, array.Value<float>(i));
    case TypeId::kFloat64: return FromFloat(t, array.Value<double>(i));
    case TypeId::kDecimal:
      return Scalar(t, Storage(t.byte_width() == 8 ? int128_t{array.Value<int64_t>(i)}
                                                   : array.Value<int128_t>(i)));
    case TypeId::kInterval: return Scalar(t, Storage(array.Value<MonthDayNano>(i)));
    case TypeId::kUtf8:
    case TypeId::kBinary: return Scalar(t, Storage(std::string(array.StringValue(i))));
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap: return Scalar(t, Storage(NestedValue{array.Slice(i, 1)}));
    case TypeId::kDictionary: break;
  }
  return Scalar(t);
}

bool operator==(const Scalar::NestedValue& a, const Scalar::NestedValue& b) {
  return ArraysEqual(*a.array, *b.array);
}

namespace {

// `length` copies of a fixed-width value: one exact allocation and no builder. Every stream of a
// projection with a literal makes one, so a short query pays for each extra step.
template <typename T>
Result<ArrayPtr> Filled(const DataType& type, T value, int64_t length,
                        const std::shared_ptr<MemoryPool>& pool) {
  SHOAL_ASSIGN_OR_RETURN(BufferPtr values,
                         Buffer::Allocate(length * static_cast<int64_t>(sizeof(T)), pool));
  T* out = values->mutable_data_as<T>();
  std::fill(out, out + length, value);
  return Array::Make(type, length, {nullptr, std::move(values)}, 0);
}

}  // namespace

Result<ArrayPtr> Scalar::MakeArray(int64_t length, const std::shared_ptr<MemoryPool>& pool) const {
  if (is_null())
    return Array::MakeAllNull(type_, length, pool);
  switch (type_.id()) {
    case TypeId::kBoolean: {
      auto builder = MakeBuilder(type_, pool);
      SHOAL_RETURN_IF_ERROR(builder->Reserve(length));
      auto* b = static_cast<BooleanBuilder*>(builder.get());
      for (int64_t i = 0; i < length; ++i)
        b->UnsafeAppend(bool_value());
      return builder->Finish();
    }
    case TypeId::kInt8: return Filled(type_, static_cast<int8_t>(int_value()), length, pool);
    case TypeId::kInt16: return Filled(type_, static_cast<int16_t>(int_value()), length, pool);
    case TypeId::kInt32:
    case TypeId::kDate32: return Filled(type_, static_cast<int32_t>(int_value()), length, pool);
    case TypeId::kInt64:
    case TypeId::kTimestamp: return Filled(type_, int_value(), length, pool);
    case TypeId::kUInt8: return Filled(type_, static_cast<uint8_t>(int_value()), length, pool);
    case TypeId::kUInt16: return Filled(type_, static_cast<uint16_t>(int_value()), length, pool);
    case TypeId::kUInt32: return Filled(type_, static_cast<uint32_t>(int_value()), length, pool);
    case TypeId::kUInt64: return Filled(type_, static_cast<uint64_t>(int_value()), length, pool);
    case TypeId::kFloat32: return Filled(type_, static_cast<float>(float_value()), length, pool);
    case TypeId::kFloat64: return Filled(type_, float_value(), length, pool);
    case TypeId::kDecimal:
      if (type_.byte_width() == 8)
        return Filled(type_, static_cast<int64_t>(decimal_value()), length, pool);
      return Filled(type_, decimal_value(), length, pool);
    case TypeId::kInterval: return Filled(type_, interval_value(), length, pool);
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      auto builder = MakeBuilder(type_, pool);
      SHOAL_RETURN_IF_ERROR(builder->Reserve(length));
      auto* b = static_cast<BinaryBuilder*>(builder.get());
      SHOAL_RETURN_IF_ERROR(b->ReserveData(static_cast<int64_t>(string_value().size()) * length));
      for (int64_t i = 0; i < length; ++i)
        b->UnsafeAppend(string_value());
      return builder->Finish();
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap: {
      auto builder = MakeBuilder(type_, pool);
      SHOAL_RETURN_IF_ERROR(builder->Reserve(length));
      const ArrayPtr& value = nested_value();
      for (int64_t i = 0; i < length; ++i)
        SHOAL_RETURN_IF_ERROR(builder->AppendFrom(*value, 0));
      return builder->Finish();
    }
    case TypeId::kNull:
    case TypeId::kDictionary: break;
  }
  return Status::NotImplemented("constant arrays of type {}", type_.ToString());
}

std::string Scalar::ToString() const {
  if (is_null())
    return "NULL";
  const auto& pool = DefaultMemoryPool();
  auto array = MakeArray(1, pool);
  if (!array.ok())
    return "?";
  return FormatValue(**array, 0);
}

}  // namespace shoal::columnar
