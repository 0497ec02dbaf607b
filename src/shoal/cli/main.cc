// The `shoal` command: one binary that is the shell, the coordinator, the worker and the server.
// Subcommands are added by the layers as they land; this file registers the settings catalog
// (engine/settings_catalog.h: every process does, before anything else; an error is fatal) and
// dispatches.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "shoal/cli/demo_command.h"
#include "shoal/cli/server_command.h"
#include "shoal/cli/shuffle_command.h"
#include "shoal/cli/sql_command.h"
#include "shoal/cli/task_command.h"
#include "shoal/cli/tpchgen_command.h"
#include "shoal/cli/worker_command.h"
#include "shoal/common/process_allocator.h"
#include "shoal/common/version.h"
#include "shoal/engine/settings_catalog.h"

int main(int argc, char** argv) {
  shoal::TuneProcessAllocator();  // first: before any thread exists
  if (shoal::Status st = shoal::engine::RegisterSettings(); !st.ok()) {
    std::fprintf(stderr, "shoal: %s\n", st.ToString().c_str());
    return 1;
  }
  CLI::App app{"Shoal: a distributed SQL query engine"};
  app.set_version_flag("--version", std::string("shoal ") + shoal::kVersion);
  app.require_subcommand(0, 1);
  shoal::cli::RegisterDemoCommand(app);
  shoal::cli::RegisterTpchgenCommand(app);
  shoal::cli::RegisterSqlCommand(app);
  shoal::cli::RegisterWorkerCommand(app);
  shoal::cli::RegisterServerCommand(app);
  shoal::cli::RegisterTaskCommand(app);
  shoal::cli::RegisterShuffleCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (app.get_subcommands().empty()) {
    std::fputs(app.help().c_str(), stdout);
  }
  return 0;
}
