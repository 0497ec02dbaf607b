// The distributed run modes of the SQL logic tests, so every .slt file also checks the distributed
// engine against the single-node answers:
//  - MakeInProcessMode(n): a coordinator over n in-process workers (as `shoal sql --workers
//    inproc:N`), a fresh cluster per file sharing the file's catalog;
//  - MakeWorkerProcessesMode(n, binary): a coordinator over n real `shoal worker` processes, gRPC
//    on 127.0.0.1, started once per slt process at the first file (worker_processes.h) and stopped
//    at exit. They have no tables of their own: the file's tables reach them inside the plans;
//  - MakeFileShuffleMode(binary): the materialized shuffle, `shoal task` processes exchanging
//    files in a temporary directory (a fresh subdirectory per statement, removed after it; the
//    whole directory at exit).
// WorkerSettings and ShuffleSettings are the session settings these configurations add so that
// even the tiny tables of the test files are cut into several tasks and stages.
//
// This file is the one place the slt runner calls the engine's execution-mode API
// (engine::UseCoordinator, engine::UseShuffleDriver).
#pragma once

#include <string>

#include "tests/slt/shoal_engine.h"

namespace shoal::slt {

SltRunModePtr MakeInProcessMode(int n);
SltRunModePtr MakeWorkerProcessesMode(int n, std::string shoal_binary);
SltRunModePtr MakeFileShuffleMode(std::string shoal_binary);

/// The settings of the configurations over workers: dist_bytes_per_task = 1, so every stage that
/// may split runs as many tasks as it may (one per worker, or per scan unit of its largest scan),
/// and 4 threads, so single-node plans have the repartitions and merges that become stage
/// boundaries.
ShoalSltEngine::SessionSettings WorkerSettings();

/// The settings of the file shuffle configuration: 4 threads (a stage per repartition or merge,
/// a task per partition).
ShoalSltEngine::SessionSettings ShuffleSettings();

}  // namespace shoal::slt
