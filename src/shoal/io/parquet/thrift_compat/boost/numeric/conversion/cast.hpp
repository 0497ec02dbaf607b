// Stand-in for the one Boost header piece that Debian's libthrift-dev 0.17 headers use but its
// package does not depend on (<thrift/transport/TTransportException.h> includes this file for
// boost::numeric_cast). Shoal does not depend on Boost; this directory is added to the include path
// only when real Boost headers are absent (io/parquet/CMakeLists.txt), so installing libboost-dev
// makes it unused. Behaviour matches what thrift relies on: a checked integer conversion that
// throws an exception derived from std::bad_cast when the value does not fit.
#pragma once

#include <type_traits>
#include <typeinfo>
#include <utility>

namespace boost {
namespace numeric {

class bad_numeric_cast : public std::bad_cast {
 public:
  const char* what() const noexcept override { return "bad numeric conversion: out of range"; }
};

}  // namespace numeric

template <class To, class From>
To numeric_cast(From value) {
  if constexpr (std::is_integral_v<To> && std::is_integral_v<From> && !std::is_same_v<To, bool> &&
                !std::is_same_v<From, bool>) {
    if (!std::in_range<To>(value))
      throw numeric::bad_numeric_cast();
  }
  return static_cast<To>(value);
}

}  // namespace boost
