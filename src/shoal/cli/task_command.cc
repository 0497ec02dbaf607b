#include "shoal/cli/task_command.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <sys/prctl.h>

#include "shoal/cli/node_security_flags.h"
#include "shoal/engine/shuffle_tasks.h"

namespace shoal::cli {

void RegisterTaskCommand(CLI::App& app) {
  auto envelope = std::make_shared<std::string>();
  auto security = std::make_shared<engine::NodeSecurityOptions>();
  CLI::App* cmd =
      app.add_subcommand("task", "Run one task of a materialized shuffle (started by the driver)");
  cmd->add_option("envelope", *envelope, "The task's envelope (DIR/tasks/task-S-P.envelope)")
      ->required();
  // The worker that starts a task passes its own (node_security.h: ChildProcessArgs); a task of
  // a local shuffle makes no remote calls and gets none.
  AddNodeSecurityFlags(cmd, security.get());
  cmd->callback([envelope, security] {
    // `ps` and `top` show the task as "shoal", whatever the binary's file is called.
    ::prctl(PR_SET_NAME, "shoal", 0, 0, 0);
    Result<int64_t> rows = int64_t{0};
    const bool secured = !security->tls_cert.empty() || !security->cluster_secret_file.empty();
    if (secured) {
      Result<bool> installed = engine::InstallNodeSecurity(*security, "shoal task");
      if (!installed.ok())
        rows = installed.status();
    }
    if (rows.ok())
      rows = engine::RunShuffleTask(*envelope);
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
