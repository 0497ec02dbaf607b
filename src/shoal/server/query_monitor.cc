#include "shoal/server/query_monitor.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "shoal/common/logging.h"
#include "shoal/common/prometheus_registry.h"

namespace shoal::server {

namespace {

constexpr const char* kHistoryFile = "console_history.jsonl";

nlohmann::json ToJson(const QueryRecord& r) {
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& s : r.stages) {
    stages.push_back({{"stage", s.stage_id},
                      {"exchange", s.exchange},
                      {"tasks", s.tasks},
                      {"rows", s.rows},
                      {"bytes", s.bytes},
                      {"consumer_stage", s.consumer_stage}});
  }
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& t : r.tasks) {
    tasks.push_back({{"stage", t.stage_id},
                     {"task", t.task_number},
                     {"worker", t.worker},
                     {"start_ms", t.start_ms},
                     {"end_ms", t.end_ms}});
  }
  return {{"id", r.id},
          {"pid", r.pid},
          {"query_id", r.query_id},
          {"user", r.user},
          {"application_name", r.application_name},
          {"sql", r.sql},
          {"state", r.state},
          {"sqlstate", r.sqlstate},
          {"error", r.error},
          {"start_unix_ms", r.start_unix_ms},
          {"end_unix_ms", r.end_unix_ms},
          {"rows", r.rows},
          {"mode", r.mode},
          {"explain_analyze", r.explain_analyze},
          {"stages", stages},
          {"tasks", tasks}};
}

QueryRecord FromJson(const nlohmann::json& j) {
  QueryRecord r;
  r.id = j.at("id").get<int64_t>();
  r.pid = j.value("pid", 0);
  r.query_id = j.value("query_id", "");
  r.user = j.value("user", "");
  r.application_name = j.value("application_name", "");
  r.sql = j.value("sql", "");
  r.state = j.value("state", "finished");
  r.sqlstate = j.value("sqlstate", "");
  r.error = j.value("error", "");
  r.start_unix_ms = j.value("start_unix_ms", int64_t{0});
  r.end_unix_ms = j.value("end_unix_ms", int64_t{0});
  r.rows = j.value("rows", int64_t{0});
  r.mode = j.value("mode", "");
  r.explain_analyze = j.value("explain_analyze", "");
  for (const auto& s : j.value("stages", nlohmann::json::array())) {
    r.stages.push_back({s.value("stage", 0), s.value("exchange", ""), s.value("tasks", 0),
                        s.value("rows", int64_t{0}), s.value("bytes", int64_t{0}),
                        s.value("consumer_stage", 0)});
  }
  for (const auto& t : j.value("tasks", nlohmann::json::array())) {
    r.tasks.push_back({t.value("stage", 0), t.value("task", 0), t.value("worker", ""),
                       t.value("start_ms", 0.0), t.value("end_ms", 0.0)});
  }
  return r;
}

// "1.5ms", "2.000s", "120us", "35ns" (FormatNanos) in milliseconds.
double ParseDurationMs(const std::string& number, const std::string& unit) {
  const double v = std::stod(number);
  if (unit == "ns")
    return v / 1e6;
  if (unit == "us" || unit == "µs")
    return v / 1e3;
  if (unit == "s")
    return v * 1e3;
  if (unit == "min")
    return v * 6e4;
  return v;
}

// "12.0 KiB" in bytes.
int64_t ParseBytes(const std::string& number, const std::string& unit) {
  double v = std::stod(number);
  if (unit == "KiB")
    v *= 1024;
  else if (unit == "MiB")
    v *= 1024.0 * 1024;
  else if (unit == "GiB")
    v *= 1024.0 * 1024 * 1024;
  return static_cast<int64_t>(v);
}

// Counts a finished statement in the process's metrics.
void CountQuery(const QueryRecord& r, double seconds) {
  PrometheusRegistry& m = ProcessMetrics();
  m.GetCounter("shoal_queries_total", "Statements that ran a plan, by final state.",
               {{"state", r.state}})
      .Add();
  m.GetHistogram("shoal_query_duration_seconds", "Time of statements that ran a plan.",
                 DurationSecondsBuckets())
      .Observe(seconds);
  if (!r.sqlstate.empty()) {
    m.GetCounter("shoal_query_errors_total", "Statements that failed, by SQLSTATE.",
                 {{"sqlstate", r.sqlstate}})
        .Add();
  }
}

Gauge& RunningGauge() {
  // NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): a gauge is mutable
  static Gauge& gauge =
      ProcessMetrics().GetGauge("shoal_queries_running", "Statements running a plan now.");
  return gauge;
}

}  // namespace

int64_t UnixMillisNow() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

QueryMonitor::QueryMonitor(std::string data_dir, size_t history_limit)
    : data_dir_(std::move(data_dir)), history_limit_(std::max<size_t>(1, history_limit)) {
  RunningGauge();  // present (0) from the first scrape
}

Status QueryMonitor::Load() {
  if (data_dir_.empty())
    return Status::OK();
  const std::string path = (std::filesystem::path(data_dir_) / kHistoryFile).string();
  std::ifstream in(path);
  if (!in)
    return Status::OK();
  std::lock_guard lock(mutex_);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty())
      continue;
    auto parsed = nlohmann::json::parse(line, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("id")) {
      SHOAL_LOG_WARNING("{}:{}: not a query record, skipped", path, number);
      continue;
    }
    try {
      QueryRecord record = FromJson(parsed);
      next_id_ = std::max(next_id_, record.id + 1);
      history_.push_back(std::move(record));
      if (history_.size() > history_limit_)
        history_.pop_front();
    } catch (const nlohmann::json::exception& e) {
      SHOAL_LOG_WARNING("{}:{}: {}, skipped", path, number, e.what());
    }
  }
  lines_in_file_ = static_cast<size_t>(number);
  return Status::OK();
}

void QueryMonitor::SessionStarted(SessionActivity session) {
  std::lock_guard lock(mutex_);
  sessions_[session.pid] = std::move(session);
}

void QueryMonitor::SessionActive(int32_t pid, const std::string& sql) {
  std::lock_guard lock(mutex_);
  if (auto it = sessions_.find(pid); it != sessions_.end()) {
    it->second.state = "active";
    it->second.query = sql;
    it->second.query_start_unix_ms = UnixMillisNow();
  }
}

void QueryMonitor::SessionIdle(int32_t pid) {
  std::lock_guard lock(mutex_);
  if (auto it = sessions_.find(pid); it != sessions_.end())
    it->second.state = "idle";
}

void QueryMonitor::SessionEnded(int32_t pid) {
  std::lock_guard lock(mutex_);
  sessions_.erase(pid);
}

int64_t QueryMonitor::QueryStarted(int32_t pid, const std::string& sql,
                                   const engine::QueryRunner* runner, std::string query_id) {
  RunningGauge().Add(1);
  std::lock_guard lock(mutex_);
  Active active;
  active.record.id = next_id_++;
  active.record.pid = pid;
  active.record.query_id = std::move(query_id);
  active.record.sql = sql;
  active.record.start_unix_ms = UnixMillisNow();
  if (runner != nullptr) {
    active.record.mode = engine::ExecutionMode::KindName(runner->execution_mode().kind());
  }
  if (auto it = sessions_.find(pid); it != sessions_.end()) {
    active.record.user = it->second.user;
    active.record.application_name = it->second.application_name;
    if (it->second.state != "active" || it->second.query != sql) {
      it->second.state = "active";
      it->second.query = sql;
      it->second.query_start_unix_ms = active.record.start_unix_ms;
    }
  }
  active.runner = runner;
  active.started = std::chrono::steady_clock::now();
  const int64_t id = active.record.id;
  running_.emplace(id, std::move(active));
  return id;
}

void QueryMonitor::QueryEnded(int64_t id, const Status& status, int64_t rows, std::string explain,
                              const std::string& verbose) {
  QueryRecord record;
  double seconds = 0;
  {
    std::lock_guard lock(mutex_);
    auto it = running_.find(id);
    if (it == running_.end())
      return;
    record = std::move(it->second.record);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - it->second.started)
                  .count();
    running_.erase(it);
  }
  RunningGauge().Add(-1);
  record.end_unix_ms = UnixMillisNow();
  record.rows = rows;
  if (status.ok()) {
    record.state = "finished";
  } else {
    record.state = status.code() == StatusCode::kCancelled ? "cancelled" : "failed";
    record.sqlstate = status.sqlstate();
    record.error = status.message();
  }
  // Only a distributed plan has stages and tasks (and the regular expressions cost more than a
  // short statement: skip them for the rest).
  if (explain.find("stage=") != std::string::npos) {
    record.stages = StagesFromExplain(explain);
  }
  if (verbose.find("stage=") != std::string::npos) {
    // Task spans from EXPLAIN ANALYZE VERBOSE's per-task lines: "stage S task T on W: served
    // rows=.., batches=.., elapsed=X[, sent=..][, ran from A to B]". A and B (from the query's
    // start) say when the task computed; a task without them (it never ran) spans its lifetime.
    static const std::regex kTaskLine(
        R"(stage (\d+) task (\d+) on (\S+): served rows=\d+, batches=\d+, elapsed=([0-9.]+)([a-z]+)[^\n]*)");
    static const std::regex kRan(R"(, ran from ([0-9.]+)([a-z]+) to ([0-9.]+)([a-z]+))");
    for (std::sregex_iterator it(verbose.begin(), verbose.end(), kTaskLine), end; it != end; ++it) {
      const auto& m = *it;
      TaskSpan span{std::stoi(m[1].str()), std::stoi(m[2].str()), m[3].str(), 0.0,
                    ParseDurationMs(m[4].str(), m[5].str())};
      const std::string line = m[0].str();
      if (std::smatch ran; std::regex_search(line, ran, kRan)) {
        span.start_ms = ParseDurationMs(ran[1].str(), ran[2].str());
        span.end_ms = ParseDurationMs(ran[3].str(), ran[4].str());
      }
      record.tasks.push_back(std::move(span));
    }
  }
  record.explain_analyze = std::move(explain);
  CountQuery(record, seconds);
  if (!keep_history())
    return;
  std::lock_guard lock(mutex_);
  history_.push_back(record);
  if (history_.size() > history_limit_)
    history_.pop_front();
  Append(record);
}

void QueryMonitor::Append(const QueryRecord& record) {
  if (data_dir_.empty())
    return;
  const std::filesystem::path path = std::filesystem::path(data_dir_) / kHistoryFile;
  if (lines_in_file_ + 1 > 2 * history_limit_) {
    // Rewrite with what the memory holds (the last history_limit_), then rename over.
    const std::filesystem::path tmp = path.string() + ".tmp";
    {
      std::ofstream out(tmp, std::ios::trunc);
      for (const auto& r : history_)
        out << ToJson(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec)
      SHOAL_LOG_WARNING("cannot rewrite {}: {}", path.string(), ec.message());
    lines_in_file_ = history_.size();
    return;
  }
  std::ofstream out(path, std::ios::app);
  out << ToJson(record).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  if (!out)
    SHOAL_LOG_WARNING("cannot append to {}", path.string());
  ++lines_in_file_;
}

std::vector<QueryMonitor::Running> QueryMonitor::RunningQueries() const {
  std::vector<Running> out;
  std::lock_guard lock(mutex_);
  for (const auto& [id, active] : running_) {
    Running r;
    r.record = active.record;
    if (active.runner != nullptr)
      r.progress = active.runner->RunningProgress();
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<QueryRecord> QueryMonitor::History() const {
  std::lock_guard lock(mutex_);
  return {history_.rbegin(), history_.rend()};
}

std::optional<QueryRecord> QueryMonitor::Find(int64_t id) const {
  std::lock_guard lock(mutex_);
  if (auto it = running_.find(id); it != running_.end())
    return it->second.record;
  for (const auto& r : history_) {
    if (r.id == id)
      return r;
  }
  return std::nullopt;
}

std::vector<SessionActivity> QueryMonitor::Sessions() const {
  std::lock_guard lock(mutex_);
  std::vector<SessionActivity> out;
  for (const auto& [pid, s] : sessions_)
    out.push_back(s);
  return out;
}

std::vector<StageSummary> QueryMonitor::StagesFromExplain(const std::string& text) {
  // "  NetworkShuffle: stage=1, tasks=3, ... (rows=6, ..., sent_bytes=..)" then, indented below,
  // "* stage 1: 3 tasks: ...". The consumer is the nearest enclosing exchange above (by indent).
  static const std::regex kExchange(
      R"(^(\s*)(Network\w+): stage=(\d+), tasks=(\d+).*\(rows=(\d+))");
  static const std::regex kSent(R"(sent_bytes=([0-9.]+)\s*(B|KiB|MiB|GiB)?)");
  std::vector<StageSummary> stages;
  std::vector<std::pair<size_t, int>> open;  // indent, stage id of exchanges above
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos)
      end = text.size();
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    std::smatch m;
    if (!std::regex_search(line, m, kExchange))
      continue;
    const size_t indent = m[1].length();
    while (!open.empty() && open.back().first >= indent)
      open.pop_back();
    StageSummary s;
    s.stage_id = std::stoi(m[3].str());
    s.exchange = m[2].str();
    s.tasks = std::stoi(m[4].str());
    s.rows = std::stoll(m[5].str());
    s.consumer_stage = open.empty() ? 0 : open.back().second;
    std::smatch sent;
    if (std::regex_search(line, sent, kSent))
      s.bytes = ParseBytes(sent[1].str(), sent[2].str());
    stages.push_back(s);
    open.emplace_back(indent, s.stage_id);
  }
  return stages;
}

}  // namespace shoal::server
