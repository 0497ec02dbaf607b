// ProcessAllocator: how every Shoal process sets up glibc's malloc before its first thread.
//
// Column buffers are allocated and freed by the megabyte, batch after batch (MemoryPool hands them
// to std::aligned_alloc). With glibc's defaults each of those frees gives the memory back to the
// kernel: a block above the dynamic mmap threshold is unmapped, the top of a heap is trimmed past
// 128 KiB, and each of up to 8 arenas per core keeps its own free lists, so a buffer freed by one
// thread is rarely the next one another thread allocates. Every buffer is then page-faulted in
// afresh, and under a hypervisor a fault costs several microseconds: TPC-H SF1 on one node spent
// a third of its time in the kernel (DistributedTest.EveryTpchQuery...: 440,000 faults, 3.3 s of
// 8.2 s in the kernel). The process keeps freed memory for reuse instead: a fixed mmap threshold,
// a high trim threshold and one arena per core (docs/performance.md, "Page faults").
//
// What it costs: up to the trim threshold of freed memory per heap stays resident, so a process's
// RSS can stay above what its queries' memory pools hold (memory_limit counts live buffers, not
// RSS). A setting that GLIBC_TUNABLES names (glibc.malloc.mmap_threshold, .trim_threshold,
// .arena_max) is the operator's choice and is left as it is.
// Under AddressSanitizer malloc is ASan's, and this does nothing.
//
// Processes that start with an empty heap and live for one task (the file shuffle's task
// processes, forked from a launcher) fault in every page they touch, 4 KiB at a time: TPC-H Q6
// through the file shuffle took 47,000 faults and 1.6 s of CPU for six runs. Their launcher is
// therefore started with glibc.malloc.hugetlb=1 (WithTransparentHugePages), which has malloc
// advise the kernel to back its heaps with 2 MiB pages where it can: 12,000 faults and 1.1 s
// (docs/performance.md, "Task processes on huge pages"). The tunable is read only when a
// process starts, so it is set in the environment of the exec, not by a call.
#pragma once

#include <string>
#include <string_view>

namespace shoal {

/// Applies the settings above (idempotent). Call first in main, before any thread exists: the
/// arena limit only binds threads that allocate after it.
void TuneProcessAllocator();

/// The value of GLIBC_TUNABLES for a process whose heap should use transparent huge pages:
/// `current` (the value inherited, empty when unset) with glibc.malloc.hugetlb=1 added, unless
/// it already names glibc.malloc.hugetlb (an operator's choice, kept).
std::string WithTransparentHugePages(std::string_view current);

}  // namespace shoal
