// `shoal tpchgen`: writes a TPC-H data set as .tbl files byte-identical to the reference dbgen's,
// in parallel. Usage:
//
//   shoal tpchgen --scale-factor 1 --output /data/tpch1 [--parts 8] [--threads 2]
//
// Errors (bad scale factor, unwritable output directory) print one line to stderr and exit 1.
#pragma once

#include <CLI/CLI.hpp>

namespace shoal::cli {

void RegisterTpchgenCommand(CLI::App& app);

}  // namespace shoal::cli
