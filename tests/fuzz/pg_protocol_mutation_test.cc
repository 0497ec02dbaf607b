// Mutation test of `shoal server`'s protocol handling (src/shoal/server): conversations a client
// could have -- start-up, simple queries, extended-protocol batches with parameters in text and
// binary, Describe, row-limited Execute, Close, Sync -- corrupted at random (bytes flipped, lengths
// rewritten, messages cut, duplicated, swapped or dropped) and sent to a real server in this
// process over loopback. Two levels:
//  - each message parser (pg_wire.h) on its own, fed corrupted bodies: it returns a message or
//    a ProtocolViolation (08P01) / NotImplemented, never anything else; so do the readers of
//    PgClient, the other end (RowDescription, DataRow into typed columns, interval text);
//  - whole conversations over a socket: whatever the bytes, the server answers with well-formed
//    messages and ends the connection (ErrorResponse and/or close) once the client has sent all
//    it had (the client half-closes), within a deadline; a crash, hang or malformed reply fails.
// Runs under ASan + UBSan in CI (label `fuzz`). SHOAL_FUZZ_SEED / SHOAL_FUZZ_ITERATIONS.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shoal/common/check.h"
#include "shoal/engine/settings_catalog.h"
#include "shoal/server/pg_result_builder.h"
#include "shoal/server/pg_types.h"
#include "shoal/server/pg_wire.h"
#include "shoal/server/server.h"
#include "tests/support/mutation_harness.h"

namespace shoal {
namespace {

using server::MessageWriter;
using testing::MutationHarness;
using testing::MutationStats;

struct Input {
  std::string name;
  std::string bytes;  // for conversations: start-up packet + messages
  char kind = 0;      // for single messages: the type byte ('P', 'B', ...), 0 = start-up
};

std::string Startup() {
  MessageWriter w;
  w.Int32(0);
  w.Int32(server::kProtocolVersion3);
  w.CString("user");
  w.CString("fuzz");
  w.CString("database");
  w.CString("shoal");
  w.CString("application_name");
  w.CString("fuzz");
  w.Byte(0);
  w.PatchInt32(0, static_cast<int32_t>(w.size()));
  return w.buffer();
}

std::string Query(const std::string& sql) {
  MessageWriter w;
  w.Begin('Q');
  w.CString(sql);
  w.End();
  return w.buffer();
}

std::string ParseMsg(const std::string& name, const std::string& sql, std::vector<int32_t> types) {
  MessageWriter w;
  w.Begin('P');
  w.CString(name);
  w.CString(sql);
  w.Int16(static_cast<int16_t>(types.size()));
  for (int32_t t : types) {
    w.Int32(t);
  }
  w.End();
  return w.buffer();
}

std::string BindMsg(const std::string& portal, const std::string& statement,
                    std::vector<int16_t> formats, std::vector<std::string> values,
                    std::vector<int16_t> result_formats) {
  MessageWriter w;
  w.Begin('B');
  w.CString(portal);
  w.CString(statement);
  w.Int16(static_cast<int16_t>(formats.size()));
  for (auto f : formats) {
    w.Int16(f);
  }
  w.Int16(static_cast<int16_t>(values.size()));
  for (const auto& v : values) {
    if (v == "NULL") {
      w.Int32(-1);
    } else {
      w.Int32(static_cast<int32_t>(v.size()));
      w.Bytes(v);
    }
  }
  w.Int16(static_cast<int16_t>(result_formats.size()));
  for (auto f : result_formats) {
    w.Int16(f);
  }
  w.End();
  return w.buffer();
}

std::string Target(char type, char kind, const std::string& name) {
  MessageWriter w;
  w.Begin(type);
  w.Byte(static_cast<uint8_t>(kind));
  w.CString(name);
  w.End();
  return w.buffer();
}

std::string ExecuteMsg(const std::string& portal, int32_t rows) {
  MessageWriter w;
  w.Begin('E');
  w.CString(portal);
  w.Int32(rows);
  w.End();
  return w.buffer();
}

std::string Simple(char type) {
  MessageWriter w;
  w.Begin(type);
  w.End();
  return w.buffer();
}

std::string Be32(int32_t v) {
  MessageWriter w;
  w.Int32(v);
  return w.buffer();
}

std::vector<Input> Conversations() {
  const std::string sync = Simple('S');
  const std::string terminate = Simple('X');
  std::vector<Input> c;
  c.push_back({"simple", Startup() + Query("select 1 as a, 'x' as b; select 2") + terminate});
  c.push_back({"ddl", Startup() +
                          Query("create table if not exists f (a int, b text); insert into f "
                                "values (1, 'one'); select * from f; drop table f") +
                          terminate});
  c.push_back(
      {"error", Startup() + Query("select nosuch from t; select 1") + Query("") + terminate});
  c.push_back({"transaction", Startup() + Query("begin; select 1; savepoint s; select 1/0") +
                                  Query("rollback to savepoint s; commit") + terminate});
  c.push_back({"extended", Startup() +
                               ParseMsg("s1", "select $1::int + $2, $3::text", {23, 0, 25}) +
                               Target('D', 'S', "s1") +
                               BindMsg("p1", "s1", {1, 0, 0}, {Be32(41), "1", "hi"}, {1}) +
                               Target('D', 'P', "p1") + ExecuteMsg("p1", 0) +
                               Target('C', 'P', "p1") + Target('C', 'S', "s1") + sync + terminate});
  c.push_back(
      {"cursor", Startup() + Query("begin") + ParseMsg("", "select * from t order by a", {}) +
                     BindMsg("c", "", {}, {}, {0}) + ExecuteMsg("c", 2) + ExecuteMsg("c", 2) +
                     ExecuteMsg("c", 0) + sync + Query("commit") + terminate});
  c.push_back({"binary", Startup() +
                             ParseMsg("", "select $1::numeric + 1, $2::date, $3::bytea, $4::float8",
                                      {1700, 1082, 17, 701}) +
                             BindMsg("", "", {1},
                                     {std::string("\0\1\0\0\0\0\0\0\0\x0c", 10), Be32(100),
                                      "\x01\x02", std::string("\x3f\xf8\0\0\0\0\0\0", 8)},
                                     {1}) +
                             ExecuteMsg("", 0) + sync + terminate});
  c.push_back({"batch_error", Startup() + ParseMsg("", "select 1/0", {}) +
                                  BindMsg("", "", {}, {}, {}) + ExecuteMsg("", 0) +
                                  ParseMsg("", "select 2", {}) + BindMsg("", "", {}, {}, {}) +
                                  ExecuteMsg("", 0) + sync + terminate});
  c.push_back(
      {"ssl", Be32(8) + Be32(server::kSslRequestCode) + Startup() + Query("select 1") + terminate});
  c.push_back({"cancel", Be32(16) + Be32(server::kCancelRequestCode) + Be32(1) + Be32(2)});
  return c;
}

// The RowDescription body of a result of every type PgClient reads back (and a NULL column).
std::string ClientRowDescription() {
  using columnar::DataType;
  columnar::Schema schema({{"b", DataType::Boolean()},
                           {"i", DataType::Int32()},
                           {"d", DataType::Decimal(15, 2)},
                           {"dt", DataType::Date32()},
                           {"ts", DataType::Timestamp(columnar::TimeUnit::kMicro)},
                           {"tz", DataType::Timestamp(columnar::TimeUnit::kMicro, "UTC")},
                           {"iv", DataType::Interval()},
                           {"by", DataType::Binary()},
                           {"s", DataType::Utf8()},
                           {"f", DataType::Float64()},
                           {"n", DataType::UInt64()},
                           {"x", DataType::Int64()}});
  MessageWriter w;
  server::WriteRowDescription(w, schema, {});
  return w.buffer().substr(5);
}

const std::vector<server::PgColumn>& ClientColumns() {
  static const std::vector<server::PgColumn> columns = [] {
    auto parsed = server::ParseRowDescription(ClientRowDescription());
    SHOAL_CHECK(parsed.ok(), "{}", parsed.status().ToString());
    return std::move(parsed).MoveValueUnsafe();
  }();
  return columns;
}

// One body per message kind for the parsers.
std::vector<Input> Messages() {
  auto body = [](const std::string& m) { return m.substr(5); };
  std::vector<Input> v;
  v.push_back({"startup", Startup().substr(4), 0});
  v.push_back({"parse", body(ParseMsg("s", "select $1", {23})), 'P'});
  v.push_back({"bind", body(BindMsg("p", "s", {1}, {Be32(7), "NULL"}, {1, 0})), 'B'});
  v.push_back({"describe", body(Target('D', 'S', "s")), 'D'});
  v.push_back({"close", body(Target('C', 'P', "p")), 'C'});
  v.push_back({"execute", body(ExecuteMsg("p", 10)), 'E'});
  v.push_back({"query", body(Query("select 1")), 'Q'});
  // What PgClient reads from a server (pg_result_builder.h): a RowDescription, a DataRow of the
  // columns ClientColumns() describes, and an interval's text.
  v.push_back({"row_description", ClientRowDescription(), 't'});
  MessageWriter row;
  const std::vector<std::string> values = {"t",
                                           "-12",
                                           "12345.67",
                                           "2024-02-29",
                                           "2024-01-02 03:04:05.5",
                                           "2024-01-02 03:04:05+00",
                                           "1 year 2 mons -3 days +04:05:06.5",
                                           "\\x00ff",
                                           "text",
                                           "1.5e-07",
                                           "NaN"};
  row.Int16(static_cast<int16_t>(values.size() + 1));
  for (const std::string& value : values) {
    row.Int32(static_cast<int32_t>(value.size()));
    row.Bytes(value);
  }
  row.Int32(-1);
  v.push_back({"data_row", row.buffer(), 'r'});
  v.push_back({"interval_text", "-1 years -2 mons +3 days -04:05:06.000001", 'i'});
  return v;
}

class Mutator : public testing::MutationRng {
 public:
  using MutationRng::MutationRng;

  std::string Mutate(const std::string& in) {
    return EditRounds(in, 4, [&](std::string* edited) {
      std::string& b = *edited;
      const size_t pos = Below(b.size());
      switch (Below(9)) {
        case 0: testing::mutate::FlipBit(&b, pos, static_cast<int>(Below(8))); break;
        case 1: b[pos] = static_cast<char>(Below(256)); break;
        case 2: testing::mutate::Truncate(&b, pos); break;
        case 3: testing::mutate::EraseRange(&b, pos, 1 + Below(16)); break;
        case 4: testing::mutate::DuplicateRange(&b, pos, Below(b.size() + 1), 1 + Below(40)); break;
        case 5: {  // a length or count field rewritten with an edge value
          static const int32_t kEdges[] = {0,  1,          3,         4,     5,      -1,
                                           -2, 0x7fffffff, INT32_MIN, 65535, 0x10000};
          const int32_t v = kEdges[Below(std::size(kEdges))];
          std::string be = Be32(v);
          if (pos + 4 <= b.size())
            b.replace(pos, 4, be);
          break;
        }
        case 6: {  // a 16-bit count rewritten
          static const int16_t kEdges[] = {0, 1, 2, -1, 0x7fff, -32768, 100};
          const auto v = static_cast<uint16_t>(kEdges[Below(std::size(kEdges))]);
          if (pos + 2 <= b.size()) {
            b[pos] = static_cast<char>(v >> 8);
            b[pos + 1] = static_cast<char>(v & 0xff);
          }
          break;
        }
        case 7: b.insert(pos, 1, '\0'); break;
        default: {  // a message type byte replaced
          static const char kTypes[] = "PBDECSHXQdcfpzF\x00";
          b[pos] = kTypes[Below(sizeof(kTypes))];
          break;
        }
      }
    });
  }
};

Status ParseOne(const Input& in, const std::string& body) {
  switch (in.kind) {
    case 0: return server::ParseStartupPacket(body).status();
    case 'P': return server::ParseParseMessage(body).status();
    case 'B': return server::ParseBindMessage(body).status();
    case 'D': return server::ParseTargetMessage(body, "Describe").status();
    case 'C': return server::ParseTargetMessage(body, "Close").status();
    case 'E': return server::ParseExecuteMessage(body).status();
    case 't': return server::ParseRowDescription(body).status();
    case 'r': {
      server::PgResultBuilder rows(ClientColumns());
      SHOAL_RETURN_IF_ERROR(rows.AddDataRow(body));
      return rows.Finish().status();
    }
    case 'i': return server::ParsePgIntervalText(body).status();
    default: return server::ParseQueryMessage(body).status();
  }
}

// Sends `bytes`, half-closes, and reads the server's reply until it closes the connection.
// InvalidData when the reply is not a sequence of well-formed messages; DeadlineExceeded when
// the server does not close within the deadline.
Status Converse(int port, const std::string& bytes, int64_t* messages) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return Status::IoError("connect failed");
  }
  size_t sent = 0;
  std::string reply;
  bool write_closed = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (;;) {
    if (!write_closed && sent == bytes.size()) {
      shutdown(fd, SHUT_WR);
      write_closed = true;
    }
    pollfd p{fd, static_cast<short>(POLLIN | (write_closed ? 0 : POLLOUT)), 0};
    if (poll(&p, 1, 100) < 0) {
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      close(fd);
      return Status::DeadlineExceeded("the server did not close the connection within 20 s");
    }
    if (!write_closed && (p.revents & POLLOUT)) {
      ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n > 0) {
        sent += static_cast<size_t>(n);
      } else {
        sent = bytes.size();  // the server closed: stop sending
      }
    }
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      char buf[65536];
      ssize_t n = recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) {
        break;
      }
      reply.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  // The reply: optional single 'N'/'S' bytes answering SSLRequest, then messages.
  size_t i = 0;
  while (i < reply.size() && (reply[i] == 'N' || reply[i] == 'S') &&
         (i + 1 >= reply.size() || reply[i + 1] != '\0')) {
    ++i;
  }
  while (i < reply.size()) {
    if (reply.size() - i < 5) {
      return Status::InvalidData("a truncated message in the reply");
    }
    const auto* b = reinterpret_cast<const uint8_t*>(reply.data() + i + 1);
    const uint32_t len =
        (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
    if (len < 4 || i + 1 + len > reply.size()) {
      return Status::InvalidData("a reply message of bad length {}", len);
    }
    ++*messages;
    i += 1 + len;
  }
  return Status::OK();
}

int Run() {
  if (Status st = engine::RegisterSettings(); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.ToString().c_str());
    return 1;
  }
  server::ServerOptions options;
  options.port = 0;
  options.threads = 4;
  options.server_version = "15.0 (Shoal fuzz)";
  server::Server server(options);
  if (Status st = server.Start(); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.ToString().c_str());
    return 1;
  }
  {
    int64_t n = 0;
    Status st = Converse(server.port(),
                         Startup() +
                             Query("create table t (a int, b text); "
                                   "insert into t values (1,'a'),(2,'b'),(3,NULL)") +
                             Simple('X'),
                         &n);
    if (!st.ok()) {
      std::fprintf(stderr, "setup failed: %s\n", st.ToString().c_str());
      return 1;
    }
  }
  MutationHarness harness("pg protocol mutation test", 20261202, 3000);
  Mutator mutator(harness.seed());
  const auto conversations = Conversations();
  const auto messages = Messages();
  int64_t replies = 0;
  for (const auto& c : conversations) {
    harness.clean().Check(Converse(server.port(), c.bytes, &replies), c.name,
                          std::initializer_list<StatusCode>{});
  }
  for (const auto& m : messages) {
    harness.clean().Check(ParseOne(m, m.bytes), m.name, std::initializer_list<StatusCode>{});
  }
  harness.Run([&](int64_t i, MutationStats* stats) {
    // Parsers: several mutants per iteration (they are cheap).
    for (int k = 0; k < 8; ++k) {
      const Input& m = messages[static_cast<size_t>(i * 8 + k) % messages.size()];
      const std::string mutant = mutator.Mutate(m.bytes);
      stats->SetInput(m.name, mutant);
      ++stats->reads;
      stats->Check(ParseOne(m, mutant), fmt::format("iteration {} parser {}", i, m.name),
                   {StatusCode::kInvalidArgument, StatusCode::kNotImplemented});
    }
    const Input& c = conversations[static_cast<size_t>(i) % conversations.size()];
    const std::string mutant = mutator.Mutate(c.bytes);
    stats->SetInput(c.name, mutant);
    ++stats->reads;
    stats->Check(Converse(server.port(), mutant, &replies),
                 fmt::format("iteration {} conversation {}", i, c.name),
                 std::initializer_list<StatusCode>{});
  });
  server.Stop();
  return harness.Finish({"InvalidArgument"}, fmt::format("{} reply messages", replies));
}

}  // namespace
}  // namespace shoal

int main() {
  return shoal::Run();
}
