// `shoal demo`: the foundation's end-to-end job. Builds a small in-memory table of every type,
// writes it as an Arrow IPC file, reads it back and prints it. The distributed issue replaces this
// with a distributed TPC-H query as the README's main job.
#pragma once

#include <CLI/CLI.hpp>

namespace shoal::cli {

void RegisterDemoCommand(CLI::App& app);

}  // namespace shoal::cli
