#include "shoal/server/connection.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <random>
#include <thread>

#include <fmt/format.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/common/log_context.h"
#include "shoal/server/connection_internal.h"
#include "shoal/server/copy_out_format.h"
#include "shoal/server/pg_types.h"
#include "shoal/server/statement_shape.h"

namespace shoal::server {

using internal::ClientGone;
using internal::DecodeInt32;
using internal::RowsOfTag;
using internal::Upper;

Connection::Connection(ConnectionHost* server, int fd) : server_(server), fd_(fd) {}

Connection::~Connection() {
  if (idle_timer_ != 0) {
    server_->statement_timer().Disarm(idle_timer_);
  }
  EndMonitoredPortals();
  portals_.clear();  // their cursors cancel queries still running
  if (pid_ != 0) {
    server_->UnregisterSession(pid_);
    if (QueryMonitor* monitor = server_->monitor())
      monitor->SessionEnded(pid_);
  }
  if (ssl_ != nullptr) {
    SSL_shutdown(ssl_);
    SSL_free(ssl_);
  }
}

Status Connection::ReadExactly(char* data, size_t n) {
  size_t done = std::min(n, in_end_ - in_begin_);
  if (done > 0) {
    std::memcpy(data, in_buffer_.get() + in_begin_, done);
    in_begin_ += done;
  }
  if (done == n) {
    return Status::OK();
  }
  if (!buffered_reads_ || n - done >= kReadBufferBytes) {
    return ReadFromSocket(data + done, n - done);
  }
  if (in_buffer_ == nullptr) {
    in_buffer_ = std::make_unique<char[]>(kReadBufferBytes);
  }
  while (done < n) {
    // Whatever has arrived, up to the buffer's size: at least one byte, waiting as long as the
    // socket's receive timeout allows.
    in_begin_ = 0;
    in_end_ = 0;
    ssize_t got = 0;
    if (ssl_ != nullptr) {
      got = SSL_read(ssl_, in_buffer_.get(), static_cast<int>(kReadBufferBytes));
      if (got <= 0) {
        return ClientGone();
      }
    } else {
      got = recv(fd_, in_buffer_.get(), kReadBufferBytes, 0);
      if (got < 0 && errno == EINTR) {
        continue;
      }
      if (got <= 0) {
        return ClientGone();
      }
    }
    in_end_ = static_cast<size_t>(got);
    const size_t take = std::min(n - done, in_end_);
    std::memcpy(data + done, in_buffer_.get(), take);
    in_begin_ = take;
    done += take;
  }
  return Status::OK();
}

Status Connection::ReadFromSocket(char* data, size_t n) {
  size_t done = 0;
  while (ssl_ != nullptr && done < n) {
    int got = SSL_read(ssl_, data + done, static_cast<int>(std::min<size_t>(n - done, 1 << 30)));
    if (got <= 0) {
      return ClientGone();
    }
    done += static_cast<size_t>(got);
  }
  while (done < n) {
    ssize_t got = recv(fd_, data + done, n - done, 0);
    if (got > 0) {
      done += static_cast<size_t>(got);
    } else if (got == 0 || errno != EINTR) {
      return ClientGone();
    }
  }
  return Status::OK();
}

Status Connection::Flush() {
  if (broken_) {
    return ClientGone();
  }
  const std::string& buf = out_.buffer();
  size_t done = 0;
  while (ssl_ != nullptr && done < buf.size()) {
    int sent = SSL_write(ssl_, buf.data() + done,
                         static_cast<int>(std::min<size_t>(buf.size() - done, 1 << 30)));
    if (sent <= 0) {
      broken_ = true;
      out_.Clear();
      return ClientGone();
    }
    done += static_cast<size_t>(sent);
  }
  while (done < buf.size()) {
    ssize_t sent = send(fd_, buf.data() + done, buf.size() - done, MSG_NOSIGNAL);
    if (sent > 0) {
      done += static_cast<size_t>(sent);
    } else if (sent < 0 && errno == EINTR) {
      continue;
    } else {
      broken_ = true;
      out_.Clear();
      return ClientGone();
    }
  }
  out_.Clear();
  return Status::OK();
}

Status Connection::MaybeFlush() {
  return out_.size() >= kFlushBytes ? Flush() : Status::OK();
}

void Connection::SendError(const Status& status) {
  WriteErrorResponse(out_, status);
}

int64_t Connection::MonitorStart(const sql::BoundStatement& bound, const std::string& sql) {
  QueryMonitor* monitor = server_->monitor();
  if (monitor == nullptr)
    return 0;
  switch (bound.kind) {
    case sql::StatementKind::kSet:
    case sql::StatementKind::kReset:
    case sql::StatementKind::kResetAll:
    case sql::StatementKind::kShow:
    case sql::StatementKind::kShowAll: return 0;  // no plan: not a query to watch
    default: break;
  }
  runner_->SetKeepLastPlan(monitor->keep_history());
  static thread_local std::mt19937_64 random(std::random_device{}());
  query_id_ = fmt::format("{:016x}", random());  // the coordinator's form (distributed ids)
  runner_->SetQueryId(query_id_);
  return monitor->QueryStarted(pid_, sql, runner_.get(), query_id_);
}

void Connection::MonitorEnd(int64_t id, const Status& status, int64_t rows) {
  QueryMonitor* monitor = server_->monitor();
  if (monitor == nullptr || id == 0)
    return;
  auto [plain, verbose] = monitor->keep_history() ? runner_->TakeLastQueryAnalysis()
                                                  : std::pair<std::string, std::string>();
  monitor->QueryEnded(id, status, rows, std::move(plain), verbose);
}

void Connection::CancelStatement() {
  cancel_requested_.store(true);
  if (QueryAdmission* admission = server_->admission()) {
    admission->Interrupt();
  }
  runner_->CancelRunning();
}

Result<std::unique_ptr<QueryAdmission::Ticket>> Connection::Admit(
    const sql::BoundStatement& bound) {
  QueryAdmission* admission = server_->admission();
  switch (bound.kind) {
    case sql::StatementKind::kSet:
    case sql::StatementKind::kReset:
    case sql::StatementKind::kResetAll:
    case sql::StatementKind::kShow:
    case sql::StatementKind::kShowAll:
      return std::unique_ptr<QueryAdmission::Ticket>();  // no plan: never queued behind queries
    default: break;
  }
  if (admission == nullptr) {
    return std::unique_ptr<QueryAdmission::Ticket>();
  }
  return admission->Admit(runner_->session().settings().GetInt("memory_limit"), cancel_requested_);
}

Status Connection::WithTimeout(const std::function<Status()>& body) {
  cancel_requested_.store(false);
  const int64_t ms = runner_->session().settings().GetInt("statement_timeout");
  if (ms <= 0) {
    return body();
  }
  StatementTimer& timer = server_->statement_timer();
  const uint64_t id = timer.Arm(StatementTimer::Clock::now() + std::chrono::milliseconds(ms),
                                [this] { CancelStatement(); });
  Status st = body();
  const bool fired = timer.Disarm(id);
  if (fired && st.code() == StatusCode::kCancelled) {
    return Status::Cancelled("canceling statement due to statement timeout").WithSqlState("57014");
  }
  return st;
}

bool Connection::InputReady() const {
  if (in_begin_ < in_end_ || (ssl_ != nullptr && SSL_pending(ssl_) > 0)) {
    return true;
  }
  if (buffered_reads_) {
    return false;  // saves a poll per message: the rearmed epoll watch sees what is left
  }
  pollfd p{fd_, POLLIN, 0};
  return poll(&p, 1, 0) > 0;  // readable, or closed (the read then says so)
}

Connection::Turn Connection::Serve() {
  if (!started_) {
    started_ = true;
    Status st = Startup();
    if (!st.ok() || pid_ == 0) {
      (void)Flush();
      return Turn::kClosed;
    }
    if (!Flush().ok()) {
      return Turn::kClosed;
    }
    buffered_reads_ = true;
    if (!InputReady()) {
      return Turn::kIdle;
    }
  }
  if (idle_timer_ != 0) {
    const bool fired = server_->statement_timer().Disarm(idle_timer_);
    idle_timer_ = 0;
    if (fired) {
      const bool in_block = std::string_view(idle_sqlstate_) == "25P03";
      WriteErrorResponse(out_,
                         Status::Cancelled("terminating connection due to {} timeout",
                                           in_block ? "idle-in-transaction" : "idle-session")
                             .WithSqlState(idle_sqlstate_),
                         "FATAL");
      (void)Flush();
      return Turn::kClosed;
    }
  }
  // At least one message: the caller saw the socket readable.
  do {
    if (!ServeMessage()) {
      return Turn::kClosed;
    }
  } while (InputReady());
  return Flush().ok() ? Turn::kIdle : Turn::kClosed;
}

void Connection::Park() {
  const bool in_block = transaction_status_ != 'I';
  const int64_t ms = runner_->session().settings().GetInt(
      in_block ? "idle_in_transaction_session_timeout" : "idle_session_timeout");
  if (ms <= 0) {
    return;
  }
  idle_sqlstate_ = in_block ? "25P03" : "57P05";
  const int fd = fd_;
  // Shutting the reading side down makes the parked socket readable: a thread picks the
  // connection up, sees the fired timer and ends the session with the FATAL error.
  idle_timer_ =
      server_->statement_timer().Arm(StatementTimer::Clock::now() + std::chrono::milliseconds(ms),
                                     [fd] { shutdown(fd, SHUT_RD); });
}

bool Connection::ServeMessage() {
  char header[5];
  if (!ReadExactly(header, 5).ok()) {
    return false;
  }
  const char type = header[0];
  const int32_t length = DecodeInt32(header + 1);
  if (length < 4 || length > kMaxMessageBytes) {
    WriteErrorResponse(
        out_,
        ProtocolViolation(fmt::format("invalid message length {} (type '{}')", length,
                                      static_cast<int>(static_cast<uint8_t>(type)))),
        "FATAL");
    (void)Flush();
    return false;
  }
  std::string body(static_cast<size_t>(length - 4), '\0');
  if (!ReadExactly(body.data(), body.size()).ok()) {
    return false;
  }
  bool terminate = false;
  Status st = HandleMessage(type, body, &terminate);
  if (!st.ok() || terminate || broken_) {
    (void)Flush();
    return false;
  }
  return true;
}

Status Connection::HandleMessage(char type, std::string_view body, bool* terminate) {
  if (skip_until_sync_ && type != 'S' && type != 'X') {
    return Status::OK();
  }
  Status st;
  switch (type) {
    case 'Q': {
      auto sql = ParseQueryMessage(body);
      if (!sql.ok()) {
        WriteErrorResponse(out_, sql.status(), "FATAL");
        return sql.status();
      }
      SHOAL_RETURN_IF_ERROR(SimpleQuery(*sql));
      return Flush();
    }
    case 'P': st = Parse(body); break;
    case 'B': st = Bind(body); break;
    case 'D': st = Describe(body); break;
    case 'E': st = Execute(body); break;
    case 'C': st = Close(body); break;
    case 'S': Sync(); return Flush();
    case 'H': return Flush();
    case 'X': *terminate = true; return Status::OK();
    case 'd':
    case 'c':
    case 'f':
      return Status::OK();  // COPY data outside COPY FROM STDIN: ignored, as PostgreSQL does
    default: {
      auto violation = ProtocolViolation(fmt::format("invalid frontend message type {}",
                                                     static_cast<int>(static_cast<uint8_t>(type))));
      WriteErrorResponse(out_, violation, "FATAL");
      return violation;
    }
  }
  if (broken_) {
    return ClientGone();
  }
  if (!st.ok()) {
    SendError(st);
    OnStatementError();
    skip_until_sync_ = true;
  }
  return MaybeFlush();
}

// ---- Simple query ----------------------------------------------------------------------------

Status Connection::SimpleQuery(const std::string& sql) {
  auto parsed = server_->parse_cache().Parse(sql);
  if (!parsed.ok()) {
    SendError(parsed.status());
    OnStatementError();
  } else if ((*parsed)->statements.empty()) {
    WriteEmptyMessage(out_, 'I');
  } else {
    const sql::ParsedScript& script = **parsed;
    QueryMonitor* monitor = server_->monitor();
    for (const auto& statement : script.statements) {
      if (monitor != nullptr)
        monitor->SessionActive(pid_, statement.text);
      Status st = RunStatement(script, statement);
      if (broken_) {
        return ClientGone();
      }
      if (!st.ok()) {
        SendError(st);
        OnStatementError();
        break;
      }
    }
  }
  if (QueryMonitor* monitor = server_->monitor())
    monitor->SessionIdle(pid_);
  WriteReadyForQuery(out_, transaction_status_);
  return Status::OK();
}

Status Connection::RunStatement(const sql::ParsedScript& script,
                                const sql::ParsedStatement& statement) {
  SHOAL_RETURN_IF_ERROR(CheckNotAborted(statement));
  if (!TransactionKeyword(statement).empty()) {
    SHOAL_ASSIGN_OR_RETURN(std::string tag, RunTransactionCommand(statement));
    WriteCommandComplete(out_, tag);
    return Status::OK();
  }
  SHOAL_ASSIGN_OR_RETURN(std::shared_ptr<const sql::BoundStatement> bound_statement,
                         statement_cache_.Bind(&runner_->session(), script, statement));
  const sql::BoundStatement& bound = *bound_statement;
  if (transaction_status_ == 'T' && IsWrite(bound.kind)) {
    block_wrote_ = true;
  }
  Portal portal;
  const int64_t monitored = MonitorStart(bound, statement.text);
  const ScopedLogContext log_context(monitored != 0 ? query_id_ : "", "");
  Status st = WithTimeout([&]() -> Status {
    SHOAL_ASSIGN_OR_RETURN(portal.ticket, Admit(bound));
    SHOAL_ASSIGN_OR_RETURN(portal.cursor, runner_->Open(bound));
    if (bound.kind == sql::StatementKind::kCopy && bound.copy_path.empty()) {
      return SendCopyOut(portal, bound);
    }
    if (portal.cursor->schema() != nullptr) {
      WriteRowDescription(out_, *portal.cursor->schema(), {});
    }
    SHOAL_ASSIGN_OR_RETURN(bool complete, SendRows(portal, 0));
    (void)complete;
    WriteCommandComplete(out_, portal.cursor->command_tag());
    return Status::OK();
  });
  MonitorEnd(monitored, st, portal.cursor != nullptr ? RowsOfTag(portal.cursor->command_tag()) : 0);
  return st;
}

Status Connection::SendCopyOut(Portal& portal, const sql::BoundStatement& bound) {
  SHOAL_ASSIGN_OR_RETURN(CopyOutOptions options, ParseCopyOutOptions(bound.copy_options));
  const auto& schema = *portal.cursor->schema();
  const int16_t format = options.binary ? 1 : 0;
  out_.Begin('H');  // CopyOutResponse: the format overall and of every column
  out_.Byte(static_cast<uint8_t>(format));
  out_.Int16(static_cast<int16_t>(schema.num_fields()));
  for (int c = 0; c < schema.num_fields(); ++c) {
    out_.Int16(format);
  }
  out_.End();
  if (options.binary) {
    return SendCopyOutBinary(portal);
  }
  std::string line;
  auto send_line = [&]() {
    line.push_back('\n');
    out_.Begin('d');
    out_.Bytes(line);
    out_.End();
    line.clear();
  };
  if (options.header) {
    for (int c = 0; c < schema.num_fields(); ++c) {
      if (c > 0) {
        line.push_back(options.delimiter);
      }
      AppendCopyField(options, schema.field(c).name, false, &line);
    }
    send_line();
  }
  int64_t rows = 0;
  std::string scratch;
  std::string& buffer = out_.buffer();  // rows are written straight into their CopyData messages
  for (;;) {
    SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr batch, portal.cursor->Next());
    if (batch == nullptr) {
      break;
    }
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      out_.Begin('d');
      for (int c = 0; c < batch->num_columns(); ++c) {
        if (c > 0) {
          buffer.push_back(options.delimiter);
        }
        AppendCopyValue(options, *batch->column(c), r, &buffer, &scratch);
      }
      buffer.push_back('\n');
      out_.End();
      if ((r & 255) == 255) {
        SHOAL_RETURN_IF_ERROR(MaybeFlush());
      }
    }
    rows += batch->num_rows();
    SHOAL_RETURN_IF_ERROR(MaybeFlush());
  }
  WriteEmptyMessage(out_, 'c');  // CopyDone
  WriteCommandComplete(out_, fmt::format("COPY {}", rows));
  return Status::OK();
}

Status Connection::SendCopyOutBinary(Portal& portal) {
  // As PostgreSQL sends it: the header travels with the first row, one CopyData per row, the
  // trailer in a CopyData of its own.
  std::string data;
  AppendCopyBinaryHeader(&data);
  auto send_data = [&]() {
    out_.Begin('d');
    out_.Bytes(data);
    out_.End();
    data.clear();
  };
  int64_t rows = 0;
  for (;;) {
    SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr batch, portal.cursor->Next());
    if (batch == nullptr) {
      break;
    }
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      AppendCopyBinaryTuple(*batch, r, &data);
      send_data();
      if ((r & 255) == 255) {
        SHOAL_RETURN_IF_ERROR(MaybeFlush());
      }
    }
    rows += batch->num_rows();
    SHOAL_RETURN_IF_ERROR(MaybeFlush());
  }
  AppendCopyBinaryTrailer(&data);
  send_data();
  WriteEmptyMessage(out_, 'c');  // CopyDone
  WriteCommandComplete(out_, fmt::format("COPY {}", rows));
  return Status::OK();
}

Result<bool> Connection::SendRows(Portal& portal, int64_t max_rows) {
  // Rows go out in slices so the buffer is flushed often even for a large batch.
  constexpr int64_t kSliceRows = 256;
  int64_t sent = 0;
  for (;;) {
    if (portal.pending == nullptr) {
      Result<columnar::RecordBatchPtr> next = portal.cursor->Next();
      for (const std::string& notice : portal.cursor->TakeNotices())
        WriteNoticeResponse(out_, "NOTICE", "00000", notice);
      SHOAL_ASSIGN_OR_RETURN(portal.pending, std::move(next));
      portal.pending_offset = 0;
      if (portal.pending == nullptr) {
        return true;
      }
    }
    const int64_t available = portal.pending->num_rows() - portal.pending_offset;
    int64_t take = std::min(available, kSliceRows);
    if (max_rows > 0) {
      take = std::min(take, max_rows - sent);
    }
    WriteDataRows(out_, *portal.pending, portal.pending_offset, portal.pending_offset + take,
                  portal.result_formats);
    portal.pending_offset += take;
    sent += take;
    if (portal.pending_offset == portal.pending->num_rows()) {
      portal.pending.reset();
    }
    SHOAL_RETURN_IF_ERROR(MaybeFlush());
    if (max_rows > 0 && sent == max_rows) {
      return false;  // as PostgreSQL: suspended once the limit is reached, without looking ahead
    }
  }
}

// ---- Transaction blocks ----------------------------------------------------------------------

std::string Connection::TransactionKeyword(const sql::ParsedStatement& statement) {
  auto words = LeadingWords(statement.text, 2);
  if (words.empty()) {
    return "";
  }
  const std::string& w = words[0];
  if (w == "begin" || w == "start" || w == "commit" || w == "end" || w == "rollback" ||
      w == "abort" || w == "savepoint" || w == "release") {
    // START must be START TRANSACTION; COMMIT/ROLLBACK PREPARED are two-phase commit (not ours).
    if (w == "start" && (words.size() < 2 || words[1] != "transaction")) {
      return "";
    }
    if ((w == "commit" || w == "rollback") && words.size() > 1 && words[1] == "prepared") {
      return "";
    }
    return w;
  }
  return "";
}

Status Connection::CheckNotAborted(const sql::ParsedStatement& statement) {
  if (transaction_status_ != 'E') {
    return Status::OK();
  }
  std::string keyword = TransactionKeyword(statement);
  if (keyword == "commit" || keyword == "end" || keyword == "rollback" || keyword == "abort") {
    return Status::OK();
  }
  return Status::InvalidArgument(
             "current transaction is aborted, commands ignored until end of transaction block")
      .WithSqlState("25P02");
}

void Connection::OnStatementError() {
  if (transaction_status_ == 'T') {
    transaction_status_ = 'E';
  }
}

Result<std::string> Connection::RunTransactionCommand(const sql::ParsedStatement& statement) {
  const std::string keyword = TransactionKeyword(statement);
  auto words = LeadingWords(statement.text, 4);
  const bool in_block = transaction_status_ != 'I';
  auto end_block = [&]() {
    if (block_wrote_ && transaction_status_ != 'I') {
      // Statements are not transactional yet: say so instead of pretending to undo them.
      WriteNoticeResponse(out_, "WARNING", "0A000",
                          "the changes made in this transaction block were applied as each "
                          "statement ran and are not undone");
    }
    transaction_status_ = 'I';
    block_wrote_ = false;
    savepoints_.clear();
  };
  if (keyword == "begin" || keyword == "start") {
    if (in_block) {
      WriteNoticeResponse(out_, "WARNING", "25001", "there is already a transaction in progress");
    } else {
      transaction_status_ = 'T';
      block_wrote_ = false;
      savepoints_.clear();
    }
    return std::string(keyword == "begin" ? "BEGIN" : "START TRANSACTION");
  }
  if (keyword == "commit" || keyword == "end") {
    if (!in_block) {
      WriteNoticeResponse(out_, "WARNING", "25P01", "there is no transaction in progress");
      return std::string("COMMIT");
    }
    const bool failed = transaction_status_ == 'E';
    block_wrote_ = block_wrote_ && failed;  // a committed block's writes are what was asked
    end_block();
    return std::string(failed ? "ROLLBACK" : "COMMIT");
  }
  if (keyword == "rollback" || keyword == "abort") {
    // ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] name
    auto to = std::find(words.begin(), words.end(), "to");
    if (to != words.end()) {
      if (!in_block) {
        return Status::InvalidArgument(
                   "ROLLBACK TO SAVEPOINT can only be used in transaction blocks")
            .WithSqlState("25P01");
      }
      auto all = LeadingWords(statement.text, 6);
      std::string name = all.back();
      auto it = std::find(savepoints_.begin(), savepoints_.end(), name);
      if (it == savepoints_.end()) {
        return Status::InvalidArgument("savepoint \"{}\" does not exist", name)
            .WithSqlState("3B001");
      }
      savepoints_.erase(it + 1, savepoints_.end());
      transaction_status_ = 'T';
      if (block_wrote_) {
        WriteNoticeResponse(out_, "WARNING", "0A000",
                            "the changes made since the savepoint were applied as each statement "
                            "ran and are not undone");
      }
      return std::string("ROLLBACK");
    }
    if (!in_block) {
      WriteNoticeResponse(out_, "WARNING", "25P01", "there is no transaction in progress");
      return std::string("ROLLBACK");
    }
    end_block();
    return std::string("ROLLBACK");
  }
  if (keyword == "savepoint") {
    if (!in_block) {
      return Status::InvalidArgument("SAVEPOINT can only be used in transaction blocks")
          .WithSqlState("25P01");
    }
    if (words.size() < 2) {
      return Status::InvalidArgument("SAVEPOINT needs a name").WithSqlState("42601");
    }
    savepoints_.push_back(words[1]);
    return std::string("SAVEPOINT");
  }
  // RELEASE [SAVEPOINT] name
  if (!in_block) {
    return Status::InvalidArgument("RELEASE SAVEPOINT can only be used in transaction blocks")
        .WithSqlState("25P01");
  }
  std::string name = words.size() > 2 && words[1] == "savepoint" ? words[2]
                     : words.size() > 1                          ? words[1]
                                                                 : "";
  auto it = std::find(savepoints_.begin(), savepoints_.end(), name);
  if (it == savepoints_.end()) {
    return Status::InvalidArgument("savepoint \"{}\" does not exist", name).WithSqlState("3B001");
  }
  savepoints_.erase(it, savepoints_.end());
  return std::string("RELEASE");
}

}  // namespace shoal::server
