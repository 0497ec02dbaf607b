// Test support for the distributed mutation tests: a mutator of protobuf wire bytes. Besides the
// byte edits every mutation test makes (bit flips, truncation, removed and duplicated ranges,
// splices from other inputs), it knows the wire format: it walks the message (and every
// length-delimited field that parses as one) to find its varints -- tags, lengths, counts,
// enum values, column positions -- and overwrites them with edge values (0, -1, INT32_MAX, huge
// lengths), so most mutants get past the parser and reach the decoder's checks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/distributed/proto/distributed.pb.h"
#include "tests/support/mutation_harness.h"

namespace shoal::distributed::fuzz {

/// The failing inputs of fixed bugs, kept in `dir` (tests/fuzz/regressions/<test>): each is read
/// unmutated before the run, and must be decoded or refused like any mutant. Sorted by name.
inline std::vector<std::pair<std::string, std::string>> ReadRegressions(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    out.emplace_back("regression " + entry.path().filename().string(), bytes.str());
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

/// Field `field` of wire type 2 (a message, bytes or a string) holding `payload`.
inline std::string WrapField(int field, std::string_view payload) {
  return Varint((static_cast<uint64_t>(field) << 3) | 2) + Varint(payload.size()) +
         std::string(payload);
}

/// The first expression of a plan tree (a filter's predicate, a projection's, a join key...).
inline proto::ExprProto* FindFirstExpr(proto::PlanNodeProto* node) {
  if (node->has_filter())
    return node->mutable_filter()->mutable_predicate();
  if (node->has_projection() && node->projection().exprs_size() > 0)
    return node->mutable_projection()->mutable_exprs(0);
  if (node->has_hash_join() && node->hash_join().left_keys_size() > 0)
    return node->mutable_hash_join()->mutable_left_keys(0);
  if (node->has_hash_aggregate() && node->hash_aggregate().aggregates_size() > 0)
    return node->mutable_hash_aggregate()->mutable_aggregates(0);
  for (auto& child : *node->mutable_children()) {
    if (auto* e = FindFirstExpr(&child))
      return e;
  }
  return nullptr;
}

/// Where the varints of a message are: (offset, length) of each, found by walking the wire
/// format; length-delimited fields are walked too when their bytes parse as a message.
inline void FindVarints(std::string_view b, size_t base, int depth,
                        std::vector<std::pair<size_t, size_t>>* out) {
  auto read_varint = [&](size_t* p, uint64_t* v) {
    *v = 0;
    for (int shift = 0; *p < b.size() && shift < 64; shift += 7) {
      const auto byte = static_cast<uint8_t>(b[(*p)++]);
      *v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0)
        return true;
    }
    return false;
  };
  std::vector<std::pair<size_t, size_t>> found;
  std::vector<std::pair<size_t, size_t>> nested;
  size_t p = 0;
  while (p < b.size()) {
    const size_t tag_at = p;
    uint64_t tag;
    if (!read_varint(&p, &tag) || (tag >> 3) == 0)
      return;  // not a message
    found.emplace_back(tag_at, p - tag_at);
    switch (tag & 7) {
      case 0: {
        const size_t at = p;
        uint64_t v;
        if (!read_varint(&p, &v))
          return;
        found.emplace_back(at, p - at);
        break;
      }
      case 1: p += 8; break;
      case 5: p += 4; break;
      case 2: {
        const size_t at = p;
        uint64_t n;
        if (!read_varint(&p, &n) || n > b.size() - p)
          return;
        found.emplace_back(at, p - at);
        nested.emplace_back(p, n);
        p += n;
        break;
      }
      default: return;
    }
    if (p > b.size())
      return;
  }
  for (const auto& f : found)
    out->emplace_back(base + f.first, f.second);
  if (depth < 64) {
    for (const auto& [at, n] : nested)
      FindVarints(b.substr(at, n), base + at, depth + 1, out);
  }
}

class ProtoMutator {
 public:
  ProtoMutator(uint64_t seed, size_t /*corpus_size*/) : rng_(seed) {}

  std::string Mutate(const std::string& original, const std::vector<std::string>& donors) {
    std::vector<std::pair<size_t, size_t>> varints;
    FindVarints(original, 0, 0, &varints);
    std::string s = original;
    const int64_t rounds = rng_.Uniform(1, 3);
    for (int64_t r = 0; r < rounds && !s.empty(); ++r) {
      const size_t at = rng_.Below(s.size());
      switch (rng_.Below(10)) {
        case 0: testing::mutate::FlipBit(&s, at, static_cast<int>(rng_.Below(8))); break;
        case 1: testing::mutate::Truncate(&s, at); break;
        case 2: testing::mutate::EraseRange(&s, at, 1 + rng_.Below(16)); break;
        case 3:
          testing::mutate::DuplicateRange(&s, rng_.Below(s.size()), at, 1 + rng_.Below(64));
          break;
        case 4: {  // a range of another plan spliced in
          const std::string& d = donors[rng_.Below(donors.size())];
          if (!d.empty()) {
            const size_t from = rng_.Below(d.size());
            s.insert(at, d.substr(from, 1 + rng_.Below(256)));
          }
          break;
        }
        default: {  // a varint (tag, length, count, enum, position) overwritten with an edge value
          if (varints.empty() || s.size() != original.size())
            break;
          const auto [pos, len] = varints[rng_.Below(varints.size())];
          static constexpr uint64_t kEdges[] = {0,
                                                1,
                                                0x7f,
                                                0x80,
                                                0xffff,
                                                0x7fffffff,
                                                0x80000000,
                                                0xffffffff,
                                                uint64_t{1} << 40,
                                                0x7fffffffffffffff,
                                                ~uint64_t{0}};
          uint64_t v = kEdges[rng_.Below(std::size(kEdges))];
          if (rng_.Below(4) == 0)
            v = rng_.Next() >> rng_.Below(64);
          s.replace(pos, len, Varint(v));
          break;
        }
      }
    }
    return s;
  }

 private:
  testing::MutationRng rng_;
};

}  // namespace shoal::distributed::fuzz
