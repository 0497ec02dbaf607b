// MemoryTableCodec: "shoal.memory/1", the table codec that ships a small in-memory table
// (io::MemoryTable: CREATE TABLE, INSERT, CREATE TABLE AS) inside the plan, so that a query over a
// table made in the coordinator's session runs on workers that have never seen it.
//
// The payload is a proto::ValuesProto: the table's schema and all of its batches as one Arrow IPC
// stream, in the table's order, so the scan units the coordinator planned (batch indices,
// io/memory_table.h) mean the same batches on the worker. The whole table travels, not only the
// task's share of the units: work-unit feeds hand units to tasks while they run, and the size bound
// keeps the copy cheap.
//
// Which memory tables travel is a per-query decision bounded by `dist_memory_table_max_bytes`
// (the table's in-memory size). A larger table is left to the "shoal.catalog/1" codec, which
// expects every worker to hold it (the in-memory TPC-H tables of `shoal worker --tpch SF`); a
// worker that does not is a NotFound naming the table. TableCodecRegistry::Builtin registers this
// codec with a bound of 0 (nothing travels; every worker can decode it): encoders that know the
// session's settings (the coordinator, the shuffle driver) take ForQuery's registry instead.
#pragma once

#include <cstdint>
#include <string>

#include "shoal/common/result.h"
#include "shoal/common/settings.h"
#include "shoal/distributed/codec/table_codec.h"

namespace shoal::distributed {

class MemoryTableCodec final : public TableCodec {
 public:
  static constexpr const char* kId = "shoal.memory/1";
  static constexpr const char* kMaxBytesSetting = "dist_memory_table_max_bytes";
  static constexpr int64_t kDefaultMaxBytes = 16LL << 20;

  /// Ships memory tables of at most `max_bytes` (0: none, the codec only decodes).
  explicit MemoryTableCodec(int64_t max_bytes) : max_bytes_(max_bytes) {}

  std::string id() const override { return kId; }
  /// An io::MemoryTable of at most max_bytes() bytes.
  bool CanEncode(const io::TableProvider& table) const override;
  Result<std::string> Encode(const io::TableProvider& table,
                             const std::string& table_name) const override;
  /// A fresh MemoryTable holding the payload's batches; malformed payloads are InvalidData.
  Result<io::TableProviderPtr> Decode(const std::string& payload,
                                      const std::string& table_name) const override;

  int64_t max_bytes() const { return max_bytes_; }

  /// `codecs` with its memory table codec bounded by `settings`' dist_memory_table_max_bytes
  /// (the registry itself when it has no such codec, or already that bound).
  static TableCodecRegistryPtr ForQuery(const TableCodecRegistryPtr& codecs,
                                        const Settings& settings);

 private:
  int64_t max_bytes_;
};

}  // namespace shoal::distributed
