#include "shoal/exec/hash.h"

#include <cmath>
#include <cstring>

#include "shoal/columnar/decimal.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/row_key/nested_key_encoder.h"

namespace shoal::exec {
namespace {

using columnar::TypeId;

constexpr uint64_t kNullHash = 0x5bd1e9955bd1e995ULL;
constexpr uint64_t kSeed = 0x2545F4914F6CDD1DULL;

template <typename T>
uint64_t ValueBits(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    double d = static_cast<double>(v);
    if (d == 0)
      d = 0;  // -0.0 == 0.0
    if (std::isnan(d))
      return 0x7ff8000000000000ULL;
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    return bits;
  } else if constexpr (sizeof(T) == 16) {
    uint64_t parts[2];
    std::memcpy(parts, &v, 16);
    return parts[0] ^ HashMix(parts[1]);
  } else {
    return static_cast<uint64_t>(v);
  }
}

template <typename T>
void HashFixed(const columnar::Array& a, uint64_t* hashes) {
  const T* values = a.values<T>();
  const int64_t n = a.length();
  if (a.null_count() == 0) {
    for (int64_t i = 0; i < n; ++i)
      hashes[i] = HashCombine(hashes[i], ValueBits(values[i]));
  } else {
    for (int64_t i = 0; i < n; ++i)
      hashes[i] = HashCombine(hashes[i], a.IsValid(i) ? ValueBits(values[i]) : kNullHash);
  }
}

}  // namespace

uint64_t HashBytes(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t h = kSeed ^ (size * 0x9e3779b97f4a7c15ULL);
  while (size >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ HashMix(w)) * 0x9e3779b97f4a7c15ULL;
    p += 8;
    size -= 8;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, p, size);
  return HashMix(h ^ tail);
}

Status HashArray(const columnar::Array& a, uint64_t* hashes) {
  const int64_t n = a.length();
  switch (a.type_id()) {
    case TypeId::kNull:
      for (int64_t i = 0; i < n; ++i)
        hashes[i] = HashCombine(hashes[i], kNullHash);
      return Status::OK();
    case TypeId::kBoolean:
      for (int64_t i = 0; i < n; ++i)
        hashes[i] = HashCombine(hashes[i], a.IsValid(i) ? a.BoolValue(i) + 1 : kNullHash);
      return Status::OK();
    case TypeId::kInt8: HashFixed<int8_t>(a, hashes); return Status::OK();
    case TypeId::kUInt8: HashFixed<uint8_t>(a, hashes); return Status::OK();
    case TypeId::kInt16: HashFixed<int16_t>(a, hashes); return Status::OK();
    case TypeId::kUInt16: HashFixed<uint16_t>(a, hashes); return Status::OK();
    case TypeId::kInt32:
    case TypeId::kDate32: HashFixed<int32_t>(a, hashes); return Status::OK();
    case TypeId::kUInt32: HashFixed<uint32_t>(a, hashes); return Status::OK();
    case TypeId::kInt64:
    case TypeId::kTimestamp: HashFixed<int64_t>(a, hashes); return Status::OK();
    case TypeId::kUInt64: HashFixed<uint64_t>(a, hashes); return Status::OK();
    case TypeId::kFloat32: HashFixed<float>(a, hashes); return Status::OK();
    case TypeId::kFloat64: HashFixed<double>(a, hashes); return Status::OK();
    case TypeId::kDecimal:
      if (a.type().precision() <= columnar::DataType::kMaxDecimal64Precision) {
        HashFixed<int64_t>(a, hashes);
      } else {
        HashFixed<columnar::int128_t>(a, hashes);
      }
      return Status::OK();
    case TypeId::kInterval: HashFixed<columnar::int128_t>(a, hashes); return Status::OK();
    case TypeId::kUtf8:
    case TypeId::kBinary:
      for (int64_t i = 0; i < n; ++i) {
        if (a.IsValid(i)) {
          std::string_view s = a.StringValue(i);
          hashes[i] = HashCombine(hashes[i], HashBytes(s.data(), s.size()));
        } else {
          hashes[i] = HashCombine(hashes[i], kNullHash);
        }
      }
      return Status::OK();
    case TypeId::kDictionary: {
      // Hash decoded values so that encoded and plain columns of equal values agree.
      columnar::ArrayPtr view = a.Slice(0, a.length());
      SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr decoded,
                             DecodeDictionary(view, DefaultMemoryPool()));
      return HashArray(*decoded, hashes);
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap: {
      // Nested values hash their key encoding, the bytes joins and groupings compare them by
      // (nested_key_encoder.h), so a repartitioned nested key lands where its matches do.
      SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr encoded, EncodeNestedKeys(a, DefaultMemoryPool()));
      return HashArray(*encoded, hashes);
    }
  }
  return Status::Internal("hashing {}", a.type().ToString());
}

Status HashColumns(const std::vector<columnar::ArrayPtr>& columns, int64_t num_rows,
                   std::vector<uint64_t>* hashes) {
  hashes->assign(static_cast<size_t>(num_rows), kSeed);
  for (const columnar::ArrayPtr& column : columns)
    SHOAL_RETURN_IF_ERROR(HashArray(*column, hashes->data()));
  return Status::OK();
}

}  // namespace shoal::exec
