#include "shoal/cli/task_command.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <sys/prctl.h>

#include "shoal/cli/node_security_flags.h"
#include "shoal/engine/shuffle_tasks.h"

namespace shoal::cli {

namespace {

// The task, in a process exec'd as `shoal task ENVELOPE` or forked by a launcher: one function,
// so that both behave alike to the byte. Returns the process's exit status.
int RunTask(const std::string& envelope, const engine::NodeSecurityOptions& security) {
  // `ps` and `top` show the task as "shoal", whatever the binary's file is called.
  ::prctl(PR_SET_NAME, "shoal", 0, 0, 0);
  Result<int64_t> rows = int64_t{0};
  const bool secured = !security.tls_cert.empty() || !security.cluster_secret_file.empty();
  if (secured) {
    Result<bool> installed = engine::InstallNodeSecurity(security, "shoal task");
    if (!installed.ok())
      rows = installed.status();
  }
  if (rows.ok())
    rows = engine::RunShuffleTask(envelope);
  if (!rows.ok()) {
    // The driver reads the code and SQLSTATE from stdout's last line: it never retries a task
    // whose error would come back on every attempt (a division by zero).
    std::printf("%s\n", engine::ShuffleTaskErrorReport(rows.status()).c_str());
    std::fflush(stdout);
    std::cerr << "ERROR:  " << rows.status().UserMessage() << "\n";
    if (!rows.status().hint().empty())
      std::cerr << "HINT:  " << rows.status().hint() << "\n";
    return 1;
  }
  std::printf("%lld\n", static_cast<long long>(*rows));
  std::fflush(stdout);
  return 0;
}

}  // namespace

void RegisterTaskCommand(CLI::App& app) {
  auto envelope = std::make_shared<std::string>();
  auto security = std::make_shared<engine::NodeSecurityOptions>();
  auto launcher_fd = std::make_shared<int>(-1);
  auto argv_space = std::make_shared<std::string>();
  CLI::App* cmd =
      app.add_subcommand("task", "Run one task of a materialized shuffle (started by the driver)");
  cmd->add_option("envelope", *envelope, "The task's envelope (DIR/tasks/task-S-P.envelope)");
  // Hidden (no group): the driver's fork server (task_launcher.h), connected on this descriptor;
  // it forks each task, which then runs as `shoal task ENVELOPE` would.
  cmd->add_option("--launcher", *launcher_fd)->group("");
  // Room on the command line for each forked task to write its own name over (ps shows it).
  cmd->add_option("--argv-space", *argv_space)->group("");
  // The worker that starts a task passes its own (node_security.h: ChildProcessArgs); a task of
  // a local shuffle makes no remote calls and gets none.
  AddNodeSecurityFlags(cmd, security.get());
  // Every value an option writes into is kept alive by the callback, which the App owns: the
  // options hold plain references, and parsing happens after this function has returned.
  cmd->callback([envelope, security, launcher_fd, argv_space] {
    (void)argv_space;  // written by the parser only; the launcher blanks argv itself
    if (*launcher_fd >= 0) {
      if (!envelope->empty())
        throw CLI::ValidationError("envelope", "a launcher (--launcher) runs no envelope itself");
      const int status = engine::ServeShuffleTaskLauncher(
          *launcher_fd, [security](const std::string& path) { return RunTask(path, *security); });
      if (status != 0)
        throw CLI::RuntimeError(status);
      return;
    }
    if (envelope->empty())
      throw CLI::RequiredError("envelope");
    if (const int status = RunTask(*envelope, *security); status != 0)
      throw CLI::RuntimeError(status);
  });
}

}  // namespace shoal::cli
