// The value lists of TPC-H (specification clause 4.2.2.13 and dbgen's dists.dss): part colors,
// types and containers, market segments, order priorities, shipping instructions and modes,
// nations and regions, and the word lists and sentence forms of the comment text grammar.
//
// A Distribution is a weighted list. Pick() is the reference generator's way of choosing a member:
// one draw in [1, total weight], then the first member whose running weight reaches it. The draw
// is mapped through a lookup table so a pick costs one random draw and one load.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "shoal/io/tpch/random_stream.h"

namespace shoal::io::tpch {

class Distribution {
 public:
  struct Member {
    std::string_view text;
    int32_t weight;
  };

  explicit Distribution(std::span<const Member> members);

  int size() const { return static_cast<int>(members_.size()); }

  std::string_view text(int i) const { return members_[static_cast<size_t>(i)].text; }

  int64_t total_weight() const { return total_weight_; }

  /// Index of the member chosen by the next draw of `rng`.
  int Pick(RandomStream& rng) const {
    return pick_[static_cast<size_t>(rng.Uniform(1, total_weight_))];
  }

  int Pick(RowStream& stream) const { return Pick(stream.rng()); }

 private:
  std::vector<Member> members_;
  int64_t total_weight_ = 0;
  std::vector<uint16_t> pick_;  // draw in [1, total_weight_] -> member index
};

struct NationInfo {
  std::string_view name;
  int32_t region_key;
};

/// All lists, built once per process on first use (thread-safe).
struct Distributions {
  static const Distributions& Get();

  // Column values.
  Distribution colors;
  Distribution part_types;
  Distribution containers;
  Distribution segments;
  Distribution priorities;
  Distribution ship_instructs;
  Distribution ship_modes;
  Distribution return_flags;
  Distribution regions;
  std::span<const NationInfo> nations;

  // The text grammar: parts of speech and the sentence, noun phrase and verb phrase forms.
  Distribution nouns;
  Distribution verbs;
  Distribution adjectives;
  Distribution adverbs;
  Distribution prepositions;
  Distribution auxiliaries;
  Distribution terminators;
  Distribution articles;
  Distribution sentence_forms;
  Distribution noun_phrase_forms;
  Distribution verb_phrase_forms;
};

}  // namespace shoal::io::tpch
