#include "shoal/distributed/codec/table_codec.h"

#include <utility>

#include <fmt/format.h>

namespace shoal::distributed {

void TableCodecRegistry::Add(std::shared_ptr<const TableCodec> codec) {
  by_id_[codec->id()] = codec.get();
  ordered_.push_back(std::move(codec));
}

Result<const TableCodec*> TableCodecRegistry::ForTable(const io::TableProvider& table,
                                                       const std::string& table_name) const {
  for (const auto& c : ordered_) {
    if (c->CanEncode(table))
      return c.get();
  }
  return Status::NotImplemented("no codec can ship table {} ({}) to workers", table_name,
                                table.kind());
}

const TableCodec* TableCodecRegistry::Find(const std::string& id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

std::vector<std::string> TableCodecRegistry::ids() const {
  std::vector<std::string> out;
  for (const auto& [id, codec] : by_id_)
    out.push_back(id);
  return out;
}

}  // namespace shoal::distributed
