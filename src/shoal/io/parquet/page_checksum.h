// The CRC-32 a Parquet page header's `crc` field holds: zlib's CRC (polynomial 0x04C11DB7,
// bit-reflected, initial value and final XOR all ones) of the page bytes as stored. The writer
// records it for every page and the reader checks it before decompressing, so a corrupted page is
// an error rather than wrong values.
//
// Checking it is on the path of every page read (6% of a TPC-H Q6 scan with zlib's table-driven
// crc32), so on x86-64 CPUs with PCLMULQDQ (every one since 2010) the bulk of a page is folded 64
// bytes at a time with carry-less multiplies (Gopal et al., "Fast CRC Computation for Generic
// Polynomials Using PCLMULQDQ Instruction", Intel, 2009) and zlib finishes the tail; other CPUs
// use zlib alone. Both give the same value. Stateless and thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace shoal::io::parquet {

/// The CRC-32 of [data, data + size).
uint32_t PageChecksum(const uint8_t* data, size_t size);

/// The same with zlib's crc32 only (the reference the folded version is tested against).
uint32_t PageChecksumPortable(const uint8_t* data, size_t size);

}  // namespace shoal::io::parquet
