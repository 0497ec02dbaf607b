// `shoal task ENVELOPE`: one task process of a materialized shuffle (dist/shuffle/shuffle_task.h).
// The driver (`shoal sql --shuffle-dir DIR`) starts one per (stage, partition). The task refuses an
// envelope written with other codec ids or naming a partition out of range, computes its partition
// into the stage file, and prints the partition's row count as the last line of stdout (the driver
// reads only that line). Errors go to stderr as "ERROR:  ..." with exit status 1.
#pragma once

#include <CLI/CLI.hpp>

namespace shoal::cli {

void RegisterTaskCommand(CLI::App& app);

}  // namespace shoal::cli
