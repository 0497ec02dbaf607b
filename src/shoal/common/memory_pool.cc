#include "shoal/common/memory_pool.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "shoal/common/check.h"

namespace shoal {

std::string FormatBytes(int64_t bytes) {
  if (bytes == MemoryPool::kUnlimited)
    return "unlimited";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  if (u == 0)
    return fmt::format("{} B", bytes);
  return fmt::format("{:.1f} {}", v, units[u]);
}

MemoryPool::MemoryPool(std::string name, int64_t limit, std::shared_ptr<MemoryPool> parent)
    : name_(std::move(name)), limit_(limit), parent_(std::move(parent)) {}

MemoryPool::~MemoryPool() {
  // Memory still charged here was leaked by its holder; give it back to the ancestors so their
  // accounting stays right, and say so in debug builds.
  int64_t left = used_.load();
  SHOAL_DCHECK(left == 0, "memory pool '{}' destroyed with {} bytes in use", name_, left);
  if (left != 0 && parent_)
    parent_->Uncharge(left);
  if (parent_) {
    std::lock_guard lock(parent_->children_mutex_);
    auto& siblings = parent_->children_;
    siblings.erase(std::remove(siblings.begin(), siblings.end(), this), siblings.end());
  }
}

std::shared_ptr<MemoryPool> MemoryPool::MakeRoot(std::string name, int64_t limit) {
  return std::shared_ptr<MemoryPool>(new MemoryPool(std::move(name), limit, nullptr));
}

std::shared_ptr<MemoryPool> MemoryPool::MakeChild(std::string name, int64_t limit) {
  std::shared_ptr<MemoryPool> child(new MemoryPool(std::move(name), limit, shared_from_this()));
  std::lock_guard lock(children_mutex_);
  children_.push_back(child.get());
  return child;
}

std::string MemoryPool::LargestHolders(int count) const {
  std::vector<std::pair<int64_t, std::string>> leaves;
  {
    std::lock_guard lock(children_mutex_);
    for (const MemoryPool* child : children_)
      child->CollectLeaves(&leaves);
  }
  std::sort(leaves.begin(), leaves.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string text;
  for (size_t i = 0; i < leaves.size() && i < static_cast<size_t>(count); ++i) {
    if (leaves[i].first == 0)
      break;
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", leaves[i].second,
                        FormatBytes(leaves[i].first));
  }
  return text;
}

void MemoryPool::CollectLeaves(std::vector<std::pair<int64_t, std::string>>* out) const {
  std::lock_guard lock(children_mutex_);
  if (children_.empty()) {
    out->emplace_back(bytes_used(), name_);
    return;
  }
  for (const MemoryPool* child : children_)
    child->CollectLeaves(out);
}

Status MemoryPool::Charge(int64_t bytes) {
  int64_t now = used_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (now > limit_) [[unlikely]] {
    used_.fetch_sub(bytes, std::memory_order_relaxed);
    const std::string holders = LargestHolders(4);
    return Status::OutOfMemory(
        "memory limit exceeded: pool '{}' has {} in use of its {} limit and was asked for {} "
        "more{}{}",
        name_, FormatBytes(now - bytes), FormatBytes(limit_), FormatBytes(bytes),
        holders.empty() ? "" : "; largest holders: ", holders);
  }
  if (parent_) {
    Status st = parent_->Charge(bytes);
    if (!st.ok()) {
      used_.fetch_sub(bytes, std::memory_order_relaxed);
      return std::move(st).WithContext(fmt::format("allocating for '{}'", name_));
    }
  }
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return Status::OK();
}

void MemoryPool::Uncharge(int64_t bytes) {
  used_.fetch_sub(bytes, std::memory_order_relaxed);
  if (parent_)
    parent_->Uncharge(bytes);
}

Status MemoryPool::Reserve(int64_t bytes) {
  SHOAL_CHECK_GE(bytes, 0);
  return Charge(bytes);
}

void MemoryPool::Release(int64_t bytes) {
  SHOAL_CHECK_GE(bytes, 0);
  Uncharge(bytes);
}

Result<uint8_t*> MemoryPool::Allocate(int64_t size) {
  if (size < 0)
    return Status::Internal("negative allocation of {} bytes in pool '{}'", size, name_);
  int64_t padded = PaddedSize(size == 0 ? 1 : size);
  SHOAL_RETURN_IF_ERROR(Charge(padded));
  void* p = std::aligned_alloc(kAlignment, static_cast<size_t>(padded));
  if (p == nullptr) {
    Uncharge(padded);
    return Status::OutOfMemory("the operating system refused {} for pool '{}'", FormatBytes(padded),
                               name_);
  }
  // Zero the tail padding so buffers written to disk or the wire never carry stale bytes.
  if (padded > size)
    std::memset(static_cast<uint8_t*>(p) + size, 0, static_cast<size_t>(padded - size));
  return static_cast<uint8_t*>(p);
}

Result<uint8_t*> MemoryPool::Reallocate(uint8_t* ptr, int64_t old_size, int64_t new_size) {
  int64_t old_padded = PaddedSize(old_size == 0 ? 1 : old_size);
  int64_t new_padded = PaddedSize(new_size == 0 ? 1 : new_size);
  if (new_padded == old_padded) {
    if (new_size < old_size)
      std::memset(ptr + new_size, 0, static_cast<size_t>(old_size - new_size));
    return ptr;
  }
  SHOAL_ASSIGN_OR_RETURN(uint8_t * fresh, Allocate(new_size));
  std::memcpy(fresh, ptr, static_cast<size_t>(std::min(old_size, new_size)));
  Free(ptr, old_size);
  return fresh;
}

void MemoryPool::Free(uint8_t* ptr, int64_t size) {
  if (ptr == nullptr)
    return;
  std::free(ptr);
  Uncharge(PaddedSize(size == 0 ? 1 : size));
}

const std::shared_ptr<MemoryPool>& DefaultMemoryPool() {
  static const std::shared_ptr<MemoryPool> kPool = MemoryPool::MakeRoot("process");
  return kPool;
}

}  // namespace shoal
