// The eight TPC-H tables, their file names, and the row counts of a scale factor.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace shoal::io::tpch {

enum class TpchTable : uint8_t {
  kRegion,
  kNation,
  kSupplier,
  kCustomer,
  kPart,
  kPartSupp,
  kOrders,
  kLineItem,
};

inline constexpr TpchTable kAllTpchTables[] = {
    TpchTable::kRegion, TpchTable::kNation,   TpchTable::kSupplier, TpchTable::kCustomer,
    TpchTable::kPart,   TpchTable::kPartSupp, TpchTable::kOrders,   TpchTable::kLineItem,
};

/// The lower-case table name, which is also the base of its file name ("lineitem").
constexpr std::string_view TpchTableName(TpchTable table) {
  switch (table) {
    case TpchTable::kRegion: return "region";
    case TpchTable::kNation: return "nation";
    case TpchTable::kSupplier: return "supplier";
    case TpchTable::kCustomer: return "customer";
    case TpchTable::kPart: return "part";
    case TpchTable::kPartSupp: return "partsupp";
    case TpchTable::kOrders: return "orders";
    case TpchTable::kLineItem: return "lineitem";
  }
  return "";
}

constexpr std::optional<TpchTable> TpchTableFromName(std::string_view name) {
  for (TpchTable t : kAllTpchTables) {
    if (TpchTableName(t) == name)
      return t;
  }
  return std::nullopt;
}

}  // namespace shoal::io::tpch
