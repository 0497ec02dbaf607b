#include "shoal/cli/task_command.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <sys/prctl.h>

#include "shoal/engine/shuffle_tasks.h"

namespace shoal::cli {

void RegisterTaskCommand(CLI::App& app) {
  auto envelope = std::make_shared<std::string>();
  CLI::App* cmd =
      app.add_subcommand("task", "Run one task of a materialized shuffle (started by the driver)");
  cmd->add_option("envelope", *envelope, "The task's envelope (DIR/tasks/task-S-P.envelope)")
      ->required();
  cmd->callback([envelope] {
    // `ps` and `top` show the task as "shoal", whatever the binary's file is called.
    ::prctl(PR_SET_NAME, "shoal", 0, 0, 0);
    Result<int64_t> rows = engine::RunShuffleTask(*envelope);
    if (!rows.ok()) {
      // The driver reads the code and SQLSTATE from stdout's last line: it never retries a task
      // whose error would come back on every attempt (a division by zero).
      std::printf("%s\n", engine::ShuffleTaskErrorReport(rows.status()).c_str());
      std::fflush(stdout);
      std::cerr << "ERROR:  " << rows.status().UserMessage() << "\n";
      if (!rows.status().hint().empty())
        std::cerr << "HINT:  " << rows.status().hint() << "\n";
      throw CLI::RuntimeError(1);
    }
    std::printf("%lld\n", static_cast<long long>(*rows));
    std::fflush(stdout);
  });
}

}  // namespace shoal::cli
