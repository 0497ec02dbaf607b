#include "shoal/io/parquet/column_chunk_reader.h"

#include "shoal/io/parquet/chunk_decoder_internal.h"

namespace shoal::io::parquet {

using columnar::ArrayPtr;
using internal::ChunkDecoder;

Result<ChunkRange> LocateColumnChunk(const format::ColumnChunk& chunk, int64_t file_size,
                                     const std::string& where) {
  if (!chunk.__isset.meta_data)
    return Status::InvalidData("{}: the column chunk has no metadata", where);
  if (chunk.__isset.file_path && !chunk.file_path.empty())
    return Status::NotImplemented("{}: column data in another file ('{}') is not supported", where,
                                  chunk.file_path);
  const auto& m = chunk.meta_data;
  int64_t start = m.data_page_offset;
  if (m.__isset.dictionary_page_offset && m.dictionary_page_offset > 0 &&
      m.dictionary_page_offset < start)
    start = m.dictionary_page_offset;
  if (start < 4 || m.total_compressed_size <= 0 || m.total_compressed_size > file_size ||
      start > file_size - m.total_compressed_size)
    return Status::InvalidData(
        "{}: column chunk at offset {} of {} bytes lies outside the file "
        "({} bytes)",
        where, start, m.total_compressed_size, file_size);
  return ChunkRange{start, m.total_compressed_size};
}

Result<ArrayPtr> DecodeColumnChunk(const ColumnDescriptor& column,
                                   const format::ColumnMetaData& meta, int64_t num_rows,
                                   const uint8_t* chunk, int64_t chunk_size, int64_t chunk_offset,
                                   const std::shared_ptr<MemoryPool>& pool,
                                   const std::string& where) {
  SHOAL_ASSIGN_OR_RETURN(
      internal::DecodedLeaf leaf,
      DecodeLeafChunk(column, meta, num_rows, chunk, chunk_size, chunk_offset, pool, where));
  return leaf.values;
}

Result<internal::DecodedLeaf> DecodeLeafChunk(const ColumnDescriptor& column,
                                              const format::ColumnMetaData& meta, int64_t num_rows,
                                              const uint8_t* chunk, int64_t chunk_size,
                                              int64_t chunk_offset,
                                              const std::shared_ptr<MemoryPool>& pool,
                                              const std::string& where) {
  if (meta.type != column.physical)
    return Status::InvalidData("{}: the column chunk's type {} differs from the schema's {}", where,
                               static_cast<int>(meta.type), static_cast<int>(column.physical));
  ChunkDecoder decoder(column, meta, num_rows, pool);
  Status st = decoder.Init();
  if (st.ok())
    st = decoder.Run(chunk, chunk_size, chunk_offset);
  if (!st.ok())
    return std::move(st).WithContext(where);
  Result<ArrayPtr> array = decoder.Finish();
  if (!array.ok())
    return std::move(array).status().WithContext(where);
  internal::DecodedLeaf leaf;
  leaf.values = *array;
  leaf.def = decoder.def_levels();
  leaf.rep = decoder.rep_levels();
  leaf.num_levels = decoder.num_levels();
  return leaf;
}

Result<std::unique_ptr<ChunkDecoder>> OpenLeafChunk(const ColumnDescriptor& column,
                                                    const format::ColumnMetaData& meta,
                                                    int64_t num_rows, const uint8_t* chunk,
                                                    int64_t chunk_size, int64_t chunk_offset,
                                                    const std::shared_ptr<MemoryPool>& pool,
                                                    const std::string& where) {
  if (column.nested)
    return Status::Internal("{}: a nested leaf cannot be streamed", where);
  if (meta.type != column.physical)
    return Status::InvalidData("{}: the column chunk's type {} differs from the schema's {}", where,
                               static_cast<int>(meta.type), static_cast<int>(column.physical));
  auto decoder = std::make_unique<ChunkDecoder>(column, meta, num_rows, pool);
  Status st = decoder->Init(/*allocate_all=*/false);
  if (!st.ok())
    return std::move(st).WithContext(where);
  decoder->Open(chunk, chunk_size, chunk_offset);
  return decoder;
}

}  // namespace shoal::io::parquet
