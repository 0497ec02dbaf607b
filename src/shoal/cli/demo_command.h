// `shoal demo`: the foundation's end-to-end job. Builds a small in-memory table with a column of
// every core type (NULLs, a dictionary column, decimals, dates, timestamps, intervals, unicode),
// writes it as an Arrow IPC file, reads it back, checks that what came back equals what was
// written, and prints it as psql would. The distributed issue replaces this with a distributed
// TPC-H query as the README's main job.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "shoal/columnar/record_batch.h"

namespace shoal::cli {

/// The demo table: `rows` rows, one column per core type, deterministic contents.
Result<columnar::RecordBatchPtr> MakeDemoBatch(int64_t rows,
                                               const std::shared_ptr<MemoryPool>& pool);

void RegisterDemoCommand(CLI::App& app);

}  // namespace shoal::cli
