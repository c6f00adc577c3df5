/*
 * cap_heap.h - the watcher thread's own heap: pages mapped for each block, so that its
 * checkpoints never call malloc (glibc gives a thread that does a malloc arena of its own:
 * 64 MiB of address space reserved, room a program under `ulimit -v` may need later).
 *
 * In libopscope-ggml.so the library's own calls to malloc, calloc, realloc and free are
 * wrapped at link time (cap_heap_wrap.c): on a thread in mapped mode they take blocks from
 * here, and a block from here is resized or freed here on whatever thread. The program's
 * calls, and the C library's inside itself, are not wrapped. Thread safety: every function
 * may be called from any thread; mapped mode is per thread.
 */
#ifndef OPSCOPE_CAPTURE_STORE_CAP_HEAP_H
#define OPSCOPE_CAPTURE_STORE_CAP_HEAP_H

#include <stdbool.h>
#include <stddef.h>

/* Puts the calling thread in mapped mode (ON) or back (the watcher, around a checkpoint). */
void opscope_cap_heap_mapped(bool on);
/* Whether the calling thread is in mapped mode. */
bool opscope_cap_heap_is_mapped(void);
/* Whether P (not NULL) is a block from here. */
bool opscope_cap_heap_owns(const void *p);
/* As malloc, realloc (P NULL or a block from here) and free (a block from here); NULL when
 * the kernel refuses the pages. */
void *opscope_cap_heap_alloc(size_t n);
void *opscope_cap_heap_realloc(void *p, size_t n);
void opscope_cap_heap_free(void *p);
/* Blocks taken from here and their bytes (pages), for the usage line. */
void opscope_cap_heap_usage(size_t *blocks, size_t *bytes);

#endif /* OPSCOPE_CAPTURE_STORE_CAP_HEAP_H */
