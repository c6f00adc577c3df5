/* cap_heap_wrap.c - libopscope-ggml.so's calls to the C library's heap, wrapped at link time
 * (-Wl,--wrap=malloc,...: area.cmake): a thread in mapped mode takes its blocks from
 * cap_heap.h, and a block from there goes back there whoever frees it. Only in the shared
 * library: the static archive leaves the program's link alone. */
#include "capture/store/cap_heap.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

void *__wrap_malloc(size_t n) {
    return opscope_cap_heap_is_mapped() ? opscope_cap_heap_alloc(n) : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n) {
    if (!opscope_cap_heap_is_mapped()) {
        return __real_calloc(k, n);
    }
    return n && k > SIZE_MAX / n ? NULL : opscope_cap_heap_alloc(k * n);
}

void *__wrap_realloc(void *p, size_t n) {
    if (p && opscope_cap_heap_owns(p)) {
        return opscope_cap_heap_realloc(p, n);
    }
    if (!opscope_cap_heap_is_mapped()) {
        return __real_realloc(p, n);
    }
    void *np = opscope_cap_heap_alloc(n);
    if (np && p) {
        size_t old = malloc_usable_size(p);
        memcpy(np, p, old < n ? old : n);
        /* the C library's block is left: freeing it on this thread would make the arena
         * (once per buffer that outgrew a block taken before mapped mode) */
    }
    return np;
}

void __wrap_free(void *p) {
    if (!p) {
        return;
    }
    if (opscope_cap_heap_owns(p)) {
        opscope_cap_heap_free(p);
    } else if (!opscope_cap_heap_is_mapped()) {
        __real_free(p);
    }
    /* else: the C library's block, freed in mapped mode: left (see __wrap_realloc) */
}
