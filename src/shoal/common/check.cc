#include "shoal/common/check.h"

#include <cstdio>
#include <cstdlib>

namespace shoal::internal {

void CheckFailed(const char* file, int line, const char* condition, const std::string& message) {
  std::fprintf(stderr, "shoal: internal invariant violated at %s:%d: %s%s%s\n", file, line,
               condition, message.empty() ? "" : ": ", message.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace shoal::internal
