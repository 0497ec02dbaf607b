#include "shoal/cli/sql_command.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <span>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <termios.h>
#include <unistd.h>

#include "shoal/cli/line_editor.h"
#include "shoal/cli/node_security_flags.h"
#include "shoal/cli/result_printer.h"
#include "shoal/cli/shell_commands.h"
#include "shoal/cli/worker_command.h"
#include "shoal/columnar/pretty_print.h"
#include "shoal/common/text.h"
#include "shoal/engine/in_process_workers.h"
#include "shoal/engine/session_setup.h"
#include "shoal/io/data_roots.h"
#include "shoal/server/pg_client.h"

namespace shoal::cli {

namespace {

struct SqlArgs {
  std::vector<std::string> commands;
  std::vector<std::string> files;
  std::string format = "table";
  bool no_progress = false;  // --no-progress: no progress line even on a terminal
  std::string tpch_scale;    // --tpch SF: the TPC-H tables of that scale factor, in memory
  std::string workers;       // --workers HOST:PORT,... | file:PATH | dns:NAME:PORT | inproc:N
  // --header K=V: passthrough headers sent with every call to workers
  std::vector<std::string> headers;
  // --worker-version V: the version workers must report ('': not checked)
  std::string worker_version = DefaultWorkerVersion();
  // --shuffle-dir DIR: stages run as `shoal task` processes exchanging files in DIR
  std::string shuffle_dir;
  // --shuffle-workers H:P,...: `shoal worker --shuffle-dir`s that run those tasks instead
  std::string shuffle_workers;
  // --tls-cert, --tls-key, --tls-ca, --cluster-secret-file, --insecure: how --workers and
  // --shuffle-workers are reached (node_security_flags.h).
  engine::NodeSecurityOptions node_security;
  // --data-root DIR (repeatable): the only directories SQL may name files under
  std::vector<std::string> data_roots;
  // A server to run the statements on instead: --host, --port, --user, --dbname (or a
  // postgresql:// URL, as an argument or as --dbname), --sslmode, --sslrootcert,
  // --password-file. The password itself never comes from the command line.
  std::string url;
  std::string host;
  int port = 0;
  std::string user;
  std::string dbname;
  std::string sslmode;
  std::string sslrootcert;
  std::string password_file;
};

// The engine in this process, or a server, as the shell's target.
class LocalTarget final : public SqlTarget {
 public:
  explicit LocalTarget(engine::QueryRunner* runner) : runner_(runner) {}
  Status Run(std::string_view sql,
             const std::function<Status(const engine::QueryResult&)>& on_result) override {
    return runner_->Run(sql, on_result);
  }
  Status Run(std::string_view sql, engine::ResultSink& sink) override {
    return runner_->Run(sql, sink);
  }
  void CancelRunning() override { runner_->CancelRunning(); }
  std::optional<engine::QueryProgressSnapshot> Progress() override {
    return runner_->RunningProgress();
  }

 private:
  engine::QueryRunner* runner_;
};

class RemoteTarget final : public SqlTarget {
 public:
  explicit RemoteTarget(server::PgClient* client) : client_(client) {}
  Status Run(std::string_view sql,
             const std::function<Status(const engine::QueryResult&)>& on_result) override {
    return client_->Run(sql, on_result);
  }
  // The client hands over a statement's rows when the statement is complete.
  Status Run(std::string_view sql, engine::ResultSink& sink) override {
    return client_->Run(sql, [&](const engine::QueryResult& result) -> Status {
      for (const std::string& notice : result.notices)
        sink.Notice(notice);
      SHOAL_RETURN_IF_ERROR(sink.Begin(result.schema));
      for (const auto& batch : result.batches) {
        if (batch->num_rows() > 0)
          SHOAL_RETURN_IF_ERROR(sink.Rows(batch));
      }
      return sink.End(result.command_tag);
    });
  }
  void CancelRunning() override { client_->CancelRunning(); }

 private:
  server::PgClient* client_;
};

// Ctrl-C cancels the running statement, as in psql: the handler only sets a flag (all a signal
// handler may safely do) and a watcher thread turns it into SqlTarget::CancelRunning() (the
// runner's, or a CancelRequest to the server), and the statement then fails with "canceling
// statement due to user request" (SQLSTATE 57014). The shell
// goes on; -c and -f stop with exit status 1 like any failed statement.
// A mutable global on purpose: a signal handler can only reach global state, and a lock-free
// std::atomic<bool> is what it may safely write.
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
std::atomic<bool> g_interrupted{false};

extern "C" void OnInterrupt(int) {
  g_interrupted.store(true);
  LineEditor::NoteInterrupt();  // a read at the prompt drops the half-typed statement
}

class InterruptWatcher {
 public:
  /// `sticky` (scripts, -c, -f): once interrupted, every statement is cancelled as soon as it
  /// starts, so a Ctrl-C that lands between statements (or while --tpch generates data) still
  /// stops the script. Interactively a Ctrl-C at the prompt clears the statement being typed.
  InterruptWatcher(SqlTarget* target, bool sticky) : target_(target), sticky_(sticky) {
    struct sigaction action {};
    action.sa_handler = OnInterrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // output goes on; the prompt's poll() still sees EINTR
    sigaction(SIGINT, &action, &previous_);
    thread_ = std::thread([this] {
      bool interrupted = false;
      while (!stop_.load()) {
        if (g_interrupted.exchange(false) || (sticky_ && interrupted)) {
          interrupted = true;
          target_->CancelRunning();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  }

  ~InterruptWatcher() {
    stop_.store(true);
    thread_.join();
    sigaction(SIGINT, &previous_, nullptr);
  }

  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;

 private:
  SqlTarget* target_;
  const bool sticky_;
  struct sigaction previous_ {};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

void PrintError(const Status& st, const std::string& sql, std::ostream& err) {
  err << FormatSqlError(st, sql);
  err.flush();
}

Result<std::string> ReadFile(const std::string& path) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::IoError("{}: cannot open file", path);
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

// What meta-commands change, for the rest of a script or of the interactive session.
struct ShellState {
  SqlOutputFormat format = SqlOutputFormat::kTable;
  bool* timing = nullptr;
  bool* quit = nullptr;
  bool expanded = false;                // \x
  std::ostream* out = nullptr;          // the results: `out`, or the \o file
  std::ostream* base_out = nullptr;     // where \o with no file goes back to
  std::unique_ptr<std::ofstream> file;  // \o FILE
  int include_depth = 0;                // \i inside \i
  bool catalog_changed = true;          // completion names must be read again
  bool interactive = false;             // \x and \timing say what they set
  ProgressLine* progress = nullptr;     // on a terminal: the running statement's progress

  SqlOutputFormat EffectiveFormat() const {
    return expanded && format == SqlOutputFormat::kTable ? SqlOutputFormat::kExpanded : format;
  }
};

namespace {

std::vector<std::pair<size_t, size_t>> SplitStatements(const std::string& sql);

// Prints each statement's rows as they arrive, then its \timing line.
class ShellSink final : public engine::ResultSink {
 public:
  ShellSink(ShellState& state, std::ostream& err)
      : state_(state), err_(err), printer_(state.EffectiveFormat(), state.out, &err) {
    if (state_.progress != nullptr)
      state_.progress->Restart();
  }
  ~ShellSink() override {
    if (state_.progress != nullptr)
      state_.progress->Pause();  // before the caller prints an error
  }
  ShellSink(const ShellSink&) = delete;
  ShellSink& operator=(const ShellSink&) = delete;

  Status Begin(const columnar::SchemaPtr& schema) override { return printer_.Begin(schema); }
  Status Rows(const columnar::RecordBatchPtr& batch) override {
    PauseProgress();
    return printer_.Rows(batch);
  }
  void Notice(const std::string& text) override {
    PauseProgress();
    printer_.Notice(text);
  }
  Status End(const std::string& command_tag) override {
    PauseProgress();
    SHOAL_RETURN_IF_ERROR(printer_.End(command_tag));
    if (state_.progress != nullptr)
      state_.progress->Restart();  // the next statement of the text starts now
    if (*state_.timing) {
      auto now = std::chrono::steady_clock::now();
      err_ << fmt::format("Time: {:.3f} ms\n",
                          std::chrono::duration<double, std::milli>(now - start_).count());
      err_.flush();
      start_ = now;
    }
    return Status::OK();
  }

 private:
  void PauseProgress() {
    if (state_.progress != nullptr)
      state_.progress->Pause();
  }

  ShellState& state_;
  std::ostream& err_;
  ResultPrinter printer_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

Status RunSqlText(SqlTarget& target, const std::string& sql, ShellState& state, std::ostream& err) {
  ShellSink sink(state, err);
  return target.Run(sql, sink);
}

bool ChangesCatalog(std::string_view sql) {
  std::string head(Trim(sql).substr(0, 8));
  for (char& c : head)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return head.starts_with("CREATE") || head.starts_with("DROP") || head.starts_with("ALTER");
}

// Runs `sql` (one or more statements). SHOW TABLES and DESCRIBE, which are not SQL, run as the
// catalog queries they stand for.
Status RunSql(SqlTarget& target, const std::string& sql, ShellState& state, std::ostream& err) {
  if (Trim(sql).empty()) {
    return Status::OK();
  }
  const auto statements = SplitStatements(sql);
  bool any_shell = false;
  for (const auto& [b, e] : statements) {
    const std::string_view text = std::string_view(sql).substr(b, e - b);
    any_shell = any_shell || ShellStatementSql(text);
    state.catalog_changed = state.catalog_changed || ChangesCatalog(text);
  }
  if (!any_shell)
    return RunSqlText(target, sql, state, err);
  for (const auto& [b, e] : statements) {
    const std::string text = sql.substr(b, e - b);
    auto shell = ShellStatementSql(text);
    SHOAL_RETURN_IF_ERROR(RunSqlText(target, shell ? *shell : text, state, err));
  }
  return Status::OK();
}

Status RunScriptWith(SqlTarget& target, const std::string& script, ShellState& state,
                     std::ostream& err, std::string* failed_sql, int* failed_line);

// Handles one meta-command line ("\timing on").
Status RunMetaCommand(const std::string& line, SqlTarget& target, ShellState& state,
                      std::ostream& err) {
  std::istringstream in(line);
  std::string cmd;
  in >> cmd;
  std::string rest;
  std::getline(in, rest);
  const std::string arg(Trim(rest));
  const auto on_off = [&](bool* flag, const char* name) -> Status {
    if (arg.empty()) {
      *flag = !*flag;
    } else if (arg == "on") {
      *flag = true;
    } else if (arg == "off") {
      *flag = false;
    } else {
      return Status::InvalidArgument("{}: unrecognized value \"{}\": Boolean expected", name, arg);
    }
    return Status::OK();
  };
  if (cmd == "\\q") {
    *state.quit = true;
    return Status::OK();
  }
  if (cmd == "\\timing") {
    SHOAL_RETURN_IF_ERROR(on_off(state.timing, "\\timing"));
    if (state.interactive)
      *state.out << "Timing is " << (*state.timing ? "on." : "off.") << "\n";
    return Status::OK();
  }
  if (cmd == "\\x") {
    SHOAL_RETURN_IF_ERROR(on_off(&state.expanded, "\\x"));
    if (state.interactive)
      *state.out << "Expanded display is " << (state.expanded ? "on." : "off.") << "\n";
    return Status::OK();
  }
  if (cmd == "\\?") {
    *state.out << MetaCommandHelp();
    state.out->flush();
    return Status::OK();
  }
  if (cmd == "\\o") {
    if (state.file != nullptr) {
      state.file->close();
      state.file.reset();
    }
    state.out = state.base_out;
    if (!arg.empty()) {
      auto file = std::make_unique<std::ofstream>(arg, std::ios::binary | std::ios::trunc);
      if (!*file)
        return Status::IoError("{}: cannot open file for writing", arg)
            .WithHint("\\o with no file sends results to the terminal again");
      state.file = std::move(file);
      state.out = state.file.get();
    }
    return Status::OK();
  }
  if (cmd == "\\i") {
    if (arg.empty())
      return Status::InvalidArgument("\\i: missing required argument (a file name)");
    if (state.include_depth >= 16)
      return Status::InvalidArgument("\\i: files include each other more than 16 deep");
    SHOAL_ASSIGN_OR_RETURN(std::string script, ReadFile(arg));
    ++state.include_depth;
    std::string failed_sql;
    int failed_line = 0;
    Status st = RunScriptWith(target, script, state, err, &failed_sql, &failed_line);
    --state.include_depth;
    if (!st.ok()) {
      err << fmt::format("shoal:{}:{}: ", arg, failed_line);
      PrintError(st, failed_sql, err);
      return Status::OK();  // reported here, with its own file and line
    }
    return Status::OK();
  }
  if (auto sql = CatalogCommandSql(cmd, arg)) {
    return RunSqlText(target, *sql, state, err);
  }
  return Status::InvalidArgument("invalid command {}", cmd).WithHint("Try \\? for help.");
}

// Names the shell completes, read from the catalog (pg_catalog works on either target).
class CompletionNames {
 public:
  // Reads them again when the catalog may have changed (after DDL).
  void Refresh(SqlTarget& target, ShellState& state) {
    if (!state.catalog_changed)
      return;
    state.catalog_changed = false;
    relations_ = Column(target,
                        "SELECT relname FROM pg_catalog.pg_class WHERE relkind IN "
                        "('r', 'v')");
    others_ = Column(target,
                     "SELECT DISTINCT attname FROM pg_catalog.pg_attribute WHERE "
                     "attnum > 0");
    for (auto& s : Column(target, "SELECT name FROM pg_catalog.pg_settings"))
      others_.push_back(std::move(s));
    for (auto& f : Column(target,
                          "SELECT DISTINCT proname FROM pg_catalog.pg_proc WHERE "
                          "proname ~ '^[a-z]'"))
      others_.push_back(std::move(f));
  }

  // Candidates for the word after `before`: after FROM, JOIN, TABLE, INTO, UPDATE, DESCRIBE
  // and \d only relations; at the start of a line meta-commands too.
  std::vector<std::string> For(std::string_view before, std::string_view prefix) const {
    std::string last;
    std::string_view b = Trim(before);
    size_t space = b.find_last_of(" \t\n(,");
    last = std::string(space == std::string_view::npos ? b : b.substr(space + 1));
    for (char& c : last)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::vector<std::string> out;
    if (prefix.starts_with("\\")) {
      return MetaCommandNames();
    }
    out = relations_;
    static constexpr const char* kRelationContexts[] = {"FROM",   "JOIN",     "TABLE", "INTO",
                                                        "UPDATE", "DESCRIBE", "DESC",  "\\D"};
    for (const char* k : kRelationContexts) {
      if (last == k)
        return out;
    }
    out.insert(out.end(), others_.begin(), others_.end());
    out.insert(out.end(), CompletionKeywords().begin(), CompletionKeywords().end());
    return out;
  }

 private:
  static std::vector<std::string> Column(SqlTarget& target, const std::string& sql) {
    std::vector<std::string> out;
    // Completion is a convenience: a target without the catalog completes keywords only.
    (void)target.Run(sql, [&](const engine::QueryResult& result) {
      for (const auto& batch : result.batches) {
        for (int64_t r = 0; r < batch->num_rows(); ++r) {
          if (!batch->column(0)->IsNull(r))
            out.push_back(columnar::FormatValue(*batch->column(0), r));
        }
      }
      return Status::OK();
    });
    return out;
  }

  std::vector<std::string> relations_;
  std::vector<std::string> others_;
};

std::string HistoryPath() {
  if (const char* path = std::getenv("SHOAL_HISTORY"); path != nullptr)
    return path;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return std::string(home) + "/.shoal_history";
  return "";
}

// The interactive shell (a terminal): libedit's line editing, history and completion;
// statements end with ';' at the end of a line; meta-commands are lines of their own. Errors
// are printed and the shell goes on. Ctrl-C drops a half-typed statement; Ctrl-D on an empty
// line ends the session.
void RunInteractive(SqlTarget& target, ShellState& state) {
  CompletionNames names;
  LineEditor editor(HistoryPath(), [&](std::string_view before, std::string_view prefix) {
    names.Refresh(target, state);
    return names.For(before, prefix);
  });
  std::string buffer;
  std::string line;
  while (!*state.quit) {
    const auto outcome = editor.ReadLine(Trim(buffer).empty() ? "shoal=> " : "shoal-> ", &line);
    if (outcome == LineEditor::Outcome::kInterrupted) {
      buffer.clear();
      continue;
    }
    if (outcome == LineEditor::Outcome::kEnd) {
      std::cout << "\n";
      break;
    }
    std::string trimmed(Trim(line));
    if (Trim(buffer).empty() && !trimmed.empty() && trimmed[0] == '\\') {
      editor.AddHistory(trimmed);
      Status st = RunMetaCommand(trimmed, target, state, std::cerr);
      if (!st.ok()) {
        PrintError(st, "", std::cerr);
      }
      continue;
    }
    buffer += line + "\n";
    if (!trimmed.empty() && trimmed.back() == ';') {
      // One history entry per statement, however many lines it was typed on.
      std::string entry(Trim(buffer));
      std::replace(entry.begin(), entry.end(), '\n', ' ');
      editor.AddHistory(entry);
      Status st = RunSql(target, buffer, state, std::cerr);
      if (!st.ok()) {
        PrintError(st, buffer, std::cerr);
      }
      buffer.clear();
    }
  }
}

}  // namespace

namespace {

/// [begin, end) of each statement of `sql`, each ending after its semicolon (the last may have
/// none), skipping blank space between them: psql's splitting, which knows quotes ('', "",
/// E'\''), -- and nested /* */ comments and dollar quotes ($tag$ ... $tag$).
std::vector<std::pair<size_t, size_t>> SplitStatements(const std::string& sql) {
  std::vector<std::pair<size_t, size_t>> out;
  const size_t n = sql.size();
  size_t start = 0;
  auto flush = [&](size_t end) {
    size_t b = sql.find_first_not_of(" \t\r\n", start);
    if (b != std::string::npos && b < end)
      out.emplace_back(b, end);
    start = end;
  };
  size_t i = 0;
  while (i < n) {
    char c = sql[i];
    if (c == '\'' || c == '"') {
      bool backslash = c == '\'' && i > 0 && (sql[i - 1] == 'E' || sql[i - 1] == 'e');
      for (++i; i < n; ++i) {
        if (backslash && sql[i] == '\\') {
          ++i;
        } else if (sql[i] == c) {
          if (i + 1 < n && sql[i + 1] == c) {
            ++i;
          } else {
            break;
          }
        }
      }
      ++i;
    } else if (c == '-' && i + 1 < n && sql[i + 1] == '-') {
      i = sql.find('\n', i);
      i = i == std::string::npos ? n : i + 1;
    } else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
      int depth = 1;
      for (i += 2; i < n && depth > 0; ++i) {
        if (sql[i] == '/' && i + 1 < n && sql[i + 1] == '*') {
          ++depth;
          ++i;
        } else if (sql[i] == '*' && i + 1 < n && sql[i + 1] == '/') {
          --depth;
          ++i;
        }
      }
    } else if (c == '$' && (i == 0 || !(std::isalnum(static_cast<unsigned char>(sql[i - 1])) ||
                                        sql[i - 1] == '_'))) {
      size_t close = sql.find('$', i + 1);
      bool tag = close != std::string::npos;
      for (size_t k = i + 1; tag && k < close; ++k) {
        tag = std::isalnum(static_cast<unsigned char>(sql[k])) || sql[k] == '_';
      }
      if (tag && !(close > i + 1 && std::isdigit(static_cast<unsigned char>(sql[i + 1])))) {
        std::string delimiter = sql.substr(i, close - i + 1);
        size_t end = sql.find(delimiter, close + 1);
        i = end == std::string::npos ? n : end + delimiter.size();
      } else {
        ++i;
      }
    } else if (c == ';') {
      flush(++i);
    } else {
      ++i;
    }
  }
  flush(n);
  for (auto& [b, e] : out) {
    e = std::max(b, sql.find_last_not_of(" \t\r\n", e - 1) + 1);
  }
  return out;
}

}  // namespace

Status RunSqlScript(engine::QueryRunner& runner, const std::string& script, SqlOutputFormat format,
                    bool* timing, bool* quit, std::ostream& out, std::ostream& err,
                    std::string* failed_sql, int* failed_line) {
  LocalTarget target(&runner);
  return RunSqlScript(target, script, format, timing, quit, out, err, failed_sql, failed_line);
}

Status RunSqlScript(SqlTarget& target, const std::string& script, SqlOutputFormat format,
                    bool* timing, bool* quit, std::ostream& out, std::ostream& err,
                    std::string* failed_sql, int* failed_line, ProgressLine* progress) {
  ShellState state;
  state.progress = progress;
  state.format = format;
  state.timing = timing;
  state.quit = quit;
  state.out = &out;
  state.base_out = &out;
  return RunScriptWith(target, script, state, err, failed_sql, failed_line);
}

namespace {

Status RunScriptWith(SqlTarget& target, const std::string& script, ShellState& state,
                     std::ostream& err, std::string* failed_sql, int* failed_line) {
  bool* quit = state.quit;
  int buffer_line = 1;  // the script's line where `buffer` starts
  auto lines_in = [](std::string_view text) {
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  };
  auto fail = [&](const Status& st, const std::string& sql, int line) {
    if (failed_sql != nullptr) {
      *failed_sql = sql;
    }
    if (failed_line != nullptr) {
      *failed_line = line;
    }
    return st;
  };
  auto run = [&](const std::string& sql) {
    if (failed_line == nullptr || Trim(sql).empty()) {
      Status st = RunSql(target, sql, state, err);
      return st.ok() ? st : fail(st, sql, buffer_line);
    }
    // One statement at a time, split as psql's lexer splits them (at semicolons outside
    // quotes, comments and dollar quotes), so that an error names the statement's own line and
    // its LINE n counts from the statement's start, as psql reports errors of a file.
    for (const auto& [begin, end] : SplitStatements(sql)) {
      std::string text = sql.substr(begin, end - begin);
      Status st = RunSql(target, text, state, err);
      if (!st.ok()) {
        size_t last = text.find_last_not_of(" \t\r\n");
        int end_line =
            buffer_line + lines_in(std::string_view(sql).substr(0, begin)) +
            lines_in(std::string_view(text).substr(0, last == std::string::npos ? 0 : last));
        return fail(st, text, end_line);
      }
    }
    return Status::OK();
  };
  std::string buffer;
  std::istringstream in(script);
  std::string line;
  int line_no = 0;
  while (!*quit && std::getline(in, line)) {
    ++line_no;
    std::string trimmed(Trim(line));
    if (!trimmed.empty() && trimmed[0] == '\\') {
      // SQL before the meta-command runs first, so `\timing on` affects only what follows.
      SHOAL_RETURN_IF_ERROR(run(buffer));
      buffer.clear();
      buffer_line = line_no + 1;
      Status st = RunMetaCommand(trimmed, target, state, err);
      if (!st.ok()) {
        return fail(st, "", line_no);
      }
      continue;
    }
    buffer += line + "\n";
  }
  if (*quit) {
    return Status::OK();
  }
  return run(buffer);
}

// The flags that set up the engine in this process; with a server they have no meaning.
constexpr const char* kLocalOnlyFlags[] = {"--tpch",
                                           "--workers",
                                           "--header",
                                           "--worker-version",
                                           "--shuffle-dir",
                                           "--shuffle-workers",
                                           "--data-root",
                                           "--tls-cert",
                                           "--tls-key",
                                           "--tls-ca",
                                           "--cluster-secret-file",
                                           "--insecure"};
constexpr const char* kServerOnlyFlags[] = {"--port",    "--user",        "--dbname",
                                            "--sslmode", "--sslrootcert", "--password-file"};

// True when the statements go to a server (--host, or a URL); refuses flags of the other mode.
Result<bool> IsRemote(const CLI::App& cmd, const SqlArgs& args) {
  const bool remote =
      !args.host.empty() || !args.url.empty() || server::IsConnectionUri(args.dbname);
  if (!args.url.empty() && !server::IsConnectionUri(args.url)) {
    return Status::InvalidArgument(
        "unexpected argument \"{}\": a server is named by a postgresql:// URL or --host", args.url);
  }
  const std::span<const char* const> other_mode =
      remote ? std::span<const char* const>(kLocalOnlyFlags)
             : std::span<const char* const>(kServerOnlyFlags);
  for (const char* flag : other_mode) {
    const CLI::Option* option = cmd.get_option_no_throw(flag);
    if (option != nullptr && option->count() > 0) {
      return remote ? Status::InvalidArgument(
                          "{} sets up the engine in this process; with a server (--host or a "
                          "URL) the server's own set-up applies",
                          flag)
                    : Status::InvalidArgument(
                          "{} applies to a server: give --host or a postgresql:// URL", flag);
    }
  }
  return remote;
}

// psql's prompt: on the terminal (not stdin, which may carry the script), without echo.
Result<std::string> PromptPassword(const server::PgConnectOptions& options) {
  int tty = open("/dev/tty", O_RDWR | O_CLOEXEC);
  if (tty < 0) {
    return Status::InvalidArgument(
               "the server asks for a password and there is no terminal to ask it on")
        .WithSqlState("28P01")
        .WithHint("set PGPASSWORD, or put it in a password file (--password-file, ~/.pgpass)");
  }
  const std::string question = fmt::format("Password for user {}: ", options.user);
  (void)!write(tty, question.data(), question.size());
  termios old{};
  const bool is_terminal = tcgetattr(tty, &old) == 0;
  if (is_terminal) {
    termios quiet = old;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    tcsetattr(tty, TCSAFLUSH, &quiet);
  }
  std::string password;
  char c = 0;
  while (read(tty, &c, 1) == 1 && c != '\n') {
    password.push_back(c);
  }
  if (is_terminal) {
    tcsetattr(tty, TCSAFLUSH, &old);
  }
  (void)!write(tty, "\n", 1);
  close(tty);
  if (!password.empty() && password.back() == '\r') {
    password.pop_back();
  }
  return password;
}

// NoticeResponses as psql prints them, on stderr as they arrive.
void PrintNotice(const server::PgNotice& notice) {
  std::string text = fmt::format("{}:  {}\n", notice.severity, notice.message);
  if (!notice.detail.empty()) {
    text += fmt::format("DETAIL:  {}\n", notice.detail);
  }
  if (!notice.hint.empty()) {
    text += fmt::format("HINT:  {}\n", notice.hint);
  }
  std::cerr << text << std::flush;
}

Result<std::unique_ptr<server::PgClient>> ConnectToServer(const SqlArgs& args) {
  // Later sources override earlier ones: the environment, the URL, the flags.
  SHOAL_ASSIGN_OR_RETURN(server::PgConnectOptions options, server::ConnectOptionsFromEnvironment());
  if (!args.url.empty()) {
    SHOAL_RETURN_IF_ERROR(server::ApplyConnectionUri(args.url, &options));
  }
  if (server::IsConnectionUri(args.dbname)) {
    SHOAL_RETURN_IF_ERROR(server::ApplyConnectionUri(args.dbname, &options));
  } else if (!args.dbname.empty()) {
    options.dbname = args.dbname;
  }
  if (!args.host.empty()) {
    options.host = args.host;
  }
  if (args.port != 0) {
    if (args.port < 1 || args.port > 65535) {
      return Status::InvalidArgument("invalid port number: \"{}\"", args.port);
    }
    options.port = args.port;
  }
  if (!args.user.empty()) {
    options.user = args.user;
  }
  if (!args.sslmode.empty()) {
    SHOAL_ASSIGN_OR_RETURN(options.sslmode, server::ParseSslMode(args.sslmode));
  }
  if (!args.sslrootcert.empty()) {
    options.sslrootcert = args.sslrootcert;
  }
  if (!args.password_file.empty()) {
    options.password_file = args.password_file;
  }
  SHOAL_RETURN_IF_ERROR(server::FinishDefaults(&options));
  SHOAL_ASSIGN_OR_RETURN(std::unique_ptr<server::PgClient> client,
                         server::PgClient::Connect(options, PromptPassword, PrintNotice));
  // COPY ... TO STDOUT writes its rows to standard output, as psql does.
  client->set_copy_data_handler([](std::string_view data) {
    std::cout.write(data.data(), static_cast<std::streamsize>(data.size()));
    return std::cout ? Status::OK() : Status::IoError("cannot write to standard output");
  });
  return client;
}

// The engine in this process: data roots, tables and the execution mode the flags ask for.
Status SetUpLocal(const SqlArgs& args, engine::QueryRunner& runner) {
  SHOAL_ASSIGN_OR_RETURN(io::DataRoots roots, io::DataRoots::Make(args.data_roots));
  io::SetProcessDataRoots(std::move(roots));
  engine::SessionSetup setup;
  setup.tpch_scale = args.tpch_scale;
  setup.workers = {args.workers, args.headers, args.worker_version};
  setup.shuffle_dir = args.shuffle_dir;
  setup.shuffle_workers = args.shuffle_workers;
  const bool remote_workers =
      (!args.workers.empty() && !engine::IsInProcessWorkers(args.workers)) ||
      !args.shuffle_workers.empty();
  if (remote_workers) {
    SHOAL_RETURN_IF_ERROR(SetUpNodeSecurity(args.node_security, "shoal sql", /*what=*/""));
  }
  return engine::SetUpSession(setup, runner);
}

}  // namespace

void RegisterSqlCommand(CLI::App& app) {
  auto args = std::make_shared<SqlArgs>();
  CLI::App* cmd =
      app.add_subcommand("sql", "Run SQL on the local engine, or on a server (--host or a URL)");
  CLI::Option* c_opt = cmd->add_option("-c,--command", args->commands,
                                       "SQL (or a \\ meta-command) to run; repeatable");
  CLI::Option* f_opt =
      cmd->add_option("-f,--file", args->files, "File of SQL to run ('-' or /dev/stdin: stdin)");
  cmd->add_flag("--no-progress", args->no_progress,
                "Never show the progress line of a statement running longer than a second (it "
                "is shown only when stderr is a terminal)");
  cmd->add_option("--format", args->format, "Output format: table, csv or json (default table)")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->add_option("--tpch", args->tpch_scale,
                  "Generate the TPC-H tables of this scale factor in memory first (e.g. 0.01)");
  cmd->add_option("--workers", args->workers,
                  "Run queries across these `shoal worker`s: HOST:PORT[,HOST:PORT...], "
                  "file:PATH (one per line, re-read when it changes), dns:NAME:PORT, or "
                  "inproc:N (N workers inside this process)");
  cmd->add_option("--header", args->headers,
                  "KEY=VALUE sent with every call to workers and forwarded by them; repeatable");
  cmd->add_option("--worker-version", args->worker_version,
                  "Version every worker must report (default: this binary's; '' : any)");
  cmd->add_option("--shuffle-dir", args->shuffle_dir,
                  "Run stages as `shoal task` processes exchanging files in DIR (one per query)");
  cmd->add_option("--shuffle-workers", args->shuffle_workers,
                  "With --shuffle-dir: run the tasks on these `shoal worker --shuffle-dir`s "
                  "(HOST:PORT[,HOST:PORT...]); stage files are fetched from the worker that "
                  "wrote them");
  AddNodeSecurityFlags(cmd, &args->node_security);
  cmd->add_option("--data-root", args->data_roots,
                  "External tables, COPY and spill_dir may name files only under this "
                  "directory, on this node and on in-process workers (repeatable; default: "
                  "anywhere)")
      ->allow_extra_args(false);
  cmd->add_option("url", args->url,
                  "Run the statements on this server instead, as psql takes it: "
                  "postgresql://[USER@]HOST[:PORT][/DBNAME][?sslmode=...]");
  cmd->add_option("--host", args->host,
                  "Run the statements on the server at this host (`shoal server` or "
                  "PostgreSQL; a directory: its Unix socket) instead of in this process");
  cmd->add_option("-p,--port", args->port, "The server's port (default: PGPORT, else 5432)");
  cmd->add_option("-U,--user", args->user, "User name on the server (default: PGUSER, else yours)");
  cmd->add_option("-d,--dbname", args->dbname,
                  "Database on the server (default: the user name), or a postgresql:// URL");
  cmd->add_option("--sslmode", args->sslmode,
                  "TLS to the server: disable, allow, prefer (default), require, verify-ca, "
                  "verify-full");
  cmd->add_option("--sslrootcert", args->sslrootcert,
                  "CA certificates (PEM) for verify-ca / verify-full (default "
                  "~/.postgresql/root.crt)");
  cmd->add_option("--password-file", args->password_file,
                  "File of host:port:database:user:password lines, as ~/.pgpass (default: "
                  "PGPASSFILE, else ~/.pgpass); else PGPASSWORD or a prompt. Never a flag");
  cmd->callback([args, cmd, c_opt, f_opt] {
    SqlOutputFormat format = args->format == "csv"    ? SqlOutputFormat::kCsv
                             : args->format == "json" ? SqlOutputFormat::kJson
                                                      : SqlOutputFormat::kTable;
    const bool interactive = args->commands.empty() && args->files.empty() && isatty(STDIN_FILENO);
    engine::QueryRunner runner;
    std::unique_ptr<server::PgClient> client;
    std::unique_ptr<SqlTarget> target;
    Result<bool> remote = IsRemote(*cmd, *args);
    if (!remote.ok()) {
      PrintError(remote.status(), "", std::cerr);
      throw CLI::RuntimeError(1);
    }
    if (*remote) {
      Result<std::unique_ptr<server::PgClient>> connected = ConnectToServer(*args);
      if (!connected.ok()) {
        PrintError(connected.status(), "", std::cerr);
        throw CLI::RuntimeError(1);
      }
      client = std::move(connected).MoveValueUnsafe();
      target = std::make_unique<RemoteTarget>(client.get());
    } else {
      target = std::make_unique<LocalTarget>(&runner);
    }
    // Before the session is set up, so a Ctrl-C while --tpch generates data stops the script.
    InterruptWatcher interrupts(target.get(), /*sticky=*/!interactive);
    if (!*remote) {
      if (Status st = SetUpLocal(*args, runner); !st.ok()) {
        PrintError(st, "", std::cerr);
        throw CLI::RuntimeError(1);
      }
    }
    bool timing = false;
    bool quit = false;
    std::unique_ptr<ProgressLine> progress;
    if (!args->no_progress && isatty(STDERR_FILENO)) {
      SqlTarget* source = target.get();
      progress = std::make_unique<ProgressLine>([source] { return source->Progress(); });
    }
    if (args->commands.empty() && args->files.empty()) {
      if (isatty(STDIN_FILENO)) {
        ShellState state;
        state.format = format;
        state.timing = &timing;
        state.quit = &quit;
        state.out = &std::cout;
        state.base_out = &std::cout;
        state.interactive = true;
        state.progress = progress.get();
        RunInteractive(*target, state);
        return;
      }
      args->files.emplace_back("-");
    }
    // -c and -f run in the order they were given.
    std::vector<std::pair<bool, std::string>> inputs;
    size_t next_c = 0;
    size_t next_f = 0;
    for (const CLI::Option* opt : cmd->parse_order()) {
      if (opt == c_opt && next_c < args->commands.size()) {
        inputs.emplace_back(false, args->commands[next_c++]);
      } else if (opt == f_opt && next_f < args->files.size()) {
        inputs.emplace_back(true, args->files[next_f++]);
      }
    }
    while (next_c < args->commands.size()) {
      inputs.emplace_back(false, args->commands[next_c++]);
    }
    while (next_f < args->files.size()) {
      inputs.emplace_back(true, args->files[next_f++]);
    }
    for (const auto& [is_file, text] : inputs) {
      Status st;
      std::string failed_sql;
      int failed_line = 0;
      if (is_file) {
        auto script = ReadFile(text == "/dev/stdin" ? "-" : text);
        st = script.ok() ? RunSqlScript(*target, *script, format, &timing, &quit, std::cout,
                                        std::cerr, &failed_sql, &failed_line, progress.get())
                         : script.status();
      } else {
        st = RunSqlScript(*target, text, format, &timing, &quit, std::cout, std::cerr, &failed_sql,
                          nullptr, progress.get());
      }
      if (!st.ok()) {
        std::cout.flush();
        if (failed_line > 0) {
          // psql's "psql:FILE:LINE: ERROR: ...": which file, and the line the statement ends on.
          std::cerr << fmt::format("shoal:{}:{}: ", text == "-" ? "<stdin>" : text, failed_line);
        }
        PrintError(st, failed_sql, std::cerr);
        throw CLI::RuntimeError(1);
      }
      if (quit) {
        break;
      }
    }
  });
}

}  // namespace shoal::cli
