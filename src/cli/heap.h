/*
 * heap.h - the command line's allocator setting between a read and the analysis' finish.
 *
 * During a read the analyses' arrays grow (realloc of mapped blocks: moved without a copy);
 * their finish then allocates and frees large scratch arrays in turn (sorts, the critical
 * path, the CPU-op records), each mapped fresh and its pages faulted in again. After
 * opscope_cli_heap_keep_freed, large blocks come from the heap and freed ones are kept for the
 * next: `report` of the 213 MB bench trace takes 27 K page faults instead of 42 K at the same
 * peak RSS (docs/kineto.md, "Memory and speed"). glibc only; elsewhere it does nothing.
 * Process-wide: commands call it, never the capture library (the host program's allocator is
 * not ours to set). Not thread-safe: call it while one thread runs.
 */
#ifndef OPSCOPE_CLI_HEAP_H
#define OPSCOPE_CLI_HEAP_H

/* Keeps freed large blocks in the process' heap from now on. */
void opscope_cli_heap_keep_freed(void);

#endif /* OPSCOPE_CLI_HEAP_H */
