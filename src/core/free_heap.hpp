#pragma once
// Freed memory back to the system. glibc keeps freed blocks below its (growing) mmap threshold
// in the arena of the thread that allocated them, so a process whose threads free big buffers
// in turn (a screen's workers, the merge's parts) keeps their peak resident until it trims.
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace hpc {

inline void release_free_heap() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

}  // namespace hpc
