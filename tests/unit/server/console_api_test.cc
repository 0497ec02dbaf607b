#include "shoal/server/console_api.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shoal/common/prometheus_registry.h"
#include "shoal/server/query_monitor.h"

namespace shoal::server {
namespace {

using nlohmann::json;

std::string MakeConsoleTempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "shoal-console-XXXXXX").string();
  char* made = mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr);
  return pattern;
}

HttpRequest Get(const std::string& path, std::map<std::string, std::string> headers = {}) {
  return HttpRequest{"GET", path, std::move(headers), ""};
}

HttpRequest Post(const std::string& path, const std::string& body = "",
                 std::map<std::string, std::string> headers = {}) {
  return HttpRequest{"POST", path, std::move(headers), body};
}

json Body(const HttpResponse& r) {
  return json::parse(r.body);
}

// A distributed EXPLAIN ANALYZE VERBOSE as the runner prints it (two stages, three tasks).
constexpr const char* kExplain =
    " CoalescePartitions: inputs=2 (rows=3, batches=2, time=52.7ms)\n"
    "   NetworkCoalesce: stage=2, tasks=1, partitions_per_task=2 (rows=3, batches=2, "
    "time=24.9ms, network_wait=24.9ms, sent_bytes=2048)\n"
    "     * stage 2: 1 task: #0 on w1:7001 (rows=3)\n"
    "     * stage 2 task 0 on w1:7001: served rows=3, batches=2, elapsed=20.0ms, ran from "
    "12.000ms to 32.500ms\n"
    "     HashAggregate: mode=final, keys=[#0] (rows=3, batches=2, time=24.9ms)\n"
    "       NetworkShuffle: stage=1, tasks=2, Hash([#0], 2) (rows=6, batches=4, time=24.9ms)\n"
    "         * stage 1: 2 tasks: #0 on w1:7001 (rows=3), #1 on w2:7001 (rows=3)\n"
    "         * stage 1 task 0 on w1:7001: served rows=3, batches=2, elapsed=10.5ms, sent=1.0 KiB "
    "in 2 messages, head Repartition (rows=3), ran from 1.000ms to 11.500ms\n"
    "         * stage 1 task 1 on w2:7001: served rows=3, batches=2, elapsed=1.250s\n"
    "         TableScan: lineitem (memory) (rows=60175, batches=8, time=0.029ms)\n"
    " Rows: 3\n";

TEST(QueryMonitorTest, StagesFromExplainFindEveryBoundaryAndItsConsumer) {
  auto stages = QueryMonitor::StagesFromExplain(kExplain);
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].stage_id, 2);
  EXPECT_EQ(stages[0].exchange, "NetworkCoalesce");
  EXPECT_EQ(stages[0].tasks, 1);
  EXPECT_EQ(stages[0].rows, 3);
  EXPECT_EQ(stages[0].bytes, 2048);
  EXPECT_EQ(stages[0].consumer_stage, 0);
  EXPECT_EQ(stages[1].stage_id, 1);
  EXPECT_EQ(stages[1].tasks, 2);
  EXPECT_EQ(stages[1].rows, 6);
  EXPECT_EQ(stages[1].consumer_stage, 2);
}

TEST(QueryMonitorTest, FinishedQueriesKeepTasksAndABoundedHistoryInTheDataDir) {
  const std::string dir = MakeConsoleTempDir();
  {
    QueryMonitor monitor(dir, 2);
    ASSERT_TRUE(monitor.Load().ok());
    monitor.SessionStarted({7, "alice", "shoal", "psql", "127.0.0.1", 1, "", 0, "idle"});
    for (int i = 0; i < 3; ++i) {
      const int64_t id = monitor.QueryStarted(7, "select " + std::to_string(i), nullptr);
      ASSERT_EQ(monitor.RunningQueries().size(), 1u);
      EXPECT_EQ(monitor.RunningQueries()[0].record.user, "alice");
      monitor.QueryEnded(id, Status::OK(), 3, kExplain, kExplain);
    }
    auto history = monitor.History();
    ASSERT_EQ(history.size(), 2u);  // bounded, newest first
    EXPECT_EQ(history[0].sql, "select 2");
    ASSERT_EQ(history[0].tasks.size(), 3u);
    EXPECT_EQ(history[0].tasks[2].worker, "w2:7001");
    // A task the worker said when it ran is drawn there; one it did not, from 0 for its time.
    EXPECT_DOUBLE_EQ(history[0].tasks[0].start_ms, 12);
    EXPECT_DOUBLE_EQ(history[0].tasks[0].end_ms, 32.5);
    EXPECT_EQ(history[0].tasks[1].worker, "w1:7001");
    EXPECT_DOUBLE_EQ(history[0].tasks[1].start_ms, 1);
    EXPECT_DOUBLE_EQ(history[0].tasks[1].end_ms, 11.5);
    EXPECT_DOUBLE_EQ(history[0].tasks[2].start_ms, 0);
    EXPECT_DOUBLE_EQ(history[0].tasks[2].end_ms, 1250);
    EXPECT_EQ(history[0].explain_analyze, kExplain);
  }
  QueryMonitor reopened(dir, 2);
  ASSERT_TRUE(reopened.Load().ok());
  auto history = reopened.History();
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].sql, "select 2");
  EXPECT_EQ(history[0].stages.size(), 2u);
  // Ids go on after the ones read back.
  EXPECT_GT(reopened.QueryStarted(1, "x", nullptr), history[0].id);
  std::filesystem::remove_all(dir);
}

TEST(ConsoleApiTest, WithoutAuthenticationListsCancelsAndShowsQueries) {
  QueryMonitor monitor("", 10);
  std::vector<int32_t> cancelled;
  ConsoleOptions options;
  options.cancel = [&](int32_t pid) { cancelled.push_back(pid); };
  options.cluster = [] {
    return std::vector<WorkerStatus>{{"w1:7001", "alive", "1.0", 4, 1000, "", 2048, 1 << 30, 3},
                                     {"w2:7001", "quarantined", "", 0, 0, "refused", -1, -1, -1}};
  };
  ConsoleApi api(&monitor, nullptr, options);

  EXPECT_EQ(Body(api.Handle(Get("/api/queries")))["queries"].size(), 0u);
  monitor.SessionStarted({5, "bob", "shoal", "", "127.0.0.1", 1, "", 0, "idle"});
  const int64_t id = monitor.QueryStarted(5, "select count(*) from lineitem", nullptr);
  json running = Body(api.Handle(Get("/api/queries")));
  ASSERT_EQ(running["queries"].size(), 1u);
  EXPECT_EQ(running["queries"][0]["sql"], "select count(*) from lineitem");
  EXPECT_EQ(running["queries"][0]["user"], "bob");

  HttpResponse cancel = api.Handle(Post("/api/queries/" + std::to_string(id) + "/cancel"));
  EXPECT_EQ(cancel.status, 200) << cancel.body;
  EXPECT_EQ(cancelled, std::vector<int32_t>{5});
  EXPECT_EQ(api.Handle(Post("/api/queries/999/cancel")).status, 404);
  EXPECT_EQ(api.Handle(Post("/api/queries/abc/cancel")).status, 400);

  monitor.QueryEnded(
      id, Status::Cancelled("canceling statement due to user request").WithSqlState("57014"), 0,
      kExplain, kExplain);
  json history = Body(api.Handle(Get("/api/history")));
  ASSERT_EQ(history["queries"].size(), 1u);
  EXPECT_EQ(history["queries"][0]["state"], "cancelled");
  EXPECT_EQ(history["queries"][0]["sqlstate"], "57014");
  json detail = Body(api.Handle(Get("/api/history/" + std::to_string(id))));
  EXPECT_EQ(detail["stages"].size(), 2u);
  EXPECT_EQ(detail["tasks"].size(), 3u);
  EXPECT_NE(detail["explain_analyze"].get<std::string>().find("HashAggregate"), std::string::npos);
  EXPECT_EQ(api.Handle(Get("/api/history/12345")).status, 404);

  json cluster = Body(api.Handle(Get("/api/cluster")));
  ASSERT_EQ(cluster["workers"].size(), 2u);
  EXPECT_EQ(cluster["workers"][0]["state"], "alive");
  EXPECT_EQ(cluster["workers"][0]["threads"], 4);
  // What the worker told of its memory and tasks; null for one that did not answer.
  EXPECT_EQ(cluster["workers"][0]["memory_used"], 2048);
  EXPECT_EQ(cluster["workers"][0]["memory_limit"], 1 << 30);
  EXPECT_EQ(cluster["workers"][0]["running_tasks"], 3);
  EXPECT_TRUE(cluster["workers"][1]["memory_used"].is_null());
  EXPECT_TRUE(cluster["workers"][1]["running_tasks"].is_null());

  HttpResponse page = api.Handle(Get("/"));
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("id=\"timeline\""), std::string::npos);
  EXPECT_EQ(api.Handle(Get("/nothing")).status, 404);

  HttpResponse metrics = api.Handle(Get("/metrics"));
  EXPECT_EQ(metrics.content_type, PrometheusRegistry::kContentType);
  EXPECT_NE(metrics.body.find("shoal_queries_total{state=\"cancelled\"}"), std::string::npos);
  EXPECT_NE(metrics.body.find("shoal_query_errors_total{sqlstate=\"57014\"}"), std::string::npos);
}

TEST(ConsoleApiTest, LoginWithTheScramUsersCookieAndBearer) {
  const std::string dir = MakeConsoleTempDir();
  std::ofstream(dir + "/hba.conf") << "host all all all scram-sha-256\n";
  for (const char* user : {"alice", "root"}) {
    auto verifier = ScramVerifier::FromPassword(std::string(user) + " secret");
    ASSERT_TRUE(verifier.ok());
    ASSERT_TRUE(WriteUserEntry(dir, user, *verifier).ok());
  }
  auto auth = AuthConfig::Load(dir);
  ASSERT_TRUE(auth.ok()) << auth.status().ToString();
  QueryMonitor monitor("", 10);
  ConsoleOptions options;
  options.login_failure_delay = std::chrono::milliseconds(0);
  options.admins = {"root"};
  std::vector<int32_t> cancelled;
  options.cancel = [&](int32_t pid) { cancelled.push_back(pid); };
  ConsoleApi api(&monitor, &*auth, options);

  EXPECT_EQ(api.Handle(Get("/api/queries")).status, 401);
  EXPECT_EQ(api.Handle(Get("/api/whoami")).status, 401);
  EXPECT_EQ(api.Handle(Get("/metrics")).status, 200);  // counts only: no login
  EXPECT_EQ(api.Handle(Post("/api/login", R"({"user":"alice","password":"wrong"})")).status, 401);
  EXPECT_EQ(api.Handle(Post("/api/login", R"({"user":"nobody","password":"x"})")).status, 401);
  EXPECT_EQ(api.Handle(Post("/api/login", "not json")).status, 400);

  HttpResponse login =
      api.Handle(Post("/api/login", R"({"user":"alice","password":"alice secret"})"));
  ASSERT_EQ(login.status, 200) << login.body;
  ASSERT_EQ(login.set_cookies.size(), 1u);
  const std::string& cookie = login.set_cookies[0];
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos);
  EXPECT_NE(cookie.find("SameSite=Strict"), std::string::npos);
  const std::string token = Body(login)["token"];
  EXPECT_EQ(token.size(), 64u);  // 32 random bytes
  EXPECT_NE(cookie.find(token), std::string::npos);

  HttpResponse by_cookie =
      api.Handle(Get("/api/whoami", {{"cookie", "a=b; shoal_session=" + token}}));
  EXPECT_EQ(by_cookie.status, 200);
  EXPECT_EQ(Body(by_cookie)["user"], "alice");
  EXPECT_EQ(api.Handle(Get("/api/queries", {{"authorization", "Bearer " + token}})).status, 200);
  EXPECT_EQ(api.Handle(Get("/api/queries", {{"authorization", "Bearer x" + token}})).status, 401);

  // alice may cancel her own statement, not bob's; the admin may cancel bob's.
  monitor.SessionStarted({1, "alice", "shoal", "", "", 1, "", 0, "idle"});
  monitor.SessionStarted({2, "bob", "shoal", "", "", 1, "", 0, "idle"});
  const int64_t own = monitor.QueryStarted(1, "select 1", nullptr);
  const int64_t other = monitor.QueryStarted(2, "select 2", nullptr);
  const std::map<std::string, std::string> as_alice = {{"authorization", "Bearer " + token}};
  EXPECT_EQ(
      api.Handle(Post("/api/queries/" + std::to_string(own) + "/cancel", "", as_alice)).status,
      200);
  EXPECT_EQ(
      api.Handle(Post("/api/queries/" + std::to_string(other) + "/cancel", "", as_alice)).status,
      403);
  const std::string root_token =
      Body(api.Handle(Post("/api/login", R"({"user":"root","password":"root secret"})")))["token"];
  EXPECT_EQ(api.Handle(Post("/api/queries/" + std::to_string(other) + "/cancel", "",
                            {{"authorization", "Bearer " + root_token}}))
                .status,
            200);
  EXPECT_EQ(cancelled, (std::vector<int32_t>{1, 2}));

  EXPECT_EQ(api.Handle(Post("/api/logout", "", as_alice)).status, 200);
  EXPECT_EQ(api.Handle(Get("/api/queries", as_alice)).status, 401);
  std::filesystem::remove_all(dir);
}

TEST(ConsoleApiTest, CheckPasswordUsesTheStoredVerifier) {
  auto verifier = ScramVerifier::FromPassword("pencil");
  ASSERT_TRUE(verifier.ok());
  EXPECT_TRUE(ConsoleApi::CheckPassword(*verifier, "pencil"));
  EXPECT_FALSE(ConsoleApi::CheckPassword(*verifier, "pencil "));
  EXPECT_FALSE(ConsoleApi::CheckPassword(*verifier, ""));
}

}  // namespace
}  // namespace shoal::server
