// LIKE / ILIKE: literal patterns are analysed once and matched with a specialised loop for
// exact, prefix%, %suffix and %infix% shapes; other shapes use a general matcher with _ and %
// and an escape character (LIKE ... ESCAPE, a backslash by default).

#include <cstring>

#include "shoal/exec/expr/kernel_util.h"
#include "shoal/exec/expr/string_kernels_internal.h"

namespace shoal::exec {
namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace)
using internal::IsContinuation;

// A LIKE pattern decoded: tokens are literal runs, '_' (one character) or '%' (any run).
class LikePattern {
 public:
  enum class Shape : uint8_t { kExact, kPrefix, kSuffix, kContains, kGeneral, kAny };

  static Result<LikePattern> Compile(std::string_view pattern, int escape) {
    LikePattern p;
    bool pending_escape = false;
    for (char c : pattern) {
      if (pending_escape) {
        p.text_.push_back(c);
        p.kinds_.push_back(kLiteral);
        pending_escape = false;
      } else if (escape >= 0 && c == static_cast<char>(escape)) {
        pending_escape = true;
      } else if (c == '%') {
        // Consecutive % are one.
        if (p.kinds_.empty() || p.kinds_.back() != kPercent) {
          p.text_.push_back(c);
          p.kinds_.push_back(kPercent);
        }
      } else if (c == '_') {
        p.text_.push_back(c);
        p.kinds_.push_back(kUnderscore);
      } else {
        p.text_.push_back(c);
        p.kinds_.push_back(kLiteral);
      }
    }
    if (pending_escape)
      return Status::InvalidArgument("LIKE pattern must not end with escape character")
          .WithSqlState("22025");
    p.Classify();
    return p;
  }

  bool Match(std::string_view s) const {
    switch (shape_) {
      case Shape::kAny: return true;
      case Shape::kExact: return s == literal_;
      case Shape::kPrefix:
        return s.size() >= literal_.size() && s.compare(0, literal_.size(), literal_) == 0;
      case Shape::kSuffix:
        return s.size() >= literal_.size() &&
               s.compare(s.size() - literal_.size(), literal_.size(), literal_) == 0;
      case Shape::kContains:
        return literal_.empty() ||
               (s.size() >= literal_.size() &&
                memmem(s.data(), s.size(), literal_.data(), literal_.size()) != nullptr);
      case Shape::kGeneral: return MatchGeneral(s);
    }
    return false;
  }

 private:
  static constexpr uint8_t kLiteral = 0, kUnderscore = 1, kPercent = 2;

  void Classify() {
    const size_t n = kinds_.size();
    bool has_underscore = false;
    size_t percents = 0;
    for (uint8_t k : kinds_) {
      has_underscore |= k == kUnderscore;
      percents += k == kPercent;
    }
    auto literal_between = [&](size_t from, size_t to) {
      literal_ = text_.substr(from, to - from);
    };
    shape_ = Shape::kGeneral;
    if (has_underscore)
      return;
    if (percents == 0) {
      shape_ = Shape::kExact;
      literal_between(0, n);
    } else if (percents == 1 && n == 1) {
      shape_ = Shape::kAny;
    } else if (percents == 1 && kinds_.back() == kPercent) {
      shape_ = Shape::kPrefix;
      literal_between(0, n - 1);
    } else if (percents == 1 && kinds_.front() == kPercent) {
      shape_ = Shape::kSuffix;
      literal_between(1, n);
    } else if (percents == 2 && n >= 2 && kinds_.front() == kPercent && kinds_.back() == kPercent) {
      shape_ = Shape::kContains;
      literal_between(1, n - 1);
    }
  }

  // Iterative matcher with backtracking to the last %, linear in practice.
  bool MatchGeneral(std::string_view s) const {
    size_t si = 0, pi = 0;
    size_t star_p = std::string::npos, star_s = 0;
    const size_t pn = kinds_.size();
    while (si < s.size()) {
      if (pi < pn && kinds_[pi] == kPercent) {
        star_p = pi++;
        star_s = si;
        continue;
      }
      if (pi < pn && kinds_[pi] == kUnderscore) {
        ++pi;
        ++si;
        while (si < s.size() && IsContinuation(static_cast<unsigned char>(s[si])))
          ++si;
        continue;
      }
      if (pi < pn && kinds_[pi] == kLiteral && text_[pi] == s[si]) {
        ++pi;
        ++si;
        continue;
      }
      if (star_p == std::string::npos)
        return false;
      pi = star_p + 1;
      ++star_s;
      while (star_s < s.size() && IsContinuation(static_cast<unsigned char>(s[star_s])))
        ++star_s;
      si = star_s;
    }
    while (pi < pn && kinds_[pi] == kPercent)
      ++pi;
    return pi == pn;
  }

  std::string text_;
  std::vector<uint8_t> kinds_;
  Shape shape_ = Shape::kGeneral;
  std::string literal_;
};

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

Result<int> EscapeOf(const sql::Expr* expr, const std::vector<Datum>* args) {
  // Default escape is backslash, as in PostgreSQL; '' disables escaping.
  std::string_view esc = "\\";
  std::string holder;
  if (expr != nullptr && expr->args.size() >= 3 && expr->args[2]->kind == sql::ExprKind::kLiteral) {
    if (expr->args[2]->value.is_null())
      return -2;
    holder = expr->args[2]->value.string_value();
    esc = holder;
  } else if (args != nullptr && args->size() >= 3) {
    const Datum& d = (*args)[2];
    if (d.array->IsNull(0))
      return -2;
    esc = d.array->StringValue(0);
  }
  if (esc.empty())
    return -1;
  if (esc.size() != 1)
    return Status::InvalidArgument("invalid escape string")
        .WithHint("Escape string must be empty or one character.");
  return static_cast<int>(static_cast<unsigned char>(esc[0]));
}

Result<KernelPtr> MakeLike(const KernelSignature& sig, bool case_insensitive) {
  const sql::Expr* expr = sig.expr;
  std::shared_ptr<LikePattern> fixed;
  bool fixed_null = false;
  if (expr != nullptr && expr->args.size() >= 2 && expr->args[1]->kind == sql::ExprKind::kLiteral &&
      (expr->args.size() < 3 || expr->args[2]->kind == sql::ExprKind::kLiteral)) {
    SHOAL_ASSIGN_OR_RETURN(int escape, EscapeOf(expr, nullptr));
    if (expr->args[1]->value.is_null() || escape == -2) {
      fixed_null = true;
    } else {
      std::string pattern = expr->args[1]->value.string_value();
      if (case_insensitive)
        pattern = AsciiLower(pattern);
      SHOAL_ASSIGN_OR_RETURN(LikePattern p, LikePattern::Compile(pattern, escape));
      fixed = std::make_shared<LikePattern>(std::move(p));
    }
  }
  return MakeLambdaKernel(
      [fixed, fixed_null, case_insensitive](const std::vector<Datum>& args, int64_t length,
                                            KernelContext* ctx) -> Result<Datum> {
        if (fixed_null || AnyNullScalar(args))
          return NullScalar(DataType::Boolean(), ctx);
        const Datum& value = args[0];
        const bool scalar = AllScalar(args);
        const int64_t n = scalar ? 1 : length;
        std::vector<uint8_t> out(static_cast<size_t>(n));
        SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, PropagateValidity(args, n, ctx));
        std::string lowered;
        auto match = [&](const LikePattern& p, std::string_view s) {
          if (!case_insensitive)
            return p.Match(s);
          lowered.assign(s);
          for (char& c : lowered) {
            if (c >= 'A' && c <= 'Z')
              c = static_cast<char>(c - 'A' + 'a');
          }
          return p.Match(lowered);
        };
        if (fixed) {
          WithStringReader(value, [&](auto r) {
            for (int64_t i = 0; i < n; ++i)
              out[static_cast<size_t>(i)] = match(*fixed, r[i]);
          });
        } else {
          SHOAL_ASSIGN_OR_RETURN(int escape, EscapeOf(nullptr, &args));
          std::string last_pattern;
          std::optional<LikePattern> compiled;
          for (int64_t i = 0; i < n; ++i) {
            const Array& pa = *args[1].array;
            int64_t pi = args[1].is_scalar ? 0 : i;
            if (pa.IsNull(pi) || value.array->IsNull(value.is_scalar ? 0 : i))
              continue;
            std::string pattern(pa.StringValue(pi));
            if (case_insensitive)
              pattern = AsciiLower(pattern);
            if (!compiled || pattern != last_pattern) {
              SHOAL_ASSIGN_OR_RETURN(LikePattern p, LikePattern::Compile(pattern, escape));
              compiled = std::move(p);
              last_pattern = pattern;
            }
            out[static_cast<size_t>(i)] =
                match(*compiled, value.array->StringValue(value.is_scalar ? 0 : i));
          }
        }
        return BoolFromBytes(out, n, std::move(validity), scalar, ctx);
      });
}

}  // namespace

namespace internal {

void RegisterLikeKernels(KernelRegistry* registry) {
  registry->Register("like", [](const KernelSignature& s) { return MakeLike(s, false); });
  registry->Register("ilike", [](const KernelSignature& s) { return MakeLike(s, true); });
}

}  // namespace internal
}  // namespace shoal::exec
