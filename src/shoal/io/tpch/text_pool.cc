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

namespace shoal::io::tpch {
namespace {

// The text pool checkpoints used by TextPool::Build(): the text stream's state and the byte offset
// at the first sentence starting at or after each 1/128 of the pool. Derived, not chosen: the table
// is the output of TextPool::ComputeCheckpoints(128), and the unit tests recompute it. Build()
// verifies every entry as it goes (each segment must end exactly on the next checkpoint).
constexpr TextPool::Checkpoint kTextPoolCheckpoints[] = {
    {933588178, 0},          {124841293, 2457634},    {1256473515, 4915241},
    {1554251845, 7372813},   {1925335473, 9830424},   {889082671, 12288023},
    {790165467, 14745632},   {519109154, 17203224},   {563391851, 19660810},
    {642619401, 22118472},   {42578615, 24576005},    {1507671168, 27033601},
    {2096013216, 29491204},  {744658209, 31948830},   {1528976937, 34406458},
    {408944289, 36864016},   {374858592, 39321619},   {1429884417, 41779204},
    {552258519, 44236860},   {1207162814, 46694438},  {138671338, 49152080},
    {1797833072, 51609635},  {702219315, 54067240},   {1414289313, 56524896},
    {1037153816, 58982448},  {1380244782, 61440045},  {622896512, 63897654},
    {25658153, 66355212},    {1524107, 68812820},     {2117115337, 71270482},
    {1616687150, 73728061},  {1048699795, 76185638},  {123793686, 78643223},
    {537417508, 81100836},   {542245364, 83558406},   {912394093, 86016094},
    {1628772256, 88473607},  {920316628, 90931221},   {1979616898, 93388833},
    {1971436265, 95846478},  {181171974, 98304011},   {1437118346, 100761610},
    {552637255, 103219235},  {936578397, 105676821},  {764823328, 108134421},
    {1650756071, 110592050}, {140181829, 113049609},  {2016804514, 115507249},
    {1062410537, 117964817}, {1598996749, 120422422}, {1981667635, 122880028},
    {2078433985, 125337606}, {1546339090, 127795221}, {347551905, 130252883},
    {1484425099, 132710407}, {135577848, 135168047},  {652432975, 137625648},
    {1123470118, 140083200}, {1652503875, 142540843}, {1315377103, 144998412},
    {2144846129, 147456075}, {1222208032, 149913663}, {1124866919, 152371200},
    {1867361002, 154828837}, {400078567, 157286442},  {1908070120, 159744011},
    {1747479252, 162201607}, {1985431480, 164659228}, {1027504690, 167116822},
    {154086155, 169574420},  {1471902802, 172032033}, {1853747157, 174489641},
    {46453828, 176947229},   {451587182, 179404805},  {1966949077, 181862442},
    {1398630377, 184320010}, {1724970504, 186777602}, {599091150, 189235214},
    {1172098408, 191692844}, {223555204, 194150418},  {1105413057, 196608019},
    {914117965, 199065701},  {1072621140, 201523205}, {681176995, 203980863},
    {1689164023, 206438492}, {1750444317, 208896049}, {835252608, 211353633},
    {54189000, 213811246},   {1956087994, 216268868}, {843883615, 218726415},
    {1472204591, 221184046}, {674931227, 223641612},  {1380217445, 226099227},
    {1224434694, 228556820}, {1774843136, 231014512}, {627927164, 233472046},
    {1407925218, 235929648}, {178140813, 238387223},  {1081881128, 240844852},
    {710773926, 243302408},  {75277368, 245760024},   {849324280, 248217678},
    {2081753490, 250675206}, {92148396, 253132800},   {1660456561, 255590452},
    {662420588, 258048014},  {2009700634, 260505627}, {718641518, 262963224},
    {569786304, 265420831},  {392111500, 267878401},  {709878290, 270336037},
    {478344855, 272793605},  {42055684, 275251227},   {1398451028, 277708823},
    {1856916754, 280166424}, {90835029, 282624043},   {1039810711, 285081613},
    {580215092, 287539224},  {701487689, 289996806},  {2099948951, 292454427},
    {2013011059, 294912013}, {359132764, 297369601},  {867693363, 299827223},
    {589522934, 302284854},  {788345060, 304742424},  {1678213224, 307200047},
    {653086349, 309657615},  {342347557, 312115237},
};

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
