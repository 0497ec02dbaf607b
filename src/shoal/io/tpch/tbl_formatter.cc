#include "shoal/io/tpch/tbl_formatter.h"

#include <cstring>
#include <string_view>

#include "shoal/io/tpch/dates.h"

namespace shoal::io::tpch {
namespace {

constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

inline int DecimalDigits(uint64_t v) {
  int n = 1;
  while (v >= 10000) {
    v /= 10000;
    n += 4;
  }
  if (v >= 1000)
    return n + 3;
  if (v >= 100)
    return n + 2;
  if (v >= 10)
    return n + 1;
  return n;
}

// Writes v right-aligned in exactly `width` digits (which must hold it), zero-padded.
inline void WriteDigits(char* p, uint64_t v, int width) {
  char* end = p + width;
  while (v >= 100) {
    end -= 2;
    std::memcpy(end, kDigitPairs + (v % 100) * 2, 2);
    v /= 100;
  }
  if (v >= 10) {
    end -= 2;
    std::memcpy(end, kDigitPairs + v * 2, 2);
  } else {
    *--end = static_cast<char>('0' + v);
  }
  while (end > p)
    *--end = '0';
}

// printf("%0*lld", min_width, v) for v >= 0.
char* PutPadded(char* p, int64_t v, int min_width) {
  const int digits = DecimalDigits(static_cast<uint64_t>(v));
  const int width = digits > min_width ? digits : min_width;
  WriteDigits(p, static_cast<uint64_t>(v), width);
  return p + width;
}

// Most numbers in the data are short (line numbers, quantities, keys at small scale factors).
inline char* PutUnsigned(char* p, uint64_t v) {
  if (v < 10) {
    *p = static_cast<char>('0' + v);
    return p + 1;
  }
  if (v < 100) {
    std::memcpy(p, kDigitPairs + v * 2, 2);
    return p + 2;
  }
  const int digits = DecimalDigits(v);
  WriteDigits(p, v, digits);
  return p + digits;
}

inline char* PutInt(char* p, int64_t v) {
  if (v < 0) {
    *p++ = '-';
    v = -v;
  }
  return PutUnsigned(p, static_cast<uint64_t>(v));
}

// Cents as [-]D.CC.
inline char* PutMoney(char* p, int64_t cents) {
  if (cents < 0) {
    *p++ = '-';
    cents = -cents;
  }
  p = PutUnsigned(p, static_cast<uint64_t>(cents / 100));
  *p++ = '.';
  std::memcpy(p, kDigitPairs + (cents % 100) * 2, 2);
  return p + 2;
}

char* Put(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

template <size_t N>
char* PutLiteral(char* p, const char (&s)[N]) {
  std::memcpy(p, s, N - 1);
  return p + N - 1;
}

char* PutDate(char* p, int32_t epoch_day) {
  std::memcpy(p, dates::DateText(epoch_day), 10);
  return p + 10;
}

char* PutPhone(char* p, const PhoneNumber& phone) {
  WriteDigits(p, static_cast<uint64_t>(phone.country), 2);
  p[2] = '-';
  WriteDigits(p + 3, static_cast<uint64_t>(phone.area), 3);
  p[6] = '-';
  WriteDigits(p + 7, static_cast<uint64_t>(phone.exchange), 3);
  p[10] = '-';
  WriteDigits(p + 11, static_cast<uint64_t>(phone.number), 4);
  return p + 15;
}

char* Sep(char* p) {
  *p = '|';
  return p + 1;
}

}  // namespace

Status TblFormatter::Append(const RegionRow& row, TextBuffer* out) {
  SHOAL_RETURN_IF_ERROR(out->Reserve(kMaxRowBytes));
  char* p = out->tail();
  p = Sep(PutInt(p, row.region_key));
  p = Sep(Put(p, row.name));
  p = Sep(Put(p, row.comment));
  *p++ = '\n';
  out->CommitTo(p);
  return Status::OK();
}

Status TblFormatter::Append(const NationRow& row, TextBuffer* out) {
  SHOAL_RETURN_IF_ERROR(out->Reserve(kMaxRowBytes));
  char* p = out->tail();
  p = Sep(PutInt(p, row.nation_key));
  p = Sep(Put(p, row.name));
  p = Sep(PutInt(p, row.region_key));
  p = Sep(Put(p, row.comment));
  *p++ = '\n';
  out->CommitTo(p);
  return Status::OK();
}

Status TblFormatter::Append(const SupplierRow& row, TextBuffer* out) {
  SHOAL_RETURN_IF_ERROR(out->Reserve(kMaxRowBytes));
  char* p = out->tail();
  p = Sep(PutInt(p, row.supp_key));
  p = Sep(PutPadded(PutLiteral(p, "Supplier#"), row.supp_key, 9));
  p = Sep(Put(p, row.address()));
  p = Sep(PutInt(p, row.nation_key));
  p = Sep(PutPhone(p, row.phone));
  p = Sep(PutMoney(p, row.account_balance));
  p = Sep(Put(p, row.comment()));
  *p++ = '\n';
  out->CommitTo(p);
  return Status::OK();
}

Status TblFormatter::Append(const CustomerRow& row, TextBuffer* out) {
  SHOAL_RETURN_IF_ERROR(out->Reserve(kMaxRowBytes));
  char* p = out->tail();
  p = Sep(PutInt(p, row.cust_key));
  p = Sep(PutPadded(PutLiteral(p, "Customer#"), row.cust_key, 9));
  p = Sep(Put(p, row.address()));
  p = Sep(PutInt(p, row.nation_key));
  p = Sep(PutPhone(p, row.phone));
  p = Sep(PutMoney(p, row.account_balance));
  p = Sep(Put(p, row.market_segment));
  p = Sep(Put(p, row.comment));
  *p++ = '\n';
  out->CommitTo(p);
  return Status::OK();
}

Status TblFormatter::Append(const PartRow& row, TextBuffer* out) {
  SHOAL_RETURN_IF_ERROR(out->Reserve(kMaxRowBytes));
  char* p = out->tail();
  p = Sep(PutInt(p, row.part_key));
  p = Sep(Put(p, row.name()));
  p = Sep(PutInt(PutLiteral(p, "Manufacturer#"), row.manufacturer));
  p = Sep(PutPadded(PutLiteral(p, "Brand#"), row.brand, 2));
  p = Sep(Put(p, row.type));
  p = Sep(PutInt(p, row.size));
  p = Sep(Put(p, row.container));
  p = Sep(PutMoney(p, row.retail_price));
  p = Sep(Put(p, row.comment));
  *p++ = '\n';
  out->CommitTo(p);
  return Status::OK();
}

Status TblFormatter::AppendPartSupps(const PartRow& row, TextBuffer* out) {
  SHOAL_RETURN_IF_ERROR(out->Reserve(kMaxRowBytes * PartRow::kSuppliers));
  char* p = out->tail();
  for (const PartSuppRow& ps : row.suppliers) {
    p = Sep(PutInt(p, ps.part_key));
    p = Sep(PutInt(p, ps.supp_key));
    p = Sep(PutInt(p, ps.available_quantity));
    p = Sep(PutMoney(p, ps.supply_cost));
    p = Sep(Put(p, ps.comment));
    *p++ = '\n';
  }
  out->CommitTo(p);
  return Status::OK();
}

Status TblFormatter::Append(const OrderRow& row, TextBuffer* out) {
  SHOAL_RETURN_IF_ERROR(out->Reserve(kMaxRowBytes));
  char* p = out->tail();
  p = Sep(PutInt(p, row.order_key));
  p = Sep(PutInt(p, row.cust_key));
  *p++ = row.order_status;
  p = Sep(p);
  p = Sep(PutMoney(p, row.total_price));
  p = Sep(PutDate(p, row.order_date));
  p = Sep(Put(p, row.order_priority));
  p = Sep(PutPadded(PutLiteral(p, "Clerk#"), row.clerk, 9));
  p = Sep(PutInt(p, row.ship_priority));
  p = Sep(Put(p, row.comment));
  *p++ = '\n';
  out->CommitTo(p);
  return Status::OK();
}

Status TblFormatter::AppendLineItems(const OrderRow& row, TextBuffer* out) {
  SHOAL_RETURN_IF_ERROR(out->Reserve(kMaxRowBytes * OrderRow::kMaxLines));
  char* p = out->tail();
  for (int i = 0; i < row.line_count; ++i) {
    const LineItemRow& line = row.lines[i];
    p = Sep(PutInt(p, line.order_key));
    p = Sep(PutInt(p, line.part_key));
    p = Sep(PutInt(p, line.supp_key));
    p = Sep(PutInt(p, line.line_number));
    p = Sep(PutInt(p, line.quantity));
    p = Sep(PutMoney(p, line.extended_price));
    p = Sep(PutMoney(p, line.discount));
    p = Sep(PutMoney(p, line.tax));
    p[0] = line.return_flag;
    p[1] = '|';
    p[2] = line.line_status;
    p[3] = '|';
    p += 4;
    p = Sep(PutDate(p, line.ship_date));
    p = Sep(PutDate(p, line.commit_date));
    p = Sep(PutDate(p, line.receipt_date));
    p = Sep(Put(p, line.ship_instruct));
    p = Sep(Put(p, line.ship_mode));
    p = Sep(Put(p, line.comment));
    *p++ = '\n';
  }
  out->CommitTo(p);
  return Status::OK();
}

}  // namespace shoal::io::tpch
