// What the text kernels share: the UTF-8 continuation-byte test, and the registration of the
// LIKE kernels (like_kernels.cc), the regular expression kernels (regex_kernels.cc) and EXTRACT
// (extract_kernels.cc), which RegisterStringKernels (string_kernels.cc, declared in kernel.h)
// calls. Private to exec.
#pragma once

#include "shoal/exec/expr/kernel.h"

namespace shoal::exec::internal {

/// Whether `c` continues a UTF-8 sequence (characters are counted at the bytes that are not).
inline bool IsContinuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

/// like, ilike.
void RegisterLikeKernels(KernelRegistry* registry);
/// ~, ~*, regexp_like, similar_to, regexp_replace, regexp_count, regexp_instr, regexp_substr
/// (regex_kernels.cc).
void RegisterRegexKernels(KernelRegistry* registry);
/// substring(text FROM pattern) and substring(text SIMILAR pattern ESCAPE escape): the "substring"
/// kernel when the second argument is text.
Result<KernelPtr> MakeRegexSubstring(const KernelSignature& sig);
/// extract, date_part.
void RegisterExtractKernels(KernelRegistry* registry);

}  // namespace shoal::exec::internal
