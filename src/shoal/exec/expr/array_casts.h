// Casts that involve arrays: text to an array (PostgreSQL's array_in), and an array to an array of
// another element type (each element cast). An array to text is the generic text cast, which
// writes array_out's form (columnar/pretty_print.h).
#pragma once

#include "shoal/exec/expr/kernel.h"

namespace shoal::exec {

/// A cast kernel from utf8 to a list type (lists of lists are multidimensional arrays).
Result<KernelPtr> MakeTextToArrayCast(const columnar::DataType& to, bool try_cast);
/// A cast kernel between list types of the same kind whose item types cast.
Result<KernelPtr> MakeArrayToArrayCast(const columnar::DataType& from, const columnar::DataType& to,
                                       bool try_cast);

}  // namespace shoal::exec
