/* cap_heap.c - the watcher thread's own heap (see cap_heap.h). */
#include "capture/store/cap_heap.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

/* A block: its mapping starts with this header, the caller's bytes follow. MAGIC and the
 * size's check word tell a block from here from a C library chunk (whose header holds its
 * size and flags, never both words), and only addresses inside [lo, hi) are looked at. */
typedef struct heap_head {
    uint64_t magic;
    uint64_t map_size;
    uint64_t check;
    uint64_t pad;
} heap_head;

#define HEAP_MAGIC 0x6f70736370686561ull /* "opscphea" */
#define HEAP_CHECK(size) ((size) ^ 0x9e3779b97f4a7c15ull)

static __thread bool t_mapped;
static _Atomic uintptr_t g_lo = UINTPTR_MAX, g_hi;
static _Atomic size_t g_blocks, g_bytes;

void opscope_cap_heap_mapped(bool on) {
    t_mapped = on;
}

bool opscope_cap_heap_is_mapped(void) {
    return t_mapped;
}

static void widen(uintptr_t a, uintptr_t b) {
    uintptr_t lo = atomic_load(&g_lo), hi = atomic_load(&g_hi);
    while (a < lo && !atomic_compare_exchange_weak(&g_lo, &lo, a)) {
    }
    while (b > hi && !atomic_compare_exchange_weak(&g_hi, &hi, b)) {
    }
}

bool opscope_cap_heap_owns(const void *p) {
    uintptr_t a = (uintptr_t)p;
    if (a < atomic_load(&g_lo) + sizeof(heap_head) || a >= atomic_load(&g_hi) || (a & 4095) != sizeof(heap_head)) {
        return false;
    }
    const heap_head *h = (const heap_head *)p - 1;
    return h->magic == HEAP_MAGIC && h->check == HEAP_CHECK(h->map_size);
}

static size_t map_size_for(size_t n) {
    if (n > SIZE_MAX - sizeof(heap_head) - 4095) {
        return 0;
    }
    return (n + sizeof(heap_head) + 4095) & ~(size_t)4095;
}

static void *stamp(void *m, size_t size) {
    heap_head *h = m;
    h->magic = HEAP_MAGIC;
    h->map_size = size;
    h->check = HEAP_CHECK(size);
    widen((uintptr_t)m, (uintptr_t)m + size);
    return h + 1;
}

void *opscope_cap_heap_alloc(size_t n) {
    size_t size = map_size_for(n ? n : 1);
    void *m = size ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
    if (m == MAP_FAILED) {
        return NULL;
    }
    atomic_fetch_add(&g_blocks, 1);
    atomic_fetch_add(&g_bytes, size);
    return stamp(m, size); /* fresh pages: zeroed, as calloc wants */
}

void *opscope_cap_heap_realloc(void *p, size_t n) {
    if (!p) {
        return opscope_cap_heap_alloc(n);
    }
    heap_head *h = (heap_head *)p - 1;
    size_t old = h->map_size, size = map_size_for(n ? n : 1);
    if (!size) {
        return NULL;
    }
    if (size <= old) {
        return p; /* kept: a vector here only grows */
    }
    void *m = mremap(h, old, size, MREMAP_MAYMOVE);
    if (m == MAP_FAILED) {
        return NULL;
    }
    atomic_fetch_add(&g_bytes, size - old);
    return stamp(m, size);
}

void opscope_cap_heap_free(void *p) {
    heap_head *h = (heap_head *)p - 1;
    size_t size = h->map_size;
    h->magic = 0;
    atomic_fetch_sub(&g_blocks, 1);
    atomic_fetch_sub(&g_bytes, size);
    munmap(h, size);
}

void opscope_cap_heap_usage(size_t *blocks, size_t *bytes) {
    *blocks = atomic_load(&g_blocks);
    *bytes = atomic_load(&g_bytes);
}
