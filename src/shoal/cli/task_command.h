// `shoal task ENVELOPE`: one task process of a materialized shuffle (dist/shuffle/shuffle_task.h).
// The driver (`shoal sql --shuffle-dir DIR`) starts one per (stage, partition). The task refuses an
// envelope written with other codec ids or naming a partition out of range, computes its partition
// into the stage file, and prints the partition's row count as the last line of stdout (the driver
// reads only that line). Errors go to stderr as "ERROR:  ..." with exit status 1.
// `shoal task --launcher FD` (hidden) is the driver's fork server instead
// (distributed/shuffle/task_launcher.h): started once per driver, it forks a child per task that
// runs the same function as `shoal task ENVELOPE`, without paying for an exec each time.
#pragma once

#include <CLI/CLI.hpp>

namespace shoal::cli {

void RegisterTaskCommand(CLI::App& app);

}  // namespace shoal::cli
