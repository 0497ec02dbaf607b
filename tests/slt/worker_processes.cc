#include "tests/slt/worker_processes.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace shoal::slt {
namespace {

constexpr std::string_view kReadyPrefix = "listening on ";

std::string DescribeExit(int status) {
  if (WIFEXITED(status))
    return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return fmt::format("was killed by signal {}", WTERMSIG(status));
  return "stopped";
}

// Waits up to `timeout` for `pid` to end (a pidfd becomes readable then); true once reaped.
bool WaitForExit(pid_t pid, std::chrono::milliseconds timeout) {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd >= 0) {
    pollfd p{pidfd, POLLIN, 0};
    int r = 0;
    do {
      r = ::poll(&p, 1, static_cast<int>(timeout.count()));
    } while (r < 0 && errno == EINTR);
    ::close(pidfd);
    if (r <= 0)
      return false;
  }
  // Without a pidfd (an old kernel), only reap what already ended: the caller kills the rest.
  int status = 0;
  pid_t r = 0;
  do {
    r = ::waitpid(pid, &status, pidfd >= 0 ? 0 : WNOHANG);
  } while (r < 0 && errno == EINTR);
  return r == pid || (r < 0 && errno == ECHILD);
}

}  // namespace

Result<std::unique_ptr<WorkerProcesses>> WorkerProcesses::Start(
    const std::string& shoal_binary, int n, std::chrono::milliseconds ready_timeout) {
  if (n < 1)
    return Status::InvalidArgument("a worker group needs at least one worker, got {}", n);
  std::unique_ptr<WorkerProcesses> group(new WorkerProcesses());
  for (int i = 0; i < n; ++i) {
    Status st = group->StartOne(shoal_binary, ready_timeout);
    if (!st.ok())
      return std::move(st).WithContext(fmt::format("starting worker {} of {}", i + 1, n));
  }
  return group;
}

Status WorkerProcesses::StartOne(const std::string& shoal_binary,
                                 std::chrono::milliseconds ready_timeout) {
  // Everything the child touches is prepared before fork: after it, only async-signal-safe calls.
  // Plain TCP: the slt process is the coordinator and its process-wide security is the default,
  // insecure one (tests/integration covers mutual TLS and signed requests with real processes).
  std::vector<std::string> args = {shoal_binary, "worker", "--insecure", "--listen", "127.0.0.1:0"};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0)
    return Status::IoError("cannot make a pipe for a worker: {}", std::strerror(errno));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(out[0]);
    ::close(out[1]);
    return Status::IoError("cannot start {}: {}", shoal_binary, std::strerror(error));
  }
  if (pid == 0) {
    ::setpgid(0, 0);                     // the terminal's Ctrl-C reaches the slt process only
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the slt process dying kills its workers
    if (::getppid() != parent)
      ::_exit(127);                 // it died before prctl took effect
    ::dup2(out[1], STDOUT_FILENO);  // dup2 clears close-on-exec on the copy
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);  // exit_cleanup.h blocked the stop signals
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(out[1]);
  workers_.push_back({pid, out[0]});

  // Read the first line; the worker prints it once it serves.
  std::string line;
  const auto deadline = std::chrono::steady_clock::now() + ready_timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return Status::DeadlineExceeded("worker {} ({}) printed no address within {} ms", pid,
                                      shoal_binary, ready_timeout.count());
    pollfd p{out[0], POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return Status::IoError("waiting for worker {}: {}", pid, std::strerror(errno));
    if (r == 0)
      continue;  // the deadline check above ends the wait
    char buffer[256];
    const ssize_t got = ::read(out[0], buffer, sizeof(buffer));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      int status = 0;
      pid_t reaped = 0;
      do {
        reaped = ::waitpid(pid, &status, 0);
      } while (reaped < 0 && errno == EINTR);
      workers_.back().pid = -1;
      return Status::Unavailable("worker {} ({}) {} before it was ready{}", pid, shoal_binary,
                                 reaped == pid ? DescribeExit(status) : "ended",
                                 line.empty() ? "" : ", after printing: " + line);
    }
    line.append(buffer, static_cast<size_t>(got));
    const size_t newline = line.find('\n');
    if (newline == std::string::npos)
      continue;
    line.resize(newline);
    if (line.rfind(kReadyPrefix, 0) != 0 || line.size() == kReadyPrefix.size())
      return Status::Internal("worker {} printed '{}' where '{}HOST:PORT' was expected", pid, line,
                              kReadyPrefix);
    addresses_.push_back(line.substr(kReadyPrefix.size()));
    return Status::OK();
  }
}

std::vector<pid_t> WorkerProcesses::pids() const {
  std::vector<pid_t> pids;
  for (const auto& w : workers_)
    if (w.pid > 0)
      pids.push_back(w.pid);
  return pids;
}

void WorkerProcesses::Stop(std::chrono::milliseconds grace) {
  for (const auto& w : workers_)
    if (w.pid > 0)
      ::kill(w.pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  for (auto& w : workers_) {
    if (w.pid > 0) {
      const auto left = std::max(std::chrono::milliseconds(0),
                                 std::chrono::duration_cast<std::chrono::milliseconds>(
                                     deadline - std::chrono::steady_clock::now()));
      if (!WaitForExit(w.pid, left)) {
        ::kill(-w.pid, SIGKILL);
        ::kill(w.pid, SIGKILL);
        int status = 0;
        while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
        }
      }
      w.pid = -1;
    }
    if (w.stdout_fd >= 0) {
      ::close(w.stdout_fd);
      w.stdout_fd = -1;
    }
  }
  workers_.clear();
  addresses_.clear();
}

}  // namespace shoal::slt
