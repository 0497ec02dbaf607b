#include "shoal/engine/session_setup.h"

#include <utility>

#include "shoal/distributed/shuffle/shuffle_driver.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/io/tpch/scale.h"

namespace shoal::engine {

namespace {

// "H:P,H:P" as a worker list; every entry must name a port.
Result<std::vector<std::string>> ParseShuffleWorkers(const std::string& list) {
  std::vector<std::string> workers;
  for (size_t start = 0; start < list.size();) {
    size_t end = list.find(',', start);
    if (end == std::string::npos)
      end = list.size();
    std::string worker = list.substr(start, end - start);
    if (worker.empty() || worker.find(':') == std::string::npos)
      return Status::InvalidArgument("--shuffle-workers: '{}' is not HOST:PORT", worker);
    workers.push_back(std::move(worker));
    start = end + 1;
  }
  return workers;
}

}  // namespace

Status SetUpSession(const SessionSetup& setup, QueryRunner& runner) {
  if (!setup.tpch_scale.empty()) {
    SHOAL_ASSIGN_OR_RETURN(io::tpch::TpchScale scale, io::tpch::TpchScale::Parse(setup.tpch_scale));
    SHOAL_RETURN_IF_ERROR(RegisterTpchTables(scale, runner.session().catalog().get()));
  }
  if (!setup.workers.workers.empty() && !setup.shuffle_dir.empty())
    return Status::InvalidArgument("--shuffle-dir and --workers cannot be combined yet");
  if (!setup.workers.workers.empty())
    return UseWorkers(runner, setup.workers, setup.tpch_scale);
  if (!setup.shuffle_workers.empty() && setup.shuffle_dir.empty())
    return Status::InvalidArgument("--shuffle-workers needs --shuffle-dir")
        .WithHint("the driver keeps the final stage's files in its own --shuffle-dir");
  distributed::shuffle::ShuffleDriverOptions shuffle;
  shuffle.tpch_scale = setup.tpch_scale;
  SHOAL_ASSIGN_OR_RETURN(shuffle.workers, ParseShuffleWorkers(setup.shuffle_workers));
  SHOAL_RETURN_IF_ERROR(UseShuffleDriver(runner, std::move(shuffle)));
  if (!setup.shuffle_dir.empty())
    SHOAL_RETURN_IF_ERROR(runner.session().settings().Set("shuffle_dir", setup.shuffle_dir));
  return Status::OK();
}

}  // namespace shoal::engine
