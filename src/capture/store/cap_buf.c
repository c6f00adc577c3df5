/* cap_buf.c - per-thread chunk chains for raw capture records (see cap_buf.h). */
#include "capture/store/cap_buf.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK_BYTES (1u << 20)
/* Chunks are mapped with MAP_POPULATE: one system call faults the whole chunk in, instead
 * of 256 page faults on the compute path (measured: about a third of the per-record cost
 * in a VM). */
#define CHUNK_MAP (sizeof(chunk) + CHUNK_BYTES)

typedef struct chunk {
    struct chunk *_Atomic next;
    _Atomic size_t used; /* bytes of committed records in data[] */
    /* a retired kept chain's head chunk (opscope_cap_buf_safe_point): the next retired chain
     * of its thread, and the thread's committed record bytes when it retired */
    struct chunk *retired_next;
    uint64_t mark;
    /* a kept chain's head chunk: pending device work that points into the chain (held by its
     * owner, let go by any thread: opscope_cap_buf_keep_hold), whether any ever did (the
     * owner's), and once retired and seen free of holds, the take that must complete before
     * it is freed (the exporter's) */
    _Atomic uint32_t holds;
    bool held;
    uint64_t clear_take;
    unsigned char data[];
} chunk;

/* A chain of chunks: the owner appends at tail; head is where readers start. */
typedef struct chain {
    chunk *head;
    chunk *tail;
} chain;

/* One per thread that ever recorded; linked into a global list, never freed while the
 * process can still export (a thread's records outlive it). Two chains: `rec` holds the
 * records of the profile (and graph records), which a streaming export takes and frees
 * (opscope_cap_buf_take_new, _release_taken); `keep` holds what records point at
 * (descriptions, plan pages), kept as long as the process records. The taker's cursor
 * (`took`, `took_off`; `seen*` for a take in progress) is the exporting thread's alone. */
typedef struct tbuf {
    chain rec;
    chain keep;
    struct tbuf *next_buf;
    int thread_id;
    chunk *took;        /* first chunk not wholly taken (NULL: rec.head) */
    size_t took_off;    /* bytes of it taken */
    chunk *seen;        /* where the take in progress stopped */
    size_t seen_off;
    uint64_t seen_bytes; /* record bytes the take in progress visited */
    uint64_t taken;     /* record bytes taken and released so far (the exporter's) */
    _Atomic uint64_t committed; /* record bytes committed so far (the owner's) */
    /* Kept chains retired by the owner (under the store's lock), each freed once the
     * records committed before it retired are taken: nothing then points into it. */
    chunk *retired;
    unsigned keep_chunks; /* chunks of the current kept chain (the owner's) */
    unsigned renew_at;    /* a kept chain of this many chunks is renewed (the owner's) */
    unsigned safe_points; /* since the current kept chain started (the owner's) */
} tbuf;

/* The process's record store. Threading contract: `lock` guards the list's changes (a new
 * buffer, reset_all) and each chain's head; readers walk `bufs` lock-free (a buffer is
 * published whole by a release store and never freed while the process can still export);
 * the counters are atomics any thread updates; `limit` is set at start-up (cap_life.c's
 * init) before any record, then only read. */
static struct {
    pthread_mutex_t lock; /* buffer list and chain heads */
    tbuf *_Atomic bufs;
    _Atomic uint64_t bytes;
    _Atomic uint64_t keep_bytes;  /* of bytes: chunks of the kept chains */
    _Atomic uint64_t keep_used;   /* bytes ever committed in kept chains (renewed ones too) */
    _Atomic uint64_t cache_bytes; /* per-thread caches made by opscope_cap_buf_cache_clear */
    _Atomic uint64_t n_bufs;      /* threads that recorded */
    _Atomic uint64_t dropped;
    _Atomic bool drop_oom; /* a chunk could not be mapped below the cap */
    _Atomic int next_thread;
    _Atomic bool renew;  /* kept chains may be renewed: a streaming export takes the records */
    _Atomic uint64_t holds; /* pending described scopes, all chains (opscope_cap_buf_keep_hold) */
    /* takes begun, and the last begun that visited every buffer (the exporter's) */
    _Atomic uint64_t takes, taken_whole;
    uint64_t limit;
    _Atomic unsigned generation; /* bumped by reset_all so threads drop their (freed) buffers */
} g_store = {.lock = PTHREAD_MUTEX_INITIALIZER, .next_thread = 1, .limit = 512ull << 20};

/* This thread's part: its own only (initial-exec TLS, 32 bytes; area.cmake). */
static _Thread_local struct {
    tbuf *buf;
    uint64_t dropped;    /* this thread's drops: which graph lost records */
    int thread_id;
    unsigned generation; /* g_store.generation when buf was taken */
    unsigned epoch;      /* bumped when this thread's kept chain is renewed */
} t_store;

void opscope_cap_buf_set_limit(uint64_t bytes) {
    g_store.limit = bytes < CHUNK_BYTES ? CHUNK_BYTES : bytes;
}

int opscope_cap_buf_thread_id(void) {
    if (t_store.thread_id == 0) {
        t_store.thread_id = atomic_fetch_add(&g_store.next_thread, 1);
    }
    return t_store.thread_id;
}

static chunk *chunk_new(bool keep) {
    uint64_t total = atomic_fetch_add(&g_store.bytes, CHUNK_BYTES) + CHUNK_BYTES;
    if (total > g_store.limit) {
        atomic_fetch_sub(&g_store.bytes, CHUNK_BYTES);
        return NULL;
    }
    void *m = mmap(NULL, CHUNK_MAP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);
    chunk *c = m == MAP_FAILED ? NULL : m;
    if (!c) {
        atomic_fetch_sub(&g_store.bytes, CHUNK_BYTES);
        atomic_store_explicit(&g_store.drop_oom, true, memory_order_relaxed);
        return NULL;
    }
    atomic_init(&c->next, NULL);
    atomic_init(&c->used, 0);
    atomic_init(&c->holds, 0);
    if (keep) {
        atomic_fetch_add_explicit(&g_store.keep_bytes, CHUNK_BYTES, memory_order_relaxed);
    }
    return c;
}

static tbuf *my_buf(void) {
    unsigned gen = atomic_load_explicit(&g_store.generation, memory_order_acquire);
    if (t_store.buf && t_store.generation == gen) {
        return t_store.buf;
    }
    tbuf *b = calloc(1, sizeof *b);
    if (!b) {
        return NULL;
    }
    b->thread_id = opscope_cap_buf_thread_id();
    atomic_fetch_add_explicit(&g_store.n_bufs, 1, memory_order_relaxed);
    pthread_mutex_lock(&g_store.lock);
    b->next_buf = atomic_load(&g_store.bufs);
    atomic_store_explicit(&g_store.bufs, b, memory_order_release);
    pthread_mutex_unlock(&g_store.lock);
    t_store.buf = b;
    t_store.generation = gen;
    return b;
}

void opscope_cap_buf_commit(opscope_cap_rec *r) {
    opscope_cap_buf_commit_bytes(r->size);
}

unsigned opscope_cap_buf_generation(void) {
    /* the thread's caches point into its own kept chain: a renewal of it is a new generation
     * for them, a reset of everything for every thread */
    return atomic_load_explicit(&g_store.generation, memory_order_acquire) * 0x9E3779B1u + t_store.epoch;
}

void *opscope_cap_buf_cache_clear(void **table, unsigned *gen, unsigned g, size_t n, size_t size) {
    if (!*table) {
        *table = calloc(n, size);
        if (!*table) {
            return NULL;
        }
        atomic_fetch_add_explicit(&g_store.cache_bytes, n * size, memory_order_relaxed);
    } else {
        memset(*table, 0, n * size);
    }
    *gen = g;
    return *table;
}

static void *chain_alloc(tbuf *b, chain *ch, size_t need) {
    chunk *c = ch->tail;
    if (!c || atomic_load_explicit(&c->used, memory_order_relaxed) + need > CHUNK_BYTES) {
        chunk *n = chunk_new(ch == &b->keep);
        if (!n) {
            return NULL;
        }
        b->keep_chunks += ch == &b->keep;
        if (c) {
            atomic_store_explicit(&c->next, n, memory_order_release);
        } else {
            pthread_mutex_lock(&g_store.lock); /* head is read by exporters */
            ch->head = n;
            pthread_mutex_unlock(&g_store.lock);
        }
        ch->tail = n;
        c = n;
    }
    return c->data + atomic_load_explicit(&c->used, memory_order_relaxed);
}

static void chain_commit(chain *ch, size_t size) {
    chunk *c = ch->tail;
    atomic_store_explicit(&c->used, atomic_load_explicit(&c->used, memory_order_relaxed) + size,
                          memory_order_release);
}

void *opscope_cap_buf_alloc_bytes(size_t need) {
    tbuf *b = my_buf();
    return b ? chain_alloc(b, &b->rec, need) : NULL;
}

void opscope_cap_buf_commit_bytes(size_t size) {
    chain_commit(&t_store.buf->rec, size);
    atomic_store_explicit(&t_store.buf->committed,
                          atomic_load_explicit(&t_store.buf->committed, memory_order_relaxed) + size,
                          memory_order_relaxed);
}

void *opscope_cap_buf_keep_bytes(size_t need) {
    tbuf *b = my_buf();
    return b ? chain_alloc(b, &b->keep, need) : NULL;
}

void opscope_cap_buf_keep_commit(size_t size) {
    chain_commit(&t_store.buf->keep, size);
    atomic_fetch_add_explicit(&g_store.keep_used, size, memory_order_relaxed);
}

/* A record of N_SRC sources in this thread's KEEP or record chain, its size and source count
 * set; NULL when out of memory. */
static opscope_cap_rec *rec_alloc(bool keep, unsigned n_src) {
    size_t need = opscope_cap_rec_size(n_src);
    tbuf *b = my_buf();
    opscope_cap_rec *r = b ? chain_alloc(b, keep ? &b->keep : &b->rec, need) : NULL;
    if (r) {
        r->size = (uint16_t)need;
        r->n_src = (uint8_t)n_src;
    }
    return r;
}

opscope_cap_rec *opscope_cap_buf_alloc(unsigned n_src) {
    return rec_alloc(false, n_src);
}

opscope_cap_rec *opscope_cap_buf_keep_rec(unsigned n_src) {
    return rec_alloc(true, n_src);
}

void opscope_cap_buf_note_dropped(uint64_t n) {
    atomic_fetch_add_explicit(&g_store.dropped, n, memory_order_relaxed);
    t_store.dropped += n;
}

uint64_t opscope_cap_buf_dropped_here(void) {
    return t_store.dropped;
}

bool opscope_cap_buf_drop_oom(void) {
    return atomic_load_explicit(&g_store.drop_oom, memory_order_relaxed);
}

uint64_t opscope_cap_buf_limit(void) {
    return g_store.limit;
}

uint64_t opscope_cap_buf_dropped(void) {
    return atomic_load(&g_store.dropped);
}

uint64_t opscope_cap_buf_bytes(void) {
    return atomic_load(&g_store.bytes);
}

void opscope_cap_buf_usage(opscope_cap_buf_held *h) {
    uint64_t all = atomic_load(&g_store.bytes), keep = atomic_load(&g_store.keep_bytes);
    *h = (opscope_cap_buf_held){.rec_bytes = all > keep ? all - keep : 0, .keep_bytes = keep,
                                .keep_written = atomic_load(&g_store.keep_used),
                                .cache_bytes = atomic_load(&g_store.cache_bytes),
                                .threads = atomic_load(&g_store.n_bufs),
                                .holds = atomic_load_explicit(&g_store.holds, memory_order_relaxed)};
}

/* Calls FN for the committed records of the chain from chunk C, byte OFF on; stores where it
 * stopped in *END_C / *END_OFF (when given). */
static int chain_walk(chunk *c, size_t off, int (*fn)(void *ud, const opscope_cap_rec *r), void *ud,
                      chunk **end_c, size_t *end_off, uint64_t *bytes) {
    while (c) {
        /* next before used: a chunk with a successor is final, and its fill level read
         * after that is complete, so each thread's records come as a gap-free prefix */
        chunk *next = atomic_load_explicit(&c->next, memory_order_acquire);
        size_t used = atomic_load_explicit(&c->used, memory_order_acquire);
        for (; off < used;) {
            const opscope_cap_rec *r = (const opscope_cap_rec *)(c->data + off);
            int rc = fn(ud, r);
            if (rc) {
                return rc;
            }
            off += r->size;
            if (bytes) {
                *bytes += r->size;
            }
        }
        if (end_c) {
            *end_c = c;
            *end_off = off;
        }
        if (!next) {
            break;
        }
        c = next;
        off = 0;
    }
    return 0;
}

int opscope_cap_buf_foreach(int (*fn)(void *ud, const opscope_cap_rec *r), void *ud) {
    for (tbuf *b = atomic_load_explicit(&g_store.bufs, memory_order_acquire); b; b = b->next_buf) {
        pthread_mutex_lock(&g_store.lock);
        chunk *c = b->rec.head, *k = b->keep.head;
        pthread_mutex_unlock(&g_store.lock);
        int rc = chain_walk(k, 0, fn, ud, NULL, NULL, NULL);
        if (!rc) {
            rc = chain_walk(b->took ? b->took : c, b->took ? b->took_off : 0, fn, ud, NULL, NULL, NULL);
        }
        if (rc) {
            return rc;
        }
    }
    return 0;
}

static void chain_free(chunk *c) {
    while (c) {
        chunk *nc = atomic_load(&c->next);
        munmap(c, CHUNK_MAP);
        c = nc;
    }
}

/* Whether nothing points into B's retired chain H any more. Its thread's records committed
 * before it retired are taken; the thread's later ones point into a newer chain. When pending
 * device work held it, that work's records were written by whichever thread saw it complete,
 * in that thread's chain, possibly after the retirement and while a take was walking: so the
 * chain waits until its holds are seen gone here, and then for a take begun after that (it
 * sees every record committed before the last hold was let go) to visit every buffer.
 * Exporter, locked. */
static bool retired_unused(chunk *h, const tbuf *b) {
    if (h->mark > b->taken) {
        return false;
    }
    if (!h->held) {
        return true;
    }
    if (h->clear_take == 0) {
        if (atomic_load_explicit(&h->holds, memory_order_acquire) == 0) {
            h->clear_take = atomic_load_explicit(&g_store.takes, memory_order_relaxed) + 1;
        }
        return false;
    }
    return atomic_load_explicit(&g_store.taken_whole, memory_order_relaxed) >= h->clear_take;
}

/* Frees B's retired kept chains nothing points into (retired_unused). Locked. */
static void free_retired(tbuf *b) {
    for (chunk **pp = &b->retired; *pp;) {
        chunk *h = *pp;
        if (!retired_unused(h, b)) {
            pp = &h->retired_next;
            continue;
        }
        *pp = h->retired_next;
        uint64_t n = 0;
        for (chunk *c = h; c; c = atomic_load_explicit(&c->next, memory_order_relaxed)) {
            n++;
        }
        chain_free(h);
        atomic_fetch_sub(&g_store.bytes, n * CHUNK_BYTES);
        atomic_fetch_sub(&g_store.keep_bytes, n * CHUNK_BYTES);
    }
}

int opscope_cap_buf_take_new(int (*fn)(void *ud, const opscope_cap_rec *r), void *ud) {
    uint64_t take = atomic_load_explicit(&g_store.takes, memory_order_relaxed) + 1;
    atomic_store_explicit(&g_store.takes, take, memory_order_relaxed);
    for (tbuf *b = atomic_load_explicit(&g_store.bufs, memory_order_acquire); b; b = b->next_buf) {
        pthread_mutex_lock(&g_store.lock);
        chunk *c = b->took ? b->took : b->rec.head;
        pthread_mutex_unlock(&g_store.lock);
        b->seen = c;
        b->seen_off = b->took ? b->took_off : 0;
        b->seen_bytes = 0;
        int rc = chain_walk(c, b->seen_off, fn, ud, &b->seen, &b->seen_off, &b->seen_bytes);
        if (rc) {
            b->seen = b->took; /* nothing taken */
            b->seen_off = b->took_off;
            b->seen_bytes = 0;
            return rc;
        }
    }
    atomic_store_explicit(&g_store.taken_whole, take, memory_order_relaxed);
    return 0;
}

void opscope_cap_buf_release_taken(void) {
    for (tbuf *b = atomic_load_explicit(&g_store.bufs, memory_order_acquire); b; b = b->next_buf) {
        if (!b->seen) {
            /* nothing of its own taken, but its retired chains may wait on other threads' */
            pthread_mutex_lock(&g_store.lock);
            free_retired(b);
            pthread_mutex_unlock(&g_store.lock);
            continue;
        }
        /* chunks before the one the take stopped in are wholly taken and final: unmap them
         * (the owner thread only ever touches its tail, which is never among them) */
        pthread_mutex_lock(&g_store.lock);
        chunk *c = b->rec.head;
        while (c && c != b->seen) {
            chunk *nc = atomic_load_explicit(&c->next, memory_order_acquire);
            munmap(c, CHUNK_MAP);
            atomic_fetch_sub(&g_store.bytes, CHUNK_BYTES);
            c = nc;
        }
        b->rec.head = c;
        b->taken += b->seen_bytes;
        b->seen_bytes = 0;
        free_retired(b);
        pthread_mutex_unlock(&g_store.lock);
        b->took = b->seen;
        b->took_off = b->seen_off;
        b->seen = NULL;
    }
}

void opscope_cap_buf_reset_all(void) {
    pthread_mutex_lock(&g_store.lock);
    tbuf *b = atomic_exchange(&g_store.bufs, NULL);
    atomic_fetch_add_explicit(&g_store.generation, 1, memory_order_release);
    pthread_mutex_unlock(&g_store.lock);
    while (b) {
        tbuf *nb = b->next_buf;
        chain_free(b->rec.head);
        chain_free(b->keep.head);
        while (b->retired) {
            chunk *h = b->retired;
            b->retired = h->retired_next;
            chain_free(h);
        }
        free(b);
        b = nb;
    }
    atomic_store(&g_store.bytes, 0);
    atomic_store(&g_store.keep_bytes, 0);
    atomic_store(&g_store.keep_used, 0);
    atomic_store(&g_store.n_bufs, 0);
    atomic_store(&g_store.dropped, 0);
    atomic_store(&g_store.drop_oom, false);
    t_store.dropped = 0;
    t_store.buf = NULL;
    atomic_store(&g_store.renew, false);
    atomic_store(&g_store.holds, 0);
    atomic_store(&g_store.takes, 0);
    atomic_store(&g_store.taken_whole, 0);
}

/* A kept chain this many chunks long is renewed at its thread's next safe point; a chain that
 * filled up within RENEW_FAST safe points (a working set that large, not growth) doubles the
 * thread's threshold instead of being renewed at every compute. */
#define RENEW_CHUNKS 3u
#define RENEW_FAST 256u

void opscope_cap_buf_renew_enable(bool on) {
    atomic_store(&g_store.renew, on);
}

opscope_cap_keep_hold opscope_cap_buf_keep_hold(void) {
    tbuf *b = t_store.buf;
    unsigned gen = atomic_load_explicit(&g_store.generation, memory_order_relaxed);
    if (!b || t_store.generation != gen || !b->keep.head) {
        return (opscope_cap_keep_hold){NULL, gen};
    }
    chunk *h = b->keep.head;
    h->held = true;
    atomic_fetch_add_explicit(&h->holds, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&g_store.holds, 1, memory_order_relaxed);
    return (opscope_cap_keep_hold){h, gen};
}

void opscope_cap_buf_keep_unhold(opscope_cap_keep_hold h) {
    /* a hold from before opscope_cap_buf_reset_all points at a chain already freed */
    if (!h.chain || h.gen != atomic_load_explicit(&g_store.generation, memory_order_acquire)) {
        return;
    }
    atomic_fetch_sub_explicit(&g_store.holds, 1, memory_order_relaxed);
    /* release: the records written for the held work come before the exporter sees 0; the
     * chunk is not touched after this (it may be freed from then on) */
    atomic_fetch_sub_explicit(&((chunk *)h.chain)->holds, 1, memory_order_release);
}

void opscope_cap_buf_safe_point(void) {
    tbuf *b = t_store.buf;
    if (!b || t_store.generation != atomic_load_explicit(&g_store.generation, memory_order_relaxed)) {
        return;
    }
    b->safe_points++;
    if (b->renew_at == 0) {
        b->renew_at = RENEW_CHUNKS;
    }
    if (b->keep_chunks < b->renew_at || !atomic_load_explicit(&g_store.renew, memory_order_relaxed)) {
        return;
    }
    if (b->safe_points < RENEW_FAST && b->renew_at < (1u << 12)) {
        b->renew_at *= 2; /* the working set: keep it */
        b->safe_points = 0;
        return;
    }
    pthread_mutex_lock(&g_store.lock);
    chunk *h = b->keep.head;
    if (h) {
        /* retired while held too: the holds keep it (retired_unused), not the renewal */
        h->mark = atomic_load_explicit(&b->committed, memory_order_relaxed);
        h->clear_take = 0;
        h->retired_next = b->retired;
        b->retired = h;
    }
    b->keep.head = b->keep.tail = NULL;
    pthread_mutex_unlock(&g_store.lock);
    b->keep_chunks = 0;
    b->safe_points = 0;
    t_store.epoch++; /* this thread's caches of record pointers start again */
}
