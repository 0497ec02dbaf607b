#include "shoal/io/tpch/text_pool.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include <sys/mman.h>

#include "shoal/common/check.h"
#include "shoal/io/tpch/streams.h"
#include "shoal/io/tpch/text_grammar.h"
#include "shoal/io/tpch/text_pool_checkpoints.h"

namespace shoal::io::tpch {
namespace {

constexpr int kScratch = TextGrammar::kMaxSentence + TextGrammar::kOutputSlack + 1;

struct SegmentEnd {
  int64_t state;
  int64_t offset;
};

// Writes the sentences that start in [begin.offset, end) to pool, each followed by a space, and
// cuts the last one off at `end` when it does not fit (only the pool's final sentence does not).
SegmentEnd FillSegment(const TextGrammar& grammar, char* pool, TextPool::Checkpoint begin,
                       int64_t end) {
  RandomStream rng(begin.state);
  int64_t pos = begin.offset;
  // Far from the end, sentences go straight into the pool; Generate() scribbles a few bytes past
  // the sentence, which the next sentence overwrites.
  const int64_t direct_limit = end - kScratch;
  while (pos < direct_limit) {
    int length = grammar.Generate(rng, pool + pos);
    pool[pos + length] = ' ';
    pos += length + 1;
  }
  // Near the end, via scratch, so nothing past `end` (another segment's bytes) is touched.
  char scratch[kScratch];
  while (pos < end) {
    int length = grammar.Generate(rng, scratch);
    scratch[length] = ' ';
    int64_t n = std::min<int64_t>(length + 1, end - pos);
    std::memcpy(pool + pos, scratch, static_cast<size_t>(n));
    pos += length + 1;
  }
  return {rng.state(), pos};
}

// The pool's memory: mapped directly and marked for transparent huge pages, because faulting in
// 300 MiB as 4 KiB pages costs more than generating the text. Counted against the default memory
// pool like any other allocation.
Result<columnar::BufferPtr> AllocatePoolMemory(int64_t size) {
  constexpr int64_t kHugePage = 2 << 20;
  const int64_t mapped = size + kHugePage;
  SHOAL_RETURN_IF_ERROR(DefaultMemoryPool()->Reserve(mapped));
  void* base = ::mmap(nullptr, static_cast<size_t>(mapped), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    DefaultMemoryPool()->Release(mapped);
    return Status::OutOfMemory("cannot map {} for the TPC-H text pool: {}", FormatBytes(mapped),
                               std::strerror(errno));
  }
  auto* aligned = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(base) + kHugePage - 1) &
                                             ~static_cast<uintptr_t>(kHugePage - 1));
  // Advisory only: without huge pages the pool is merely slower to fault in.
  (void)::madvise(aligned, static_cast<size_t>(size), MADV_HUGEPAGE);
  std::shared_ptr<void> owner(base, [mapped](void* p) {
    ::munmap(p, static_cast<size_t>(mapped));
    DefaultMemoryPool()->Release(mapped);
  });
  return columnar::Buffer::Wrap(aligned, size, std::move(owner));
}

}  // namespace

std::vector<TextPool::Checkpoint> TextPool::BuiltinCheckpoints() {
  return std::vector<Checkpoint>(std::begin(kTextPoolCheckpoints), std::end(kTextPoolCheckpoints));
}

std::vector<TextPool::Checkpoint> TextPool::ComputeCheckpoints(int count) {
  SHOAL_CHECK_GE(count, 1);
  const TextGrammar& grammar = TextGrammar::Get();
  std::vector<Checkpoint> result;
  RandomStream rng(streams::kTextPoolSeed);
  char scratch[kScratch];
  int64_t pos = 0;
  while (pos < kSize && static_cast<int>(result.size()) < count) {
    int64_t target = kSize / count * static_cast<int64_t>(result.size());
    if (pos >= target)
      result.push_back({rng.state(), pos});
    pos += grammar.Generate(rng, scratch) + 1;
  }
  return result;
}

Result<std::shared_ptr<const TextPool>> TextPool::Build(int threads) {
  const TextGrammar& grammar = TextGrammar::Get();
  SHOAL_ASSIGN_OR_RETURN(columnar::BufferPtr buffer, AllocatePoolMemory(kSize));
  char* pool = reinterpret_cast<char*>(buffer->mutable_data());
  const std::vector<Checkpoint> checkpoints = BuiltinCheckpoints();
  SHOAL_CHECK(!checkpoints.empty() && checkpoints[0].offset == 0 &&
                  checkpoints[0].state == streams::kTextPoolSeed,
              "bad text pool checkpoint table");
  const size_t segments = checkpoints.size();
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k = next.fetch_add(1); k < segments; k = next.fetch_add(1)) {
      const bool last = k + 1 == segments;
      SegmentEnd end =
          FillSegment(grammar, pool, checkpoints[k], last ? kSize : checkpoints[k + 1].offset);
      if (!last) {
        SHOAL_CHECK(
            end.offset == checkpoints[k + 1].offset && end.state == checkpoints[k + 1].state,
            "text pool checkpoint {} is wrong: segment ended at offset {} state {}", k + 1,
            end.offset, end.state);
      }
    }
  };
  threads = std::max(1, std::min<int>(threads, static_cast<int>(segments)));
  std::vector<std::thread> helpers;
  for (int i = 1; i < threads; ++i)
    helpers.emplace_back(work);
  work();
  for (std::thread& t : helpers)
    t.join();
  return std::shared_ptr<const TextPool>(new TextPool(std::move(buffer)));
}

}  // namespace shoal::io::tpch
