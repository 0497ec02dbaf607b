// Worker resolvers: the three --workers forms parse and resolve as documented, a worker file is
// re-read exactly when it changes, and a coordinator asks its resolver at every query.
#include "shoal/distributed/coordinator/worker_resolver.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"

namespace shoal::distributed {
namespace {

class TempFile {
 public:
  TempFile()
      : path_(std::filesystem::temp_directory_path() /
              ("shoal_workers_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++))) {}
  ~TempFile() { std::filesystem::remove(path_); }

  void Write(const std::string& text) const {
    std::ofstream out(path_, std::ios::trunc);
    out << text;
  }
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

std::vector<std::string> Resolve(WorkerResolver& resolver) {
  Result<std::vector<std::string>> out = resolver.Resolve();
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::vector<std::string>{};
}

TEST(WorkerResolverTest, AStaticListIsParsedAndChecked) {
  ASSERT_OK_AND_ASSIGN(auto resolver, MakeWorkerResolver(" 10.0.0.1:7001, host-b:7002 ,"));
  EXPECT_EQ(Resolve(*resolver), (std::vector<std::string>{"10.0.0.1:7001", "host-b:7002"}));
  ASSERT_OK_AND_ASSIGN(auto v6, MakeWorkerResolver("[::1]:7001"));
  EXPECT_EQ(Resolve(*v6), (std::vector<std::string>{"[::1]:7001"}));
  for (const char* bad : {"", " , ", "host", "host:", ":7001", "host:0", "host:65536", "host:7x"}) {
    Result<WorkerResolverPtr> r = MakeWorkerResolver(bad);
    EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, r) << "'" << bad << "'";
  }
  Result<WorkerResolverPtr> r = MakeWorkerResolver("a:1,b");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().UserMessage().find("'b'"), std::string::npos) << r.status().ToString();
}

TEST(WorkerResolverTest, AFileIsReadWithCommentsAndReReadOnlyWhenItChanges) {
  TempFile file;
  file.Write("# the workers\n127.0.0.1:7001\n\n  127.0.0.1:7002   # second\n");
  ASSERT_OK_AND_ASSIGN(auto resolver, MakeWorkerResolver("file:" + file.path()));
  auto* f = dynamic_cast<FileWorkerResolver*>(resolver.get());
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(Resolve(*f), (std::vector<std::string>{"127.0.0.1:7001", "127.0.0.1:7002"}));
  EXPECT_EQ(Resolve(*f), (std::vector<std::string>{"127.0.0.1:7001", "127.0.0.1:7002"}));
  EXPECT_EQ(f->reads(), 1);
  file.Write("127.0.0.1:7003\n");
  EXPECT_EQ(Resolve(*f), (std::vector<std::string>{"127.0.0.1:7003"}));
  EXPECT_EQ(f->reads(), 2);
  // Same size, later modification time: set explicitly, as two writes within the file system's
  // timestamp granularity may share one.
  const auto previous = std::filesystem::last_write_time(file.path());
  file.Write("127.0.0.1:7004\n");
  std::filesystem::last_write_time(file.path(), previous + std::chrono::seconds(1));
  EXPECT_EQ(Resolve(*f), (std::vector<std::string>{"127.0.0.1:7004"}));
  EXPECT_EQ(f->reads(), 3);
}

TEST(WorkerResolverTest, ABadFileIsAClearErrorNamingTheLine) {
  TempFile file;
  file.Write("127.0.0.1:7001\nnot-an-address\n");
  FileWorkerResolver resolver(file.path());
  Result<std::vector<std::string>> r = resolver.Resolve();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().UserMessage().find("line 2"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().UserMessage().find(file.path()), std::string::npos);
  file.Write("# nobody\n\n");
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, resolver.Resolve());
  FileWorkerResolver missing(file.path() + ".missing");
  Result<std::vector<std::string>> m = missing.Resolve();
  EXPECT_EQ(m.status().code(), StatusCode::kIoError) << m.status().ToString();
  EXPECT_NE(m.status().UserMessage().find(".missing"), std::string::npos);
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, MakeWorkerResolver("file:"));
}

TEST(WorkerResolverTest, ADnsNameResolvesToEveryAddressWithThePort) {
  ASSERT_OK_AND_ASSIGN(auto resolver, MakeWorkerResolver("dns:localhost:7001"));
  std::vector<std::string> workers = Resolve(*resolver);
  ASSERT_FALSE(workers.empty());
  for (const auto& w : workers) {
    EXPECT_TRUE(w == "127.0.0.1:7001" || w == "[::1]:7001") << w;
    EXPECT_OK(CheckWorkerAddress(w));
  }
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, MakeWorkerResolver("dns:localhost"));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, MakeWorkerResolver("dns::7001"));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, MakeWorkerResolver("dns:localhost:x"));
  DnsWorkerResolver unknown("no-such-host.invalid", 7001);
  Result<std::vector<std::string>> r = unknown.Resolve();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().UserMessage().find("no-such-host.invalid"), std::string::npos);
}

// The coordinator asks its resolver at every query: editing the file moves the next query.
TEST(WorkerResolverTest, TheCoordinatorResolvesAtEveryQuery) {
  engine::QueryRunner runner;
  ASSERT_OK_AND_ASSIGN(auto scale, io::tpch::TpchScale::Parse("0.01"));
  ASSERT_OK(engine::RegisterTpchTables(scale, runner.session().catalog().get()));
  WorkerServiceOptions worker;  // no version, default threads
  worker.catalog = runner.session().catalog();
  ASSERT_OK_AND_ASSIGN(auto cluster,
                       distributed_testing::MakeInProcessCluster({"w1:1", "w2:1"}, worker));
  TempFile file;
  file.Write("w1:1\nw2:1\n");
  CoordinatorOptions options;
  options.resolver = std::make_shared<FileWorkerResolver>(file.path());
  options.channels = cluster;
  ASSERT_OK_AND_ASSIGN(auto coordinator, Coordinator::Make(std::move(options)));
  ASSERT_OK(coordinator->CheckWorkers());
  runner.SetExecutionMode(engine::ExecutionMode::OnWorkers(coordinator));
  const char* sql = "SELECT count(*) FROM lineitem";
  ASSERT_OK(runner.RunOne(sql).status());
  file.Write("w1:1\nw9:1\n");  // w9 does not exist: the next query skips it
  ASSERT_OK(runner.RunOne(sql).status());
  EXPECT_TRUE(coordinator->health()->IsQuarantined("w9:1"));
  ASSERT_OK(coordinator->CheckWorkers());
  file.Write("w9:1\n");  // only w9: the query must fail naming it
  auto failed = runner.RunOne(sql);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().UserMessage().find("w9:1"), std::string::npos)
      << failed.status().ToString();
  EXPECT_STATUS_CODE(StatusCode::kUnavailable, coordinator->CheckWorkers());
  file.Write("w2:1\n");
  ASSERT_OK_AND_ASSIGN(auto result, runner.RunOne(sql));
  EXPECT_EQ(distributed_testing::TasksHeld(*cluster), 0);
  file.Write("");
  Result<engine::QueryResult> empty = runner.RunOne(sql);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().UserMessage().find("lists no worker"), std::string::npos)
      << empty.status().ToString();
}

}  // namespace
}  // namespace shoal::distributed
