#include "tests/slt/distributed_modes.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/shuffle/shuffle_driver.h"
#include "shoal/distributed/transport/grpc_worker_channel.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/distributed/worker/worker_service.h"
#include "shoal/engine/execution_modes.h"
#include "tests/slt/exit_cleanup.h"
#include "tests/slt/worker_processes.h"

namespace shoal::slt {
namespace {

namespace fs = std::filesystem;

// Runs `runner`'s queries on the workers at `addresses`, reached through `channels`.
Status UseWorkers(engine::QueryRunner& runner, std::vector<std::string> addresses,
                  distributed::ChannelResolverPtr channels) {
  distributed::CoordinatorOptions options;
  options.workers = std::move(addresses);
  options.channels = std::move(channels);
  SHOAL_ASSIGN_OR_RETURN(auto coordinator, distributed::Coordinator::Make(std::move(options)));
  SHOAL_RETURN_IF_ERROR(coordinator->CheckWorkers());
  engine::UseCoordinator(runner, coordinator);
  return Status::OK();
}

class InProcessWorkersMode final : public SltRunMode {
 public:
  explicit InProcessWorkersMode(int n) : n_(n) {}

  Result<std::unique_ptr<SltAttachment>> Attach(engine::QueryRunner& runner) override {
    auto cluster = distributed::InProcessCluster::Make();
    std::vector<std::string> addresses;
    for (int i = 0; i < n_; ++i) {
      distributed::WorkerServiceOptions worker;
      worker.address = fmt::format("inproc-{}", i + 1);
      worker.catalog = runner.session().catalog();
      addresses.push_back(worker.address);
      SHOAL_RETURN_IF_ERROR(cluster->AddWorker(std::move(worker)));
    }
    SHOAL_RETURN_IF_ERROR(UseWorkers(runner, std::move(addresses), cluster));
    return std::unique_ptr<SltAttachment>(new Attached(std::move(cluster)));
  }

 private:
  struct Attached final : SltAttachment {
    explicit Attached(std::shared_ptr<distributed::InProcessCluster> c) : cluster(std::move(c)) {}
    std::shared_ptr<distributed::InProcessCluster> cluster;
  };

  int n_;
};

class WorkerProcessesMode final : public SltRunMode {
 public:
  WorkerProcessesMode(int n, std::string binary) : n_(n), binary_(std::move(binary)) {}

  ~WorkerProcessesMode() override {
    if (cleanup_id_ >= 0)
      RunAndRemoveExitCleanup(cleanup_id_);
  }

  Result<std::unique_ptr<SltAttachment>> Attach(engine::QueryRunner& runner) override {
    std::vector<std::string> addresses;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!workers_) {
        // Once per process: the files share the workers, which keep nothing of a file but the
        // tasks of its running query (its tables travel inside the plans).
        SHOAL_ASSIGN_OR_RETURN(std::unique_ptr<slt::WorkerProcesses> started,
                               slt::WorkerProcesses::Start(binary_, n_));
        workers_ = std::shared_ptr<slt::WorkerProcesses>(std::move(started));
        cleanup_id_ = AddExitCleanup([workers = workers_] { workers->Stop(); });
        channels_ = std::make_shared<distributed::GrpcChannelResolver>();
      }
      addresses = workers_->addresses();
    }
    SHOAL_RETURN_IF_ERROR(UseWorkers(runner, std::move(addresses), channels_));
    return std::make_unique<SltAttachment>();
  }

 private:
  int n_;
  std::string binary_;
  std::mutex mutex_;
  std::shared_ptr<slt::WorkerProcesses> workers_;
  std::shared_ptr<distributed::GrpcChannelResolver> channels_;
  int cleanup_id_ = -1;
};

// A file's shuffle directories: a fresh root under the system's temporary directory, removed with
// the engine or at exit, and one subdirectory per statement.
class ShuffleAttachment final : public SltAttachment {
 public:
  static Result<std::unique_ptr<SltAttachment>> Make() {
    std::string pattern = (fs::temp_directory_path() / "shoal-slt-shuffle-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      return Status::IoError("cannot make a shuffle directory from {}", pattern);
    return std::unique_ptr<SltAttachment>(new ShuffleAttachment(std::move(pattern)));
  }

  ~ShuffleAttachment() override { RunAndRemoveExitCleanup(cleanup_id_); }

  Result<engine::QueryResult> Run(engine::QueryRunner& runner, std::string_view sql) override {
    // A shuffle directory serves one query; removing it after the statement keeps a long file
    // from piling up stage files.
    const std::string dir = fmt::format("{}/s{}", root_, next_statement_++);
    SHOAL_RETURN_IF_ERROR(runner.session().settings().Set("shuffle_dir", dir));
    Result<engine::QueryResult> result = runner.RunOne(sql);
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (ec && result.ok())
      return Status::IoError("cannot remove shuffle directory {}: {}", dir, ec.message());
    return result;
  }

 private:
  explicit ShuffleAttachment(std::string root)
      : root_(std::move(root)), cleanup_id_(AddExitCleanup([root = root_] {
          std::error_code ec;
          fs::remove_all(root, ec);
        })) {}

  std::string root_;
  int cleanup_id_;
  int64_t next_statement_ = 0;
};

class FileShuffleMode final : public SltRunMode {
 public:
  explicit FileShuffleMode(std::string binary) : binary_(std::move(binary)) {}

  Result<std::unique_ptr<SltAttachment>> Attach(engine::QueryRunner& runner) override {
    SHOAL_ASSIGN_OR_RETURN(std::unique_ptr<SltAttachment> attached, ShuffleAttachment::Make());
    distributed::shuffle::ShuffleDriverOptions options;
    options.executable = binary_;
    SHOAL_RETURN_IF_ERROR(engine::UseShuffleDriver(runner, std::move(options)));
    return attached;
  }

 private:
  std::string binary_;
};

}  // namespace

SltRunModePtr MakeInProcessMode(int n) {
  return std::make_shared<InProcessWorkersMode>(n);
}

SltRunModePtr MakeWorkerProcessesMode(int n, std::string shoal_binary) {
  return std::make_shared<WorkerProcessesMode>(n, std::move(shoal_binary));
}

SltRunModePtr MakeFileShuffleMode(std::string shoal_binary) {
  return std::make_shared<FileShuffleMode>(std::move(shoal_binary));
}

ShoalSltEngine::SessionSettings WorkerSettings() {
  return {{"dist_bytes_per_task", "1"}, {"threads", "4"}, {"batch_size", "2"}};
}

ShoalSltEngine::SessionSettings ShuffleSettings() {
  return {{"threads", "4"}, {"batch_size", "2"}};
}

}  // namespace shoal::slt
