// RegexMatcher: runs a RegexProgram over text with PostgreSQL's match rules, in time linear in the
// text's length (times the program's size) and with no recursion.
//
// A match is found in two passes, as PostgreSQL's engine does it. The first pass (Find) runs every
// thread of the program in lock step (a Pike VM) and settles where the match is: at the leftmost
// position where any match begins, the longest one there, or the shortest when the pattern
// prefers it (RegexProgram::preference). The second pass (Groups), only when a caller wants
// subexpressions, reruns the program anchored at that span and assigns each group by the
// quantifiers' own preferences, earlier ones first (a thread priority order). Literal patterns skip
// both passes (memmem), and the first pass skips text where no match can begin.
//
// Positions are byte offsets into the UTF-8 text at character boundaries. A matcher owns scratch
// space sized by the program, allocated once and reused, so matching a row allocates nothing. Not
// thread-safe: one matcher per thread (per kernel instance); the program may be shared.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "shoal/common/regex/regex_program.h"

namespace shoal::regex {

/// A matched part of the text: byte offsets [begin, end); begin is -1 when it did not take part.
struct RegexSpan {
  int64_t begin = -1;
  int64_t end = -1;

  bool matched() const { return begin >= 0; }
};

class RegexMatcher {
 public:
  /// `program` must outlive the matcher.
  explicit RegexMatcher(const RegexProgram* program);

  /// Whether the pattern matches somewhere in `text` (stops at the first match it sees).
  bool Test(std::string_view text);

  /// The match that begins at the leftmost position at or after byte `from` (a character
  /// boundary; ^ and \A still mean the start of `text`). False when there is none.
  bool Find(std::string_view text, size_t from, RegexSpan* match);

  /// For a match Find returned, the spans of subexpressions `groups` (numbers from 1; 0 is the
  /// whole match), written to out[0..groups.size()). A group that did not take part, or whose
  /// number the pattern does not have, is unmatched.
  void Groups(std::string_view text, const RegexSpan& match, const std::vector<int32_t>& groups,
              RegexSpan* out);

  const RegexProgram& program() const { return *program_; }

 private:
  struct ThreadList {
    std::vector<int32_t> pcs;
    std::vector<int64_t> starts;  // Find: where each thread's match began
    std::vector<int64_t> caps;    // Groups: slots_ values per thread
    size_t size = 0;
  };

  enum class Mode : uint8_t { kTest, kFind, kGroups };

  bool Run(Mode mode, std::string_view text, size_t from, size_t until, RegexSpan* match);
  // Adds the thread at `pc` and everything it reaches without consuming a character, in
  // priority order, evaluating assertions at `pos`.
  void AddThread(ThreadList* list, int32_t pc, int64_t start, const int64_t* caps,
                 std::string_view text, size_t pos);
  bool Assert(RegexAssertion a, std::string_view text, size_t pos) const;

  const RegexProgram* program_;
  ThreadList lists_[2];
  std::vector<uint32_t> mark_;  // mark_[pc] == generation_: pc already on the list being built
  uint32_t generation_ = 0;
  struct StackEntry {
    int32_t pc;  // >= 0: an instruction to visit; < 0: restore slot -pc - 1 to `value`
    int64_t value;
  };
  std::vector<StackEntry> stack_;
  // Groups: which capture slots are tracked (slot_of_[program slot] = index, or -1) and the
  // working copy of the slots along the path being followed.
  std::vector<int32_t> slot_of_;
  std::vector<int64_t> current_caps_;
  int32_t num_slots_ = 0;
  RegexSpan found_;
  std::vector<int64_t> found_caps_;
};

}  // namespace shoal::regex
