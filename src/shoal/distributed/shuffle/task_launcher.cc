#include "shoal/distributed/shuffle/task_launcher.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shoal/common/logging.h"
#include "shoal/common/process_allocator.h"
#include "shoal/distributed/shuffle/task_process.h"
#include "shoal/distributed/transport/node_security.h"

namespace shoal::distributed::shuffle {

namespace {

// The wire between driver and launcher: one SOCK_SEQPACKET message per request or report, so
// neither side ever parses a partial one. Both ends are the same binary: plain structs suffice.
constexpr uint32_t kRequestMagic = 0x53484c54;  // "SHLT"
constexpr size_t kMaxRequestBytes = size_t{1} << 20;

enum class ReportKind : uint32_t {
  kReady = 1,        // pid: the launcher's
  kSpawned = 2,      // id, pid
  kSpawnFailed = 3,  // id, value: errno
  kExited = 4,       // id, pid, value: wait status
};

struct Report {
  ReportKind kind = ReportKind::kReady;
  int32_t pid = 0;
  uint64_t id = 0;
  int32_t value = 0;
  uint32_t reserved = 0;
};

// Followed by num_strings strings, each a uint32_t length and its bytes: envelope, stdout path,
// stderr path, working directory, then the environment's entries.
struct RequestHeader {
  uint32_t magic = kRequestMagic;
  uint32_t num_strings = 0;
  uint64_t id = 0;
};

struct TaskRequest {
  uint64_t id = 0;
  std::string envelope;
  std::string stdout_path;
  std::string stderr_path;
  std::string cwd;
  std::vector<std::string> environment;
};

constexpr std::chrono::seconds kStartTimeout{10};
// A launcher answers a request in the time of a fork; one that takes this long is stuck.
constexpr std::chrono::seconds kAnswerTimeout{30};

void AppendString(std::string* out, std::string_view s) {
  const auto size = static_cast<uint32_t>(s.size());
  out->append(reinterpret_cast<const char*>(&size), sizeof size);
  out->append(s);
}

std::string EncodeRequest(uint64_t id, const std::vector<std::string_view>& strings) {
  RequestHeader header;
  header.id = id;
  header.num_strings = static_cast<uint32_t>(strings.size());
  std::string out(reinterpret_cast<const char*>(&header), sizeof header);
  for (std::string_view s : strings)
    AppendString(&out, s);
  return out;
}

// Never trusts the bytes: a malformed request is refused, not followed.
bool DecodeRequest(const char* data, size_t size, TaskRequest* request) {
  RequestHeader header;
  if (size < sizeof header)
    return false;
  std::memcpy(&header, data, sizeof header);
  request->id = header.id;
  if (header.magic != kRequestMagic || header.num_strings < 4)
    return false;
  size_t pos = sizeof header;
  std::vector<std::string> strings;
  for (uint32_t i = 0; i < header.num_strings; ++i) {
    uint32_t length = 0;
    if (size - pos < sizeof length)
      return false;
    std::memcpy(&length, data + pos, sizeof length);
    pos += sizeof length;
    if (size - pos < length)
      return false;
    strings.emplace_back(data + pos, length);
    pos += length;
  }
  request->envelope = std::move(strings[0]);
  request->stdout_path = std::move(strings[1]);
  request->stderr_path = std::move(strings[2]);
  request->cwd = std::move(strings[3]);
  request->environment.assign(std::make_move_iterator(strings.begin() + 4),
                              std::make_move_iterator(strings.end()));
  return !request->envelope.empty() && !request->stdout_path.empty() &&
         !request->stderr_path.empty();
}

bool SendReport(int fd, const Report& report) {
  for (;;) {
    const ssize_t n = ::send(fd, &report, sizeof report, MSG_NOSIGNAL);
    if (n == static_cast<ssize_t>(sizeof report))
      return true;
    if (n < 0 && errno == EINTR)
      continue;
    return false;
  }
}

int CountThreads() {
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr)
    return -1;
  int n = 0;
  while (const dirent* entry = ::readdir(dir))
    n += entry->d_name[0] != '.' ? 1 : 0;
  ::closedir(dir);
  return n;
}

// The memory /proc/PID/cmdline (and so `ps -o args`) reads: argv's strings as the kernel laid
// them out, from /proc/self/stat's arg_start and arg_end (fields 48 and 49). Empty when that
// cannot be confirmed.
struct ArgvArea {
  char* start = nullptr;
  size_t size = 0;
};

ArgvArea FindArgvArea() {
  std::ifstream in("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos)
    return {};
  std::istringstream fields(stat.substr(paren + 1));
  std::string field;
  unsigned long long arg_start = 0;
  unsigned long long arg_end = 0;
  for (int number = 3; fields >> field; ++number) {  // the first after the name is field 3
    if (number == 48)
      arg_start = std::strtoull(field.c_str(), nullptr, 10);
    if (number == 49) {
      arg_end = std::strtoull(field.c_str(), nullptr, 10);
      break;
    }
  }
  char* start = reinterpret_cast<char*>(static_cast<uintptr_t>(arg_start));
  // argv[0] is where glibc says: the fields were read right.
  if (arg_end <= arg_start || start != program_invocation_name)
    return {};
  return {start, static_cast<size_t>(arg_end - arg_start)};
}

// Writes `args` over the area, NUL-separated, the rest zeroed (shown as trailing blanks); a
// last argument too long for the area is cut.
void WriteArgs(const ArgvArea& area, const std::vector<std::string_view>& args) {
  if (area.size == 0)
    return;
  std::memset(area.start, 0, area.size);
  size_t pos = 0;
  for (std::string_view arg : args) {
    if (pos + 1 >= area.size)
      break;
    const size_t n = std::min(arg.size(), area.size - pos - 1);
    std::memcpy(area.start + pos, arg.data(), n);
    pos += n + 1;
  }
}

// The launcher's own command line without its padding: `shoal task --launcher FD ...`.
void DropPadding(const ArgvArea& area) {
  constexpr std::string_view kFlag = "--argv-space";
  for (size_t pos = 0; pos < area.size;) {
    const std::string_view arg(area.start + pos, ::strnlen(area.start + pos, area.size - pos));
    pos += arg.size() + 1;
    if (arg == kFlag && pos < area.size) {
      std::memset(area.start + pos, 0, area.size - pos);
      return;
    }
  }
}

// In the forked child: what SpawnTaskProcess's child and `main` do before the `task` callback,
// then the task. The process is single-threaded (so is the launcher it is a copy of), so anything
// may be called.
[[noreturn]] void RunChild(const TaskRequest& request, const ArgvArea& argv, pid_t launcher,
                           const std::function<int(const std::string&)>& run_task) {
  EnterOwnProcessGroup(launcher);  // the launcher dying kills its tasks
  // The driver's directory and environment when it asked, as an exec from the driver would have.
  if (!request.cwd.empty() && ::chdir(request.cwd.c_str()) != 0) {
    // An exec'd task would run in a removed directory as well: the envelope's paths are absolute.
  }
  static std::vector<std::string> environment;
  static std::vector<char*> envp;
  environment = request.environment;
  envp = NullTerminated(environment);
  environ = envp.data();
  RedirectTaskOutput(request.stdout_path.c_str(), request.stderr_path.c_str());
  WriteArgs(argv, {"shoal", "task", request.envelope});
  const int status = run_task(request.envelope);
  std::fflush(nullptr);
  ::_exit(status);
}

}  // namespace

Result<std::shared_ptr<TaskLauncher>> TaskLauncher::Start(const std::string& executable) {
  const std::string path = ResolveTaskExecutable(executable);
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
    return Status::IoError("cannot start a shoal task launcher: socketpair: {}",
                           std::strerror(errno));
  // Large requests (a big environment) fit in one message up to the system's maximum; beyond it
  // a task is started without the launcher.
  const int buffer = static_cast<int>(kMaxRequestBytes);
  ::setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer);
  ::setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer);
  std::vector<std::string> args = {"shoal", "task", "--launcher", std::to_string(fds[1])};
  // The tasks fetch stage files from other workers with this process's certificates and secret.
  for (auto& arg : ProcessNodeSecurity()->ChildProcessArgs())
    args.push_back(std::move(arg));
  args.emplace_back("--argv-space");  // last: what the children write their names over
  args.emplace_back(kLauncherArgvSpace, '.');
  std::shared_ptr<TaskLauncher> launcher(new TaskLauncher());
  launcher->fd_ = fds[0];
  launcher->reader_ =
      std::thread(&TaskLauncher::Serve, launcher.get(), fds[1], path, std::move(args));
  std::unique_lock<std::mutex> lock(launcher->mutex_);
  launcher->cv_.wait_for(lock, kStartTimeout, [&] { return launcher->ready_ || launcher->dead_; });
  if (launcher->ready_ && !launcher->dead_)
    return launcher;
  const std::string why = launcher->dead_
                              ? launcher->death_
                              : fmt::format("it did not answer within {} s", kStartTimeout.count());
  lock.unlock();
  return Status::Unavailable("cannot start a shoal task launcher ({} task --launcher): {}", path,
                             why);
}

void TaskLauncher::Serve(int launcher_end, const std::string& path, std::vector<std::string> args) {
  // Signals sent to the driver are for its other threads.
  sigset_t all;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, nullptr);
  std::vector<char*> argv = NullTerminated(args);
  // The launcher resolves every dynamic symbol once, at its start (LD_BIND_NOW), and its children
  // inherit the bound tables: bound lazily, each task paid ~10% of its CPU in the dynamic linker
  // resolving the same few thousand symbols again. The tasks' own environment is the driver's,
  // sent with each request, so they do not carry the variable.
  // Its malloc also advises huge pages (process_allocator.h): a task starts with an empty heap,
  // and faulting it in 4 KiB at a time cost a third of a short task's CPU.
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  std::vector<std::string> environment = {
      "LD_BIND_NOW=1",
      "GLIBC_TUNABLES=" + WithTransparentHugePages(tunables == nullptr ? "" : tunables)};
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (entry.substr(0, 12) != "LD_BIND_NOW=" && entry.substr(0, 15) != "GLIBC_TUNABLES=")
      environment.emplace_back(*e);
  }
  std::vector<char*> envp = NullTerminated(environment);
  const pid_t parent = ::getpid();
  // Forked from this thread, which lives as long as the launcher: PR_SET_PDEATHSIG fires when the
  // thread that forked ends, not the process. After fork, only async-signal-safe calls.
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Its own process group (Ctrl-C in a terminal is for the driver, which kills the tasks),
    // killed when the driver dies.
    EnterOwnProcessGroup(parent);
    const int null = ::open("/dev/null", O_RDWR);
    if (null < 0)
      ::_exit(126);
    ::dup2(null, 0);
    ::dup2(null, 1);  // the driver's stdout carries query results; stderr stays for errors
    const int flags = ::fcntl(launcher_end, F_GETFD);
    ::fcntl(launcher_end, F_SETFD, flags & ~FD_CLOEXEC);
    ::execve(path.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(launcher_end);
  if (pid < 0) {
    Died(fmt::format("cannot fork: {}", std::strerror(errno)));
    return;
  }
  pid_ = pid;
  for (;;) {
    Report report;
    const ssize_t n = ::recv(fd_, &report, sizeof report, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n != static_cast<ssize_t>(sizeof report))
      break;  // gone (or not a launcher: then it is stopped)
    std::lock_guard<std::mutex> lock(mutex_);
    switch (report.kind) {
      case ReportKind::kReady: ready_ = true; break;
      case ReportKind::kSpawned: spawned_.emplace(report.id, static_cast<pid_t>(report.pid)); break;
      case ReportKind::kSpawnFailed:
        spawned_.emplace(report.id, Status::IoError("cannot start a shoal task process: {}",
                                                    std::strerror(report.value)));
        break;
      case ReportKind::kExited:
        exits_[report.id] = report.value;
        ++news_;
        break;
    }
    cv_.notify_all();
  }
  // Killed so that its tasks die with it (PR_SET_PDEATHSIG): none may run unseen.
  ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  Died(fmt::format("the task launcher (pid {}) ended: {}", pid, DescribeTaskExit(status)));
}

void TaskLauncher::Died(std::string reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  dead_ = true;
  death_ = std::move(reason);
  ++news_;
  cv_.notify_all();
}

TaskLauncher::~TaskLauncher() {
  if (pid_ > 0)
    ::kill(pid_, SIGKILL);
  // Wakes the reader's recv even when the launcher was never started.
  ::shutdown(fd_, SHUT_RDWR);
  if (reader_.joinable())
    reader_.join();
  ::close(fd_);
}

Result<LaunchedTask> TaskLauncher::Spawn(const std::string& envelope,
                                         const std::string& stdout_path,
                                         const std::string& stderr_path) {
  uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (dead_)
      return Status::Unavailable("{}", death_);
    id = next_id_++;
  }
  char cwd[PATH_MAX + 1];
  std::vector<std::string_view> strings = {envelope, stdout_path, stderr_path,
                                           ::getcwd(cwd, sizeof cwd) != nullptr ? cwd : ""};
  for (char** e = environ; e != nullptr && *e != nullptr; ++e)
    strings.emplace_back(*e);
  const std::string request = EncodeRequest(id, strings);
  if (request.size() > kMaxRequestBytes)
    return Status::IoError("a task's request to the task launcher would take {} bytes (at most {})",
                           request.size(), kMaxRequestBytes);
  ssize_t sent = 0;
  do {
    sent = ::send(fd_, request.data(), request.size(), MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0)
    return Status::Unavailable("cannot send a task to the task launcher (pid {}): {}", pid_.load(),
                               std::strerror(errno));
  std::unique_lock<std::mutex> lock(mutex_);
  if (!cv_.wait_for(lock, kAnswerTimeout, [&] { return spawned_.count(id) > 0 || dead_; })) {
    // Its tasks die with it, this one too if it started after all.
    ::kill(pid_, SIGKILL);
    return Status::Unavailable("the task launcher (pid {}) did not answer within {} s; killed it",
                               pid_.load(), kAnswerTimeout.count());
  }
  auto it = spawned_.find(id);
  if (it == spawned_.end())
    return Status::Unavailable("{}", death_);
  Result<pid_t> pid = std::move(it->second);
  spawned_.erase(it);
  SHOAL_ASSIGN_OR_RETURN(pid_t task_pid, std::move(pid));
  return LaunchedTask{id, task_pid};
}

std::optional<Result<int>> TaskLauncher::TakeExit(const LaunchedTask& task) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = exits_.find(task.id);
  if (it != exits_.end()) {
    const int status = it->second;
    exits_.erase(it);
    return Result<int>(status);
  }
  if (dead_)
    return Result<int>(
        Status::Unavailable("{} while task process {} ran, which died with it", death_, task.pid));
  return std::nullopt;
}

Result<int> TaskLauncher::WaitExit(const LaunchedTask& task, std::chrono::milliseconds timeout) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    auto ended = [&] { return exits_.count(task.id) > 0 || dead_; };
    if (!cv_.wait_for(lock, timeout, ended)) {
      SHOAL_LOG(kWarning,
                "the task launcher (pid {}) did not report task process {} within {} ms; "
                "killing it and its tasks",
                pid_.load(), task.pid, timeout.count());
      ::kill(pid_, SIGKILL);
      cv_.wait(lock, ended);
    }
  }
  return *TakeExit(task);
}

uint64_t TaskLauncher::news() {
  std::lock_guard<std::mutex> lock(mutex_);
  return news_;
}

void TaskLauncher::WaitForNews(uint64_t seen, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait_for(lock, timeout, [&] { return news_ != seen; });
}

bool TaskLauncher::alive() {
  std::lock_guard<std::mutex> lock(mutex_);
  return !dead_;
}

std::shared_ptr<TaskLauncher> SharedTaskLauncher::Get(const std::string& executable) {
  if (const char* off = std::getenv("SHOAL_SHUFFLE_TEST_NO_LAUNCHER"); off != nullptr && *off)
    return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  if (failed_)
    return nullptr;
  if (launcher_ && launcher_->alive())
    return launcher_;
  auto started = TaskLauncher::Start(executable);
  if (!started.ok()) {
    // Once: a launcher that cannot start would cost every task a second start.
    failed_ = true;
    launcher_.reset();
    SHOAL_LOG(kWarning,
              "materialized shuffle: {}; starting each task process by itself instead (slower)",
              started.status().UserMessage());
    return nullptr;
  }
  launcher_ = std::move(started).MoveValueUnsafe();
  return launcher_;
}

int ServeTaskLauncher(int fd, const std::function<int(const std::string& envelope)>& run_task) {
  ::prctl(PR_SET_NAME, "shoal", 0, 0, 0);
  // Forking a process with other threads would leave the children locks held by threads that do
  // not exist there: refuse to serve rather than hang a task some day.
  if (const int threads = CountThreads(); threads != 1) {
    std::fprintf(stderr,
                 "shoal task --launcher: this process has %d threads; a launcher forks its tasks "
                 "and must have exactly one\n",
                 threads);
    return 1;
  }
  const int flags = ::fcntl(fd, F_GETFD);
  if (flags < 0) {
    std::fprintf(stderr, "shoal task --launcher: %d is not an open descriptor\n", fd);
    return 1;
  }
  ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);  // nothing a task execs gets it
  const ArgvArea argv = FindArgvArea();
  DropPadding(argv);
  sigset_t child_signal;
  sigemptyset(&child_signal);
  sigaddset(&child_signal, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &child_signal, nullptr);
  const int signals = ::signalfd(-1, &child_signal, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signals < 0) {
    std::fprintf(stderr, "shoal task --launcher: signalfd: %s\n", std::strerror(errno));
    return 1;
  }
  const pid_t self = ::getpid();
  if (!SendReport(fd, {ReportKind::kReady, static_cast<int32_t>(self), 0, 0, 0}))
    return 0;  // the driver is gone already
  std::map<pid_t, uint64_t> children;
  std::vector<char> buffer(kMaxRequestBytes);
  for (;;) {
    pollfd fds[2] = {{fd, POLLIN, 0}, {signals, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      std::fprintf(stderr, "shoal task --launcher: poll: %s\n", std::strerror(errno));
      return 1;
    }
    if ((fds[1].revents & POLLIN) != 0) {
      signalfd_siginfo info{};
      while (::read(signals, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      }
      int status = 0;
      pid_t ended = 0;
      while ((ended = ::waitpid(-1, &status, WNOHANG)) > 0) {
        auto it = children.find(ended);
        if (it == children.end())
          continue;
        const Report report{ReportKind::kExited, static_cast<int32_t>(ended), it->second, status,
                            0};
        children.erase(it);
        if (!SendReport(fd, report))
          return 0;
      }
    }
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
      continue;
    iovec io{buffer.data(), buffer.size()};
    msghdr message{};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    const ssize_t n = ::recvmsg(fd, &message, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (n <= 0)
      return 0;  // the driver went away; the tasks die with this process (PR_SET_PDEATHSIG)
    TaskRequest request;
    if ((message.msg_flags & MSG_TRUNC) != 0 ||
        !DecodeRequest(buffer.data(), static_cast<size_t>(n), &request)) {
      if (!SendReport(fd, {ReportKind::kSpawnFailed, 0, request.id, EINVAL, 0}))
        return 0;
      continue;
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fd);
      ::close(signals);
      RunChild(request, argv, self, run_task);
    }
    if (pid < 0) {
      if (!SendReport(fd, {ReportKind::kSpawnFailed, 0, request.id, errno, 0}))
        return 0;
      continue;
    }
    ::setpgid(pid, pid);  // also here, so a kill of the group can never miss a fresh child
    children.emplace(pid, request.id);
    if (!SendReport(fd, {ReportKind::kSpawned, static_cast<int32_t>(pid), request.id, 0, 0}))
      return 0;
  }
}

}  // namespace shoal::distributed::shuffle
