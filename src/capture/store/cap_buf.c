/* cap_buf.c - per-thread chunk chains for raw capture records (see cap_buf.h). */
#include "capture/store/cap_buf.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#define CHUNK_BYTES (1u << 20)
/* Chunks are mapped with MAP_POPULATE: one system call faults the whole chunk in, instead
 * of 256 page faults on the compute path (measured: about a third of the per-record cost
 * in a VM). */
#define CHUNK_MAP (sizeof(chunk) + CHUNK_BYTES)

typedef struct chunk {
    struct chunk *_Atomic next;
    _Atomic size_t used; /* bytes of committed records in data[] */
    size_t pad_;
    unsigned char data[];
} chunk;

/* One per thread that ever recorded; linked into a global list, never freed while the
 * process can still export (a thread's records outlive it). */
typedef struct tbuf {
    chunk *head;
    chunk *tail;
    struct tbuf *next_buf;
    int thread_id;
} tbuf;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* buffer list only */
static tbuf *_Atomic g_bufs;
static _Atomic uint64_t g_bytes;
static _Atomic uint64_t g_dropped;
static _Atomic bool g_drop_oom; /* a chunk could not be mapped below the cap */
static _Thread_local uint64_t t_dropped; /* this thread's drops: which graph lost records */
static _Atomic int g_next_thread = 1;
static uint64_t g_limit = 512ull << 20;
static _Thread_local tbuf *t_buf;
static _Thread_local int t_thread_id;
/* Bumped by reset_all so threads drop their (freed) buffer pointers. */
static _Atomic unsigned g_generation;
static _Thread_local unsigned t_generation;

void opscope_cap_buf_set_limit(uint64_t bytes) {
    g_limit = bytes < CHUNK_BYTES ? CHUNK_BYTES : bytes;
}

int opscope_cap_buf_thread_id(void) {
    if (t_thread_id == 0) {
        t_thread_id = atomic_fetch_add(&g_next_thread, 1);
    }
    return t_thread_id;
}

static chunk *chunk_new(void) {
    uint64_t total = atomic_fetch_add(&g_bytes, CHUNK_BYTES) + CHUNK_BYTES;
    if (total > g_limit) {
        atomic_fetch_sub(&g_bytes, CHUNK_BYTES);
        return NULL;
    }
    void *m = mmap(NULL, CHUNK_MAP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);
    chunk *c = m == MAP_FAILED ? NULL : m;
    if (!c) {
        atomic_fetch_sub(&g_bytes, CHUNK_BYTES);
        atomic_store_explicit(&g_drop_oom, true, memory_order_relaxed);
        return NULL;
    }
    atomic_init(&c->next, NULL);
    atomic_init(&c->used, 0);
    return c;
}

static tbuf *my_buf(void) {
    unsigned gen = atomic_load_explicit(&g_generation, memory_order_acquire);
    if (t_buf && t_generation == gen) {
        return t_buf;
    }
    tbuf *b = calloc(1, sizeof *b);
    if (!b) {
        return NULL;
    }
    b->thread_id = opscope_cap_buf_thread_id();
    pthread_mutex_lock(&g_lock);
    b->next_buf = atomic_load(&g_bufs);
    atomic_store_explicit(&g_bufs, b, memory_order_release);
    pthread_mutex_unlock(&g_lock);
    t_buf = b;
    t_generation = gen;
    return b;
}

opscope_cap_rec *opscope_cap_buf_alloc(unsigned n_src) {
    size_t need = opscope_cap_rec_size(n_src);
    opscope_cap_rec *r = opscope_cap_buf_alloc_bytes(need);
    if (r) {
        r->size = (uint16_t)need;
        r->n_src = (uint8_t)n_src;
    }
    return r;
}

void opscope_cap_buf_commit(opscope_cap_rec *r) {
    opscope_cap_buf_commit_bytes(r->size);
}

unsigned opscope_cap_buf_generation(void) {
    return atomic_load_explicit(&g_generation, memory_order_acquire);
}

void *opscope_cap_buf_alloc_bytes(size_t need) {
    tbuf *b = my_buf();
    if (!b) {
        return NULL;
    }
    chunk *c = b->tail;
    if (!c || atomic_load_explicit(&c->used, memory_order_relaxed) + need > CHUNK_BYTES) {
        chunk *n = chunk_new();
        if (!n) {
            return NULL;
        }
        if (c) {
            atomic_store_explicit(&c->next, n, memory_order_release);
        } else {
            pthread_mutex_lock(&g_lock); /* head is read by exporters */
            b->head = n;
            pthread_mutex_unlock(&g_lock);
        }
        b->tail = n;
        c = n;
    }
    return c->data + atomic_load_explicit(&c->used, memory_order_relaxed);
}

void opscope_cap_buf_commit_bytes(size_t size) {
    chunk *c = t_buf->tail;
    atomic_store_explicit(&c->used, atomic_load_explicit(&c->used, memory_order_relaxed) + size,
                          memory_order_release);
}

void opscope_cap_buf_note_dropped(uint64_t n) {
    atomic_fetch_add_explicit(&g_dropped, n, memory_order_relaxed);
    t_dropped += n;
}

uint64_t opscope_cap_buf_dropped_here(void) {
    return t_dropped;
}

bool opscope_cap_buf_drop_oom(void) {
    return atomic_load_explicit(&g_drop_oom, memory_order_relaxed);
}

uint64_t opscope_cap_buf_limit(void) {
    return g_limit;
}

uint64_t opscope_cap_buf_dropped(void) {
    return atomic_load(&g_dropped);
}

uint64_t opscope_cap_buf_bytes(void) {
    return atomic_load(&g_bytes);
}

int opscope_cap_buf_foreach(int (*fn)(void *ud, const opscope_cap_rec *r), void *ud) {
    for (tbuf *b = atomic_load_explicit(&g_bufs, memory_order_acquire); b; b = b->next_buf) {
        pthread_mutex_lock(&g_lock);
        chunk *c = b->head;
        pthread_mutex_unlock(&g_lock);
        while (c) {
            /* next before used: a chunk with a successor is final, and its fill level read
             * after that is complete, so each thread's records come as a gap-free prefix */
            chunk *next = atomic_load_explicit(&c->next, memory_order_acquire);
            size_t used = atomic_load_explicit(&c->used, memory_order_acquire);
            for (size_t off = 0; off < used;) {
                const opscope_cap_rec *r = (const opscope_cap_rec *)(c->data + off);
                int rc = fn(ud, r);
                if (rc) {
                    return rc;
                }
                off += r->size;
            }
            c = next;
        }
    }
    return 0;
}

void opscope_cap_buf_reset_all(void) {
    pthread_mutex_lock(&g_lock);
    tbuf *b = atomic_exchange(&g_bufs, NULL);
    atomic_fetch_add_explicit(&g_generation, 1, memory_order_release);
    pthread_mutex_unlock(&g_lock);
    while (b) {
        tbuf *nb = b->next_buf;
        chunk *c = b->head;
        while (c) {
            chunk *nc = atomic_load(&c->next);
            munmap(c, CHUNK_MAP);
            c = nc;
        }
        free(b);
        b = nb;
    }
    atomic_store(&g_bytes, 0);
    atomic_store(&g_dropped, 0);
    atomic_store(&g_drop_oom, false);
    t_dropped = 0;
    t_buf = NULL;
}
