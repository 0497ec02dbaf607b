#include "shoal/distributed/shuffle/map_output.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <random>
#include <regex>
#include <sstream>

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "shoal/distributed/shuffle/shuffle_files.h"

namespace shoal::distributed::shuffle {

namespace {

constexpr const char* kCommitHeader = "shoal-map-output 1";
// A commit file is a few lines; anything larger is not one.
constexpr int64_t kMaxCommitBytes = 1 << 20;

std::string RandomSuffix() {
  std::random_device rd;
  const uint64_t r = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return fmt::format("{}-{:016x}", static_cast<long>(::getpid()), r);
}

// A dot name that never matches a published file's pattern; the attempt is in it, so the
// leftovers of a killed attempt say which one they were.
std::string TemporaryFor(const std::string& dir, const std::string& name, int attempt) {
  return fmt::format("{}/.{}.attempt-{}.{}.tmp", dir, name, attempt, RandomSuffix());
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string MapOutputPath(const std::string& dir, int stage_id, int map, int attempt,
                          int partition) {
  return fmt::format("{}/stage-{}-map-{}-attempt-{}-part-{}.arrow", dir, stage_id, map, attempt,
                     partition);
}

std::string MapCommitPath(const std::string& dir, int stage_id, int map) {
  return fmt::format("{}/stage-{}-map-{}.commit", dir, stage_id, map);
}

std::string FetchedMapOutputPath(const std::string& dir, int stage_id, int map, int attempt,
                                 int partition) {
  return MapOutputPath(dir, stage_id, map, attempt, partition);
}

bool IsMapCommitName(std::string_view name) {
  static const std::regex kPattern("stage-[0-9]+-map-[0-9]+\\.commit");
  return std::regex_match(name.begin(), name.end(), kPattern);
}

bool TestKillHookFires(const char* env) {
  const char* marker = std::getenv(env);
  if (marker == nullptr || *marker == '\0')
    return false;
  int fd = ::open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return false;  // exists already: this is the retry, or another writer was killed
  ::close(fd);
  return true;
}

Result<MapCommit> ReadMapCommit(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0 && errno == ENOENT)
    return Status::NotFound("no map output committed at {}", path);
  SHOAL_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path, kMaxCommitBytes));
  auto bad = [&](std::string_view what) {
    return Status::InvalidData("{} is not a shuffle map commit file ({})", path, what)
        .WithHint("the files of a shuffle query's directory are written by its tasks only");
  };
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != kCommitHeader)
    return bad("no header");
  MapCommit commit;
  std::string word;
  int64_t partitions = -1;
  if (!(in >> word) || word != "attempt" || !(in >> commit.attempt) || commit.attempt < 0)
    return bad("no attempt");
  if (!(in >> word) || word != "partitions" || !(in >> partitions) || partitions < 1 ||
      partitions > (1 << 20))
    return bad("no partition count");
  if (!(in >> word) || word != "rows")
    return bad("no row counts");
  commit.rows.resize(static_cast<size_t>(partitions));
  for (auto& rows : commit.rows) {
    if (!(in >> rows) || rows < 0)
      return bad("a row count is missing or negative");
  }
  if (in >> word)
    return bad("trailing text");
  return commit;
}

MapOutputWriter::MapOutputWriter(std::string dir, int stage_id, int map, int attempt,
                                 int partitions, columnar::SchemaPtr schema,
                                 columnar::ipc::WriteOptions options)
    : dir_(std::move(dir)),
      stage_id_(stage_id),
      map_(map),
      attempt_(attempt),
      schema_(std::move(schema)),
      options_(std::move(options)),
      parts_(static_cast<size_t>(partitions)) {}

MapOutputWriter::~MapOutputWriter() {
  if (committed_)
    return;
  for (auto& part : parts_) {
    part.writer.reset();
    part.sink.reset();
    if (!part.temporary.empty())
      ::unlink(part.temporary.c_str());
  }
}

Status MapOutputWriter::Open(int partition) {
  Part& part = parts_[static_cast<size_t>(partition)];
  const std::string final_path = MapOutputPath(dir_, stage_id_, map_, attempt_, partition);
  part.temporary = TemporaryFor(dir_, BaseName(final_path), attempt_);
  auto sink = columnar::ipc::FileSink::Open(part.temporary);
  if (!sink.ok()) {
    part.temporary.clear();
    return std::move(sink).status().WithHint(
        fmt::format("the shuffle directory {} must exist and be writable", dir_));
  }
  part.sink = std::move(sink).MoveValueUnsafe();
  SHOAL_ASSIGN_OR_RETURN(part.writer,
                         columnar::ipc::MakeStreamWriter(part.sink.get(), schema_, options_));
  return Status::OK();
}

Status MapOutputWriter::Write(int partition, const columnar::RecordBatch& batch) {
  Part& part = parts_[static_cast<size_t>(partition)];
  if (!part.writer)
    SHOAL_RETURN_IF_ERROR(Open(partition));
  Status st = part.writer->WriteBatch(batch);
  if (!st.ok())
    return std::move(st).WithContext(fmt::format("writing {}", part.temporary));
  part.rows += batch.num_rows();
  return Status::OK();
}

int64_t MapOutputWriter::rows() const {
  int64_t rows = 0;
  for (const auto& part : parts_)
    rows += part.rows;
  return rows;
}

Status MapOutputWriter::Commit() {
  for (size_t p = 0; p < parts_.size(); ++p) {
    Part& part = parts_[p];
    if (!part.writer)
      SHOAL_RETURN_IF_ERROR(Open(static_cast<int>(p)));
    Status st = part.writer->Close();
    if (!st.ok())
      return std::move(st).WithContext(fmt::format("writing {}", part.temporary));
    part.writer.reset();
    part.sink.reset();
  }
  for (size_t p = 0; p < parts_.size(); ++p) {
    Part& part = parts_[p];
    const std::string final_path =
        MapOutputPath(dir_, stage_id_, map_, attempt_, static_cast<int>(p));
    if (::rename(part.temporary.c_str(), final_path.c_str()) != 0)
      return Status::IoError("cannot publish {} as {}: {}", part.temporary, final_path,
                             std::strerror(errno));
    part.temporary.clear();
  }
  // Test hook: every partition file of this attempt is published, and the commit is not.
  if (TestKillHookFires("SHOAL_SHUFFLE_TEST_KILL_BEFORE_COMMIT_MARKER"))
    ::raise(SIGKILL);
  std::string text =
      fmt::format("{}\nattempt {}\npartitions {}\nrows", kCommitHeader, attempt_, parts_.size());
  for (const auto& part : parts_)
    text += fmt::format(" {}", part.rows);
  text += "\n";
  // The commit point: one rename makes all N files of this attempt the map's output.
  const std::string commit = MapCommitPath(dir_, stage_id_, map_);
  const std::string temporary = TemporaryFor(dir_, BaseName(commit), attempt_);
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::IoError("cannot create '{}': {}", temporary, std::strerror(errno));
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int error = errno;
  if (::close(fd) != 0 || !written) {
    ::unlink(temporary.c_str());
    return Status::IoError("cannot write '{}': {}", temporary, std::strerror(error));
  }
  if (::rename(temporary.c_str(), commit.c_str()) != 0) {
    Status st =
        Status::IoError("cannot publish {} as {}: {}", temporary, commit, std::strerror(errno));
    ::unlink(temporary.c_str());
    return st;
  }
  committed_ = true;
  return Status::OK();
}

}  // namespace shoal::distributed::shuffle
