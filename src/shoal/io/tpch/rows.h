// Typed rows of the eight TPC-H tables, as the generators produce them and before any formatting.
//
// Values keep their natural types: keys and counts as integers, money as int64 cents (DECIMAL(15,2)
// unscaled), discount and tax as int64 hundredths, dates as days since 1970-01-01 (date32), flags
// as chars. Text is a view into the shared TextPool or into the static value lists, or, where a
// row builds its own text (addresses, part names), a small buffer inside the row read through an
// accessor. So a row can go to the .tbl formatter or, later, into columnar builders, without any
// per-row allocation. Rows are refilled in place by the generators; views stay valid as long as
// the TextPool does.
#pragma once

#include <cstdint>
#include <string_view>

namespace shoal::io::tpch {

/// A phone number "CC-AAA-EEE-NNNN"; the country code is 10 + the nation key.
struct PhoneNumber {
  int32_t country = 0;
  int32_t area = 0;
  int32_t exchange = 0;
  int32_t number = 0;
};

struct RegionRow {
  int64_t region_key = 0;
  std::string_view name;
  std::string_view comment;
};

struct NationRow {
  int64_t nation_key = 0;
  std::string_view name;
  int64_t region_key = 0;
  std::string_view comment;
};

struct SupplierRow {
  static constexpr int kMaxAddress = 40;
  static constexpr int kMaxComment = 100;

  int64_t supp_key = 0;
  int64_t nation_key = 0;
  PhoneNumber phone = {};
  int64_t account_balance = 0;  // cents
  int32_t address_length = 0;
  int32_t comment_length = 0;
  char address_buffer[kMaxAddress] = {};
  // Pool text, copied because some suppliers get "Customer ... Complaints" written into it.
  char comment_buffer[kMaxComment] = {};

  std::string_view address() const { return {address_buffer, static_cast<size_t>(address_length)}; }

  std::string_view comment() const { return {comment_buffer, static_cast<size_t>(comment_length)}; }
};

struct CustomerRow {
  static constexpr int kMaxAddress = 40;

  int64_t cust_key = 0;
  int64_t nation_key = 0;
  PhoneNumber phone = {};
  int64_t account_balance = 0;  // cents
  std::string_view market_segment;
  std::string_view comment;
  int32_t address_length = 0;
  char address_buffer[kMaxAddress] = {};

  std::string_view address() const { return {address_buffer, static_cast<size_t>(address_length)}; }
};

struct PartSuppRow {
  int64_t part_key = 0;
  int64_t supp_key = 0;
  int64_t available_quantity = 0;
  int64_t supply_cost = 0;  // cents
  std::string_view comment;
};

struct PartRow {
  static constexpr int kSuppliers = 4;
  static constexpr int kMaxName = 64;

  int64_t part_key = 0;
  int32_t manufacturer = 0;  // Manufacturer#M, M in [1, 5]
  int32_t brand = 0;         // Brand#MN, N in [1, 5]
  std::string_view type;
  int64_t size = 0;
  std::string_view container;
  int64_t retail_price = 0;  // cents
  std::string_view comment;
  int32_t name_length = 0;
  char name_buffer[kMaxName] = {};  // five distinct colors separated by spaces
  PartSuppRow suppliers[kSuppliers] = {};

  std::string_view name() const { return {name_buffer, static_cast<size_t>(name_length)}; }
};

struct LineItemRow {
  int64_t order_key = 0;
  int64_t part_key = 0;
  int64_t supp_key = 0;
  int64_t line_number = 0;
  int64_t quantity = 0;
  int64_t extended_price = 0;  // cents
  int64_t discount = 0;        // hundredths
  int64_t tax = 0;             // hundredths
  char return_flag = 0;
  char line_status = 0;
  int32_t ship_date = 0;
  int32_t commit_date = 0;
  int32_t receipt_date = 0;
  std::string_view ship_instruct;
  std::string_view ship_mode;
  std::string_view comment;
};

struct OrderRow {
  static constexpr int kMaxLines = 7;

  int64_t order_key = 0;
  int64_t cust_key = 0;
  char order_status = 0;
  int64_t total_price = 0;  // cents
  int32_t order_date = 0;
  std::string_view order_priority;
  int64_t clerk = 0;  // Clerk#NNNNNNNNN
  int64_t ship_priority = 0;
  std::string_view comment;
  int32_t line_count = 0;
  LineItemRow lines[kMaxLines] = {};
};

}  // namespace shoal::io::tpch
