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
// RSS). GLIBC_TUNABLES naming a glibc.malloc tunable means an operator chose: nothing is changed.
// Under AddressSanitizer malloc is ASan's, and this does nothing.
#pragma once

namespace shoal {

/// Applies the settings above (idempotent). Call first in main, before any thread exists: the
/// arena limit only binds threads that allocate after it.
void TuneProcessAllocator();

}  // namespace shoal
