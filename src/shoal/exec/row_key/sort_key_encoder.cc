#include "shoal/exec/row_key/sort_key_encoder.h"

#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include "shoal/columnar/decimal.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/row_key/nested_key_encoder.h"
#include "shoal/exec/row_key/normalized_key_internal.h"

namespace shoal::exec {
namespace {

using columnar::Array;
using columnar::ArrayPtr;
using columnar::DataType;
using columnar::TypeId;

using row_key_internal::DispatchFixed;
using row_key_internal::KeyWidth;
using row_key_internal::NormalizedKey;
using row_key_internal::PutBigEndian;

struct ColumnPlan {
  const Array* array;
  SortOrder order;
  bool marker;
  int width;  // value bytes of fixed-width types; -1 for strings
};

inline uint8_t Marker(bool valid, const SortOrder& o) {
  return valid ? 1 : (o.nulls_first ? 0 : 2);
}

template <typename T>
void EncodeFixed(const ColumnPlan& c, int64_t n, uint8_t* data, int64_t* pos) {
  const Array& a = *c.array;
  const bool desc = !c.order.ascending;
  const bool nulls = a.null_count() != 0;
  const T* values = nullptr;
  const uint8_t* bits = nullptr;
  if constexpr (std::is_same_v<T, bool>) {
    bits = a.buffer(1)->data();
  } else {
    values = a.values<T>();
  }
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* p = data + pos[i];
    const bool valid = !nulls || a.IsValid(i);
    if (c.marker)
      *p++ = Marker(valid, c.order);
    if (valid) {
      T v{};
      if constexpr (std::is_same_v<T, bool>) {
        v = columnar::bitmap::GetBit(bits, a.offset() + i);
      } else {
        v = values[i];
      }
      auto k = NormalizedKey(v);
      if (desc)
        k = static_cast<decltype(k)>(~k);
      p = PutBigEndian(p, k);
    } else {
      std::memset(p, 0, static_cast<size_t>(c.width));
      p += c.width;
    }
    pos[i] = p - data;
  }
}

int64_t EscapedSize(std::string_view s) {
  int64_t zeros = 0;
  for (char ch : s)
    zeros += ch == 0;
  return static_cast<int64_t>(s.size()) + zeros + 2;
}

void EncodeString(const ColumnPlan& c, int64_t n, uint8_t* data, int64_t* pos) {
  const Array& a = *c.array;
  const uint8_t flip = c.order.ascending ? 0 : 0xFF;
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* p = data + pos[i];
    const bool valid = a.IsValid(i);
    if (c.marker)
      *p++ = Marker(valid, c.order);
    if (valid) {
      for (char ch : a.StringValue(i)) {
        const uint8_t b = static_cast<uint8_t>(ch);
        *p++ = b ^ flip;
        if (b == 0)
          *p++ = 0xFF ^ flip;
      }
      *p++ = flip;
      *p++ = flip;
    }
    pos[i] = p - data;
  }
}

struct SortItem {
  uint64_t key;
  uint32_t row;
};

// Stable LSD radix sort on the low `bytes` bytes of the keys, skipping bytes every key shares.
void RadixSort(std::vector<SortItem>* items, int bytes) {
  const size_t n = items->size();
  std::vector<std::array<uint32_t, 256>> histograms(static_cast<size_t>(bytes));
  for (auto& h : histograms)
    h.fill(0);
  for (const SortItem& it : *items) {
    for (int b = 0; b < bytes; ++b)
      ++histograms[static_cast<size_t>(b)][(it.key >> (8 * b)) & 0xFF];
  }
  std::vector<SortItem> scratch(n);
  for (int b = 0; b < bytes; ++b) {
    auto& h = histograms[static_cast<size_t>(b)];
    if (h[(items->front().key >> (8 * b)) & 0xFF] == n)
      continue;  // every key has the same byte here
    uint32_t offsets[256];
    uint32_t sum = 0;
    for (int v = 0; v < 256; ++v) {
      offsets[v] = sum;
      sum += h[static_cast<size_t>(v)];
    }
    for (const SortItem& it : *items)
      scratch[offsets[(it.key >> (8 * b)) & 0xFF]++] = it;
    items->swap(scratch);
  }
}

}  // namespace

Status EncodedRows::Encode(const std::vector<ArrayPtr>& keys, const std::vector<SortOrder>& orders,
                           int64_t num_rows, bool compact) {
  if (keys.size() != orders.size())
    return Status::Internal("{} sort keys with {} orders", keys.size(), orders.size());
  if (num_rows > INT32_MAX)
    return Status::OutOfRange("cannot sort {} rows in one partition", num_rows);
  num_rows_ = num_rows;
  std::vector<ArrayPtr> decoded;
  std::vector<ColumnPlan> plan;
  int64_t fixed = 0;
  bool variable = false;
  for (size_t k = 0; k < keys.size(); ++k) {
    ArrayPtr a = keys[k];
    if (a->type_id() == TypeId::kDictionary) {
      SHOAL_ASSIGN_OR_RETURN(a, DecodeDictionary(a, DefaultMemoryPool()));
    } else if (a->type().is_nested()) {
      // A nested value sorts as the bytes of its order-preserving encoding, which then go through
      // the string encoding (escaped, terminated, complemented for DESC) like any binary key.
      SHOAL_ASSIGN_OR_RETURN(a, EncodeNestedKeys(*a, DefaultMemoryPool()));
    }
    decoded.push_back(a);
    ColumnPlan c{a.get(), orders[k], !compact || a->null_count() != 0, 0};
    if (a->type_id() == TypeId::kNull) {
      c.marker = true;  // a column of NULLs: the marker alone orders it
    } else if (a->type().is_binary_like()) {
      c.width = -1;
      variable = true;
    } else if (!DispatchFixed(a->type(), [&](auto v) { c.width = KeyWidth<decltype(v)>(); })) {
      return Status::NotImplemented("sorting by {}", a->type().ToString());
    }
    fixed += (c.marker ? 1 : 0) + std::max(c.width, 0);
    plan.push_back(c);
  }
  std::vector<int64_t> pos(static_cast<size_t>(num_rows));
  if (!variable) {
    // No key at all (or only marker-less constants) still gets one byte so every row has a width.
    fixed_width_ = std::max<int64_t>(fixed, 1);
    offsets_.clear();
    data_.assign(static_cast<size_t>(num_rows * fixed_width_), 0);
    for (int64_t i = 0; i < num_rows; ++i)
      pos[static_cast<size_t>(i)] = i * fixed_width_;
  } else {
    fixed_width_ = 0;
    offsets_.assign(static_cast<size_t>(num_rows) + 1, fixed);
    offsets_[0] = 0;
    for (const ColumnPlan& c : plan) {
      if (c.width >= 0)
        continue;
      for (int64_t i = 0; i < num_rows; ++i) {
        if (c.array->IsValid(i))
          offsets_[static_cast<size_t>(i) + 1] += EscapedSize(c.array->StringValue(i));
      }
    }
    for (int64_t i = 0; i < num_rows; ++i) {
      pos[static_cast<size_t>(i)] = offsets_[static_cast<size_t>(i)];
      offsets_[static_cast<size_t>(i) + 1] += offsets_[static_cast<size_t>(i)];
    }
    data_.resize(static_cast<size_t>(offsets_.back()));
  }
  uint8_t* data = data_.data();
  for (const ColumnPlan& c : plan) {
    if (c.array->type_id() == TypeId::kNull) {
      for (int64_t i = 0; i < num_rows; ++i)
        data[pos[static_cast<size_t>(i)]++] = Marker(false, c.order);
    } else if (c.width < 0) {
      EncodeString(c, num_rows, data, pos.data());
    } else {
      DispatchFixed(c.array->type(),
                    [&](auto v) { EncodeFixed<decltype(v)>(c, num_rows, data, pos.data()); });
    }
  }
  return Status::OK();
}

void EncodedRows::Sort(std::vector<int32_t>* permutation) const {
  const int64_t n = num_rows_;
  permutation->resize(static_cast<size_t>(n));
  if (n == 0)
    return;
  std::vector<SortItem> items(static_cast<size_t>(n));
  // The first 8 bytes, big-endian, as an integer: most comparisons end there.
  for (int64_t i = 0; i < n; ++i) {
    uint8_t prefix[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::memcpy(prefix, row(i), static_cast<size_t>(std::min<int64_t>(8, row_size(i))));
    uint64_t key = 0;
    for (uint8_t b : prefix)
      key = (key << 8) | b;
    items[static_cast<size_t>(i)] = {key, static_cast<uint32_t>(i)};
  }
  if (fixed_width_ > 0 && fixed_width_ <= 8) {
    // The prefix is the whole key: a stable radix sort over the bytes that carry it.
    for (SortItem& it : items)
      it.key >>= 8 * (8 - fixed_width_);
    if (n >= 256) {
      RadixSort(&items, static_cast<int>(fixed_width_));
    } else {
      std::sort(items.begin(), items.end(), [](const SortItem& a, const SortItem& b) {
        return a.key != b.key ? a.key < b.key : a.row < b.row;
      });
    }
  } else {
    std::sort(items.begin(), items.end(), [this](const SortItem& a, const SortItem& b) {
      if (a.key != b.key)
        return a.key < b.key;
      const int c = Compare(*this, a.row, *this, b.row);
      return c != 0 ? c < 0 : a.row < b.row;
    });
  }
  for (int64_t i = 0; i < n; ++i)
    (*permutation)[static_cast<size_t>(i)] =
        static_cast<int32_t>(items[static_cast<size_t>(i)].row);
}

}  // namespace shoal::exec
