// Small helpers shared by the files that implement Connection (connection.cc, the start-up and
// authentication in connection_startup.cc, the extended query protocol in
// connection_extended.cc). Not for use outside them.
#pragma once

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

#include "shoal/common/status.h"

namespace shoal::server::internal {

inline int32_t DecodeInt32(const char* b) {
  auto u = [&](int k) { return static_cast<uint32_t>(static_cast<uint8_t>(b[k])); };
  return static_cast<int32_t>((u(0) << 24) | (u(1) << 16) | (u(2) << 8) | u(3));
}

inline Status ClientGone() {
  return Status::IoError("the client closed the connection").WithSqlState("08006");
}

inline std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

/// The row count of a command tag ("SELECT 3", "INSERT 0 2": its last number; 0 without one).
inline int64_t RowsOfTag(std::string_view tag) {
  const size_t space = tag.rfind(' ');
  int64_t rows = 0;
  if (space == std::string_view::npos)
    return 0;
  for (char c : tag.substr(space + 1)) {
    if (c < '0' || c > '9')
      return 0;
    rows = rows * 10 + (c - '0');
  }
  return rows;
}

}  // namespace shoal::server::internal
