#include "shoal/server/console_api.h"

#include <algorithm>
#include <charconv>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <openssl/crypto.h>

#include "shoal/common/prometheus_registry.h"
#include "shoal/server/console_page.h"

namespace shoal::server {

namespace {

using nlohmann::json;

HttpResponse Json(const json& value, int status = 200) {
  HttpResponse r;
  r.status = status;
  r.body = value.dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

HttpResponse Error(int status, const std::string& message) {
  return Json({{"error", message}}, status);
}

json RecordJson(const QueryRecord& r, bool detail) {
  json j = {
      {"id", r.id},
      {"pid", r.pid},
      {"query_id", r.query_id},
      {"user", r.user},
      {"application_name", r.application_name},
      {"sql", r.sql},
      {"state", r.state},
      {"mode", r.mode},
      {"start_unix_ms", r.start_unix_ms},
      {"end_unix_ms", r.end_unix_ms},
      {"elapsed_ms", (r.end_unix_ms != 0 ? r.end_unix_ms : UnixMillisNow()) - r.start_unix_ms},
      {"rows", r.rows},
      {"num_stages", r.stages.size()},
      {"num_tasks", r.tasks.size()}};
  if (!r.sqlstate.empty()) {
    j["sqlstate"] = r.sqlstate;
    j["error"] = r.error;
  }
  if (detail) {
    json stages = json::array();
    for (const auto& s : r.stages) {
      stages.push_back({{"stage", s.stage_id},
                        {"exchange", s.exchange},
                        {"tasks", s.tasks},
                        {"rows", s.rows},
                        {"bytes", s.bytes},
                        {"consumer_stage", s.consumer_stage}});
    }
    json tasks = json::array();
    for (const auto& t : r.tasks) {
      tasks.push_back({{"stage", t.stage_id},
                       {"task", t.task_number},
                       {"worker", t.worker},
                       {"start_ms", t.start_ms},
                       {"end_ms", t.end_ms}});
    }
    j["stages"] = std::move(stages);
    j["tasks"] = std::move(tasks);
    j["explain_analyze"] = r.explain_analyze;
  }
  return j;
}

std::optional<int64_t> ParseId(std::string_view text) {
  int64_t id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id <= 0)
    return std::nullopt;
  return id;
}

std::string CookieValue(const std::string& header, const std::string& name) {
  size_t pos = 0;
  while (pos < header.size()) {
    size_t end = header.find(';', pos);
    if (end == std::string::npos)
      end = header.size();
    std::string part = header.substr(pos, end - pos);
    const size_t first = part.find_first_not_of(' ');
    part = first == std::string::npos ? "" : part.substr(first);
    if (part.size() > name.size() && part.compare(0, name.size(), name) == 0 &&
        part[name.size()] == '=') {
      return part.substr(name.size() + 1);
    }
    pos = end + 1;
  }
  return "";
}

std::string Hex(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes)
    out += fmt::format("{:02x}", c);
  return out;
}

}  // namespace

ConsoleApi::ConsoleApi(QueryMonitor* monitor, const AuthConfig* auth, ConsoleOptions options)
    : monitor_(monitor), auth_(auth), options_(std::move(options)) {}

bool ConsoleApi::auth_required() const {
  return auth_ != nullptr && auth_->has_rules();
}

bool ConsoleApi::CheckPassword(const ScramVerifier& verifier, const std::string& password) {
  auto salted = ScramSaltedPassword(password, verifier.salt, verifier.iterations);
  if (!salted.ok())
    return false;
  const std::string stored_key = Sha256(HmacSha256(*salted, "Client Key"));
  return stored_key.size() == verifier.stored_key.size() &&
         CRYPTO_memcmp(stored_key.data(), verifier.stored_key.data(), stored_key.size()) == 0;
}

std::optional<std::string> ConsoleApi::UserOf(const HttpRequest& request) {
  if (!auth_required())
    return std::string();  // anonymous
  std::string id;
  if (auto it = request.headers.find("authorization"); it != request.headers.end()) {
    constexpr std::string_view kBearer = "Bearer ";
    if (it->second.compare(0, kBearer.size(), kBearer) == 0)
      id = it->second.substr(kBearer.size());
  }
  if (id.empty()) {
    if (auto it = request.headers.find("cookie"); it != request.headers.end())
      id = CookieValue(it->second, kCookieName);
  }
  if (id.empty())
    return std::nullopt;
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  if (it == sessions_.end())
    return std::nullopt;
  const auto now = std::chrono::steady_clock::now();
  if (now - it->second.last_used > kSessionIdle) {
    sessions_.erase(it);
    return std::nullopt;
  }
  it->second.last_used = now;
  return it->second.user;
}

HttpResponse ConsoleApi::Handle(const HttpRequest& request) {
  const std::string& path = request.path;
  const bool get = request.method == "GET" || request.method == "HEAD";
  const bool post = request.method == "POST";
  if (get && (path == "/" || path == "/index.html")) {
    HttpResponse r;
    r.content_type = "text/html; charset=utf-8";
    r.body = ConsolePageHtml();
    return r;
  }
  if (get && path == "/favicon.ico") {
    HttpResponse r;
    r.status = 204;  // none: a browser asks for it anyway
    r.content_type = "image/x-icon";
    return r;
  }
  if (get && path == "/metrics") {
    HttpResponse r;
    r.content_type = PrometheusRegistry::kContentType;
    r.body = ProcessMetrics().WriteText();
    return r;
  }
  if (path.rfind("/api/", 0) != 0)
    return Error(404, "not found: " + path);
  if (post && path == "/api/login")
    return Login(request);
  const std::optional<std::string> user = UserOf(request);
  if (get && path == "/api/whoami") {
    if (!user)
      return Json({{"auth_required", true}, {"user", nullptr}}, 401);
    return Json({{"auth_required", auth_required()}, {"user", *user}});
  }
  if (!user) {
    HttpResponse r = Error(401, "log in first: POST /api/login, or Authorization: Bearer TOKEN");
    return r;
  }
  if (post && path == "/api/logout")
    return Logout(request);
  if (get && path == "/api/cluster")
    return Cluster();
  if (get && path == "/api/queries")
    return Queries();
  if (get && path == "/api/history")
    return History();
  constexpr std::string_view kHistory = "/api/history/";
  if (get && path.rfind(kHistory, 0) == 0) {
    auto id = ParseId(std::string_view(path).substr(kHistory.size()));
    return id ? HistoryEntry(*id) : Error(400, "not a query id");
  }
  constexpr std::string_view kQueries = "/api/queries/";
  constexpr std::string_view kCancel = "/cancel";
  if (post && path.rfind(kQueries, 0) == 0 && path.size() > kQueries.size() + kCancel.size() &&
      path.compare(path.size() - kCancel.size(), kCancel.size(), kCancel) == 0) {
    auto id = ParseId(std::string_view(path).substr(
        kQueries.size(), path.size() - kQueries.size() - kCancel.size()));
    return id ? Cancel(*id, *user) : Error(400, "not a query id");
  }
  if (get || post)
    return Error(404, "not found: " + path);
  return Error(405, "method not allowed: " + request.method);
}

HttpResponse ConsoleApi::Login(const HttpRequest& request) {
  auto body = json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.is_object() || !body.contains("user") ||
      !body["user"].is_string() || !body.contains("password") || !body["password"].is_string()) {
    return Error(400, "expected a JSON object with \"user\" and \"password\"");
  }
  const std::string user = body["user"].get<std::string>();
  const std::string password = body["password"].get<std::string>();
  if (auth_required()) {
    const ScramVerifier* verifier = auth_->VerifierOf(user);
    // An unknown user costs the same derivation as a known one.
    const ScramVerifier decoy = verifier == nullptr ? auth_->DecoyVerifier(user) : ScramVerifier();
    const bool ok =
        CheckPassword(verifier != nullptr ? *verifier : decoy, password) && verifier != nullptr;
    if (!ok) {
      std::this_thread::sleep_for(options_.login_failure_delay);
      return Error(401, fmt::format("password authentication failed for user \"{}\"", user));
    }
  }
  auto random = RandomBytes(32);
  if (!random.ok())
    return Error(500, random.status().ToString());
  const std::string id = Hex(*random);
  {
    std::lock_guard lock(mutex_);
    sessions_[id] = LoginSession{user, std::chrono::steady_clock::now()};
  }
  HttpResponse r = Json({{"user", user}, {"token", id}});
  r.set_cookies.push_back(fmt::format("{}={}; Path=/; HttpOnly; SameSite=Strict{}", kCookieName, id,
                                      options_.secure_cookies ? "; Secure" : ""));
  return r;
}

HttpResponse ConsoleApi::Logout(const HttpRequest& request) {
  std::string id;
  if (auto it = request.headers.find("cookie"); it != request.headers.end())
    id = CookieValue(it->second, kCookieName);
  if (auto it = request.headers.find("authorization");
      id.empty() && it != request.headers.end() && it->second.rfind("Bearer ", 0) == 0) {
    id = it->second.substr(7);
  }
  {
    std::lock_guard lock(mutex_);
    sessions_.erase(id);
  }
  HttpResponse r = Json({{"ok", true}});
  r.set_cookies.push_back(
      fmt::format("{}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0", kCookieName));
  return r;
}

HttpResponse ConsoleApi::Cluster() const {
  json workers = json::array();
  if (options_.cluster) {
    for (const WorkerStatus& w : options_.cluster()) {
      json j = {{"address", w.address},
                {"state", w.state},
                {"version", w.version},
                {"threads", w.threads},
                {"last_contact_unix_ms", w.last_contact_unix_ms},
                {"memory_used", nullptr},
                {"memory_limit", nullptr},
                {"running_tasks", nullptr}};
      // null when the worker did not tell (it did not answer this time).
      if (w.running_tasks >= 0) {
        j["memory_used"] = w.memory_used;
        j["memory_limit"] = w.memory_limit;
        j["running_tasks"] = w.running_tasks;
      }
      if (!w.error.empty())
        j["error"] = w.error;
      workers.push_back(std::move(j));
    }
  }
  return Json({{"coordinator", {{"version", options_.server_version}}}, {"workers", workers}});
}

HttpResponse ConsoleApi::Queries() const {
  json out = json::array();
  for (const auto& running : monitor_->RunningQueries()) {
    json j = RecordJson(running.record, false);
    if (running.progress) {
      const auto& p = *running.progress;
      json progress = {{"bytes_read", p.bytes_read}, {"bytes_total", p.bytes_total}};
      if (p.bytes_total > 0) {
        progress["percent"] = std::min(
            100.0, 100.0 * static_cast<double>(p.bytes_read) / static_cast<double>(p.bytes_total));
      } else {
        progress["percent"] = nullptr;
      }
      json stages = json::array();
      for (const auto& s : p.stages) {
        json stage = {{"stage", s.stage_id},          {"bytes_read", s.bytes_read},
                      {"bytes_total", s.bytes_total}, {"rows", s.rows},
                      {"tasks_done", s.tasks_done},   {"tasks_total", s.tasks_total}};
        if (s.bytes_total > 0) {
          stage["percent"] = std::min(100.0, 100.0 * static_cast<double>(s.bytes_read) /
                                                 static_cast<double>(s.bytes_total));
        } else {
          stage["percent"] = nullptr;
        }
        json workers = json::array();
        for (const auto& w : s.workers)
          workers.push_back({{"worker", w.worker}, {"running", w.running}, {"done", w.done}});
        stage["workers"] = std::move(workers);
        stages.push_back(std::move(stage));
      }
      progress["stages"] = std::move(stages);
      j["progress"] = std::move(progress);
    } else {
      j["progress"] = nullptr;
    }
    out.push_back(std::move(j));
  }
  return Json({{"queries", out}});
}

HttpResponse ConsoleApi::Cancel(int64_t id, const std::string& user) {
  std::optional<QueryRecord> record = monitor_->Find(id);
  if (!record || record->state != "running")
    return Error(404, fmt::format("query {} is not running", id));
  const bool admin = !auth_required() || std::find(options_.admins.begin(), options_.admins.end(),
                                                   user) != options_.admins.end();
  if (!admin && record->user != user) {
    return Error(403, fmt::format("query {} belongs to user \"{}\": only they or an admin may "
                                  "cancel it",
                                  id, record->user));
  }
  if (options_.cancel)
    options_.cancel(record->pid);
  return Json({{"ok", true}, {"id", id}});
}

HttpResponse ConsoleApi::History() const {
  json out = json::array();
  for (const auto& r : monitor_->History())
    out.push_back(RecordJson(r, false));
  return Json({{"queries", out}});
}

HttpResponse ConsoleApi::HistoryEntry(int64_t id) const {
  std::optional<QueryRecord> record = monitor_->Find(id);
  if (!record)
    return Error(404, fmt::format("no query {} in the history", id));
  return Json(RecordJson(*record, true));
}

}  // namespace shoal::server
