// Text to array: one pass over the batch's strings parses PostgreSQL's array literal syntax into
// the offsets of every nesting level and one text array of the leaf elements, which is then cast
// to the element type by the ordinary cast kernel in one call (so '{1,x}'::int[] fails as
// 'x'::int does).

#include "shoal/exec/expr/array_casts.h"

#include <cstring>
#include <string>
#include <vector>

#include "shoal/columnar/builder.h"
#include "shoal/exec/array_ops.h"

namespace shoal::exec {

namespace {

bool IsArraySpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/// Parser state shared by the rows of one batch.
class ArrayTextParser {
 public:
  ArrayTextParser(int depth, std::shared_ptr<MemoryPool> pool)
      : depth_(depth),
        offsets_(static_cast<size_t>(depth)),
        counts_(static_cast<size_t>(depth), 0),
        leaves_(columnar::DataType::Utf8(), pool) {
    for (auto& o : offsets_)
      o.push_back(0);
  }

  /// Parses one literal; false when it is malformed.
  bool Parse(std::string_view text) {
    text_ = text;
    pos_ = 0;
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '[') {
      // Dimension decoration "[1:3]={...}": the bounds are not kept (arrays start at 1).
      const size_t eq = text_.find('=', pos_);
      if (eq == std::string_view::npos)
        return false;
      pos_ = eq + 1;
      SkipSpace();
    }
    if (!ParseLevel(0))
      return false;
    SkipSpace();
    return pos_ == text_.size();
  }

  /// Ends row (valid or null) at the top level.
  void EndTopRow() { offsets_[0].push_back(counts_[0]); }

  struct Mark {
    std::vector<size_t> sizes;
    std::vector<int32_t> counts;
    int64_t leaves = 0;
  };

  Mark Save() const {
    Mark m;
    for (const auto& o : offsets_)
      m.sizes.push_back(o.size());
    m.counts = counts_;
    m.leaves = leaf_count_;
    return m;
  }

  /// Forgets a failed one-dimensional row (try_cast): its leaves stay in the leaf array, inside
  /// the range of the row, which is then NULL.
  void Rollback(const Mark& m) {
    for (size_t l = 0; l < offsets_.size(); ++l)
      offsets_[l].resize(m.sizes[l]);
    counts_ = m.counts;
    counts_[static_cast<size_t>(depth_) - 1] = static_cast<int32_t>(leaf_count_);
  }

  int depth() const { return depth_; }
  const std::vector<std::vector<int32_t>>& offsets() const { return offsets_; }
  Result<ArrayPtr> FinishLeaves() { return leaves_.Finish(); }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && IsArraySpace(text_[pos_]))
      ++pos_;
  }

  bool ParseLevel(int level) {
    if (pos_ >= text_.size() || text_[pos_] != '{')
      return false;
    ++pos_;
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return Close(level);
    }
    while (true) {
      SkipSpace();
      if (level + 1 < depth_) {
        if (!ParseLevel(level + 1))
          return false;
      } else if (!ParseLeaf()) {
        return false;
      }
      SkipSpace();
      if (pos_ >= text_.size())
        return false;
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (text_[pos_] == '}') {
        ++pos_;
        return Close(level);
      }
      return false;
    }
  }

  bool Close(int level) {
    if (level > 0) {
      offsets_[static_cast<size_t>(level)].push_back(counts_[static_cast<size_t>(level)]);
      counts_[static_cast<size_t>(level) - 1] += 1;
    }
    return true;
  }

  bool ParseLeaf() {
    if (pos_ >= text_.size() || text_[pos_] == '{' || text_[pos_] == '}' || text_[pos_] == ',')
      return false;
    buffer_.clear();
    bool quoted = false;
    if (text_[pos_] == '"') {
      quoted = true;
      ++pos_;
      while (true) {
        if (pos_ >= text_.size())
          return false;
        const char c = text_[pos_++];
        if (c == '"')
          break;
        if (c == '\\') {
          if (pos_ >= text_.size())
            return false;
          buffer_ += text_[pos_++];
        } else {
          buffer_ += c;
        }
      }
    } else {
      size_t keep = 0;  // length without trailing unescaped white space
      while (pos_ < text_.size()) {
        const char c = text_[pos_];
        if (c == ',' || c == '}')
          break;
        if (c == '{' || c == '"')
          return false;
        ++pos_;
        if (c == '\\') {
          if (pos_ >= text_.size())
            return false;
          buffer_ += text_[pos_++];
          keep = buffer_.size();
        } else {
          buffer_ += c;
          if (!IsArraySpace(c))
            keep = buffer_.size();
        }
      }
      buffer_.resize(keep);
    }
    counts_[static_cast<size_t>(depth_) - 1] += 1;
    ++leaf_count_;
    if (!quoted && buffer_.size() == 4 && (buffer_[0] | 0x20) == 'n' &&
        (buffer_[1] | 0x20) == 'u' && (buffer_[2] | 0x20) == 'l' && (buffer_[3] | 0x20) == 'l')
      return leaves_.AppendNull().ok();
    return leaves_.Append(buffer_).ok();
  }

  int depth_;
  std::vector<std::vector<int32_t>> offsets_;  // per level: offsets into the next level
  std::vector<int32_t> counts_;                // per level: items of the next level so far
  columnar::BinaryBuilder leaves_;
  int64_t leaf_count_ = 0;
  std::string_view text_;
  size_t pos_ = 0;
  std::string buffer_;
};

Status Malformed(std::string_view text) {
  return Status::InvalidArgument("malformed array literal: \"{}\"", text).WithSqlState("22P02");
}

}  // namespace

Result<KernelPtr> MakeTextToArrayCast(const DataType& to, bool try_cast) {
  // Types per nesting level, outermost first, and the leaf's.
  std::vector<DataType> levels;
  DataType leaf = to;
  while (leaf.id() == TypeId::kList || leaf.id() == TypeId::kLargeList) {
    levels.push_back(leaf);
    leaf = leaf.item_field().type;
  }
  if (levels.empty() || to.id() != TypeId::kList)
    return Status::NotImplemented("cast from text to {}", to.ToString());
  SHOAL_ASSIGN_OR_RETURN(KernelPtr leaf_cast_kernel,
                         MakeCastKernel(DataType::Utf8(), leaf, try_cast));
  std::shared_ptr<Kernel> leaf_cast = std::move(leaf_cast_kernel);
  return MakeLambdaKernel([levels, leaf_cast, try_cast](const std::vector<Datum>& args,
                                                        int64_t length,
                                                        KernelContext* ctx) -> Result<Datum> {
    const Array& in = *args[0].array;
    const int64_t n = args[0].is_scalar ? 1 : length;
    const int depth = static_cast<int>(levels.size());
    ArrayTextParser parser(depth, ctx->pool);
    std::vector<uint8_t> valid(static_cast<size_t>(n), 0);
    bool any_null = false;
    for (int64_t r = 0; r < n; ++r) {
      if (in.IsValid(r)) {
        const std::string_view text = in.StringValue(r);
        auto mark = parser.Save();
        if (parser.Parse(text)) {
          valid[static_cast<size_t>(r)] = 1;
        } else if (!try_cast || depth > 1) {
          // A nested literal that fails part-way leaves inner offsets behind; try_cast over
          // multidimensional arrays reports the error too rather than mis-point them.
          return Malformed(text);
        } else {
          parser.Rollback(mark);
        }
      }
      any_null = any_null || valid[static_cast<size_t>(r)] == 0;
      parser.EndTopRow();
    }
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr leaves, parser.FinishLeaves());
    SHOAL_ASSIGN_OR_RETURN(Datum cast,
                           leaf_cast->Execute({Datum::Array(leaves)}, leaves->length(), ctx));
    ArrayPtr child = cast.array;
    if (cast.is_scalar) {
      SHOAL_ASSIGN_OR_RETURN(child, Broadcast(*child, leaves->length(), ctx->pool));
    }
    for (int l = depth - 1; l >= 0; --l) {
      const auto& o = parser.offsets()[static_cast<size_t>(l)];
      const int64_t count = static_cast<int64_t>(o.size()) - 1;
      SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets, AllocateValues<int32_t>(count + 1, ctx->pool));
      std::memcpy(offsets->mutable_data(), o.data(), sizeof(int32_t) * o.size());
      BufferPtr validity;
      if (l == 0 && any_null) {
        SHOAL_ASSIGN_OR_RETURN(validity, bits::Allocate(n, ctx->pool));
        bits::PackBytes(valid.data(), n, validity->mutable_data());
      }
      child = Array::MakeNested(levels[static_cast<size_t>(l)], count,
                                {std::move(validity), std::move(offsets)}, {std::move(child)});
    }
    return Datum{child, args[0].is_scalar};
  });
}

Result<KernelPtr> MakeArrayToArrayCast(const DataType& from, const DataType& to, bool try_cast) {
  if (from.id() != to.id() || !from.is_list_like() || from.id() == TypeId::kMap)
    return Status::NotImplemented("cast from {} to {}", from.ToString(), to.ToString());
  SHOAL_ASSIGN_OR_RETURN(KernelPtr item_kernel,
                         MakeCastKernel(from.item_field().type, to.item_field().type, try_cast));
  std::shared_ptr<Kernel> item = std::move(item_kernel);
  return MakeLambdaKernel([item, to](const std::vector<Datum>& args, int64_t,
                                     KernelContext* ctx) -> Result<Datum> {
    const Array& a = *args[0].array;
    const ArrayPtr& items = a.child(0);
    SHOAL_ASSIGN_OR_RETURN(Datum cast, item->Execute({Datum::Array(items)}, items->length(), ctx));
    ArrayPtr child = cast.array;
    if (cast.is_scalar) {
      SHOAL_ASSIGN_OR_RETURN(child, Broadcast(*child, items->length(), ctx->pool));
    }
    ArrayPtr out = Array::MakeNested(to, a.length(), a.buffers(), {std::move(child)},
                                     a.null_count(), a.offset());
    return Datum{out, args[0].is_scalar};
  });
}

}  // namespace shoal::exec
