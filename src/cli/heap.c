/* heap.c - the command line's allocator setting after a read (see heap.h). */
#include "cli/heap.h"

#include <stdlib.h> /* defines __GLIBC__ under glibc */

#if defined(__GLIBC__)
#include <malloc.h>
#endif

void opscope_cli_heap_keep_freed(void) {
#if defined(__GLIBC__)
    /* blocks up to 512 MiB from the heap; the heap's top given back past 1 GiB only */
    mallopt(M_MMAP_THRESHOLD, 512 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}
