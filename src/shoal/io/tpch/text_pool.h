// TextPool: the 300 MiB of grammar text every TPC-H comment is cut from.
//
// The reference generator writes sentences from one random stream end to end, separated by
// spaces, until the pool holds exactly 300 MiB; a comment is then a slice of it at a random offset
// with a random length. The pool is the same for every scale factor and every table.
//
// Building it sentence by sentence is inherently sequential: where a sentence starts depends on
// how many draws all earlier sentences took. To build it in parallel we use checkpoints: the
// stream state and byte offset at the start of sentences roughly every 2.3 MiB, computed once by
// ComputeCheckpoints() and kept as a constant table (in text_pool.cc). Each segment between
// two checkpoints is generated independently; on reaching its end a segment checks that it lands
// exactly on the next checkpoint's offset with its state, so a wrong table cannot go unnoticed.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "shoal/columnar/buffer.h"
#include "shoal/common/result.h"
#include "shoal/io/tpch/random_stream.h"

namespace shoal::io::tpch {

class TextPool {
 public:
  static constexpr int64_t kSize = 300 * 1024 * 1024;

  struct Checkpoint {
    int64_t state;   // the text stream's state before the sentence's first draw
    int64_t offset;  // where the sentence starts in the pool
  };

  /// Builds the pool on `threads` threads (at least 1).
  static Result<std::shared_ptr<const TextPool>> Build(int threads);

  /// The reference generator's dbg_text(): an offset draw, then a length draw in [min, max].
  /// Also starts loading the text into cache: offsets are random over 300 MiB, so reading a
  /// comment is a cache miss, and generators draw a batch of rows before formatting them.
  std::string_view Draw(RandomStream& rng, int min_length, int max_length) const {
    int64_t offset = rng.Uniform(0, kSize - max_length);
    int64_t length = rng.Uniform(min_length, max_length);
    const char* text = data_ + offset;
    const uintptr_t end = reinterpret_cast<uintptr_t>(text + length);
    for (uintptr_t line = reinterpret_cast<uintptr_t>(text) & ~uintptr_t{63}; line < end;
         line += 64)
      __builtin_prefetch(reinterpret_cast<const void*>(line));
    return {text, static_cast<size_t>(length)};
  }

  std::string_view Draw(RowStream& stream, int min_length, int max_length) const {
    return Draw(stream.rng(), min_length, max_length);
  }

  std::string_view view() const { return {data_, static_cast<size_t>(kSize)}; }

  /// Walks the whole pool sequentially and returns `count` checkpoints at the first sentence
  /// starts at or after i·kSize/count. Slow (one full sequential pass); used to derive and test
  /// the constant table.
  static std::vector<Checkpoint> ComputeCheckpoints(int count);

  /// The constant checkpoint table used by Build().
  static std::vector<Checkpoint> BuiltinCheckpoints();

 private:
  explicit TextPool(columnar::BufferPtr buffer)
      : buffer_(std::move(buffer)), data_(reinterpret_cast<const char*>(buffer_->data())) {}

  columnar::BufferPtr buffer_;
  const char* data_;
};

}  // namespace shoal::io::tpch
