#include "shoal/io/tpch/tpch_generator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include <fmt/core.h>

#include "shoal/common/check.h"
#include "shoal/io/file_writer.h"
#include "shoal/io/text_buffer.h"
#include "shoal/io/tpch/customer_generator.h"
#include "shoal/io/tpch/nation_generator.h"
#include "shoal/io/tpch/order_generator.h"
#include "shoal/io/tpch/part_generator.h"
#include "shoal/io/tpch/region_generator.h"
#include "shoal/io/tpch/supplier_generator.h"
#include "shoal/io/tpch/tbl_formatter.h"
#include "shoal/io/tpch/text_pool.h"

namespace shoal::io::tpch {
namespace {

// Tables generated in one pass share a group: the second table's rows come from the first's.
enum class Group : uint8_t { kOrders, kPart, kCustomer, kSupplier, kNation, kRegion };

struct GroupInfo {
  Group group;
  TpchTable tables[2];
  int table_count;
  // Rows per chunk: about 300 KB of output for the larger file of the group. Small enough that a
  // chunk is still in the core's L2 cache when write(2) copies it (2.5 MB chunks cost five times
  // the kernel time), large enough that the seek and the hand-off are noise.
  int64_t chunk_rows;
};

// Largest first, so that the long tail of the run is made of small chunks.
constexpr GroupInfo kGroups[] = {
    {Group::kOrders, {TpchTable::kOrders, TpchTable::kLineItem}, 2, 512},
    {Group::kPart, {TpchTable::kPart, TpchTable::kPartSupp}, 2, 512},
    {Group::kCustomer, {TpchTable::kCustomer, TpchTable::kCustomer}, 1, 2048},
    {Group::kSupplier, {TpchTable::kSupplier, TpchTable::kSupplier}, 1, 2048},
    {Group::kNation, {TpchTable::kNation, TpchTable::kNation}, 1, 25},
    {Group::kRegion, {TpchTable::kRegion, TpchTable::kRegion}, 1, 5},
};

// One output file: chunks arrive out of order from the workers and are written in order by
// whichever worker holds the `writing` role.
struct OutputFile {
  TpchTable table = TpchTable::kRegion;
  std::string path;
  int64_t chunk_count = 0;

  std::mutex mu;
  bool writing = false;
  int64_t next_chunk = 0;
  std::map<int64_t, std::unique_ptr<TextBuffer>> ready;
  std::unique_ptr<FileWriter> writer;  // opened at the first chunk, closed after the last
  int64_t bytes = 0;
  std::atomic<int64_t> rows{0};
};

struct Job {
  const GroupInfo* group;
  int64_t begin;
  int64_t end;
  int64_t chunk;         // index of this chunk within its files
  OutputFile* files[2];  // null for a table of the group that was not asked for
};

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

class GenerationRun {
 public:
  static constexpr int kMaxBuffersPerJob = 2;

  GenerationRun(const TpchScale& scale, const TextPool& pool, int threads)
      : scale_(scale), pool_(pool), max_in_flight_(kMaxBuffersPerJob * (2 * threads + 2)) {}

  std::vector<Job> jobs;

  void Work() {
    while (!failed()) {
      // Slots are taken before the job is claimed: a claimed job must never wait for memory, or
      // the chunks after it (holding all the slots) would wait for it forever.
      AcquireSlots(kMaxBuffersPerJob);
      const size_t j = next_job_.fetch_add(1);
      if (j >= jobs.size() || failed()) {
        ReleaseSlots(kMaxBuffersPerJob);
        return;
      }
      const Job& job = jobs[j];
      const int buffers = (job.files[0] != nullptr) + (job.files[1] != nullptr);
      ReleaseSlots(kMaxBuffersPerJob - buffers);
      std::unique_ptr<TextBuffer> out[2];
      for (int i = 0; i < 2; ++i) {
        if (job.files[i] != nullptr)
          out[i] = TakeBuffer();
      }
      int64_t rows[2] = {0, 0};
      Status st = Generate(job, out[0].get(), out[1].get(), rows);
      if (!st.ok()) {
        Fail(std::move(st));
        return;
      }
      for (int i = 0; i < 2; ++i) {
        if (job.files[i] != nullptr) {
          job.files[i]->rows.fetch_add(rows[i], std::memory_order_relaxed);
          Deliver(job.files[i], job.chunk, std::move(out[i]));
        }
      }
    }
  }

  Status error() {
    std::lock_guard lock(error_mu_);
    return error_;
  }

  bool failed() const { return failed_.load(); }

 private:
  Status Generate(const Job& job, TextBuffer* a, TextBuffer* b, int64_t rows[2]) {
    switch (job.group->group) {
      case Group::kOrders:
        return Batched<OrderGenerator, OrderRow>(job, [&](const OrderRow& row) -> Status {
          if (a != nullptr)
            SHOAL_RETURN_IF_ERROR(TblFormatter::Append(row, a));
          if (b != nullptr)
            SHOAL_RETURN_IF_ERROR(TblFormatter::AppendLineItems(row, b));
          ++rows[0];
          rows[1] += row.line_count;
          return Status::OK();
        });
      case Group::kPart:
        return Batched<PartGenerator, PartRow>(job, [&](const PartRow& row) -> Status {
          if (a != nullptr)
            SHOAL_RETURN_IF_ERROR(TblFormatter::Append(row, a));
          if (b != nullptr)
            SHOAL_RETURN_IF_ERROR(TblFormatter::AppendPartSupps(row, b));
          ++rows[0];
          rows[1] += PartRow::kSuppliers;
          return Status::OK();
        });
      case Group::kCustomer: return Single<CustomerGenerator, CustomerRow>(job, a, rows);
      case Group::kSupplier: return Single<SupplierGenerator, SupplierRow>(job, a, rows);
      case Group::kNation: return Single<NationGenerator, NationRow>(job, a, rows);
      case Group::kRegion: return Single<RegionGenerator, RegionRow>(job, a, rows);
    }
    return Status::Internal("unknown table group");
  }

  // Generates the job's rows a batch at a time and then formats the batch, so that the text of a
  // batch's comments (prefetched as it is drawn) arrives from memory while the rest is generated.
  template <typename Generator, typename Row, typename Format>
  Status Batched(const Job& job, Format&& format) {
    constexpr int64_t kBatch = 8;
    Generator gen(scale_, pool_);
    gen.Seek(job.begin);
    Row batch[kBatch];
    for (int64_t r = job.begin; r < job.end; r += kBatch) {
      const int64_t n = std::min(kBatch, job.end - r);
      for (int64_t i = 0; i < n; ++i)
        gen.Next(&batch[i]);
      for (int64_t i = 0; i < n; ++i)
        SHOAL_RETURN_IF_ERROR(format(batch[i]));
    }
    return Status::OK();
  }

  template <typename Generator, typename Row>
  Status Single(const Job& job, TextBuffer* out, int64_t rows[2]) {
    return Batched<Generator, Row>(job, [&](const Row& row) -> Status {
      ++rows[0];
      return TblFormatter::Append(row, out);
    });
  }

  // Hands a finished chunk to its file, and writes every chunk that is now next in line unless
  // another worker is already doing so for this file.
  void Deliver(OutputFile* file, int64_t chunk, std::unique_ptr<TextBuffer> buffer) {
    std::unique_lock lock(file->mu);
    file->ready.emplace(chunk, std::move(buffer));
    if (file->writing)
      return;
    file->writing = true;
    for (auto it = file->ready.find(file->next_chunk); it != file->ready.end();
         it = file->ready.find(file->next_chunk)) {
      std::unique_ptr<TextBuffer> next = std::move(it->second);
      file->ready.erase(it);
      const bool last = ++file->next_chunk == file->chunk_count;
      lock.unlock();
      if (!failed())
        WriteChunk(file, *next, last);
      ReturnBuffer(std::move(next));
      ReleaseSlots(1);
      lock.lock();
    }
    file->writing = false;
  }

  // Called only by the file's current writer.
  void WriteChunk(OutputFile* file, const TextBuffer& buffer, bool last) {
    Status st;
    if (file->writer == nullptr) {
      auto opened = FileWriter::Open(file->path);
      if (!opened.ok())
        return Fail(std::move(opened).status());
      file->writer = std::move(opened).MoveValueUnsafe();
    }
    st = file->writer->Write(buffer.view());
    if (st.ok() && last) {
      file->bytes = file->writer->bytes_written();
      st = file->writer->Close();
      file->writer.reset();
    }
    if (!st.ok())
      Fail(std::move(st));
  }

  void Fail(Status st) {
    {
      std::lock_guard lock(error_mu_);
      if (error_.ok())
        error_ = std::move(st);
    }
    failed_.store(true);
    std::lock_guard lock(window_mu_);
    window_cv_.notify_all();
  }

  void AcquireSlots(int n) {
    std::unique_lock lock(window_mu_);
    window_cv_.wait(lock, [&] { return in_flight_ + n <= max_in_flight_ || failed(); });
    in_flight_ += n;
  }

  void ReleaseSlots(int n) {
    std::lock_guard lock(window_mu_);
    in_flight_ -= n;
    window_cv_.notify_all();
  }

  std::unique_ptr<TextBuffer> TakeBuffer() {
    std::lock_guard lock(free_mu_);
    if (free_.empty())
      return std::make_unique<TextBuffer>();
    std::unique_ptr<TextBuffer> buffer = std::move(free_.back());
    free_.pop_back();
    buffer->Clear();
    return buffer;
  }

  void ReturnBuffer(std::unique_ptr<TextBuffer> buffer) {
    std::lock_guard lock(free_mu_);
    free_.push_back(std::move(buffer));
  }

  const TpchScale& scale_;
  const TextPool& pool_;
  std::atomic<size_t> next_job_{0};

  std::mutex window_mu_;
  std::condition_variable window_cv_;
  int in_flight_ = 0;
  const int max_in_flight_;

  std::mutex free_mu_;
  std::vector<std::unique_ptr<TextBuffer>> free_;

  std::atomic<bool> failed_{false};
  std::mutex error_mu_;
  Status error_;
};

}  // namespace

std::pair<int64_t, int64_t> TpchGenerator::PartRange(int64_t rows, int parts, int part) {
  const int64_t per_part = rows / parts;
  const int64_t begin = per_part * (part - 1);
  const int64_t end = begin + per_part + (part == parts ? rows % parts : 0);
  return {begin, end};
}

std::string TpchGenerator::OutputPath(const std::string& dir, TpchTable table, int parts,
                                      int part) {
  if (parts == 0)
    return fmt::format("{}/{}.tbl", dir, TpchTableName(table));
  const int width = static_cast<int>(fmt::format("{}", parts).size());
  return fmt::format("{}/{}/part-{:0{}}.tbl", dir, TpchTableName(table), part, width);
}

Result<TpchGenReport> TpchGenerator::Run() {
  const Clock::time_point start = Clock::now();
  const TpchGenOptions& o = options_;
  if (o.output_dir.empty())
    return Status::InvalidArgument("no output directory given");
  if (o.parts < 0)
    return Status::InvalidArgument("--parts must be at least 1, got {}", o.parts);
  if (o.threads < 0)
    return Status::InvalidArgument("--threads must be at least 1, got {}", o.threads);
  int threads = o.threads;
  if (threads == 0)
    threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  bool wanted[8] = {};
  for (TpchTable t : o.tables.empty() ? std::vector<TpchTable>(std::begin(kAllTpchTables),
                                                               std::end(kAllTpchTables))
                                      : o.tables) {
    wanted[static_cast<int>(t)] = true;
  }

  // Create every directory and (empty) file up front so that an unwritable destination fails
  // before any work is done; files are reopened when their first chunk is ready.
  SHOAL_RETURN_IF_ERROR(FileWriter::CreateDirectories(o.output_dir));
  const int part_count = std::max(o.parts, 1);
  std::vector<std::unique_ptr<OutputFile>> files;
  for (TpchTable t : kAllTpchTables) {
    if (!wanted[static_cast<int>(t)])
      continue;
    if (o.parts > 0) {
      SHOAL_RETURN_IF_ERROR(
          FileWriter::CreateDirectories(fmt::format("{}/{}", o.output_dir, TpchTableName(t))));
    }
  }

  // files_by[table][part - 1]
  std::vector<OutputFile*> files_by[8];
  for (TpchTable t : kAllTpchTables) {
    if (!wanted[static_cast<int>(t)])
      continue;
    for (int p = 1; p <= part_count; ++p) {
      auto file = std::make_unique<OutputFile>();
      file->table = t;
      file->path = OutputPath(o.output_dir, t, o.parts, p);
      SHOAL_ASSIGN_OR_RETURN(std::unique_ptr<FileWriter> probe, FileWriter::Open(file->path));
      SHOAL_RETURN_IF_ERROR(probe->Close());
      files_by[static_cast<int>(t)].push_back(file.get());
      files.push_back(std::move(file));
    }
  }

  TpchGenReport report;
  report.threads = threads;
  const Clock::time_point pool_start = Clock::now();
  SHOAL_ASSIGN_OR_RETURN(std::shared_ptr<const TextPool> pool, TextPool::Build(threads));
  report.text_pool_seconds = SecondsSince(pool_start);

  GenerationRun run(o.scale, *pool, threads);
  for (const GroupInfo& g : kGroups) {
    bool any = false;
    for (int i = 0; i < g.table_count; ++i)
      any |= wanted[static_cast<int>(g.tables[i])];
    if (!any)
      continue;
    const int64_t rows = o.scale.RowCount(g.tables[0]);
    for (int p = 1; p <= part_count; ++p) {
      auto [begin, end] = PartRange(rows, part_count, p);
      OutputFile* targets[2] = {nullptr, nullptr};
      for (int i = 0; i < g.table_count; ++i) {
        if (wanted[static_cast<int>(g.tables[i])])
          targets[i] = files_by[static_cast<int>(g.tables[i])][static_cast<size_t>(p - 1)];
      }
      const int64_t chunk_rows = o.chunk_rows > 0 ? o.chunk_rows : g.chunk_rows;
      int64_t chunk = 0;
      for (int64_t b = begin; b < end; b += chunk_rows, ++chunk) {
        run.jobs.push_back(
            Job{&g, b, std::min(end, b + chunk_rows), chunk, {targets[0], targets[1]}});
      }
      for (OutputFile* f : targets) {
        if (f != nullptr)
          f->chunk_count = chunk;
      }
    }
  }

  std::vector<std::thread> helpers;
  for (int i = 1; i < threads; ++i)
    helpers.emplace_back([&run] { run.Work(); });
  run.Work();
  for (std::thread& t : helpers)
    t.join();
  if (run.failed())
    return run.error();

  for (TpchTable t : kAllTpchTables) {
    if (!wanted[static_cast<int>(t)])
      continue;
    TpchGenReport::Table table{t};
    for (OutputFile* f : files_by[static_cast<int>(t)]) {
      SHOAL_CHECK(f->next_chunk == f->chunk_count, "{}: {} of {} chunks written", f->path,
                  f->next_chunk, f->chunk_count);
      table.rows += f->rows.load();
      table.bytes += f->bytes;
    }
    report.tables.push_back(table);
  }
  report.total_seconds = SecondsSince(start);
  return report;
}

}  // namespace shoal::io::tpch
