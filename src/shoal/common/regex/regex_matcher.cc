#include "shoal/common/regex/regex_matcher.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "shoal/common/regex/unicode_internal.h"

namespace shoal::regex {
namespace {

bool IsContinuationByte(unsigned char b) {
  return (b & 0xC0) == 0x80;
}

// Whether the character before byte `pos` is a word character.
bool WordBefore(std::string_view text, size_t pos) {
  if (pos == 0)
    return false;
  size_t start = pos - 1;
  while (start > 0 && pos - start < 4 &&
         IsContinuationByte(static_cast<unsigned char>(text[start])))
    --start;
  size_t len = 1;
  const char32_t c = internal::DecodeUtf8(text.data(), text.size(), start, &len);
  if (start + len != pos)  // not a well-formed character: read the last byte alone
    return internal::IsWordChar(static_cast<unsigned char>(text[pos - 1]));
  return internal::IsWordChar(c);
}

bool WordAt(std::string_view text, size_t pos) {
  if (pos >= text.size())
    return false;
  size_t len = 1;
  return internal::IsWordChar(internal::DecodeUtf8(text.data(), text.size(), pos, &len));
}

}  // namespace

RegexMatcher::RegexMatcher(const RegexProgram* program) : program_(program) {
  const size_t n = program_->insts.size();
  for (auto& list : lists_) {
    list.pcs.resize(n);
    list.starts.resize(n);
  }
  mark_.assign(n, 0);
  stack_.reserve(3 * n + 1);
}

bool RegexMatcher::Assert(RegexAssertion a, std::string_view text, size_t pos) const {
  switch (a) {
    case RegexAssertion::kBeginText: return pos == 0;
    case RegexAssertion::kEndText: return pos == text.size();
    case RegexAssertion::kBeginLine: return pos == 0 || text[pos - 1] == '\n';
    case RegexAssertion::kEndLine: return pos == text.size() || text[pos] == '\n';
    case RegexAssertion::kWordBoundary: return WordBefore(text, pos) != WordAt(text, pos);
    case RegexAssertion::kNotWordBoundary: return WordBefore(text, pos) == WordAt(text, pos);
    case RegexAssertion::kWordStart: return !WordBefore(text, pos) && WordAt(text, pos);
    case RegexAssertion::kWordEnd: return WordBefore(text, pos) && !WordAt(text, pos);
  }
  return false;
}

void RegexMatcher::AddThread(ThreadList* list, int32_t pc0, int64_t start, const int64_t* caps,
                             std::string_view text, size_t pos) {
  const auto& insts = program_->insts;
  const bool tracking = caps != nullptr;
  if (tracking)
    current_caps_.assign(caps, caps + num_slots_);
  stack_.clear();
  stack_.push_back({pc0, 0});
  while (!stack_.empty()) {
    const StackEntry e = stack_.back();
    stack_.pop_back();
    if (e.pc < 0) {
      current_caps_[static_cast<size_t>(-e.pc - 1)] = e.value;
      continue;
    }
    const auto pc = static_cast<size_t>(e.pc);
    if (mark_[pc] == generation_)
      continue;
    mark_[pc] = generation_;
    const RegexInst& inst = insts[pc];
    switch (inst.op) {
      case RegexOp::kJump: stack_.push_back({inst.x, 0}); break;
      case RegexOp::kSplit:
        stack_.push_back({inst.y, 0});
        stack_.push_back({inst.x, 0});
        break;
      case RegexOp::kSave: {
        if (tracking && static_cast<size_t>(inst.x) < slot_of_.size()) {
          const int32_t slot = slot_of_[static_cast<size_t>(inst.x)];
          if (slot >= 0) {
            stack_.push_back({-slot - 1, current_caps_[static_cast<size_t>(slot)]});
            current_caps_[static_cast<size_t>(slot)] = static_cast<int64_t>(pos);
          }
        }
        stack_.push_back({e.pc + 1, 0});
        break;
      }
      case RegexOp::kAssert:
        if (Assert(inst.assertion, text, pos))
          stack_.push_back({e.pc + 1, 0});
        break;
      default: {
        const size_t k = list->size++;
        list->pcs[k] = e.pc;
        list->starts[k] = start;
        if (tracking) {
          std::copy(current_caps_.begin(), current_caps_.end(),
                    list->caps.begin() + static_cast<std::ptrdiff_t>(k * num_slots_));
        }
        break;
      }
    }
  }
}

bool RegexMatcher::Run(Mode mode, std::string_view text, size_t from, size_t until,
                       RegexSpan* match) {
  const RegexProgram& prog = *program_;
  const auto& insts = prog.insts;
  const bool longest = prog.preference == RegexPreference::kLongest;
  const bool groups = mode == Mode::kGroups;
  ThreadList* clist = &lists_[0];
  ThreadList* nlist = &lists_[1];
  clist->size = 0;
  int64_t best_start = -1, best_end = -1;
  auto next_generation = [this] {
    if (++generation_ == 0) {
      std::fill(mark_.begin(), mark_.end(), 0);
      generation_ = 1;
    }
  };
  auto first_byte = [&prog](unsigned char b) {
    return ((prog.first_bytes[b >> 6] >> (b & 63)) & 1) != 0 && !IsContinuationByte(b);
  };
  next_generation();
  size_t p = from;
  while (true) {
    if (groups) {
      if (p == from)
        AddThread(clist, 0, static_cast<int64_t>(p), found_caps_.data(), text, p);
    } else if (best_start < 0) {
      if (prog.anchored_start) {
        if (p == 0)
          AddThread(clist, 0, 0, nullptr, text, p);
      } else {
        if (clist->size == 0 && !prog.any_first_byte) {
          const size_t before = p;
          while (p < until && !first_byte(static_cast<unsigned char>(text[p])))
            ++p;
          if (p >= until)
            break;
          if (p != before)
            next_generation();
        }
        AddThread(clist, 0, static_cast<int64_t>(p), nullptr, text, p);
      }
    }
    const bool at_end = p >= until;
    if (clist->size == 0) {
      if (best_start >= 0 || groups || prog.anchored_start || at_end)
        break;
      size_t len = 1;
      internal::DecodeUtf8(text.data(), text.size(), p, &len);
      p += len;
      next_generation();
      continue;
    }
    size_t len = 0;
    char32_t c = 0;
    if (!at_end)
      c = internal::DecodeUtf8(text.data(), text.size(), p, &len);
    nlist->size = 0;
    next_generation();
    const int64_t* caps = nullptr;
    for (size_t i = 0; i < clist->size; ++i) {
      const int32_t pc = clist->pcs[i];
      const RegexInst& inst = insts[static_cast<size_t>(pc)];
      if (groups)
        caps = clist->caps.data() + i * static_cast<size_t>(num_slots_);
      if (inst.op == RegexOp::kMatch) {
        if (mode == Mode::kTest)
          return true;
        if (groups) {
          if (at_end) {
            std::copy(caps, caps + num_slots_, found_caps_.begin());
            return true;
          }
          continue;
        }
        const int64_t start = clist->starts[i];
        const auto end = static_cast<int64_t>(p);
        if (best_start < 0 || start < best_start) {
          best_start = start;
          best_end = end;
        } else if (start == best_start && longest && end > best_end) {
          best_end = end;
        }
        if (!longest)
          break;  // every thread after this one began here or later: it cannot do better
        continue;
      }
      if (at_end)
        continue;
      if (best_start >= 0 && !groups) {
        const int64_t start = clist->starts[i];
        if (longest ? start > best_start : start >= best_start)
          continue;
      }
      bool consumes = false;
      switch (inst.op) {
        case RegexOp::kChar: consumes = c == static_cast<char32_t>(inst.x); break;
        case RegexOp::kAny: consumes = true; break;
        case RegexOp::kAnyNotNl: consumes = c != '\n'; break;
        case RegexOp::kClass:
          consumes = prog.classes[static_cast<size_t>(inst.x)].Contains(c);
          break;
        default: break;
      }
      if (consumes)
        AddThread(nlist, pc + 1, clist->starts[i], caps, text, p + len);
    }
    if (at_end)
      break;
    std::swap(clist, nlist);
    p += len;
  }
  if (best_start < 0)
    return false;
  if (match != nullptr)
    *match = {best_start, best_end};
  return true;
}

bool RegexMatcher::Test(std::string_view text) {
  if (program_->is_literal)
    return memmem(text.data(), text.size(), program_->literal.data(), program_->literal.size()) !=
           nullptr;
  return Run(Mode::kTest, text, 0, text.size(), nullptr);
}

bool RegexMatcher::Find(std::string_view text, size_t from, RegexSpan* match) {
  if (from > text.size())
    return false;
  if (program_->is_literal) {
    const void* hit = memmem(text.data() + from, text.size() - from, program_->literal.data(),
                             program_->literal.size());
    if (hit == nullptr)
      return false;
    const auto begin = static_cast<int64_t>(static_cast<const char*>(hit) - text.data());
    *match = {begin, begin + static_cast<int64_t>(program_->literal.size())};
    return true;
  }
  return Run(Mode::kFind, text, from, text.size(), match);
}

void RegexMatcher::Groups(std::string_view text, const RegexSpan& match,
                          const std::vector<int32_t>& groups, RegexSpan* out) {
  const int32_t num_groups = program_->num_groups;
  bool any = false;
  for (size_t k = 0; k < groups.size(); ++k) {
    out[k] = groups[k] == 0 ? match : RegexSpan{};
    any = any || (groups[k] > 0 && groups[k] <= num_groups);
  }
  if (!any || !match.matched() || program_->is_literal)
    return;
  num_slots_ = static_cast<int32_t>(2 * groups.size());
  slot_of_.assign(2 * (static_cast<size_t>(num_groups) + 1), -1);
  for (size_t k = 0; k < groups.size(); ++k) {
    const int32_t g = groups[k];
    if (g > 0 && g <= num_groups) {
      const size_t slot = 2 * static_cast<size_t>(g);
      slot_of_[slot] = static_cast<int32_t>(2 * k);
      slot_of_[slot + 1] = static_cast<int32_t>(2 * k + 1);
    }
  }
  const size_t need = program_->insts.size() * static_cast<size_t>(num_slots_);
  for (auto& list : lists_) {
    if (list.caps.size() < need)
      list.caps.resize(need);
  }
  found_caps_.assign(static_cast<size_t>(num_slots_), -1);
  if (!Run(Mode::kGroups, text, static_cast<size_t>(match.begin), static_cast<size_t>(match.end),
           nullptr)) {
    slot_of_.clear();
    return;
  }
  for (size_t k = 0; k < groups.size(); ++k) {
    if (groups[k] <= 0 || groups[k] > num_groups)
      continue;
    const int64_t b = found_caps_[2 * k], e = found_caps_[2 * k + 1];
    if (b >= 0 && e >= b)
      out[k] = {b, e};
  }
  slot_of_.clear();
}

}  // namespace shoal::regex
