// Helpers shared by the dist unit tests: TPC-H query text and order-insensitive result text.
#pragma once

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "shoal/columnar/scalar.h"
#include "shoal/exec/query_runner.h"

namespace shoal::dist::dist_testing {

inline std::string TpchQuery(int n) {
  char name[16];
  std::snprintf(name, sizeof(name), "q%02d.sql", n);
  std::ifstream in(std::string(SHOAL_TPCH_QUERY_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The rows as text lines, sorted: parallel plans may return ties (and unordered queries) in any
/// order, and the distributed and single-node runs must agree on the multiset of rows.
inline std::vector<std::string> SortedRows(const exec::QueryResult& result) {
  std::vector<std::string> rows;
  for (const auto& batch : result.batches) {
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string line;
      for (int c = 0; c < batch->num_columns(); ++c) {
        if (c > 0)
          line += '|';
        line += columnar::Scalar::FromArray(*batch->column(c), r).ToString();
      }
      rows.push_back(std::move(line));
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace shoal::dist::dist_testing
