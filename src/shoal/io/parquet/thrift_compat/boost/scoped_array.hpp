// Stand-in for boost::scoped_array, used by <thrift/transport/TBufferTransports.h> (Debian's
// libthrift-dev 0.17 headers need Boost without depending on it; see numeric/conversion/cast.hpp
// next to this file for why this directory exists). Same layout as Boost's: one owning pointer.
#pragma once

#include <cstddef>

namespace boost {

template <class T>
class scoped_array {
 public:
  explicit scoped_array(T* p = nullptr) noexcept : ptr_(p) {}
  scoped_array(const scoped_array&) = delete;
  scoped_array& operator=(const scoped_array&) = delete;
  ~scoped_array() { delete[] ptr_; }

  void reset(T* p = nullptr) noexcept {
    delete[] ptr_;
    ptr_ = p;
  }
  T& operator[](std::ptrdiff_t i) const noexcept { return ptr_[i]; }
  T* get() const noexcept { return ptr_; }
  explicit operator bool() const noexcept { return ptr_ != nullptr; }
  void swap(scoped_array& other) noexcept {
    T* tmp = other.ptr_;
    other.ptr_ = ptr_;
    ptr_ = tmp;
  }

 private:
  T* ptr_;
};

}  // namespace boost
