#include "shoal/cli/shuffle_command.h"

#include <iostream>
#include <memory>
#include <string>

#include "shoal/engine/shuffle_tasks.h"

namespace shoal::cli {

void RegisterShuffleCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("shuffle", "Manage materialized-shuffle directories");
  cmd->require_subcommand(1);
  auto dir = std::make_shared<std::string>();
  CLI::App* gc = cmd->add_subcommand("gc", "Remove a finished query's stage files and tasks/");
  gc->add_option("dir", *dir, "The shuffle directory")->required();
  gc->callback([dir] {
    Result<int64_t> removed = engine::RemoveShuffleFiles(*dir);
    if (!removed.ok()) {
      std::cerr << "ERROR:  " << removed.status().UserMessage() << "\n";
      throw CLI::RuntimeError(1);
    }
    std::cout << "removed " << *removed << " files from " << *dir << "\n";
  });
}

}  // namespace shoal::cli
