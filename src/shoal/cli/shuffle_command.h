// `shoal shuffle gc DIR`: removes a finished materialized-shuffle query's files from DIR (stage
// files, temporaries left by killed writers, and the driver's tasks/ directory), so the directory
// can serve another query. Other files in DIR are left alone.
#pragma once

#include <CLI/CLI.hpp>

namespace shoal::cli {

void RegisterShuffleCommand(CLI::App& app);

}  // namespace shoal::cli
