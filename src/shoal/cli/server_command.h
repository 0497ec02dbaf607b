// `shoal server`: runs the coordinator as a service that PostgreSQL clients (psql, drivers)
// connect to (server/server.h).
//
//   shoal server --listen HOST:PORT --data-dir DIR [--tpch SF] [--workers ...] [--threads N]
//                [--max-connections N]
//
//   shoal server passwd USER --data-dir DIR     (the password from the terminal or stdin)
//
// It prints "listening on HOST:PORT" (the real port when PORT is 0) on stdout once it accepts
// connections, refuses an address already in use, and runs until SIGINT or SIGTERM.
#pragma once

#include <CLI/CLI.hpp>

namespace shoal::cli {

void RegisterServerCommand(CLI::App& app);

}  // namespace shoal::cli
