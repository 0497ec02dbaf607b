#include "shoal/io/tpch/scale.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace shoal::io::tpch {
namespace {

// Rows per unit of scale factor (clause 4.2.5).
constexpr int64_t kPartBase = 200000;
constexpr int64_t kSupplierBase = 10000;
constexpr int64_t kCustomerBase = 150000;
constexpr int64_t kOrderBase = 1500000;
constexpr int64_t kClerksPerScale = 1000;

}  // namespace

Result<TpchScale> TpchScale::Parse(std::string_view text) {
  std::string s(text);
  const char* begin = s.c_str();
  while (*begin == ' ' || *begin == '\t')
    ++begin;
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(begin, &end);
  while (end != nullptr && (*end == ' ' || *end == '\t'))
    ++end;
  if (s.empty() || end == begin || end == nullptr || *end != '\0' || errno == ERANGE ||
      !std::isfinite(value)) {
    return Status::InvalidArgument("scale factor '{}' is not a number", text);
  }
  return FromScaleFactor(value);
}

Result<TpchScale> TpchScale::FromScaleFactor(double scale_factor) {
  if (!(scale_factor > 0)) {
    return Status::InvalidArgument("scale factor must be positive, got {}", scale_factor);
  }
  if (scale_factor >= kMaxScaleFactor) {
    return Status::InvalidArgument(
        "scale factor {} is not supported: the limit is below {} (the reference generator changes "
        "its algorithm at {})",
        scale_factor, kMaxScaleFactor, kMaxScaleFactor);
  }
  TpchScale scale;
  scale.scale_factor_ = scale_factor;
  if (scale_factor < 1.0) {
    // dbgen: int_scale = (int)(1000 * flt_scale); base = max(1, int_scale * base / 1000).
    scale.thousandths_ = static_cast<int>(1000 * scale_factor);
    scale.integer_scale_ = 1;
    auto scaled = [&](int64_t base) {
      return std::max<int64_t>(1, scale.thousandths_ * base / 1000);
    };
    scale.part_count_ = scaled(kPartBase);
    scale.supplier_count_ = scaled(kSupplierBase);
    scale.customer_count_ = scaled(kCustomerBase);
    scale.order_count_ = scaled(kOrderBase);
  } else {
    scale.integer_scale_ = static_cast<int64_t>(scale_factor);
    scale.part_count_ = kPartBase * scale.integer_scale_;
    scale.supplier_count_ = kSupplierBase * scale.integer_scale_;
    scale.customer_count_ = kCustomerBase * scale.integer_scale_;
    scale.order_count_ = kOrderBase * scale.integer_scale_;
  }
  scale.clerk_count_ = std::max(scale.integer_scale_ * kClerksPerScale, kClerksPerScale);
  return scale;
}

double TpchScale::effective_scale_factor() const {
  if (scale_factor_ < 1.0)
    return static_cast<double>(thousandths_) / 1000.0;
  return static_cast<double>(integer_scale_);
}

int64_t TpchScale::RowCount(TpchTable table) const {
  switch (table) {
    case TpchTable::kRegion: return 5;
    case TpchTable::kNation: return 25;
    case TpchTable::kSupplier: return supplier_count_;
    case TpchTable::kCustomer: return customer_count_;
    case TpchTable::kPart:
    case TpchTable::kPartSupp: return part_count_;
    case TpchTable::kOrders:
    case TpchTable::kLineItem: return order_count_;
  }
  return 0;
}

}  // namespace shoal::io::tpch
