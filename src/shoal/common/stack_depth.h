// Stack depth: a statement of any depth must end in an answer or PostgreSQL's error 54001 "stack
// depth limit exceeded", never in a crash. Recursive code over statements and plans (binder,
// optimizer rules, planners, plan codec, expression evaluator) calls CheckStackDepth() at each
// recursive entry. Like PostgreSQL's check_stack_depth(), it measures the stack rather than
// counting levels, because frames differ by a factor of ten between a binder call and a tree walk:
// it fails once less than a reserve is left of the calling thread's stack (the reserve covers what
// unchecked callees, such as protobuf or a kernel, may still use). Any thread may call it; the
// thread's stack bounds are read once per thread.
//
// Code that must recurse deeper than a thread's stack allows and whose depth is bounded by its
// input (libpg_query's recursive parse-tree output, which has no working depth check of its own)
// runs on a thread of its own with RunWithStack.
#pragma once

#include <cstddef>
#include <functional>

#include "shoal/common/status.h"

namespace shoal {

/// Bytes of stack every thread is assumed to be able to use; threads Shoal starts for SQL work
/// get at least this much (kDefaultThreadStack).
inline constexpr size_t kDefaultThreadStack = size_t{8} << 20;

/// OK while enough of this thread's stack is left; otherwise SQLSTATE 54001 with PostgreSQL's
/// message and a hint. Cheap: a frame address compared with a thread-local bound.
Status CheckStackDepth();

/// Bytes of this thread's stack left below the caller's frame.
size_t RemainingStack();

/// Runs `fn` to completion on a new thread with a stack of `bytes` (reserved lazily: only pages
/// the thread touches use memory). Returns an error if the thread cannot be created.
Status RunWithStack(size_t bytes, const std::function<void()>& fn);

}  // namespace shoal

/// Returns 54001 from the enclosing function (Status or Result) when the stack is nearly full.
#define SHOAL_CHECK_STACK_DEPTH() SHOAL_RETURN_IF_ERROR(::shoal::CheckStackDepth())
