// PgClient (src/shoal/server/pg_client.h) against `shoal server`s running inside the test on
// loopback (OS-chosen ports): results equal to the same statements run in process (types,
// printed text, command tags, many rows), errors with SQLSTATE and position, notices,
// COPY ... TO STDOUT in text and binary, cancel, SCRAM-SHA-256 (a password from the options, a
// prompt, a password file; a wrong or missing one), and TLS by sslmode.
#include "shoal/server/pg_client.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/server/auth_config.h"
#include "shoal/server/pg_wire.h"
#include "shoal/server/scram.h"
#include "shoal/server/server.h"
#include "tests/support/gtest_util.h"
#include "tests/support/wait.h"

namespace shoal::server {
namespace {

using engine::QueryResult;

std::string MakeTempDir() {
  char pattern[] = "/tmp/shoal-pg-client-XXXXXX";
  EXPECT_NE(mkdtemp(pattern), nullptr);
  return pattern;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

// A server on 127.0.0.1 with an OS-chosen port.
std::unique_ptr<Server> StartServer(const std::string& tpch, const std::string& data_dir = "",
                                    const std::string& cert = "", const std::string& key = "") {
  ServerOptions options;
  options.host = "127.0.0.1";
  options.port = 0;
  options.threads = 4;
  options.setup.tpch_scale = tpch;
  options.server_version = "15.0 (Shoal test)";
  options.data_dir = data_dir;
  options.tls_cert = cert;
  options.tls_key = key;
  auto server = std::make_unique<Server>(std::move(options));
  // The server's threads inherit a mask with SIGPIPE blocked, so their OpenSSL writes to closed
  // sockets fail with EPIPE (`shoal server` ignores SIGPIPE); the test's own thread, the
  // client's, keeps the default action: a SIGPIPE from the client's writes ends the test.
  sigset_t pipe_signal;
  sigset_t old_mask;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &old_mask);
  Status st = server->Start();
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return server;
}

PgConnectOptions OptionsFor(const Server& server, const std::string& user = "tester") {
  PgConnectOptions o;
  o.host = "127.0.0.1";
  o.port = server.port();
  o.user = user;
  o.dbname = "shoal";
  o.sslmode = SslMode::kDisable;
  o.password_file = "/nonexistent/pgpass";  // never the developer's ~/.pgpass
  EXPECT_TRUE(FinishDefaults(&o).ok());
  return o;
}

// What a result prints as: its command tag and psql's table.
std::string Printed(const QueryResult& r) {
  std::string out = r.command_tag + "\n";
  if (r.schema != nullptr) {
    out += columnar::FormatTable(*r.schema, r.batches);
  }
  return out;
}

class PgClientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = StartServer("0.01").release(); }

  static void TearDownTestSuite() {
    server_->Stop();
    delete server_;
    server_ = nullptr;
  }

  std::unique_ptr<PgClient> Connect() {
    auto client = PgClient::Connect(OptionsFor(*server_));
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).MoveValueUnsafe() : nullptr;
  }

  // Runs `sql` remotely and in a session of the server's own catalog; both must print the same.
  void ExpectSameAsInProcess(PgClient& client, const std::string& sql) {
    SCOPED_TRACE(sql);
    std::vector<std::string> remote;
    Status remote_status = client.Run(sql, [&](const QueryResult& r) {
      remote.push_back(Printed(r));
      return Status::OK();
    });
    std::vector<std::string> local;
    auto runner = server_->NewSessionRunner();
    Status local_status = runner->Run(sql, [&](const QueryResult& r) {
      local.push_back(Printed(r));
      return Status::OK();
    });
    ASSERT_TRUE(local_status.ok()) << local_status.ToString();
    ASSERT_TRUE(remote_status.ok()) << remote_status.ToString();
    ASSERT_EQ(remote.size(), local.size());
    for (size_t i = 0; i < local.size(); ++i) {
      EXPECT_EQ(remote[i], local[i]);
    }
  }

  static Server* server_;
};

Server* PgClientTest::server_ = nullptr;

TEST_F(PgClientTest, ResultsPrintAsInProcess) {
  auto client = Connect();
  ASSERT_NE(client, nullptr);
  EXPECT_FALSE(client->uses_tls());
  EXPECT_NE(client->backend_pid(), 0);
  EXPECT_EQ(client->parameter("server_version"), "15.0 (Shoal test)");
  EXPECT_EQ(client->transaction_status(), 'I');
  ExpectSameAsInProcess(*client, "select 1 as a, 'x' as b; select 2 as c");
  ExpectSameAsInProcess(*client,
                        "select l_orderkey, l_linenumber, l_quantity, l_extendedprice, l_discount, "
                        "l_shipdate, l_returnflag, l_comment from lineitem "
                        "order by l_orderkey, l_linenumber limit 7");
  ExpectSameAsInProcess(
      *client,
      "select true as t, null::boolean as n, 7::smallint as i2, -2147483648 as i4, "
      "3000000000 as i8, 1.5::real as f4, 0.1::float8 as f8, 'Infinity'::float8 as inf, "
      "123.45::numeric(10, 2) as d, 'two\nlines' as s, '\\x00ff'::bytea as by, "
      "date '2024-02-29' as dt, timestamp '2024-01-02 03:04:05.123456' as ts, "
      "interval '1 year 2 months 3 days 4 hours 5 minutes 6.5 seconds' as iv, "
      "interval '-1 day 2 hours' as iv2, timestamptz '2024-01-02 03:04:05+02' as tz");
  ExpectSameAsInProcess(*client, "select * from nation where n_nationkey < 0");
  ExpectSameAsInProcess(*client,
                        "create table pg_client_t (a int, b text); "
                        "insert into pg_client_t values (1, 'x'), (2, null); "
                        "select * from pg_client_t order by a; drop table pg_client_t");
  // More rows than one chunk of the result builder (25 * 25 * 25 * 5 = 78125).
  ExpectSameAsInProcess(*client,
                        "select a.n_name, b.n_regionkey, c.n_nationkey, d.r_name "
                        "from nation a, nation b, nation c, region d "
                        "order by 1, 2, 3, 4");
}

// A session keeps the plans of the queries it repeats (sql/statement_cache.h): what another
// session changes in between must still show.
TEST_F(PgClientTest, RepeatedQueriesSeeOtherSessionsChanges) {
  auto reader = Connect();
  auto writer = Connect();
  ASSERT_NE(reader, nullptr);
  ASSERT_NE(writer, nullptr);
  auto run = [](PgClient& client, const std::string& sql) -> Result<std::string> {
    std::string printed;
    SHOAL_RETURN_IF_ERROR(client.Run(sql, [&](const QueryResult& r) {
      printed += Printed(r);
      return Status::OK();
    }));
    return printed;
  };
  ASSERT_OK(run(*writer, "create view pg_cache_v as select 1 as x").status());
  ASSERT_OK_AND_ASSIGN(std::string one, run(*reader, "select x from pg_cache_v"));
  ASSERT_OK_AND_ASSIGN(std::string again, run(*reader, "select x from pg_cache_v"));
  EXPECT_EQ(one, again);
  ASSERT_OK(run(*writer, "create or replace view pg_cache_v as select 2 as x").status());
  ASSERT_OK_AND_ASSIGN(std::string two, run(*reader, "select x from pg_cache_v"));
  EXPECT_NE(two, one);
  EXPECT_NE(two.find('2'), std::string::npos) << two;

  ASSERT_OK(run(*writer, "create table pg_cache_t (a int)").status());
  ASSERT_OK_AND_ASSIGN(std::string empty, run(*reader, "select count(*) from pg_cache_t"));
  ASSERT_OK(run(*writer, "insert into pg_cache_t values (41), (42)").status());
  ASSERT_OK_AND_ASSIGN(std::string filled, run(*reader, "select count(*) from pg_cache_t"));
  EXPECT_NE(filled, empty);
  EXPECT_NE(filled.find('2'), std::string::npos) << filled;

  ASSERT_OK(run(*writer, "drop view pg_cache_v; drop table pg_cache_t").status());
  EXPECT_EQ(run(*reader, "select x from pg_cache_v").status().sqlstate(), "42P01");
}

TEST_F(PgClientTest, ErrorsCarrySqlStateAndPosition) {
  auto client = Connect();
  ASSERT_NE(client, nullptr);
  std::vector<std::string> tags;
  const std::string sql = "select 1; select nosuch from nation; select 3";
  Status st = client->Run(sql, [&](const QueryResult& r) {
    tags.push_back(r.command_tag);
    return Status::OK();
  });
  // The statement before the error has run; the one after it has not.
  EXPECT_EQ(tags, std::vector<std::string>{"SELECT 1"});
  auto runner = server_->NewSessionRunner();
  Status local = runner->Run(sql, [](const QueryResult&) { return Status::OK(); });
  EXPECT_EQ(st.code(), StatusCode::kNotFound);
  EXPECT_EQ(st.sqlstate(), local.sqlstate());
  EXPECT_EQ(st.sqlstate(), "42703");
  EXPECT_EQ(st.UserMessage(), local.UserMessage());
  EXPECT_EQ(st.position(), local.position());
  EXPECT_EQ(st.position(), 18);
  EXPECT_EQ(st.hint(), local.hint());
  // A syntax error, and the connection goes on.
  Status syntax = client->Run("selec 1", [](const QueryResult&) { return Status::OK(); });
  EXPECT_EQ(syntax.code(), StatusCode::kSyntaxError);
  EXPECT_EQ(syntax.position(), 1);
  ExpectSameAsInProcess(*client, "select 4");
  // An error of the callback stops nothing on the wire: the next statement still works.
  Status callback = client->Run("select 1; select 2",
                                [](const QueryResult&) { return Status::IoError("cannot write"); });
  EXPECT_EQ(callback.code(), StatusCode::kIoError);
  ExpectSameAsInProcess(*client, "select 5");
}

TEST_F(PgClientTest, NoticesAndTransactionStatus) {
  auto client = Connect();
  ASSERT_NE(client, nullptr);
  std::vector<PgNotice> notices;
  client->set_notice_handler([&](const PgNotice& n) { notices.push_back(n); });
  auto ok = [](const QueryResult&) { return Status::OK(); };
  ASSERT_TRUE(client->Run("begin", ok).ok());
  EXPECT_EQ(client->transaction_status(), 'T');
  ASSERT_TRUE(client->Run("begin", ok).ok());
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0].severity, "WARNING");
  EXPECT_EQ(notices[0].sqlstate, "25001");
  EXPECT_EQ(notices[0].message, "there is already a transaction in progress");
  EXPECT_FALSE(client->Run("select nosuch", ok).ok());
  EXPECT_EQ(client->transaction_status(), 'E');
  ASSERT_TRUE(client->Run("rollback", ok).ok());
  EXPECT_EQ(client->transaction_status(), 'I');
}

TEST_F(PgClientTest, CopyToStdout) {
  auto client = Connect();
  ASSERT_NE(client, nullptr);
  std::string data;
  client->set_copy_data_handler([&](std::string_view bytes) {
    data.append(bytes);
    return Status::OK();
  });
  // The rows go to the handler; no result follows (psql prints no tag for COPY TO STDOUT).
  std::vector<std::string> tags;
  auto collect = [&](const QueryResult& r) {
    tags.push_back(r.command_tag);
    return Status::OK();
  };
  ASSERT_TRUE(
      client
          ->Run("copy (select n_nationkey, n_name from nation order by 1 limit 2) to stdout",
                collect)
          .ok());
  EXPECT_EQ(data, "0\tALGERIA\n1\tARGENTINA\n");
  data.clear();
  ASSERT_TRUE(client
                  ->Run("copy (select 7::int as a, null::text as b, 'xy' as c) to stdout "
                        "(format binary)",
                        collect)
                  .ok());
  EXPECT_EQ(data, std::string("PGCOPY\n\xff\r\n\0", 11) + std::string(8, '\0') +
                      std::string("\0\3"
                                  "\0\0\0\4\0\0\0\7"
                                  "\xff\xff\xff\xff"
                                  "\0\0\0\2xy"
                                  "\xff\xff",
                                  2 + 8 + 4 + 6 + 2));
  EXPECT_TRUE(tags.empty());
  // A COPY among other statements: their results still come.
  data.clear();
  ASSERT_TRUE(client->Run("select 1; copy (select 2) to stdout; select 3", collect).ok());
  EXPECT_EQ(data, "2\n");
  EXPECT_EQ(tags, (std::vector<std::string>{"SELECT 1", "SELECT 1"}));
}

TEST_F(PgClientTest, CancelStopsTheRunningStatement) {
  auto client = Connect();
  ASSERT_NE(client, nullptr);
  client->CancelRunning();  // nothing runs: nothing happens
  std::atomic<bool> done{false};
  Status st;
  std::thread query([&] {
    st = client->Run("select count(*) from lineitem a, lineitem b where a.l_comment < b.l_comment",
                     [](const QueryResult&) { return Status::OK(); });
    done.store(true);
  });
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        client->CancelRunning();
        return done.load();
      },
      "the cancelled statement to end"));
  query.join();
  EXPECT_EQ(st.code(), StatusCode::kCancelled) << st.ToString();
  EXPECT_EQ(st.sqlstate(), "57014");
  EXPECT_EQ(st.UserMessage(), "canceling statement due to user request");
  ExpectSameAsInProcess(*client, "select 6");
}

// The server reads a client's bytes in blocks, not message by message: messages sent together
// (start-up and three queries in one write) are each answered, in order, and a message larger
// than the read block, sent in small pieces, arrives whole.
TEST_F(PgClientTest, PipelinedAndSplitMessages) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server_->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  const auto send_all = [&](std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      ASSERT_GT(n, 0);
      bytes.remove_prefix(static_cast<size_t>(n));
    }
  };
  const auto query = [](const std::string& sql) {
    MessageWriter w;
    w.Begin('Q');
    w.CString(sql);
    w.End();
    return w.buffer();
  };
  MessageWriter startup;
  startup.Int32(0);
  startup.Int32(kProtocolVersion3);
  startup.CString("user");
  startup.CString("tester");
  startup.Byte(0);
  startup.PatchInt32(0, static_cast<int32_t>(startup.size()));
  send_all(startup.buffer() + query("select 1") + query("select 'two'") + query("select 3"));
  // Reads messages up to the next ReadyForQuery; returns the text of their DataRows' first
  // values and the CommandComplete tags.
  std::string pending;
  const auto read_until_ready = [&]() {
    std::vector<std::string> seen;
    for (;;) {
      while (pending.size() >= 5) {
        const auto* b = reinterpret_cast<const uint8_t*>(pending.data() + 1);
        const size_t len =
            (size_t{b[0]} << 24) | (size_t{b[1]} << 16) | (size_t{b[2]} << 8) | size_t{b[3]};
        if (pending.size() < 1 + len)
          break;
        const char type = pending[0];
        std::string body = pending.substr(5, len - 4);
        pending.erase(0, 1 + len);
        if (type == 'E')
          seen.push_back("error");
        if (type == 'C')
          seen.push_back(body.substr(0, body.size() - 1));
        if (type == 'D' && body.size() >= 6) {
          const auto* v = reinterpret_cast<const uint8_t*>(body.data() + 2);
          const size_t n =
              (size_t{v[0]} << 24) | (size_t{v[1]} << 16) | (size_t{v[2]} << 8) | size_t{v[3]};
          seen.push_back(body.substr(6, n));
        }
        if (type == 'Z')
          return seen;
      }
      char buf[65536];
      ssize_t n = recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) {
        seen.push_back("closed");
        return seen;
      }
      pending.append(buf, static_cast<size_t>(n));
    }
  };
  EXPECT_EQ(read_until_ready(), std::vector<std::string>{});  // start-up
  EXPECT_EQ(read_until_ready(), (std::vector<std::string>{"1", "SELECT 1"}));
  EXPECT_EQ(read_until_ready(), (std::vector<std::string>{"two", "SELECT 1"}));
  EXPECT_EQ(read_until_ready(), (std::vector<std::string>{"3", "SELECT 1"}));
  // 100 KB of SQL, sent 1,000 bytes at a time, then a query in the same write as its last piece.
  const std::string big = std::string(100000, 'x');
  const std::string bytes = query("select length('" + big + "')") + query("select 4");
  for (size_t at = 0; at < bytes.size(); at += 1000) {
    send_all(std::string_view(bytes).substr(at, 1000));
  }
  EXPECT_EQ(read_until_ready(), (std::vector<std::string>{"100000", "SELECT 1"}));
  EXPECT_EQ(read_until_ready(), (std::vector<std::string>{"4", "SELECT 1"}));
  close(fd);
}

TEST_F(PgClientTest, ConnectionErrors) {
  PgConnectOptions o = OptionsFor(*server_);
  // Without TLS on the server: require fails, prefer goes on in plain text.
  o.sslmode = SslMode::kRequire;
  auto required = PgClient::Connect(o);
  ASSERT_FALSE(required.ok());
  EXPECT_NE(required.status().message().find("does not support SSL"), std::string::npos);
  o.sslmode = SslMode::kPrefer;
  auto preferred = PgClient::Connect(o);
  ASSERT_TRUE(preferred.ok()) << preferred.status().ToString();
  EXPECT_FALSE((*preferred)->uses_tls());
  // A port nobody listens on (one just closed).
  auto gone = StartServer("");
  PgConnectOptions closed = OptionsFor(*gone);
  gone->Stop();
  auto refused = PgClient::Connect(closed);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().sqlstate(), "08001");
  EXPECT_NE(refused.status().message().find("Connection refused"), std::string::npos);
}

TEST(PgClientAuthTest, ScramSha256) {
  const std::string dir = MakeTempDir();
  WriteFile(dir + "/hba.conf", "host all all all scram-sha-256\n");
  auto verifier = ScramVerifier::FromPassword("correct horse");
  ASSERT_TRUE(verifier.ok());
  ASSERT_TRUE(WriteUserEntry(dir, "alice", *verifier).ok());
  auto server = StartServer("", dir);
  auto ok = [](const QueryResult&) { return Status::OK(); };

  PgConnectOptions o = OptionsFor(*server, "alice");
  o.password = "correct horse";
  auto client = PgClient::Connect(o);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  EXPECT_TRUE((*client)->Run("select 1", ok).ok());

  o.password = "wrong";
  auto wrong = PgClient::Connect(o);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().sqlstate(), "28P01");
  EXPECT_NE(wrong.status().message().find("password authentication failed for user \"alice\""),
            std::string::npos);

  // No password anywhere and no prompt: a clear error before anything is sent.
  o.password.clear();
  auto missing = PgClient::Connect(o);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().sqlstate(), "28P01");
  EXPECT_NE(missing.status().hint().find("PGPASSWORD"), std::string::npos);

  // The prompt is asked only when the server wants a password.
  int prompted = 0;
  auto prompt = [&](const PgConnectOptions& asked) -> Result<std::string> {
    ++prompted;
    EXPECT_EQ(asked.user, "alice");
    return std::string("correct horse");
  };
  auto with_prompt = PgClient::Connect(o, prompt);
  ASSERT_TRUE(with_prompt.ok()) << with_prompt.status().ToString();
  EXPECT_EQ(prompted, 1);

  // A password file in ~/.pgpass's format, found before the prompt.
  o.password_file = dir + "/pgpass";
  WriteFile(o.password_file, "127.0.0.1:*:*:alice:correct horse\n");
  chmod(o.password_file.c_str(), 0600);
  auto from_file = PgClient::Connect(o, prompt);
  ASSERT_TRUE(from_file.ok()) << from_file.status().ToString();
  EXPECT_EQ(prompted, 1);
  server->Stop();
  std::filesystem::remove_all(dir);
}

TEST(PgClientAuthTest, TlsBySslMode) {
  const std::string dir = MakeTempDir();
  const std::string certs = dir + "/certs";
  const std::string other = dir + "/other";
  ASSERT_EQ(std::system(("bash " SHOAL_MAKE_TEST_CERTS " " + certs + " >/dev/null").c_str()), 0);
  ASSERT_EQ(std::system(("bash " SHOAL_MAKE_TEST_CERTS " " + other + " >/dev/null").c_str()), 0);
  const std::string data = dir + "/data";
  std::filesystem::create_directories(data);
  // TLS only: a plain connection is refused by the rules.
  WriteFile(data + "/hba.conf", "hostssl all all all trust\n");
  auto server = StartServer("", data, certs + "/node.pem", certs + "/node.key");
  auto ok = [](const QueryResult&) { return Status::OK(); };
  PgConnectOptions o = OptionsFor(*server);

  o.sslmode = SslMode::kDisable;
  auto plain = PgClient::Connect(o);
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.status().sqlstate(), "28000");
  for (SslMode mode : {SslMode::kAllow, SslMode::kPrefer, SslMode::kRequire}) {
    o.sslmode = mode;
    auto client = PgClient::Connect(o);
    ASSERT_TRUE(client.ok()) << SslModeName(mode) << ": " << client.status().ToString();
    EXPECT_TRUE((*client)->uses_tls());
    EXPECT_TRUE((*client)->Run("select 1", ok).ok());
  }
  // The certificate names 127.0.0.1 and localhost and is signed by certs/ca.pem.
  o.sslmode = SslMode::kVerifyFull;
  o.sslrootcert = certs + "/ca.pem";
  for (const char* host : {"127.0.0.1", "localhost"}) {
    o.host = host;
    auto verified = PgClient::Connect(o);
    ASSERT_TRUE(verified.ok()) << host << ": " << verified.status().ToString();
    EXPECT_TRUE((*verified)->Run("select 1", ok).ok());
  }
  o.host = "127.0.0.1";
  // Another CA did not sign it.
  o.sslmode = SslMode::kVerifyCa;
  o.sslrootcert = other + "/ca.pem";
  auto untrusted = PgClient::Connect(o);
  ASSERT_FALSE(untrusted.ok());
  EXPECT_NE(untrusted.status().message().find("SSL error"), std::string::npos)
      << untrusted.status().ToString();
  o.sslrootcert = dir + "/missing.pem";
  auto no_ca = PgClient::Connect(o);
  ASSERT_FALSE(no_ca.ok());
  EXPECT_NE(no_ca.status().message().find("root certificate file"), std::string::npos);
  // The server goes away under a TLS connection: the client reports it (OpenSSL's writes to the
  // closed socket must not raise SIGPIPE, which would end this process).
  o.sslmode = SslMode::kRequire;
  auto orphan = PgClient::Connect(o);
  ASSERT_TRUE(orphan.ok()) << orphan.status().ToString();
  server->Stop();
  for (int i = 0; i < 3; ++i) {
    Status lost = (*orphan)->Run("select 1", ok);
    EXPECT_EQ(lost.code(), StatusCode::kUnavailable) << lost.ToString();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace shoal::server
