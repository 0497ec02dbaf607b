#include <algorithm>
#include <cstring>

#include "shoal/columnar/bitmap.h"
#include "shoal/io/parquet/chunk_decoder_internal.h"
#include "shoal/io/parquet/page_checksum.h"
#include "shoal/io/parquet/page_decompressor.h"
#include "shoal/io/parquet/thrift_codec.h"

namespace shoal::io::parquet::internal {
namespace {

constexpr int64_t kMaxPageBytes = int64_t{1} << 30;

// Moves `dense` values (the first popcount(defs) slots of dst) to their row slots, back to front
// so the move is in place; null slots are zeroed.
template <int kWidth>
void ScatterFixed(const uint8_t* defs, int64_t rows, int64_t dense, uint8_t* dst) {
  int64_t j = dense;
  for (int64_t i = rows - 1; i >= 0; --i) {
    if (defs[i]) {
      --j;
      if (j != i)
        std::memcpy(dst + i * kWidth, dst + j * kWidth, kWidth);
    } else {
      std::memset(dst + i * kWidth, 0, kWidth);
    }
  }
}

// ScatterFixed for a width known only at run time.
Status ScatterByWidth(int width, const uint8_t* defs, int64_t rows, int64_t dense, uint8_t* dst) {
  switch (width) {
    case 1: ScatterFixed<1>(defs, rows, dense, dst); break;
    case 2: ScatterFixed<2>(defs, rows, dense, dst); break;
    case 4: ScatterFixed<4>(defs, rows, dense, dst); break;
    case 8: ScatterFixed<8>(defs, rows, dense, dst); break;
    case 16: ScatterFixed<16>(defs, rows, dense, dst); break;
    default: return Status::Internal("unexpected value width {}", width);
  }
  return Status::OK();
}

// Sets bits [start, start + n) of a zero-initialised bitmap, whole bytes at a time in the middle.
void SetBitRange(uint8_t* bits, int64_t start, int64_t n) {
  int64_t i = start;
  const int64_t end = start + n;
  for (; i < end && (i & 7) != 0; ++i)
    columnar::bitmap::SetBit(bits, i);
  const int64_t whole = (end - i) / 8;
  if (whole > 0) {
    std::memset(bits + i / 8, 0xFF, static_cast<size_t>(whole));
    i += whole * 8;
  }
  for (; i < end; ++i)
    columnar::bitmap::SetBit(bits, i);
}

int BitWidthOf(uint32_t max_level) {
  int bits = 0;
  while (max_level != 0) {
    ++bits;
    max_level >>= 1;
  }
  return bits;
}

}  // namespace

const char* EncodingName(Encoding::type e) {
  switch (e) {
    case Encoding::PLAIN: return "PLAIN";
    case Encoding::PLAIN_DICTIONARY: return "PLAIN_DICTIONARY";
    case Encoding::RLE: return "RLE";
    case Encoding::BIT_PACKED: return "BIT_PACKED";
    case Encoding::DELTA_BINARY_PACKED: return "DELTA_BINARY_PACKED";
    case Encoding::DELTA_LENGTH_BYTE_ARRAY: return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::DELTA_BYTE_ARRAY: return "DELTA_BYTE_ARRAY";
    case Encoding::RLE_DICTIONARY: return "RLE_DICTIONARY";
    case Encoding::BYTE_STREAM_SPLIT: return "BYTE_STREAM_SPLIT";
  }
  return "unknown encoding";
}

Status ChunkDecoder::Init(bool allocate_all) {
  if (num_rows_ < 0 || num_rows_ > INT32_MAX)
    return Status::InvalidData("{} of {} {} (Shoal reads at most 2^31-1 per group)",
                               c_.nested ? "column chunk" : "row group", num_rows_,
                               c_.nested ? "values" : "rows");
  if (c_.nested) {
    SHOAL_ASSIGN_OR_RETURN(def_levels_, Buffer::Allocate(num_rows_, pool_));
    if (c_.max_rep > 0) {
      SHOAL_ASSIGN_OR_RETURN(rep_levels_, Buffer::Allocate(num_rows_, pool_));
    }
  }
  if (c_.type.id() == TypeId::kBoolean) {
    target_ = Target::kBool;
  } else if (c_.type.is_binary_like()) {
    target_ = Target::kVar;
  } else {
    target_ = Target::kFixed;
    width_ = c_.type.byte_width();
  }
  SHOAL_ASSIGN_OR_RETURN(page_, Buffer::Allocate(0, pool_));
  SHOAL_ASSIGN_OR_RETURN(dict_page_, Buffer::Allocate(0, pool_));
  if (allocate_all)
    return BeginOutput(num_rows_);
  return Status::OK();
}

Status ChunkDecoder::TakeBuffers(ScanBuffers* buffers) {
  SHOAL_ASSIGN_OR_RETURN(page_, buffers->Take(0));
  SHOAL_ASSIGN_OR_RETURN(dict_page_, buffers->Take(0));
  return Status::OK();
}

void ChunkDecoder::GiveBuffers(ScanBuffers* buffers) {
  buffers->Give(std::move(page_));
  buffers->Give(std::move(dict_page_));
}

Status ChunkDecoder::BeginOutput(int64_t capacity) {
  rows_ = 0;
  null_count_ = 0;
  capacity_ = capacity;
  switch (target_) {
    case Target::kBool: {
      SHOAL_ASSIGN_OR_RETURN(
          values_, Buffer::AllocateZeroed(columnar::bitmap::BytesForBits(capacity), pool_));
      break;
    }
    case Target::kVar: {
      SHOAL_ASSIGN_OR_RETURN(values_, Buffer::Allocate((capacity + 1) * 4, pool_));
      values_->mutable_data_as<int32_t>()[0] = 0;
      // Sized by the first page's share of the rows (AppendViews): exactly, when one page holds
      // them all.
      SHOAL_ASSIGN_OR_RETURN(data_, Buffer::Allocate(0, pool_));
      data_size_ = 0;
      break;
    }
    case Target::kFixed: {
      SHOAL_ASSIGN_OR_RETURN(values_, Buffer::Allocate(capacity * width_, pool_));
      break;
    }
  }
  if (c_.optional) {
    SHOAL_ASSIGN_OR_RETURN(validity_,
                           Buffer::AllocateZeroed(columnar::bitmap::BytesForBits(capacity), pool_));
  }
  return Status::OK();
}

Status ChunkDecoder::Run(const uint8_t* chunk, int64_t size, int64_t file_offset) {
  if (!c_.nested) {
    Open(chunk, size, file_offset);
    return ReadRows(num_rows_);
  }
  int64_t pos = 0;
  int page = 0;
  while (levels_ < num_rows_ && pos < size) {
    const int64_t page_offset = file_offset + pos;
    Status st = DecodePage(chunk, size, &pos);
    if (!st.ok())
      return std::move(st).WithContext(fmt::format("page {} at file offset {}", page, page_offset));
    ++page;
  }
  if (levels_ != num_rows_)
    return Status::InvalidData("the column chunk holds {} values but {} {} expected", levels_,
                               num_rows_, c_.nested ? "the metadata says" : "the row group has");
  return Status::OK();
}

void ChunkDecoder::Open(const uint8_t* chunk, int64_t size, int64_t file_offset) {
  chunk_ = chunk;
  chunk_size_ = size;
  chunk_offset_ = file_offset;
  pos_ = 0;
  page_number_ = -1;
  page_left_ = 0;
}

Status ChunkDecoder::PageContext(Status st) const {
  return std::move(st).WithContext(
      fmt::format("page {} at file offset {}", page_number_, page_offset_));
}

Status ChunkDecoder::ReadRows(int64_t n) {
  if (n < 0 || rows_ + n > capacity_ || levels_ + n > num_rows_)
    return Status::Internal("reading {} rows at row {} of {} into an output of {} of {}", n,
                            levels_, num_rows_, rows_, capacity_);
  while (n > 0) {
    if (page_left_ == 0) {
      int64_t skipped = 0;
      SHOAL_RETURN_IF_ERROR(NextDataPage(0, &skipped));
    }
    const int64_t k = std::min(n, page_left_);
    Status st = DecodeRows(k);
    if (!st.ok())
      return PageContext(std::move(st));
    n -= k;
  }
  return Status::OK();
}

Status ChunkDecoder::SkipRows(int64_t n) {
  if (n < 0 || levels_ + n > num_rows_)
    return Status::Internal("skipping {} rows at row {} of {}", n, levels_, num_rows_);
  while (n > 0) {
    if (page_left_ == 0) {
      int64_t skipped = 0;
      SHOAL_RETURN_IF_ERROR(NextDataPage(n, &skipped));
      values_skipped_ += skipped;
      n -= skipped;
      if (skipped > 0)
        continue;
    }
    const int64_t k = std::min(n, page_left_);
    Status st = SkipInPage(k);
    if (!st.ok())
      return PageContext(std::move(st));
    n -= k;
  }
  return Status::OK();
}

Status ChunkDecoder::SkipInPage(int64_t n) {
  int64_t dense = n;
  if (c_.optional) {
    SHOAL_ASSIGN_OR_RETURN(dense, NextLevels(n));
  }
  SHOAL_RETURN_IF_ERROR(NextValues(dense, nullptr, &views_, true));
  page_left_ -= n;
  levels_ += n;
  values_skipped_ += n;
  return Status::OK();
}

Status ChunkDecoder::ReadSelected(int64_t n, const int32_t* selection, int64_t count) {
  if (n < 0 || count < 0 || count > n || rows_ + count > capacity_ || levels_ + n > num_rows_)
    return Status::Internal("reading {} of {} rows at row {} of {} into an output of {} of {}",
                            count, n, levels_, num_rows_, rows_, capacity_);
  int64_t base = 0;  // rows of the n passed so far
  int64_t i = 0;     // the next selected row
  while (base < n) {
    if (i == count)
      return SkipRows(n - base);
    const int64_t next = selection[i];
    if (next < base || next >= n)
      return Status::Internal("row selection not ascending below {}", n);
    if (page_left_ == 0) {
      // Pages that end before the next selected row are passed over whole.
      int64_t skipped = 0;
      SHOAL_RETURN_IF_ERROR(NextDataPage(next - base, &skipped));
      values_skipped_ += skipped;
      base += skipped;
      if (skipped > 0)
        continue;
    }
    const int64_t k = std::min(n - base, page_left_);
    int64_t j = i;
    while (j < count && selection[j] < base + k)
      ++j;
    Status st;
    if (j == i)
      st = SkipInPage(k);
    else if (j - i == k)
      st = DecodeRows(k);
    else
      st = DecodeSelected(k, selection + i, j - i, base);
    if (!st.ok())
      return PageContext(std::move(st));
    base += k;
    i = j;
  }
  return Status::OK();
}

Status ChunkDecoder::DecodeSelected(int64_t n, const int32_t* selection, int64_t count,
                                    int64_t base) {
  const bool gather =
      (source_ == Source::kPlainFixed && target_ == Target::kFixed) ||
      ((source_ == Source::kDictionary || source_ == Source::kPage) && target_ != Target::kBool);
  if (!gather) {
    // Other encodings decode values in sequence: runs of kept rows are decoded, the gaps passed
    // over.
    int64_t at = base;
    for (int64_t i = 0; i < count;) {
      const int64_t start = selection[i];
      int64_t end = start + 1;
      for (++i; i < count && selection[i] == end; ++i)
        ++end;
      if (start > at)
        SHOAL_RETURN_IF_ERROR(SkipInPage(start - at));
      SHOAL_RETURN_IF_ERROR(DecodeRows(end - start));
      at = end;
    }
    if (base + n > at)
      SHOAL_RETURN_IF_ERROR(SkipInPage(base + n - at));
    return Status::OK();
  }
  // The values of the kept rows are picked out of the page by their position among the page's
  // present values (a prefix count of the definition levels).
  int64_t dense = n;
  const uint8_t* defs = nullptr;
  if (c_.optional) {
    SHOAL_ASSIGN_OR_RETURN(dense, NextLevels(n));
    defs = defs_.data();
  }
  // picks[m]: the dense position of the m-th kept present value; sdefs: the kept rows' levels.
  if (static_cast<int64_t>(ints32_.size()) < count)
    ints32_.resize(static_cast<size_t>(count));
  int32_t* picks = ints32_.data();
  selected_defs_.resize(static_cast<size_t>(count));
  uint8_t* sdefs = selected_defs_.data();
  int64_t present = 0;
  if (defs == nullptr) {
    for (int64_t i = 0; i < count; ++i)
      picks[i] = static_cast<int32_t>(selection[i] - base);
    present = count;
  } else {
    int64_t row = 0;
    int32_t d = 0;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t r = selection[i] - base;
      for (; row < r; ++row)
        d += defs[row];
      sdefs[i] = defs[r];
      if (defs[r])
        picks[present++] = d;
    }
  }
  if (source_ == Source::kPlainFixed) {
    SHOAL_RETURN_IF_ERROR(
        GatherPlainFixed(picks, present, dense, values_->mutable_data() + rows_ * width_));
  } else if (source_ == Source::kPage) {
    uint8_t* dst = target_ == Target::kFixed ? values_->mutable_data() + rows_ * width_ : nullptr;
    SHOAL_RETURN_IF_ERROR(GatherPage(picks, present, dense, dst));
  } else {
    if (dense > 0) {
      if (index_width_ < 0)
        return Status::InvalidData("dictionary page data is empty");
      indices_.resize(static_cast<size_t>(dense));
      SHOAL_RETURN_IF_ERROR(values_rle_.Decode(indices_.data(), dense));
      for (int64_t m = 0; m < present; ++m)  // in place: picks ascend and picks[m] >= m
        indices_[static_cast<size_t>(m)] = indices_[static_cast<size_t>(picks[m])];
    }
    uint8_t* dst = target_ == Target::kFixed ? values_->mutable_data() + rows_ * width_ : nullptr;
    if (present > 0)
      SHOAL_RETURN_IF_ERROR(GatherDictionary(present, dst, &views_));
    else
      views_.clear();
  }
  if (target_ == Target::kFixed && present != count) {
    uint8_t* dst = values_->mutable_data() + rows_ * width_;
    SHOAL_RETURN_IF_ERROR(ScatterByWidth(width_, sdefs, count, present, dst));
  }
  if (target_ == Target::kVar)
    SHOAL_RETURN_IF_ERROR(AppendViews(defs == nullptr ? nullptr : sdefs, count));
  if (c_.optional)
    AppendValidity(sdefs, count, present);
  rows_ += count;
  levels_ += n;
  page_left_ -= n;
  values_decoded_ += count;
  values_skipped_ += n - count;
  return Status::OK();
}

Status ChunkDecoder::NextDataPage(int64_t skip_up_to, int64_t* skipped) {
  *skipped = 0;
  for (;;) {
    if (pos_ >= chunk_size_)
      return Status::InvalidData(
          "the column chunk holds {} values but {} the row group has expected", levels_, num_rows_);
    ++page_number_;
    page_offset_ = chunk_offset_ + pos_;
    format::PageHeader h;
    const uint8_t* src = nullptr;
    Status st = ReadPageHeader(chunk_, chunk_size_, &pos_, &h, &src);
    if (st.ok() && skip_up_to > 0 &&
        (h.type == PageType::DATA_PAGE || h.type == PageType::DATA_PAGE_V2)) {
      // A page of rows all passed over is not decompressed or decoded (nor its checksum checked:
      // its bytes are not used).
      const bool v1 = h.type == PageType::DATA_PAGE;
      if (v1 ? h.__isset.data_page_header : h.__isset.data_page_header_v2) {
        const int64_t n = v1 ? h.data_page_header.num_values : h.data_page_header_v2.num_values;
        if (n >= 0 && n <= skip_up_to) {
          st = CheckValueCount(n);
          if (!st.ok())
            return PageContext(std::move(st));
          levels_ += n;
          *skipped = n;
          if (n > 0)
            return Status::OK();
          continue;
        }
      }
    }
    if (st.ok())
      st = CheckCrc(h, src);
    if (st.ok()) {
      switch (h.type) {
        case PageType::DICTIONARY_PAGE: st = DictionaryPage(h, src); break;
        case PageType::DATA_PAGE:
        case PageType::DATA_PAGE_V2: st = StartDataPage(h, src); break;
        default: break;  // index pages and unknown page types carry no values
      }
    }
    if (!st.ok())
      return PageContext(std::move(st));
    if (page_left_ > 0)
      return Status::OK();
  }
}

Status ChunkDecoder::StartDataPage(const format::PageHeader& h, const uint8_t* src) {
  const uint8_t* data = nullptr;
  int64_t size = 0;
  int64_t n = 0;
  levels_bits_ = nullptr;
  if (h.type == PageType::DATA_PAGE) {
    if (!h.__isset.data_page_header)
      return Status::InvalidData("data page without a data page header");
    const auto& dp = h.data_page_header;
    SHOAL_RETURN_IF_ERROR(CheckValueCount(dp.num_values));
    SHOAL_RETURN_IF_ERROR(
        Body(src, h.compressed_page_size, h.uncompressed_page_size, true, page_, &data, &size));
    n = dp.num_values;
    if (c_.optional) {
      if (dp.definition_level_encoding == Encoding::RLE) {
        if (size < 4)
          return Status::InvalidData("definition levels cut off");
        uint32_t len;
        std::memcpy(&len, data, 4);
        if (len > static_cast<uint64_t>(size - 4))
          return Status::InvalidData("definition levels claim {} bytes, the page has {}", len,
                                     size - 4);
        levels_rle_ = RleBitPackedDecoder(data + 4, len, 1);
        data += 4 + len;
        size -= 4 + static_cast<int64_t>(len);
      } else if (dp.definition_level_encoding == Encoding::BIT_PACKED) {
        // Deprecated: most significant bit first, no length prefix.
        const int64_t bytes = (n + 7) / 8;
        if (bytes > size)
          return Status::InvalidData("BIT_PACKED definition levels cut off");
        levels_bits_ = data;
        levels_bit_ = 0;
        data += bytes;
        size -= bytes;
      } else {
        return Status::InvalidData("definition levels encoded as {}",
                                   EncodingName(dp.definition_level_encoding));
      }
    }
    SHOAL_RETURN_IF_ERROR(StartValues(dp.encoding, data, size, n));
  } else {
    if (!h.__isset.data_page_header_v2)
      return Status::InvalidData("data page v2 without its header");
    const auto& dp = h.data_page_header_v2;
    SHOAL_RETURN_IF_ERROR(CheckValueCount(dp.num_values));
    const int64_t rep_len = dp.repetition_levels_byte_length;
    const int64_t def_len = dp.definition_levels_byte_length;
    if (rep_len < 0 || def_len < 0 || rep_len + def_len > h.compressed_page_size ||
        rep_len + def_len > h.uncompressed_page_size)
      return Status::InvalidData("level lengths {} and {} do not fit the page", rep_len, def_len);
    n = dp.num_values;
    if (c_.optional)
      levels_rle_ = RleBitPackedDecoder(src + rep_len, static_cast<size_t>(def_len), 1);
    SHOAL_RETURN_IF_ERROR(Body(src + rep_len + def_len, h.compressed_page_size - rep_len - def_len,
                               h.uncompressed_page_size - rep_len - def_len, dp.is_compressed,
                               page_, &data, &size));
    SHOAL_RETURN_IF_ERROR(StartValues(dp.encoding, data, size, n));
  }
  page_left_ = n;
  return Status::OK();
}

Result<int64_t> ChunkDecoder::NextLevels(int64_t n) {
  if (static_cast<int64_t>(defs_.size()) < n)
    defs_.resize(static_cast<size_t>(n));
  uint8_t* defs = defs_.data();
  if (levels_bits_ != nullptr) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t b = levels_bit_ + i;
      defs[i] = (levels_bits_[b / 8] >> (7 - b % 8)) & 1;
    }
    levels_bit_ += n;
  } else {
    SHOAL_RETURN_IF_ERROR(levels_rle_.Decode(defs, n));
  }
  int64_t dense = 0;
  for (int64_t i = 0; i < n; ++i)
    dense += defs[i];
  return dense;
}

void ChunkDecoder::AppendBools(const uint8_t* defs, int64_t n, int64_t dense) {
  if (dense != n)
    ScatterFixed<1>(defs, n, dense, bools_.data());
  uint8_t* bits = values_->mutable_data();
  for (int64_t i = 0; i < n; ++i)
    if (bools_[static_cast<size_t>(i)])
      columnar::bitmap::SetBit(bits, rows_ + i);
}

void ChunkDecoder::AppendValidity(const uint8_t* defs, int64_t n, int64_t dense) {
  uint8_t* valid = validity_->mutable_data();
  if (dense == n) {
    SetBitRange(valid, rows_, n);  // the common case: a nullable column without nulls
  } else {
    for (int64_t i = 0; i < n; ++i)
      if (defs[i])
        columnar::bitmap::SetBit(valid, rows_ + i);
  }
  null_count_ += n - dense;
}

Status ChunkDecoder::DecodeRows(int64_t n) {
  int64_t dense = n;
  const uint8_t* defs = nullptr;
  if (c_.optional) {
    SHOAL_ASSIGN_OR_RETURN(dense, NextLevels(n));
    defs = defs_.data();
  }
  switch (target_) {
    case Target::kFixed: {
      uint8_t* dst = values_->mutable_data() + rows_ * width_;
      SHOAL_RETURN_IF_ERROR(NextValues(dense, dst, &views_, false));
      if (dense != n)
        SHOAL_RETURN_IF_ERROR(ScatterByWidth(width_, defs, n, dense, dst));
      break;
    }
    case Target::kBool: {
      bools_.resize(static_cast<size_t>(std::max<int64_t>(n, 1)));
      SHOAL_RETURN_IF_ERROR(NextValues(dense, bools_.data(), &views_, false));
      AppendBools(defs, n, dense);
      break;
    }
    case Target::kVar: {
      SHOAL_RETURN_IF_ERROR(NextValues(dense, nullptr, &views_, false));
      // Dictionary values were checked once; a page of ASCII bytes needs no check.
      if (!page_ascii_ && source_ != Source::kDictionary)
        SHOAL_RETURN_IF_ERROR(CheckUtf8Views(views_, "value"));
      SHOAL_RETURN_IF_ERROR(AppendViews(defs, n));
      break;
    }
  }
  if (c_.optional)
    AppendValidity(defs, n, dense);
  rows_ += n;
  levels_ += n;
  page_left_ -= n;
  values_decoded_ += n;
  return Status::OK();
}

Result<ArrayPtr> ChunkDecoder::Finish() {
  BufferPtr validity = null_count_ > 0 ? validity_ : nullptr;
  ArrayPtr array;
  if (target_ == Target::kVar) {
    SHOAL_RETURN_IF_ERROR(data_->Resize(data_size_));
    array = columnar::Array::Make(c_.type, rows_, {validity, values_, data_}, null_count_);
    // Offsets are built here and monotonic by construction; UTF-8 was checked per page (and
    // once per dictionary entry), so no Validate pass over the whole array is needed.
  } else {
    array = columnar::Array::Make(c_.type, rows_, {validity, values_}, null_count_);
  }
  return array;
}

Status ChunkDecoder::Body(const uint8_t* src, int64_t src_size, int64_t raw_size, bool compressed,
                          const BufferPtr& out, const uint8_t** data, int64_t* size) {
  if (!compressed || codec_ == CompressionCodec::UNCOMPRESSED) {
    *data = src;
    *size = src_size;
    return Status::OK();
  }
  if (raw_size < 0 || raw_size > kMaxPageBytes)
    return Status::InvalidData("uncompressed page size {} is out of range", raw_size);
  SHOAL_RETURN_IF_ERROR(out->Resize(raw_size + static_cast<int64_t>(kDecodePadding)));
  std::memset(out->mutable_data() + raw_size, 0, kDecodePadding);
  SHOAL_RETURN_IF_ERROR(DecompressPage(codec_, src, static_cast<size_t>(src_size),
                                       out->mutable_data(), static_cast<size_t>(raw_size)));
  *data = out->data();
  *size = raw_size;
  return Status::OK();
}

Status ChunkDecoder::ReadPageHeader(const uint8_t* chunk, int64_t size, int64_t* pos,
                                    format::PageHeader* h, const uint8_t** src) {
  SHOAL_ASSIGN_OR_RETURN(size_t header_bytes,
                         DeserializeThrift(chunk + *pos, static_cast<size_t>(size - *pos), h));
  SHOAL_RETURN_IF_ERROR(CheckEnumRanges(*h));
  const int64_t body = *pos + static_cast<int64_t>(header_bytes);
  if (h->compressed_page_size < 0 || h->compressed_page_size > size - body)
    return Status::InvalidData("the page claims {} bytes but only {} remain in the column chunk",
                               h->compressed_page_size, size - body);
  if (h->uncompressed_page_size < 0)
    return Status::InvalidData("negative uncompressed page size {}", h->uncompressed_page_size);
  *pos = body + h->compressed_page_size;
  *src = chunk + body;
  return Status::OK();
}

Status ChunkDecoder::CheckCrc(const format::PageHeader& h, const uint8_t* src) {
  if (h.__isset.crc) {
    // Of the page bytes as stored, when the writer recorded one (page_checksum.h).
    const uint32_t crc = PageChecksum(src, static_cast<size_t>(h.compressed_page_size));
    if (crc != static_cast<uint32_t>(h.crc))
      return Status::InvalidData(
          "page checksum mismatch (the header says CRC {:08x}, the {} bytes give {:08x}): the page "
          "is corrupted",
          static_cast<uint32_t>(h.crc), h.compressed_page_size, crc);
  }
  return Status::OK();
}

Status ChunkDecoder::DecodePage(const uint8_t* chunk, int64_t size, int64_t* pos) {
  format::PageHeader h;
  const uint8_t* src = nullptr;
  SHOAL_RETURN_IF_ERROR(ReadPageHeader(chunk, size, pos, &h, &src));
  SHOAL_RETURN_IF_ERROR(CheckCrc(h, src));
  switch (h.type) {
    case PageType::DICTIONARY_PAGE: return DictionaryPage(h, src);
    case PageType::DATA_PAGE: return DataPageV1(h, src);
    case PageType::DATA_PAGE_V2: return DataPageV2(h, src);
    default: return Status::OK();  // index pages and unknown page types carry no values
  }
}

Status ChunkDecoder::DictionaryPage(const format::PageHeader& h, const uint8_t* src) {
  if (!h.__isset.dictionary_page_header)
    return Status::InvalidData("dictionary page without a dictionary page header");
  if (have_dictionary_)
    return Status::InvalidData("a second dictionary page in the column chunk");
  const auto& d = h.dictionary_page_header;
  if (d.encoding != Encoding::PLAIN && d.encoding != Encoding::PLAIN_DICTIONARY)
    return Status::NotImplemented("dictionary page encoding {}", EncodingName(d.encoding));
  if (d.num_values < 0)
    return Status::InvalidData("dictionary of {} values", d.num_values);
  const uint8_t* data = nullptr;
  int64_t size = 0;
  SHOAL_RETURN_IF_ERROR(
      Body(src, h.compressed_page_size, h.uncompressed_page_size, true, dict_page_, &data, &size));
  dict_size_ = d.num_values;
  if (target_ == Target::kVar) {
    SHOAL_RETURN_IF_ERROR(
        DecodeValues(Encoding::PLAIN, data, size, dict_size_, nullptr, &dict_views_));
  } else {
    const int w = target_ == Target::kBool ? 1 : width_;
    dict_fixed_.assign(static_cast<size_t>(dict_size_) * static_cast<size_t>(w), 0);
    SHOAL_RETURN_IF_ERROR(
        DecodeValues(Encoding::PLAIN, data, size, dict_size_, dict_fixed_.data(), &views_));
  }
  if (target_ == Target::kVar)
    SHOAL_RETURN_IF_ERROR(CheckUtf8(dict_views_, data, size, "dictionary"));
  have_dictionary_ = true;
  return Status::OK();
}

Status ChunkDecoder::CheckValueCount(int64_t num_values) {
  if (num_values < 0 || num_values > num_rows_ - levels_)
    return Status::InvalidData("the page holds {} values but only {} of the column chunk remain",
                               num_values, num_rows_ - levels_);
  return Status::OK();
}

Status ChunkDecoder::NestedLevels(const uint8_t* rep, int64_t rep_size, const uint8_t* def,
                                  int64_t def_size, int64_t n, int64_t* slots) {
  uint8_t* defs = def_levels_->mutable_data() + levels_;
  if (c_.max_def > 0) {
    RleBitPackedDecoder decoder(def, static_cast<size_t>(def_size),
                                BitWidthOf(static_cast<uint32_t>(c_.max_def)));
    SHOAL_RETURN_IF_ERROR(decoder.Decode(defs, n));
  } else {
    std::memset(defs, 0, static_cast<size_t>(n));
  }
  if (c_.max_rep > 0) {
    uint8_t* reps = rep_levels_->mutable_data() + levels_;
    RleBitPackedDecoder decoder(rep, static_cast<size_t>(rep_size),
                                BitWidthOf(static_cast<uint32_t>(c_.max_rep)));
    SHOAL_RETURN_IF_ERROR(decoder.Decode(reps, n));
    uint8_t high = 0;
    for (int64_t i = 0; i < n; ++i)
      high = std::max(high, reps[i]);
    if (high > c_.max_rep)
      return Status::InvalidData("repetition level {} above the column's maximum {}", high,
                                 c_.max_rep);
  }
  defs_.resize(static_cast<size_t>(n));
  const auto max_def = static_cast<uint8_t>(c_.max_def);
  const auto slot_def = static_cast<uint8_t>(c_.slot_def);
  uint8_t high = 0;
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t d = defs[i];
    high = std::max(high, d);
    defs_[static_cast<size_t>(k)] = d == max_def ? 1 : 0;
    k += d >= slot_def ? 1 : 0;
  }
  if (high > max_def)
    return Status::InvalidData("definition level {} above the column's maximum {}", high,
                               c_.max_def);
  *slots = k;
  return Status::OK();
}

Status ChunkDecoder::DataPageV1(const format::PageHeader& h, const uint8_t* src) {
  if (!h.__isset.data_page_header)
    return Status::InvalidData("data page without a data page header");
  const auto& dp = h.data_page_header;
  SHOAL_RETURN_IF_ERROR(CheckValueCount(dp.num_values));
  const uint8_t* data = nullptr;
  int64_t size = 0;
  SHOAL_RETURN_IF_ERROR(
      Body(src, h.compressed_page_size, h.uncompressed_page_size, true, page_, &data, &size));
  const int64_t n = dp.num_values;
  if (c_.nested) {
    // Repetition then definition levels, each RLE with a 4-byte length prefix.
    const uint8_t* level_data[2] = {nullptr, nullptr};
    int64_t level_size[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      if ((k == 0 ? c_.max_rep : c_.max_def) == 0)
        continue;
      const Encoding::type encoding =
          k == 0 ? dp.repetition_level_encoding : dp.definition_level_encoding;
      if (encoding != Encoding::RLE)
        return Status::NotImplemented("{} levels of a nested column encoded as {}",
                                      k == 0 ? "repetition" : "definition", EncodingName(encoding));
      if (size < 4)
        return Status::InvalidData("levels cut off");
      uint32_t len;
      std::memcpy(&len, data, 4);
      if (len > static_cast<uint64_t>(size - 4))
        return Status::InvalidData("levels claim {} bytes, the page has {}", len, size - 4);
      level_data[k] = data + 4;
      level_size[k] = len;
      data += 4 + len;
      size -= 4 + static_cast<int64_t>(len);
    }
    int64_t slots = 0;
    SHOAL_RETURN_IF_ERROR(
        NestedLevels(level_data[0], level_size[0], level_data[1], level_size[1], n, &slots));
    levels_ += n;
    return Values(dp.encoding, data, size, slots);
  }
  return Status::Internal("whole-page decoding of a flat column");
}

Status ChunkDecoder::DataPageV2(const format::PageHeader& h, const uint8_t* src) {
  if (!h.__isset.data_page_header_v2)
    return Status::InvalidData("data page v2 without its header");
  const auto& dp = h.data_page_header_v2;
  SHOAL_RETURN_IF_ERROR(CheckValueCount(dp.num_values));
  const int64_t rep_len = dp.repetition_levels_byte_length;
  const int64_t def_len = dp.definition_levels_byte_length;
  if (rep_len < 0 || def_len < 0 || rep_len + def_len > h.compressed_page_size ||
      rep_len + def_len > h.uncompressed_page_size)
    return Status::InvalidData("level lengths {} and {} do not fit the page", rep_len, def_len);
  const int64_t n = dp.num_values;
  int64_t slots = n;
  if (!c_.nested)
    return Status::Internal("whole-page decoding of a flat column");
  SHOAL_RETURN_IF_ERROR(NestedLevels(src, rep_len, src + rep_len, def_len, n, &slots));
  const uint8_t* data = nullptr;
  int64_t size = 0;
  SHOAL_RETURN_IF_ERROR(Body(src + rep_len + def_len, h.compressed_page_size - rep_len - def_len,
                             h.uncompressed_page_size - rep_len - def_len, dp.is_compressed, page_,
                             &data, &size));
  levels_ += n;
  return Values(dp.encoding, data, size, slots);
}

Status ChunkDecoder::Values(Encoding::type encoding, const uint8_t* data, int64_t size, int64_t n) {
  int64_t dense = n;
  if (c_.optional) {
    dense = 0;
    for (int64_t i = 0; i < n; ++i)
      dense += defs_[static_cast<size_t>(i)];
  }
  const uint8_t* defs = c_.optional ? defs_.data() : nullptr;
  switch (target_) {
    case Target::kFixed: {
      uint8_t* dst = values_->mutable_data() + rows_ * width_;
      SHOAL_RETURN_IF_ERROR(DecodeValues(encoding, data, size, dense, dst, &views_));
      if (dense != n)
        SHOAL_RETURN_IF_ERROR(ScatterByWidth(width_, defs, n, dense, dst));
      break;
    }
    case Target::kBool: {
      bools_.resize(static_cast<size_t>(std::max<int64_t>(n, 1)));
      SHOAL_RETURN_IF_ERROR(DecodeValues(encoding, data, size, dense, bools_.data(), &views_));
      AppendBools(defs, n, dense);
      break;
    }
    case Target::kVar: {
      SHOAL_RETURN_IF_ERROR(DecodeValues(encoding, data, size, dense, nullptr, &views_));
      // Dictionary pages hold values already checked.
      if (encoding != Encoding::PLAIN_DICTIONARY && encoding != Encoding::RLE_DICTIONARY)
        SHOAL_RETURN_IF_ERROR(CheckUtf8(views_, data, size, "value"));
      SHOAL_RETURN_IF_ERROR(AppendViews(defs, n));
      break;
    }
  }
  if (c_.optional)
    AppendValidity(defs, n, dense);
  rows_ += n;
  if (!c_.nested)
    levels_ = rows_;
  return Status::OK();
}

bool ChunkDecoder::AllAscii(const uint8_t* page, int64_t page_size) {
  uint64_t high = 0;
  int64_t i = 0;
  for (; i + 8 <= page_size; i += 8) {
    uint64_t w;
    std::memcpy(&w, page + i, 8);
    high |= w;
  }
  for (; i < page_size; ++i)
    high |= page[i];
  return (high & 0x8080808080808080ULL) == 0;
}

Status ChunkDecoder::CheckUtf8Views(const std::vector<ByteView>& views, const char* what) const {
  if (c_.type.id() != TypeId::kUtf8)
    return Status::OK();
  for (size_t i = 0; i < views.size(); ++i) {
    if (!columnar::IsValidUtf8(reinterpret_cast<const uint8_t*>(views[i].data()),
                               static_cast<int64_t>(views[i].size())))
      return Status::InvalidData("{} {} of a string column is not valid UTF-8", what, i);
  }
  return Status::OK();
}

Status ChunkDecoder::CheckUtf8(const std::vector<ByteView>& views, const uint8_t* page,
                               int64_t page_size, const char* what) const {
  if (c_.type.id() != TypeId::kUtf8 || AllAscii(page, page_size))
    return Status::OK();
  return CheckUtf8Views(views, what);
}

Status ChunkDecoder::AppendViews(const uint8_t* defs, int64_t n) {
  uint64_t total = 0;
  for (const ByteView& v : views_)
    total += v.size();
  if (static_cast<uint64_t>(data_size_) + total > static_cast<uint64_t>(INT32_MAX))
    return Status::NotImplemented(
        "the column chunk holds over 2 GiB of string data in one row group");
  const int64_t need = data_size_ + static_cast<int64_t>(total);
  if (need > data_->size())
    SHOAL_RETURN_IF_ERROR(data_->Resize(std::max(need, data_->size() * 2)));
  uint8_t* out = data_->mutable_data();
  int32_t* offsets = values_->mutable_data_as<int32_t>() + rows_;
  int64_t pos = data_size_;
  size_t j = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (defs == nullptr || defs[i]) {
      const ByteView& v = views_[j++];
      if (!v.empty())
        std::memcpy(out + pos, v.data(), v.size());
      pos += static_cast<int64_t>(v.size());
    }
    offsets[i + 1] = static_cast<int32_t>(pos);
  }
  data_size_ = pos;
  return Status::OK();
}

}  // namespace shoal::io::parquet::internal
