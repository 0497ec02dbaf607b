#include "shoal/common/regex/regex_compiler.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "shoal/common/regex/unicode_internal.h"

namespace shoal::regex {
namespace {

using internal::OtherCase;

constexpr char32_t kMaxCodePoint = 0x10FFFF;
constexpr int kMaxRepetition = 255;  // PostgreSQL's DUPMAX
// Emit calls allowed beyond the instruction limit: nested repetitions of patterns that emit no
// instructions ((?:){255}) would otherwise loop for a very long time without growing.
constexpr int64_t kMaxRegexEmitCalls = int64_t{4} * kMaxRegexInstructions;

Status BadRegex(std::string_view what) {
  return Status::InvalidArgument("invalid regular expression: {}", what).WithSqlState("2201B");
}

Status Unsupported(std::string_view what) {
  return Status::NotImplemented("regular expression {} are not supported", what)
      .WithSqlState("0A000");
}

using Ranges = std::vector<std::pair<char32_t, char32_t>>;

// The named classes of bracket expressions; \d \s \w are digit, space and word.
struct RegexNamedClass {
  std::string_view name;
  Ranges ranges;
};

const std::vector<RegexNamedClass>& NamedClasses() {
  static const std::vector<RegexNamedClass>* classes = [] {
    const Ranges alpha = {{'A', 'Z'},      {'a', 'z'},       {0xAA, 0xAA},     {0xB5, 0xB5},
                          {0xBA, 0xBA},    {0xC0, 0xD6},     {0xD8, 0xF6},     {0xF8, 0x24F},
                          {0x370, 0x3FF},  {0x400, 0x52F},   {0x531, 0x587},   {0x5D0, 0x5EA},
                          {0x620, 0x64A},  {0x1E00, 0x1FFF}, {0x3041, 0x30FF}, {0x3400, 0x9FFF},
                          {0xAC00, 0xD7A3}};
    const Ranges digit = {{'0', '9'}};
    auto join = [](Ranges a, const Ranges& b) {
      a.insert(a.end(), b.begin(), b.end());
      return a;
    };
    return new std::vector<RegexNamedClass>{
        {"alpha", alpha},
        {"digit", digit},
        {"alnum", join(alpha, digit)},
        {"word", join(join(alpha, digit), {{'_', '_'}})},
        {"upper",
         {{'A', 'Z'}, {0xC0, 0xD6}, {0xD8, 0xDE}, {0x391, 0x3A1}, {0x3A3, 0x3A9}, {0x400, 0x42F}}},
        {"lower", {{'a', 'z'}, {0xDF, 0xF6}, {0xF8, 0xFF}, {0x3AC, 0x3CE}, {0x430, 0x45F}}},
        {"space",
         {{'\t', '\r'},
          {' ', ' '},
          {0x85, 0x85},
          {0xA0, 0xA0},
          {0x2000, 0x200A},
          {0x2028, 0x2029},
          {0x3000, 0x3000}}},
        {"blank", {{'\t', '\t'}, {' ', ' '}}},
        {"punct", {{0x21, 0x2F}, {0x3A, 0x40}, {0x5B, 0x60}, {0x7B, 0x7E}}},
        {"cntrl", {{0, 0x1F}, {0x7F, 0x9F}}},
        {"print", {{0x20, 0x7E}, {0xA0, kMaxCodePoint}}},
        {"graph", {{0x21, 0x7E}, {0xA1, kMaxCodePoint}}},
        {"xdigit", {{'0', '9'}, {'A', 'F'}, {'a', 'f'}}},
    };
  }();
  return *classes;
}

const Ranges* FindNamedClass(std::string_view name) {
  for (const auto& c : NamedClasses()) {
    if (c.name == name)
      return &c.ranges;
  }
  return nullptr;
}

void Normalize(Ranges* r) {
  std::sort(r->begin(), r->end());
  Ranges out;
  for (const auto& x : *r) {
    if (!out.empty() && x.first <= out.back().second + 1)
      out.back().second = std::max(out.back().second, x.second);
    else
      out.push_back(x);
  }
  *r = std::move(out);
}

Ranges Complement(Ranges r) {
  Normalize(&r);
  Ranges out;
  char32_t next = 0;
  for (const auto& x : r) {
    if (x.first > next)
      out.emplace_back(next, x.first - 1);
    next = x.second + 1;
  }
  if (next <= kMaxCodePoint)
    out.emplace_back(next, kMaxCodePoint);
  return out;
}

// Adds the other case of every member that has one.
void AddOtherCases(Ranges* r) {
  Ranges extra;
  for (const auto& fold : internal::kFoldableRanges) {
    for (const auto& x : *r) {
      const char32_t lo = std::max(x.first, fold[0]);
      const char32_t hi = std::min(x.second, fold[1]);
      for (char32_t c = lo; c <= hi && lo <= hi; ++c) {
        const char32_t o = OtherCase(c);
        if (o != c)
          extra.emplace_back(o, o);
      }
    }
  }
  r->insert(r->end(), extra.begin(), extra.end());
}

struct RegexNode {
  enum class Kind : uint8_t {
    kEmpty,
    kChar,
    kAny,
    kClass,
    kAssert,
    kConcat,
    kAlt,
    kRepeat,
    kGroup
  };
  Kind kind = Kind::kEmpty;
  char32_t ch = 0;
  RegexAssertion assertion = RegexAssertion::kBeginText;
  int32_t class_index = -1;
  int32_t min = 0, max = 0;  // kRepeat; max -1 is unbounded
  bool greedy = true;
  bool fixed_count = false;  // {m} or {m}?: no preference of its own
  int32_t group = -1;        // kGroup: capture number, -1 for (?: )
  std::vector<int32_t> children;
};

class RegexParser {
 public:
  RegexParser(std::string_view pattern, RegexFlags flags) : p_(pattern), flags_(flags) {}

  Result<RegexProgram> Run() {
    SHOAL_RETURN_IF_ERROR(ParseDirectors());
    int32_t root;
    if (literal_) {
      root = NewNode(RegexNode::Kind::kConcat);
      while (!AtEnd()) {
        const int32_t c = NewNode(RegexNode::Kind::kChar);
        nodes_[c].ch = NextChar();
        nodes_[root].children.push_back(c);
      }
    } else {
      SHOAL_ASSIGN_OR_RETURN(root, ParseAlternation(0));
      if (!AtEnd())
        return BadRegex("parentheses () not balanced");
    }
    program_.num_groups = num_groups_;
    SHOAL_RETURN_IF_ERROR(Emit(root));
    SHOAL_RETURN_IF_ERROR(Add({RegexOp::kMatch, RegexAssertion::kBeginText, 0, 0}));
    const int pref = Preference(root);
    program_.preference = pref == 1 ? RegexPreference::kShortest : RegexPreference::kLongest;
    DetectLiteral(root);
    AnalyseStart();
    return std::move(program_);
  }

 private:
  bool AtEnd() const { return pos_ >= p_.size(); }

  char Peek(size_t ahead = 0) const { return pos_ + ahead < p_.size() ? p_[pos_ + ahead] : '\0'; }

  char32_t NextChar() {
    size_t len = 1;
    const char32_t c = internal::DecodeUtf8(p_.data(), p_.size(), pos_, &len);
    pos_ += len;
    return c;
  }

  int32_t NewNode(RegexNode::Kind kind) {
    nodes_.emplace_back();
    nodes_.back().kind = kind;
    return static_cast<int32_t>(nodes_.size() - 1);
  }

  // ***= (the rest is literal), ***: (ARE, the default) and (?flags) at the start.
  Status ParseDirectors() {
    if (p_.substr(0, 4) == "***=") {
      pos_ = 4;
      literal_ = true;
      return Status::OK();
    }
    if (p_.substr(0, 4) == "***:")
      pos_ = 4;
    if (Peek() == '(' && Peek(1) == '?' && pos_ + 2 < p_.size() &&
        std::isalpha(static_cast<unsigned char>(p_[pos_ + 2]))) {
      size_t i = pos_ + 2;
      for (; i < p_.size() && p_[i] != ')'; ++i) {
        switch (p_[i]) {
          case 'i': flags_.case_insensitive = true; break;
          case 'c': flags_.case_insensitive = false; break;
          case 'n':
          case 'm': flags_.newline_sensitive = true; break;
          case 's': flags_.newline_sensitive = false; break;
          case 'q': literal_ = true; break;
          default: return BadRegex("invalid embedded option");
        }
      }
      if (i >= p_.size())
        return BadRegex("invalid embedded option");
      pos_ = i + 1;
    }
    return Status::OK();
  }

  Result<int32_t> ParseAlternation(int depth) {
    std::vector<int32_t> branches;
    SHOAL_ASSIGN_OR_RETURN(int32_t first, ParseConcat(depth));
    branches.push_back(first);
    while (Peek() == '|' && !AtEnd()) {
      ++pos_;
      SHOAL_ASSIGN_OR_RETURN(int32_t next, ParseConcat(depth));
      branches.push_back(next);
    }
    if (branches.size() == 1)
      return branches[0];
    const int32_t alt = NewNode(RegexNode::Kind::kAlt);
    nodes_[alt].children = std::move(branches);
    return alt;
  }

  bool AtQuantifier() const {
    if (AtEnd())
      return false;
    const char c = Peek();
    return c == '*' || c == '+' || c == '?' ||
           (c == '{' && std::isdigit(static_cast<unsigned char>(Peek(1))));
  }

  Result<int32_t> ParseConcat(int depth) {
    const int32_t seq = NewNode(RegexNode::Kind::kConcat);
    while (!AtEnd() && Peek() != '|' && Peek() != ')') {
      if (AtQuantifier())
        return BadRegex("quantifier operand invalid");
      SHOAL_ASSIGN_OR_RETURN(int32_t atom, ParseAtom(depth));
      if (AtQuantifier()) {
        if (nodes_[atom].kind == RegexNode::Kind::kAssert)
          return BadRegex("quantifier operand invalid");
        SHOAL_ASSIGN_OR_RETURN(atom, ParseQuantifier(atom));
        if (AtQuantifier())
          return BadRegex("quantifier operand invalid");
      }
      nodes_[seq].children.push_back(atom);
    }
    return seq;
  }

  Result<int32_t> ParseQuantifier(int32_t atom) {
    const int32_t rep = NewNode(RegexNode::Kind::kRepeat);
    RegexNode& r = nodes_[rep];
    r.children.push_back(atom);
    const char c = p_[pos_++];
    if (c == '*') {
      r.min = 0;
      r.max = -1;
    } else if (c == '+') {
      r.min = 1;
      r.max = -1;
    } else if (c == '?') {
      r.min = 0;
      r.max = 1;
    } else {
      auto number = [&]() -> int {
        int v = 0;
        while (!AtEnd() && std::isdigit(static_cast<unsigned char>(Peek()))) {
          v = std::min(v * 10 + (p_[pos_] - '0'), kMaxRepetition + 1);
          ++pos_;
        }
        return v;
      };
      r.min = number();
      r.max = r.min;
      r.fixed_count = true;
      if (Peek() == ',' && !AtEnd()) {
        ++pos_;
        r.fixed_count = false;
        r.max = std::isdigit(static_cast<unsigned char>(Peek())) ? number() : -1;
      }
      if (AtEnd() || Peek() != '}')
        return BadRegex("braces {} not balanced");
      ++pos_;
      if (r.min > kMaxRepetition || r.max > kMaxRepetition || (r.max >= 0 && r.max < r.min))
        return BadRegex("invalid repetition count(s)");
    }
    if (Peek() == '?' && !AtEnd()) {
      ++pos_;
      nodes_[rep].greedy = false;
    }
    return rep;
  }

  Result<int32_t> ParseAtom(int depth) {
    const char c = Peek();
    switch (c) {
      case '(': {
        if (depth + 1 > kMaxRegexNesting) {
          return BadRegex("regular expression is too complex")
              .WithHint(fmt::format("Parentheses may nest at most {} deep.", kMaxRegexNesting));
        }
        ++pos_;
        int32_t group = -1;
        if (Peek() == '?' && !AtEnd()) {
          const char kind = Peek(1);
          if (kind == ':') {
            pos_ += 2;
          } else if (kind == '=' || kind == '!' || kind == '<') {
            return Unsupported("lookahead and lookbehind constraints");
          } else {
            return BadRegex("quantifier operand invalid");
          }
        } else {
          group = ++num_groups_;
        }
        SHOAL_ASSIGN_OR_RETURN(int32_t inner, ParseAlternation(depth + 1));
        if (AtEnd() || Peek() != ')')
          return BadRegex("parentheses () not balanced");
        ++pos_;
        const int32_t node = NewNode(RegexNode::Kind::kGroup);
        nodes_[node].group = group;
        nodes_[node].children.push_back(inner);
        return node;
      }
      case '[': {
        ++pos_;
        return ParseBracket();
      }
      case '.': {
        ++pos_;
        return NewNode(RegexNode::Kind::kAny);
      }
      case '^':
      case '$': {
        ++pos_;
        const int32_t node = NewNode(RegexNode::Kind::kAssert);
        if (c == '^')
          nodes_[node].assertion =
              flags_.newline_sensitive ? RegexAssertion::kBeginLine : RegexAssertion::kBeginText;
        else
          nodes_[node].assertion =
              flags_.newline_sensitive ? RegexAssertion::kEndLine : RegexAssertion::kEndText;
        return node;
      }
      case '\\': {
        ++pos_;
        return ParseEscape();
      }
      default: {
        const int32_t node = NewNode(RegexNode::Kind::kChar);
        nodes_[node].ch = NextChar();
        return node;
      }
    }
  }

  int32_t ClassNode(Ranges ranges, bool negated) {
    const int32_t node = NewNode(RegexNode::Kind::kClass);
    nodes_[node].class_index = AddClass(std::move(ranges), negated);
    return node;
  }

  int32_t AddClass(Ranges ranges, bool negated) {
    if (flags_.case_insensitive)
      AddOtherCases(&ranges);
    if (negated) {
      if (flags_.newline_sensitive)
        ranges.emplace_back('\n', '\n');
      ranges = Complement(std::move(ranges));
    }
    Normalize(&ranges);
    RegexCharClass cls;
    for (const auto& r : ranges) {
      for (char32_t x = r.first; x <= r.second && x < 128; ++x)
        cls.ascii[x >> 6] |= uint64_t{1} << (x & 63);
    }
    cls.ranges = std::move(ranges);
    program_.classes.push_back(std::move(cls));
    return static_cast<int32_t>(program_.classes.size() - 1);
  }

  // \d \s \w and their complements as ranges; false for other letters.
  static bool ClassEscape(char e, Ranges* out, bool* negated) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(e)));
    const char* name = lower == 'd' ? "digit" : lower == 's' ? "space" : lower == 'w' ? "word" : "";
    if (*name == '\0')
      return false;
    *out = *FindNamedClass(name);
    *negated = lower != e;
    return true;
  }

  // A character-entry escape after the backslash (\n, \x41, \.); false if `e` is not one.
  Result<bool> CharEscape(char32_t* out) {
    const char e = Peek();
    auto hex = [&](size_t max_digits) -> Result<char32_t> {
      char32_t v = 0;
      size_t n = 0;
      while (n < max_digits && !AtEnd() && std::isxdigit(static_cast<unsigned char>(Peek()))) {
        const char d = static_cast<char>(std::tolower(static_cast<unsigned char>(p_[pos_++])));
        v = v * 16 + static_cast<char32_t>(d <= '9' ? d - '0' : d - 'a' + 10);
        if (v > kMaxCodePoint)
          return BadRegex("invalid escape \\ sequence");
        ++n;
      }
      if (n == 0 || v == 0)
        return BadRegex("invalid escape \\ sequence");
      return v;
    };
    switch (e) {
      case 'a':
        ++pos_;
        *out = 7;
        return true;
      case 'b':
        ++pos_;
        *out = 8;
        return true;
      case 'B':
        ++pos_;
        *out = '\\';
        return true;
      case 'e':
        ++pos_;
        *out = 27;
        return true;
      case 'f':
        ++pos_;
        *out = '\f';
        return true;
      case 'n':
        ++pos_;
        *out = '\n';
        return true;
      case 'r':
        ++pos_;
        *out = '\r';
        return true;
      case 't':
        ++pos_;
        *out = '\t';
        return true;
      case 'v':
        ++pos_;
        *out = '\v';
        return true;
      case 'c': {
        ++pos_;
        if (AtEnd())
          return BadRegex("invalid escape \\ sequence");
        *out = static_cast<char32_t>(p_[pos_++] & 0x1F);
        return true;
      }
      case 'x': {
        ++pos_;
        SHOAL_ASSIGN_OR_RETURN(*out, hex(8));
        return true;
      }
      case 'u': {
        ++pos_;
        SHOAL_ASSIGN_OR_RETURN(*out, hex(4));
        return true;
      }
      case 'U': {
        ++pos_;
        SHOAL_ASSIGN_OR_RETURN(*out, hex(8));
        return true;
      }
      default: break;
    }
    if (std::isdigit(static_cast<unsigned char>(e))) {
      if (e == '0')
        return BadRegex("invalid escape \\ sequence");
      return Unsupported("backreferences");
    }
    if (std::isalpha(static_cast<unsigned char>(e)))
      return false;
    *out = NextChar();
    return true;
  }

  Result<int32_t> ParseEscape() {
    if (AtEnd())
      return BadRegex("invalid escape \\ sequence");
    const char e = Peek();
    Ranges ranges;
    bool negated = false;
    if (ClassEscape(e, &ranges, &negated)) {
      ++pos_;
      return ClassNode(std::move(ranges), negated);
    }
    RegexAssertion assertion;
    bool is_assertion = true;
    switch (e) {
      case 'A': assertion = RegexAssertion::kBeginText; break;
      case 'Z': assertion = RegexAssertion::kEndText; break;
      case 'y': assertion = RegexAssertion::kWordBoundary; break;
      case 'Y': assertion = RegexAssertion::kNotWordBoundary; break;
      case 'm': assertion = RegexAssertion::kWordStart; break;
      case 'M': assertion = RegexAssertion::kWordEnd; break;
      default: is_assertion = false; break;
    }
    if (is_assertion) {
      ++pos_;
      const int32_t node = NewNode(RegexNode::Kind::kAssert);
      nodes_[node].assertion = assertion;
      return node;
    }
    char32_t c = 0;
    SHOAL_ASSIGN_OR_RETURN(bool ok, CharEscape(&c));
    if (!ok)
      return BadRegex("invalid escape \\ sequence");
    const int32_t node = NewNode(RegexNode::Kind::kChar);
    nodes_[node].ch = c;
    return node;
  }

  // One element of a bracket expression that can end a range: a character, an escape or a
  // [.c.] / [=c=]. Named classes and class escapes are handled by the caller.
  Result<char32_t> BracketChar() {
    if (Peek() == '[' && (Peek(1) == '.' || Peek(1) == '=')) {
      const char kind = Peek(1);
      pos_ += 2;
      if (AtEnd())
        return BadRegex("brackets [] not balanced");
      const char32_t c = NextChar();
      if (Peek() != kind || Peek(1) != ']')
        return BadRegex("invalid collating element");
      pos_ += 2;
      return c;
    }
    if (Peek() == '\\') {
      ++pos_;
      if (AtEnd())
        return BadRegex("brackets [] not balanced");
      char32_t c = 0;
      SHOAL_ASSIGN_OR_RETURN(bool ok, CharEscape(&c));
      if (!ok)
        return BadRegex("invalid escape \\ sequence");
      return c;
    }
    return NextChar();
  }

  Result<int32_t> ParseBracket() {
    bool negated = false;
    if (Peek() == '^' && !AtEnd()) {
      negated = true;
      ++pos_;
    }
    Ranges ranges;
    bool first = true;
    while (true) {
      if (AtEnd())
        return BadRegex("brackets [] not balanced");
      if (Peek() == ']' && !first) {
        ++pos_;
        break;
      }
      first = false;
      if (Peek() == '[' && Peek(1) == ':') {
        const size_t close = p_.find(":]", pos_ + 2);
        if (close == std::string_view::npos)
          return BadRegex("brackets [] not balanced");
        const Ranges* named = FindNamedClass(p_.substr(pos_ + 2, close - pos_ - 2));
        if (named == nullptr || p_.substr(pos_ + 2, close - pos_ - 2) == "word")
          return BadRegex("invalid character class");
        ranges.insert(ranges.end(), named->begin(), named->end());
        pos_ = close + 2;
        continue;
      }
      if (Peek() == '\\') {
        Ranges escaped;
        bool escaped_negated = false;
        if (ClassEscape(Peek(1), &escaped, &escaped_negated)) {
          pos_ += 2;
          if (escaped_negated)
            escaped = Complement(std::move(escaped));
          ranges.insert(ranges.end(), escaped.begin(), escaped.end());
          continue;
        }
      }
      SHOAL_ASSIGN_OR_RETURN(char32_t lo, BracketChar());
      char32_t hi = lo;
      if (Peek() == '-' && Peek(1) != ']' && pos_ + 1 < p_.size()) {
        ++pos_;
        SHOAL_ASSIGN_OR_RETURN(hi, BracketChar());
        if (hi < lo)
          return BadRegex("invalid character range");
      }
      ranges.emplace_back(lo, hi);
    }
    return ClassNode(std::move(ranges), negated);
  }

  // ---- code generation ----------------------------------------------------------------------

  Status Add(RegexInst inst) {
    if (static_cast<int32_t>(program_.insts.size()) >= kMaxRegexInstructions)
      return TooLarge();
    program_.insts.push_back(inst);
    return Status::OK();
  }

  static Status TooLarge() {
    return BadRegex("regular expression is too complex")
        .WithHint(fmt::format("Its program would exceed {} instructions.", kMaxRegexInstructions));
  }

  int32_t Here() const { return static_cast<int32_t>(program_.insts.size()); }

  Status Emit(int32_t id) {
    if (++emit_calls_ > kMaxRegexEmitCalls)
      return TooLarge();
    const RegexNode& n = nodes_[id];
    switch (n.kind) {
      case RegexNode::Kind::kEmpty: return Status::OK();
      case RegexNode::Kind::kChar: {
        if (flags_.case_insensitive && OtherCase(n.ch) != n.ch) {
          if (n.class_index < 0)
            nodes_[id].class_index = AddClass({{n.ch, n.ch}}, false);
          return Add({RegexOp::kClass, RegexAssertion::kBeginText, nodes_[id].class_index, 0});
        }
        return Add({RegexOp::kChar, RegexAssertion::kBeginText, static_cast<int32_t>(n.ch), 0});
      }
      case RegexNode::Kind::kAny:
        return Add({flags_.newline_sensitive ? RegexOp::kAnyNotNl : RegexOp::kAny,
                    RegexAssertion::kBeginText, 0, 0});
      case RegexNode::Kind::kClass:
        return Add({RegexOp::kClass, RegexAssertion::kBeginText, n.class_index, 0});
      case RegexNode::Kind::kAssert: return Add({RegexOp::kAssert, n.assertion, 0, 0});
      case RegexNode::Kind::kConcat: {
        for (size_t i = 0; i < nodes_[id].children.size(); ++i)
          SHOAL_RETURN_IF_ERROR(Emit(nodes_[id].children[i]));
        return Status::OK();
      }
      case RegexNode::Kind::kGroup: {
        const int32_t group = n.group;
        const int32_t child = n.children[0];
        if (group >= 0)
          SHOAL_RETURN_IF_ERROR(Add({RegexOp::kSave, RegexAssertion::kBeginText, 2 * group, 0}));
        SHOAL_RETURN_IF_ERROR(Emit(child));
        if (group >= 0)
          SHOAL_RETURN_IF_ERROR(
              Add({RegexOp::kSave, RegexAssertion::kBeginText, 2 * group + 1, 0}));
        return Status::OK();
      }
      case RegexNode::Kind::kAlt: {
        std::vector<int32_t> jumps;
        const std::vector<int32_t> children = n.children;
        for (size_t i = 0; i < children.size(); ++i) {
          int32_t split = -1;
          if (i + 1 < children.size()) {
            split = Here();
            SHOAL_RETURN_IF_ERROR(Add({RegexOp::kSplit, RegexAssertion::kBeginText, split + 1, 0}));
          }
          SHOAL_RETURN_IF_ERROR(Emit(children[i]));
          if (i + 1 < children.size()) {
            jumps.push_back(Here());
            SHOAL_RETURN_IF_ERROR(Add({RegexOp::kJump, RegexAssertion::kBeginText, 0, 0}));
            program_.insts[static_cast<size_t>(split)].y = Here();
          }
        }
        for (int32_t j : jumps)
          program_.insts[static_cast<size_t>(j)].x = Here();
        return Status::OK();
      }
      case RegexNode::Kind::kRepeat: return EmitRepeat(n);
    }
    return Status::OK();
  }

  // A split preferring `first` (greedy) or `second`.
  Status AddSplit(bool greedy, int32_t first, int32_t second) {
    return Add({RegexOp::kSplit, RegexAssertion::kBeginText, greedy ? first : second,
                greedy ? second : first});
  }

  Status EmitRepeat(const RegexNode& n) {
    const int32_t child = n.children[0];
    const int32_t min = n.min, max = n.max;
    const bool greedy = n.greedy;
    if (max == -1) {
      for (int32_t i = 0; i + 1 < min; ++i)
        SHOAL_RETURN_IF_ERROR(Emit(child));
      if (min >= 1) {
        // x+: the body, then a split back to it.
        const int32_t body = Here();
        SHOAL_RETURN_IF_ERROR(Emit(child));
        return AddSplit(greedy, body, Here() + 1);
      }
      // x*: a split into the body or past it, the body, a jump back.
      const int32_t split = Here();
      SHOAL_RETURN_IF_ERROR(AddSplit(greedy, split + 1, 0));
      SHOAL_RETURN_IF_ERROR(Emit(child));
      SHOAL_RETURN_IF_ERROR(Add({RegexOp::kJump, RegexAssertion::kBeginText, split, 0}));
      PatchSplit(split, greedy, Here());
      return Status::OK();
    }
    for (int32_t i = 0; i < min; ++i)
      SHOAL_RETURN_IF_ERROR(Emit(child));
    // x{0,k}: k nested optional copies; failing to start one skips all the rest.
    std::vector<int32_t> splits;
    for (int32_t i = min; i < max; ++i) {
      splits.push_back(Here());
      SHOAL_RETURN_IF_ERROR(AddSplit(greedy, Here() + 1, 0));
      SHOAL_RETURN_IF_ERROR(Emit(child));
    }
    for (int32_t s : splits)
      PatchSplit(s, greedy, Here());
    return Status::OK();
  }

  // Sets the non-body branch of a split made by AddSplit(greedy, body, 0).
  void PatchSplit(int32_t split, bool greedy, int32_t target) {
    RegexInst& inst = program_.insts[static_cast<size_t>(split)];
    (greedy ? inst.y : inst.x) = target;
  }

  // PostgreSQL's preference of a subexpression: -1 none, 0 longest, 1 shortest.
  int Preference(int32_t id) const {
    const RegexNode& n = nodes_[id];
    switch (n.kind) {
      case RegexNode::Kind::kGroup: return Preference(n.children[0]);
      case RegexNode::Kind::kRepeat:
        if (n.fixed_count)
          return Preference(n.children[0]);
        return n.greedy ? 0 : 1;
      case RegexNode::Kind::kConcat:
        for (int32_t c : n.children) {
          const int p = Preference(c);
          if (p >= 0)
            return p;
        }
        return -1;
      case RegexNode::Kind::kAlt: return 0;
      default: return -1;
    }
  }

  void DetectLiteral(int32_t root) {
    const RegexNode& n = nodes_[root];
    if (flags_.case_insensitive || n.kind != RegexNode::Kind::kConcat || n.children.empty())
      return;
    std::string text;
    for (int32_t c : n.children) {
      if (nodes_[c].kind != RegexNode::Kind::kChar)
        return;
      AppendUtf8(nodes_[c].ch, &text);
    }
    program_.is_literal = true;
    program_.literal = std::move(text);
  }

  static void AppendUtf8(char32_t c, std::string* out) {
    if (c < 0x80) {
      out->push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (c >> 6)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (c >> 12)));
      out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (c >> 18)));
      out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }

  // Walks the instructions a match can run before its first character: which bytes it can
  // start with, and whether every path passes \A / ^ first (an anchored pattern).
  void AnalyseStart() {
    std::vector<uint8_t> seen(program_.insts.size(), 0);
    std::vector<int32_t> stack{0};
    bool any = false;
    bool anchored = true;
    uint64_t bytes[4] = {0, 0, 0, 0};
    auto set_byte = [&](unsigned b) { bytes[b >> 6] |= uint64_t{1} << (b & 63); };
    while (!stack.empty()) {
      const int32_t pc = stack.back();
      stack.pop_back();
      if (seen[static_cast<size_t>(pc)])
        continue;
      seen[static_cast<size_t>(pc)] = 1;
      const RegexInst& inst = program_.insts[static_cast<size_t>(pc)];
      switch (inst.op) {
        case RegexOp::kSplit:
          stack.push_back(inst.y);
          stack.push_back(inst.x);
          break;
        case RegexOp::kJump: stack.push_back(inst.x); break;
        case RegexOp::kSave: stack.push_back(pc + 1); break;
        case RegexOp::kAssert:
          if (inst.assertion != RegexAssertion::kBeginText)
            stack.push_back(pc + 1);
          break;
        case RegexOp::kMatch:
        case RegexOp::kAny:
        case RegexOp::kAnyNotNl:
          any = true;
          anchored = false;
          break;
        case RegexOp::kChar: {
          anchored = false;
          std::string enc;
          AppendUtf8(static_cast<char32_t>(inst.x), &enc);
          set_byte(static_cast<unsigned char>(enc[0]));
          if (inst.x >= 0x80 && inst.x < 0x100)
            set_byte(static_cast<unsigned>(inst.x));
          break;
        }
        case RegexOp::kClass: {
          anchored = false;
          const RegexCharClass& cls = program_.classes[static_cast<size_t>(inst.x)];
          for (int i = 0; i < 2; ++i) {
            bytes[i] |= cls.ascii[i];
          }
          if (!cls.ranges.empty() && cls.ranges.back().second >= 0x80) {
            for (unsigned b = 0x80; b < 0x100; ++b)
              set_byte(b);
          }
          break;
        }
      }
    }
    // The walk stopped at \A: anchored if no path got past the start without one. (A pattern
    // whose every path is cut at \A also has no first bytes; the matcher then only tries
    // position 0.)
    program_.anchored_start = anchored;
    program_.any_first_byte = any;
    std::copy(std::begin(bytes), std::end(bytes), std::begin(program_.first_bytes));
  }

  std::string_view p_;
  RegexFlags flags_;
  size_t pos_ = 0;
  bool literal_ = false;
  int32_t num_groups_ = 0;
  int64_t emit_calls_ = 0;
  std::vector<RegexNode> nodes_;
  RegexProgram program_;
};

}  // namespace

Result<RegexProgram> RegexCompiler::Compile(std::string_view pattern, RegexFlags flags) {
  RegexParser parser(pattern, flags);
  return parser.Run();
}

}  // namespace shoal::regex
