#include "shoal/cli/server_command.h"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include "shoal/cli/node_security_flags.h"
#include "shoal/cli/worker_command.h"
#include "shoal/common/log_context.h"
#include "shoal/common/settings.h"
#include "shoal/common/version.h"
#include "shoal/engine/in_process_workers.h"
#include "shoal/io/data_roots.h"
#include "shoal/server/auth_config.h"
#include "shoal/server/scram.h"
#include "shoal/server/server.h"

namespace shoal::cli {

namespace {

struct ServerArgs {
  std::string listen = "127.0.0.1:5432";
  std::string data_dir;
  std::string tpch_scale;
  std::string workers;
  std::vector<std::string> headers;
  std::string worker_version = DefaultWorkerVersion();
  std::string shuffle_dir;
  std::string tls_cert;
  std::string tls_key;
  std::string http;  // --http HOST:PORT: the web console and /metrics
  std::string log_format = "text";
  std::vector<std::string> console_admins;
  // --tls-ca, --cluster-secret-file, --insecure: the connections to --workers (with --tls-cert
  // and --tls-key, which serve both doors).
  engine::NodeSecurityOptions node_security;
  int threads = 100;
  int max_connections = 100;
  int max_running_queries = 8;
  int max_queued_queries = 1000;
  std::string memory_budget;
  std::vector<std::string> data_roots;  // --data-root: where SQL may name files
};

// "HOST:PORT", "[V6ADDR]:PORT" or ":PORT" (the default host).
Status SplitListen(const std::string& listen, std::string* host, int* port) {
  size_t colon = listen.rfind(':');
  if (colon == std::string::npos) {
    return Status::InvalidArgument("--listen '{}' is not HOST:PORT", listen);
  }
  std::string h = listen.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') {
    h = h.substr(1, h.size() - 2);
  }
  std::string p = listen.substr(colon + 1);
  if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(p) > 65535) {
    return Status::InvalidArgument("--listen '{}': '{}' is not a port (0-65535)", listen, p);
  }
  *host = h.empty() ? "127.0.0.1" : h;
  *port = std::stoi(p);
  return Status::OK();
}

Status RunServer(const ServerArgs& args) {
  server::ServerOptions options;
  SHOAL_RETURN_IF_ERROR(SplitListen(args.listen, &options.host, &options.port));
  if (args.threads < 1) {
    return Status::InvalidArgument("--threads must be at least 1, got {}", args.threads);
  }
  if (args.max_connections < 1) {
    return Status::InvalidArgument("--max-connections must be at least 1, got {}",
                                   args.max_connections);
  }
  std::error_code ec;
  std::filesystem::create_directories(args.data_dir, ec);
  if (ec || !std::filesystem::is_directory(args.data_dir)) {
    return Status::IoError("--data-dir {}: cannot create the directory: {}", args.data_dir,
                           ec ? ec.message() : "not a directory");
  }
  SHOAL_ASSIGN_OR_RETURN(io::DataRoots roots, io::DataRoots::Make(args.data_roots));
  io::SetProcessDataRoots(std::move(roots));
  options.threads = args.threads;
  options.max_connections = args.max_connections;
  if (args.max_running_queries < 1 || args.max_queued_queries < 0) {
    return Status::InvalidArgument(
        "--max-running-queries must be at least 1 and --max-queued-queries at least 0");
  }
  options.max_running_queries = args.max_running_queries;
  options.max_queued_queries = args.max_queued_queries;
  if (!args.memory_budget.empty()) {
    auto bytes = ParseByteSize(args.memory_budget);
    if (!bytes.ok() || *bytes <= 0) {
      return Status::InvalidArgument("--memory-budget '{}' is not a size such as 8GB",
                                     args.memory_budget);
    }
    options.memory_budget = *bytes;
  }
  options.setup.tpch_scale = args.tpch_scale;
  options.setup.workers = {args.workers, args.headers, args.worker_version};
  options.setup.shuffle_dir = args.shuffle_dir;
  options.server_version = std::string("15.0 (Shoal ") + kVersion + ")";
  options.data_dir = args.data_dir;
  options.tls_cert = args.tls_cert;
  options.tls_key = args.tls_key;
  options.http = args.http;
  if (args.log_format == "json")
    SetLogFormat(LogFormat::kJson);
  options.console_admins = args.console_admins;
  if (!args.workers.empty() && !engine::IsInProcessWorkers(args.workers)) {
    engine::NodeSecurityOptions node = args.node_security;
    if (!node.insecure) {
      node.tls_cert = args.tls_cert;
      node.tls_key = args.tls_key;
    }
    SHOAL_RETURN_IF_ERROR(
        SetUpNodeSecurity(node, "shoal server", "the connections to its --workers"));
  }
  if (!std::filesystem::exists(std::filesystem::path(args.data_dir) / "hba.conf")) {
    std::fprintf(stderr,
                 "WARNING:  %s/hba.conf does not exist: every connection is trusted (no "
                 "password)\n",
                 args.data_dir.c_str());
  }
  // Block the stop signals in every thread (before the server starts any: threads inherit the
  // mask); one thread waits for them and stops the server.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  server::Server server(std::move(options));
  SHOAL_RETURN_IF_ERROR(server.Start());
  std::string host = server.options().host;
  if (host.find(':') != std::string::npos) {
    host = "[" + host + "]";
  }
  std::printf("listening on %s:%d\n", host.c_str(), server.port());
  if (!server.http_url().empty())
    std::printf("console on %s\n", server.http_url().c_str());
  std::fflush(stdout);
  std::thread stopper([&] {
    int signal = 0;
    sigwait(&signals, &signal);
    server.Stop();
  });
  server.Wait();
  stopper.join();
  return Status::OK();
}

// The password, from the terminal without echo (asked twice) or from the first line of stdin.
Result<std::string> ReadPassword(const std::string& user) {
  auto read_line = [](std::string* line) {
    return static_cast<bool>(std::getline(std::cin, *line));
  };
  if (!isatty(STDIN_FILENO)) {
    std::string line;
    if (!read_line(&line) || line.empty()) {
      return Status::InvalidArgument("no password on standard input");
    }
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    return line;
  }
  termios old{};
  tcgetattr(STDIN_FILENO, &old);
  termios quiet = old;
  quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
  tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
  std::string first;
  std::string second;
  std::fprintf(stderr, "Password for %s: ", user.c_str());
  bool ok = read_line(&first);
  std::fprintf(stderr, "\nAgain: ");
  ok = ok && read_line(&second);
  std::fprintf(stderr, "\n");
  tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
  if (!ok || first.empty()) {
    return Status::InvalidArgument("no password given");
  }
  if (first != second) {
    return Status::InvalidArgument("the passwords do not match");
  }
  return first;
}

Status RunPasswd(const std::string& data_dir, const std::string& user) {
  if (data_dir.empty()) {
    return Status::InvalidArgument("--data-dir is required");
  }
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  SHOAL_ASSIGN_OR_RETURN(std::string password, ReadPassword(user));
  SHOAL_ASSIGN_OR_RETURN(auto verifier, server::ScramVerifier::FromPassword(password));
  SHOAL_RETURN_IF_ERROR(server::WriteUserEntry(data_dir, user, verifier));
  std::fprintf(stderr, "%s/users: SCRAM-SHA-256 verifier of %s written\n", data_dir.c_str(),
               user.c_str());
  return Status::OK();
}

void Report(const Status& st) {
  std::cerr << "ERROR:  " << st.UserMessage() << "\n";
  if (!st.hint().empty()) {
    std::cerr << "HINT:  " << st.hint() << "\n";
  }
}

}  // namespace

void RegisterServerCommand(CLI::App& app) {
  auto args = std::make_shared<ServerArgs>();
  CLI::App* cmd = app.add_subcommand(
      "server", "Run Shoal as a server PostgreSQL clients (psql, drivers) connect to");
  cmd->add_option("--listen", args->listen,
                  "HOST:PORT to listen on (default 127.0.0.1:5432; port 0: any free port)");
  cmd->add_option("--data-dir", args->data_dir,
                  "Directory of the server's own files (hba.conf, users); required");
  cmd->add_option("--tpch", args->tpch_scale,
                  "Generate the TPC-H tables of this scale factor in memory first (e.g. 0.01)");
  cmd->add_option("--workers", args->workers,
                  "Run queries across these `shoal worker`s: HOST:PORT[,HOST:PORT...], "
                  "file:PATH, dns:NAME:PORT, or inproc:N");
  cmd->add_option("--header", args->headers,
                  "KEY=VALUE sent with every call to workers; repeatable");
  cmd->add_option("--worker-version", args->worker_version,
                  "Version every worker must report (default: this binary's; '' : any)");
  cmd->add_option("--shuffle-dir", args->shuffle_dir,
                  "Run stages as `shoal task` processes exchanging files in DIR");
  cmd->add_option("--tls-cert", args->tls_cert,
                  "PEM certificate (chain) for TLS; with --tls-key, SSLRequest is answered 'S'");
  cmd->add_option("--tls-key", args->tls_key, "PEM private key of --tls-cert");
  cmd->add_option("--http", args->http,
                  "HOST:PORT of the web console, its JSON API and /metrics (off by default; "
                  "HTTPS with --tls-cert)");
  cmd->add_option("--log-format", args->log_format,
                  "text, or json: one JSON object a line with the query id (also "
                  "SHOAL_LOG_FORMAT=json)")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--console-admin", args->console_admins,
                  "A user who may cancel anyone's queries from the console (repeatable)");
  // --tls-cert and --tls-key also secure the connections to --workers (one certificate, both
  // doors).
  AddNodeSecurityFlags(cmd, &args->node_security, /*with_cert_and_key=*/false);
  cmd->add_option("--threads", args->threads,
                  "Threads serving connections; a connection holds one only while it has work "
                  "(default 100)");
  cmd->add_option("--max-running-queries", args->max_running_queries,
                  "Statements running plans at once; more wait in a queue (default 8)");
  cmd->add_option("--max-queued-queries", args->max_queued_queries,
                  "Statements waiting to run; more are refused with SQLSTATE 53300 (default 1000)");
  cmd->add_option("--memory-budget", args->memory_budget,
                  "Memory the running statements may hold together (e.g. 8GB; default 80% of "
                  "physical memory); each reserves its session's memory_limit, which starts at "
                  "the budget divided by --max-running-queries");
  cmd->add_option("--data-root", args->data_roots,
                  "External tables, COPY and spill_dir may name files only under this "
                  "directory (repeatable; default: anywhere)")
      ->allow_extra_args(false);
  cmd->add_option("--max-connections", args->max_connections,
                  "Connections open at once; more are refused with SQLSTATE 53300 (default 100)");
  auto passwd_user = std::make_shared<std::string>();
  auto passwd_dir = std::make_shared<std::string>();
  CLI::App* passwd = cmd->add_subcommand(
      "passwd", "Set USER's password (read from the terminal or stdin) in DATA_DIR/users");
  passwd->add_option("user", *passwd_user, "The user")->required();
  passwd->add_option("--data-dir", *passwd_dir, "The server's data directory")->required();
  passwd->callback([passwd_user, passwd_dir] {
    Status st = RunPasswd(*passwd_dir, *passwd_user);
    if (!st.ok()) {
      Report(st);
      throw CLI::RuntimeError(1);
    }
  });
  cmd->callback([args, cmd, passwd] {
    if (cmd->got_subcommand(passwd)) {
      return;
    }
    if (args->data_dir.empty()) {
      Report(Status::InvalidArgument("--data-dir is required"));
      throw CLI::RuntimeError(1);
    }
    Status st = RunServer(*args);
    if (!st.ok()) {
      Report(st);
      throw CLI::RuntimeError(1);
    }
  });
}

}  // namespace shoal::cli
