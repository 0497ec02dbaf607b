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

/// `payload` wrapped `depth` times in field `field` (each level a message holding the last), built
/// in linear time: deep-nesting seeds have hundreds of thousands of levels.
inline std::string NestField(int field, std::string_view payload, int depth,
                             std::string_view suffix_per_level = {}) {
  std::vector<std::string> headers;
  headers.reserve(static_cast<size_t>(depth));
  size_t inner = payload.size();
  for (int i = 0; i < depth; ++i) {
    headers.push_back(Varint((static_cast<uint64_t>(field) << 3) | 2) + Varint(inner));
    inner += headers.back().size() + suffix_per_level.size();
  }
  std::string out;
  out.reserve(inner);
  for (auto it = headers.rbegin(); it != headers.rend(); ++it)
    out += *it;
  out += payload;
  for (int i = 0; i < depth; ++i)
    out += suffix_per_level;
  return out;
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

/// A varint of a message: where it is, how long, and what it holds.
struct VarintAt {
  size_t offset;
  size_t length;
  enum Kind { kTag, kValue, kLength } kind;
  uint64_t value = 0;  // kLength: the length
  /// The length prefixes of the messages holding this varint, outermost first.
  std::vector<VarintAt> parents = {};
};

/// Where the varints of a message are, found by walking the wire format; length-delimited fields
/// are walked too when their bytes parse as a message.
inline void FindVarints(std::string_view b, size_t base, int depth, std::vector<VarintAt>* out,
                        const std::vector<VarintAt>& parents = {}) {
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
  std::vector<VarintAt> found;
  std::vector<std::pair<VarintAt, size_t>> nested;  // (length prefix, payload offset)
  size_t p = 0;
  while (p < b.size()) {
    const size_t tag_at = p;
    uint64_t tag;
    if (!read_varint(&p, &tag) || (tag >> 3) == 0)
      return;  // not a message
    found.push_back({tag_at, p - tag_at, VarintAt::kTag});
    switch (tag & 7) {
      case 0: {
        const size_t at = p;
        uint64_t v;
        if (!read_varint(&p, &v))
          return;
        found.push_back({at, p - at, VarintAt::kValue});
        break;
      }
      case 1: p += 8; break;
      case 5: p += 4; break;
      case 2: {
        const size_t at = p;
        uint64_t n;
        if (!read_varint(&p, &n) || n > b.size() - p)
          return;
        found.push_back({at, p - at, VarintAt::kLength, n});
        nested.emplace_back(found.back(), p);
        p += n;
        break;
      }
      default: return;
    }
    if (p > b.size())
      return;
  }
  for (const auto& f : found)
    out->push_back({base + f.offset, f.length, f.kind, f.value, parents});
  if (depth < 64) {
    for (const auto& [prefix, at] : nested) {
      std::vector<VarintAt> chain = parents;
      chain.push_back({base + prefix.offset, prefix.length, prefix.kind, prefix.value});
      FindVarints(b.substr(at, prefix.value), base + at, depth + 1, out, chain);
    }
  }
}

class ProtoMutator {
 public:
  ProtoMutator(uint64_t seed, size_t /*corpus_size*/) : rng_(seed) {}

  std::string Mutate(const std::string& original, const std::vector<std::string>& donors) {
    std::vector<VarintAt> varints;
    FindVarints(original, 0, 0, &varints);
    std::vector<VarintAt> values;
    for (const auto& v : varints) {
      if (v.kind == VarintAt::kValue)
        values.push_back(v);
    }
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
          // Mostly values (counts, enums, positions), which get past the parser; else any varint.
          const bool value = !values.empty() && rng_.Below(3) != 0;
          const VarintAt at_v =
              value ? values[rng_.Below(values.size())] : varints[rng_.Below(varints.size())];
          const size_t pos = at_v.offset;
          const size_t len = at_v.length;
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
          const std::string replacement = Varint(v);
          s.replace(pos, len, replacement);
          // The messages around it keep their framing: each length prefix grows or shrinks by
          // what changed inside it (innermost first; a prefix lies before what it frames).
          int64_t delta = static_cast<int64_t>(replacement.size()) - static_cast<int64_t>(len);
          for (auto p = at_v.parents.rbegin(); p != at_v.parents.rend() && delta != 0; ++p) {
            const std::string grown =
                Varint(static_cast<uint64_t>(static_cast<int64_t>(p->value) + delta));
            s.replace(p->offset, p->length, grown);
            delta += static_cast<int64_t>(grown.size()) - static_cast<int64_t>(p->length);
          }
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
