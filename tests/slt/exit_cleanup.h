// Exit cleanup for the shoal_slt executable: what the distributed configurations leave outside the
// process (`shoal worker` processes, temporary shuffle directories) is undone however the run
// ends — when main returns, or on SIGINT / SIGTERM / SIGHUP (ctest's timeout, Ctrl-C).
//
// InstallSignalCleanup blocks those signals in every thread (call it first in main, before any
// thread exists) and starts one thread that waits for them, runs the registered cleanups and exits
// with 128 + the signal. A SIGKILL runs nothing: worker processes die with their parent anyway
// (worker_processes.h sets PR_SET_PDEATHSIG), only a temporary directory may be left behind.
#pragma once

#include <functional>

namespace shoal::slt {

void InstallSignalCleanup();

/// Registers `cleanup` to run once, at RunExitCleanups or on a signal; returns an id for
/// RemoveExitCleanup. Thread-safe.
int AddExitCleanup(std::function<void()> cleanup);

/// Runs the cleanup now (if it has not run) and forgets it.
void RunAndRemoveExitCleanup(int id);

/// Runs every registered cleanup, newest first (main, after SltMain).
void RunExitCleanups();

}  // namespace shoal::slt
