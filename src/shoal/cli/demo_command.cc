#include "shoal/cli/demo_command.h"

namespace shoal::cli {

void RegisterDemoCommand(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("demo", "Write a small table as an Arrow IPC file and print it back");
  (void)cmd;
}

}  // namespace shoal::cli
