#include "shoal/exec/row_key/nested_key_encoder.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "shoal/columnar/builder.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/row_key/normalized_key_internal.h"

namespace shoal::exec {
namespace {

using columnar::Array;
using columnar::ArrayPtr;
using columnar::TypeId;

constexpr uint8_t kEnd = 0x00;
constexpr uint8_t kPresent = 0x01;
constexpr uint8_t kNullPart = 0x02;

// Appends the encoding of valid value `i` of `a` to `out`. Nested values recurse once per level;
// a level costs a switch, never an allocation (`out` keeps its capacity across values).
void AppendValue(const Array& a, int64_t i, std::string* out);

void AppendPart(const Array& a, int64_t i, std::string* out) {
  if (a.IsValid(i)) {
    out->push_back(static_cast<char>(kPresent));
    AppendValue(a, i, out);
  } else {
    out->push_back(static_cast<char>(kNullPart));
  }
}

void AppendValue(const Array& a, int64_t i, std::string* out) {
  switch (a.type_id()) {
    case TypeId::kNull: return;  // never valid; kept for the switch's completeness
    case TypeId::kUtf8:
    case TypeId::kBinary:
      for (char ch : a.StringValue(i)) {
        out->push_back(ch);
        if (ch == 0)
          out->push_back(static_cast<char>(0xFF));
      }
      out->push_back(0);
      out->push_back(0);
      return;
    case TypeId::kDictionary: AppendValue(*a.dictionary(), a.DictionaryIndex(i), out); return;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kMap: {
      const Array& items = *a.child(0);
      const int64_t end = a.ListEnd(i);
      for (int64_t r = a.ListStart(i); r < end; ++r)
        AppendPart(items, r, out);
      out->push_back(static_cast<char>(kEnd));
      return;
    }
    case TypeId::kStruct: {
      const int64_t row = a.ChildRow(i);
      for (int f = 0; f < a.num_children(); ++f)
        AppendPart(*a.child(f), row, out);
      return;
    }
    default: break;
  }
  row_key_internal::DispatchFixed(a.type(), [&](auto zero) {
    using T = decltype(zero);
    T v{};
    if constexpr (std::is_same_v<T, bool>) {
      v = a.BoolValue(i);
    } else {
      v = a.values<T>()[i];
    }
    uint8_t bytes[16];
    const uint8_t* end = row_key_internal::PutBigEndian(bytes, row_key_internal::NormalizedKey(v));
    out->append(reinterpret_cast<const char*>(bytes), static_cast<size_t>(end - bytes));
  });
}

// Bytes the encodings of rows [start, start + length) of `a` (all valid, the worst case) take.
int64_t BytesBound(const Array& a, int64_t start, int64_t length) {
  if (length <= 0)
    return 0;
  switch (a.type_id()) {
    case TypeId::kNull: return 0;
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      const int32_t* offsets = a.offsets();
      // Every byte escaped, plus the terminator.
      return 2 * (offsets[start + length] - offsets[start]) + 2 * length;
    }
    case TypeId::kDictionary: {
      // Any index may point at the longest value: bound by the whole dictionary's per-value worst.
      const Array& d = *a.dictionary();
      return length * (BytesBound(d, 0, d.length()) + 16);
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kMap: {
      const int64_t first = a.ListStart(start);
      const int64_t items = a.ListEnd(start + length - 1) - first;
      return length + items + BytesBound(*a.child(0), first, items);  // end and item markers
    }
    case TypeId::kStruct: {
      int64_t total = 0;
      for (const ArrayPtr& child : a.children())
        total += length + BytesBound(*child, a.ChildRow(start), length);
      return total;
    }
    default: break;
  }
  int64_t width = 0;
  row_key_internal::DispatchFixed(
      a.type(), [&](auto zero) { width = row_key_internal::KeyWidth<decltype(zero)>(); });
  return length * width;
}

}  // namespace

int64_t NestedKeyBytesBound(const Array& array) {
  return BytesBound(array, 0, array.length());
}

Result<ArrayPtr> EncodeNestedKeys(const Array& array, const std::shared_ptr<MemoryPool>& pool) {
  if (!array.type().is_nested())
    return Status::InvalidArgument("nested key encoding of a {} column", array.type().ToString());
  const int64_t n = array.length();
  columnar::BinaryBuilder builder(columnar::DataType::Binary(), pool);
  SHOAL_RETURN_IF_ERROR(builder.Reserve(n));
  std::string value;
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (array.IsNull(i)) {
      SHOAL_RETURN_IF_ERROR(builder.AppendNull());
      continue;
    }
    value.clear();
    AppendValue(array, i, &value);
    total += static_cast<int64_t>(value.size());
    if (total > INT32_MAX)
      return Status::OutOfRange("the keys of {} nested values take more than 2 GiB to compare", n)
          .WithHint("group, join or sort on fewer or smaller values");
    SHOAL_RETURN_IF_ERROR(builder.Append(value));
  }
  return builder.Finish();
}

Result<ArrayPtr> NormalizeKeyColumn(ArrayPtr column, const std::shared_ptr<MemoryPool>& pool) {
  if (column->type_id() == TypeId::kDictionary)
    return DecodeDictionary(column, pool);
  if (column->type().is_nested())
    return EncodeNestedKeys(*column, pool);
  return column;
}

}  // namespace shoal::exec
