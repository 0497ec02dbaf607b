// More of PostgreSQL's text functions, over UTF-8 code points where PostgreSQL counts
// characters: concat_ws, initcap, reverse, repeat, left, right, md5, ascii, chr, translate,
// octet_length, bit_length and to_hex. Errors and edge cases are PostgreSQL's (chr(0) and
// code points past U+10FFFF are refused with 54000, a repeat past 1 GB is refused).
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "shoal/common/md5.h"
#include "shoal/exec/expr/row_kernel.h"
#include "shoal/exec/expr/string_kernels_internal.h"

namespace shoal::exec {
namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace)
using internal::IsContinuation;

constexpr int64_t kMaxStringBytes = int64_t{1} << 30;  // PostgreSQL's limit on one value

/// Byte offsets of the code points of `s`, plus s.size() at the end.
void CodePointOffsets(std::string_view s, std::vector<size_t>* out) {
  out->clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (!IsContinuation(static_cast<unsigned char>(s[i])))
      out->push_back(i);
  }
  out->push_back(s.size());
}

/// The code point starting at s[i] (malformed bytes read as themselves).
uint32_t DecodeAt(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  int extra = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : 0;
  uint32_t cp = extra == 3 ? b & 0x07u : extra == 2 ? b & 0x0Fu : extra == 1 ? b & 0x1Fu : b;
  for (int k = 1; k <= extra && i + static_cast<size_t>(k) < s.size(); ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0x3Fu);
  return cp;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// concat_ws(separator, value, ...): the non-NULL values joined by the separator; NULL only when
// the separator is.
Result<KernelPtr> MakeConcatWs(const KernelSignature& sig) {
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(
      casts->Init(sig.arg_types, std::vector<DataType>(sig.arg_types.size(), DataType::Utf8())));
  return MakeLambdaKernel([casts](const std::vector<Datum>& args, int64_t length,
                                  KernelContext* ctx) -> Result<Datum> {
    const DataType type = DataType::Utf8();
    if (args[0].is_null_scalar())
      return NullScalar(type, ctx);
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
    const bool scalar = AllScalar(c);
    const int64_t n = scalar ? 1 : length;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, PropagateValidity({c[0]}, n, ctx));
    SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets, AllocateValues<int32_t>(n + 1, ctx->pool));
    int32_t* o = offsets->mutable_data_as<int32_t>();
    std::string data;
    o[0] = 0;
    const RowArgs rows(c);
    for (int64_t i = 0; i < n; ++i) {
      if (validity == nullptr || columnar::bitmap::GetBit(validity->data(), i)) {
        bool first = true;
        for (size_t k = 1; k < c.size(); ++k) {
          const int64_t at = c[k].is_scalar ? 0 : i;
          if (c[k].array->IsNull(at))
            continue;
          if (!first)
            data.append(rows.Str(0, i));
          data.append(rows.Str(k, i));
          first = false;
        }
      }
      if (data.size() > INT32_MAX)
        return Status::OutOfRange("string column exceeds 2 GiB in one batch");
      o[i + 1] = static_cast<int32_t>(data.size());
    }
    SHOAL_ASSIGN_OR_RETURN(
        BufferPtr bytes, columnar::Buffer::Allocate(static_cast<int64_t>(data.size()), ctx->pool));
    if (!data.empty())
      std::memcpy(bytes->mutable_data(), data.data(), data.size());
    return MakeResult(type, n, std::move(validity), {std::move(offsets), std::move(bytes)}, scalar);
  });
}

// The Latin-1 letters (U+00C0..U+00FE but for the two signs) change case by 0x20, as ASCII's do.
bool IsLatin1Upper(uint32_t cp) {
  return cp >= 0xC0 && cp <= 0xDE && cp != 0xD7;
}
bool IsLatin1Lower(uint32_t cp) {
  return cp >= 0xDF && cp <= 0xFE && cp != 0xF7;
}

// initcap: the first letter of each word upper case, the others lower case; a word is a run of
// letters and digits (ASCII and Latin-1 letters change case, other letters are kept).
Result<KernelPtr> MakeInitcap(const KernelSignature& sig) {
  return MakeTextRowKernel(
      sig, {DataType::Utf8()}, [](const RowArgs& a, int64_t i, std::string* out) -> Status {
        std::string_view s = a.Str(0, i);
        bool in_word = false;
        size_t k = 0;
        while (k < s.size()) {
          const auto b = static_cast<unsigned char>(s[k]);
          if (b < 0x80) {
            char c = s[k++];
            if (IsAsciiAlnum(c)) {
              if (!in_word && c >= 'a' && c <= 'z')
                c = static_cast<char>(c - 'a' + 'A');
              else if (in_word && c >= 'A' && c <= 'Z')
                c = static_cast<char>(c - 'A' + 'a');
              in_word = true;
            } else {
              in_word = false;
            }
            out->push_back(c);
            continue;
          }
          size_t end = k + 1;
          while (end < s.size() && IsContinuation(static_cast<unsigned char>(s[end])))
            ++end;
          uint32_t cp = DecodeAt(s, k);
          if (!in_word && IsLatin1Lower(cp) && cp != 0xDF)
            cp -= 0x20;
          else if (in_word && IsLatin1Upper(cp))
            cp += 0x20;
          if (cp >= 0xC0 && cp <= 0xFF)
            AppendUtf8(cp, out);
          else
            out->append(s.substr(k, end - k));
          in_word = true;  // other non-ASCII characters count as letters
          k = end;
        }
        return Status::OK();
      });
}

Result<KernelPtr> MakeReverse(const KernelSignature& sig) {
  auto offsets = std::make_shared<std::vector<size_t>>();
  return MakeTextRowKernel(
      sig, {DataType::Utf8()}, [offsets](const RowArgs& a, int64_t i, std::string* out) -> Status {
        std::string_view s = a.Str(0, i);
        CodePointOffsets(s, offsets.get());
        for (size_t k = offsets->size() - 1; k-- > 0;)
          out->append(s.substr((*offsets)[k], (*offsets)[k + 1] - (*offsets)[k]));
        return Status::OK();
      });
}

Result<KernelPtr> MakeRepeat(const KernelSignature& sig) {
  return MakeTextRowKernel(
      sig, {DataType::Utf8(), DataType::Int64()},
      [](const RowArgs& a, int64_t i, std::string* out) -> Status {
        std::string_view s = a.Str(0, i);
        const int64_t times = a.Val<int64_t>(1, i);
        if (times <= 0 || s.empty())
          return Status::OK();
        if (times > kMaxStringBytes / static_cast<int64_t>(s.size()))
          return Status::InvalidArgument("requested length too large").WithSqlState("54000");
        for (int64_t k = 0; k < times; ++k)
          out->append(s);
        return Status::OK();
      });
}

// left(s, n): the first n characters, or all but the last -n when n is negative; right(s, n) the
// other way round.
Result<KernelPtr> MakeLeftRight(const KernelSignature& sig, bool left) {
  auto offsets = std::make_shared<std::vector<size_t>>();
  return MakeTextRowKernel(
      sig, {DataType::Utf8(), DataType::Int64()},
      [offsets, left](const RowArgs& a, int64_t i, std::string* out) -> Status {
        std::string_view s = a.Str(0, i);
        CodePointOffsets(s, offsets.get());
        const auto chars = static_cast<int64_t>(offsets->size()) - 1;
        const int64_t n = a.Val<int64_t>(1, i);
        const int64_t keep = n >= 0 ? std::min(n, chars) : std::max<int64_t>(0, chars + n);
        if (left)
          out->append(s.substr(0, (*offsets)[static_cast<size_t>(keep)]));
        else
          out->append(s.substr((*offsets)[static_cast<size_t>(chars - keep)]));
        return Status::OK();
      });
}

Result<KernelPtr> MakeMd5(const KernelSignature& sig) {
  return MakeTextRowKernel(sig, {DataType::Utf8()},
                           [](const RowArgs& a, int64_t i, std::string* out) -> Status {
                             Md5 md5;
                             md5.Update(a.Str(0, i));
                             out->append(md5.HexDigest());
                             return Status::OK();
                           });
}

Result<KernelPtr> MakeAscii(const KernelSignature& sig) {
  return MakeFixedRowKernel<int32_t>(sig, {DataType::Utf8()}, DataType::Int32(),
                                     [](const RowArgs& a, int64_t i, int32_t* out) -> Status {
                                       std::string_view s = a.Str(0, i);
                                       *out = s.empty() ? 0 : static_cast<int32_t>(DecodeAt(s, 0));
                                       return Status::OK();
                                     });
}

Result<KernelPtr> MakeChr(const KernelSignature& sig) {
  return MakeTextRowKernel(
      sig, {DataType::Int64()}, [](const RowArgs& a, int64_t i, std::string* out) -> Status {
        const int64_t cp = a.Val<int64_t>(0, i);
        if (cp == 0)
          return Status::InvalidArgument("null character not permitted").WithSqlState("54000");
        if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
          return Status::InvalidArgument("requested character too large for encoding: {}", cp)
              .WithSqlState("54000");
        AppendUtf8(static_cast<uint32_t>(cp), out);
        return Status::OK();
      });
}

// translate(s, from, to): each character of `from` in s becomes the character at the same place
// in `to`, or is removed when `to` is shorter.
Result<KernelPtr> MakeTranslate(const KernelSignature& sig) {
  struct Scratch {
    std::vector<size_t> s, from, to;
  };
  auto scratch = std::make_shared<Scratch>();
  return MakeTextRowKernel(sig, {DataType::Utf8(), DataType::Utf8(), DataType::Utf8()},
                           [scratch](const RowArgs& a, int64_t i, std::string* out) -> Status {
                             std::string_view s = a.Str(0, i);
                             std::string_view from = a.Str(1, i);
                             std::string_view to = a.Str(2, i);
                             CodePointOffsets(s, &scratch->s);
                             CodePointOffsets(from, &scratch->from);
                             CodePointOffsets(to, &scratch->to);
                             auto piece = [](std::string_view text, const std::vector<size_t>& o,
                                             size_t k) {
                               return text.substr(o[k], o[k + 1] - o[k]);
                             };
                             for (size_t k = 0; k + 1 < scratch->s.size(); ++k) {
                               std::string_view ch = piece(s, scratch->s, k);
                               size_t hit = scratch->from.size();
                               for (size_t f = 0; f + 1 < scratch->from.size(); ++f) {
                                 if (piece(from, scratch->from, f) == ch) {
                                   hit = f;
                                   break;
                                 }
                               }
                               if (hit == scratch->from.size())
                                 out->append(ch);
                               else if (hit + 1 < scratch->to.size())
                                 out->append(piece(to, scratch->to, hit));
                             }
                             return Status::OK();
                           });
}

Result<KernelPtr> MakeByteLength(const KernelSignature& sig, int bits_per_byte) {
  return MakeFixedRowKernel<int32_t>(
      sig, {DataType::Utf8()}, DataType::Int32(),
      [bits_per_byte](const RowArgs& a, int64_t i, int32_t* out) -> Status {
        *out = static_cast<int32_t>(a.Str(0, i).size()) * bits_per_byte;
        return Status::OK();
      });
}

// to_hex of the two's complement of the argument's own width (to_hex(-1) is ffffffff for an
// integer, ffffffffffffffff for a bigint).
Result<KernelPtr> MakeToHex(const KernelSignature& sig) {
  const bool wide = sig.arg_types[0].id() == TypeId::kInt64;
  return MakeTextRowKernel(sig, {wide ? DataType::Int64() : DataType::Int32()},
                           [wide](const RowArgs& a, int64_t i, std::string* out) -> Status {
                             if (wide)
                               fmt::format_to(std::back_inserter(*out), "{:x}",
                                              static_cast<uint64_t>(a.Val<int64_t>(0, i)));
                             else
                               fmt::format_to(std::back_inserter(*out), "{:x}",
                                              static_cast<uint32_t>(a.Val<int32_t>(0, i)));
                             return Status::OK();
                           });
}

}  // namespace

void RegisterTextFunctionKernels(KernelRegistry* registry) {
  registry->Register("concat_ws", &MakeConcatWs);
  registry->Register("initcap", &MakeInitcap);
  registry->Register("reverse", &MakeReverse);
  registry->Register("repeat", &MakeRepeat);
  registry->Register("left", [](const KernelSignature& s) { return MakeLeftRight(s, true); });
  registry->Register("right", [](const KernelSignature& s) { return MakeLeftRight(s, false); });
  registry->Register("md5", &MakeMd5);
  registry->Register("ascii", &MakeAscii);
  registry->Register("chr", &MakeChr);
  registry->Register("translate", &MakeTranslate);
  registry->Register("octet_length", [](const KernelSignature& s) { return MakeByteLength(s, 1); });
  registry->Register("bit_length", [](const KernelSignature& s) { return MakeByteLength(s, 8); });
  registry->Register("to_hex", &MakeToHex);
}

}  // namespace shoal::exec
