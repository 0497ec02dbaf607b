#include "shoal/distributed/shuffle/task_process.h"

#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shoal/distributed/shuffle/shuffle_task.h"
#include "shoal/distributed/transport/node_security.h"

namespace shoal::distributed::shuffle {

std::string ResolveTaskExecutable(const std::string& executable) {
  if (executable != "/proc/self/exe")
    return executable;
  char buffer[PATH_MAX + 1];
  const ssize_t n = ::readlink("/proc/self/exe", buffer, PATH_MAX);
  if (n <= 0)
    return executable;
  std::string path(buffer, static_cast<size_t>(n));
  // A binary rebuilt under a running process: only the link still reaches the old file.
  constexpr std::string_view kDeleted = " (deleted)";
  if (path.size() > kDeleted.size() &&
      path.compare(path.size() - kDeleted.size(), kDeleted.size(), kDeleted) == 0)
    return executable;
  return path;
}

Result<pid_t> SpawnTaskProcess(const std::string& executable, const std::string& envelope,
                               const std::string& stdout_path, const std::string& stderr_path) {
  // Everything the child touches is prepared before fork: after it, only async-signal-safe calls.
  const std::string path = ResolveTaskExecutable(executable);
  std::vector<std::string> args = {"shoal", "task", envelope};
  // A task fetches stage files from other workers: with this process's certificates and secret.
  for (auto& arg : ProcessNodeSecurity()->ChildProcessArgs())
    args.push_back(std::move(arg));
  std::vector<char*> argv = NullTerminated(args);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0)
    return Status::IoError("cannot start a shoal task process: {}", std::strerror(errno));
  if (pid == 0) {
    EnterOwnProcessGroup(parent);  // the parent dying kills its tasks
    RedirectTaskOutput(stdout_path.c_str(), stderr_path.c_str());
    ::execv(path.c_str(), argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so a kill of the group can never miss a fresh child
  return pid;
}

std::vector<char*> NullTerminated(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void EnterOwnProcessGroup(pid_t parent) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent)
    ::_exit(125);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

void RedirectTaskOutput(const char* stdout_path, const char* stderr_path) {
  const int in = ::open("/dev/null", O_RDONLY);
  const int out = ::open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int err = ::open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || out < 0 || err < 0)
    ::_exit(126);
  ::dup2(in, 0);
  ::dup2(out, 1);
  ::dup2(err, 2);
  for (int fd : {in, out, err})
    if (fd > 2)
      ::close(fd);
}

void KillTaskProcess(pid_t pid) {
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

// Only the last line: anything the task's libraries print before it must not turn into an
// unreadable report.
Result<int64_t> ParseTaskReport(const std::string& text) {
  size_t end = text.size();
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' '))
    --end;
  if (end == 0)
    return Status::InvalidData("printed no report");
  size_t start = text.rfind('\n', end - 1);
  start = start == std::string::npos ? 0 : start + 1;
  std::string_view line(text.data() + start, end - start);
  int64_t rows = -1;
  auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), rows);
  if (ec != std::errc() || ptr != line.data() + line.size() || rows < 0)
    return Status::InvalidData("printed an unreadable report '{}'", line);
  return rows;
}

std::string TailOf(const std::string& text, size_t max_chars) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' '))
    t.pop_back();
  if (t.size() > max_chars)
    t = "..." + t.substr(t.size() - max_chars);
  return t;
}

std::string DescribeTaskExit(int status) {
  if (WIFEXITED(status))
    return fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return fmt::format("wait status {}", status);
}

namespace {

// The message a failed task printed ("ERROR:  ..." and "HINT:  ..." lines) without the labels.
Status ReportedStatus(StatusCode code, const std::string& sqlstate, const std::string& err) {
  std::string message;
  std::string hint;
  size_t pos = 0;
  while (pos < err.size()) {
    size_t eol = err.find('\n', pos);
    if (eol == std::string::npos)
      eol = err.size();
    std::string_view line(err.data() + pos, eol - pos);
    pos = eol + 1;
    if (line.substr(0, 8) == "ERROR:  ")
      message = std::string(line.substr(8));
    else if (line.substr(0, 7) == "HINT:  ")
      hint = std::string(line.substr(7));
  }
  if (message.empty())
    message = TailOf(err, 2000);
  Status status = Status(code, std::move(message)).WithSqlState(sqlstate);
  return hint.empty() ? status : std::move(status).WithHint(std::move(hint));
}

}  // namespace

Result<int64_t> TaskOutcome(int status, const std::string& stdout_path,
                            const std::string& stderr_path) {
  auto out = ReadWholeFile(stdout_path);
  auto err = ReadWholeFile(stderr_path);
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && out.ok()) {
    // The task ran and failed with an error of its own: keep its code (retry or not) and SQLSTATE.
    if (auto reported = ParseTaskErrorReport(*out))
      return ReportedStatus(reported->first, reported->second, err.ok() ? *err : std::string());
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Status::Unavailable(
        "{}{}", DescribeTaskExit(status),
        err.ok() && !TailOf(*err, 2000).empty() ? ": " + TailOf(*err, 2000) : std::string());
  if (!out.ok())
    return out.status();
  return ParseTaskReport(*out);
}

}  // namespace shoal::distributed::shuffle
