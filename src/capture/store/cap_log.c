/* cap_log.c - the capture's record log: flushes of what is new (see cap_log.h). */
#include "capture/store/cap_log.h"

#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_convert.h"
#include "capture/store/cap_counters.h"
#include "capture/store/cap_decodes.h"
#include "capture/store/cap_drops.h"
#include "capture/store/cap_meta.h"
#include "capture/store/cap_replay.h"
#include "capture/store/cap_run.h"
#include "capture/store/cap_tables.h"
#include "capture/store/cap_window.h"
#include "model/oplog_rec.h"
#include "model/oplog_run.h"
#include "model/oplog_win.h"
#include "util/hash.h"
#include "util/hindex.h"
#include "util/oplog.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A template the log holds (or is about to): its bytes' second hash and length (the index
 * keys on the first), whether a chunk that defines it reached the file, and the flush that
 * last defined it (a template is defined again after a flush that failed). */
typedef struct tmpl_ent {
    uint64_t h2;
    uint32_t len;
    bool written;
    uint64_t defined_in;
} tmpl_ent;

/* The log's state: the exporting thread's alone (cap_log.h). */
static struct {
    bool on;
    char path[4096];
    uint64_t max_bytes;
    int fd;                  /* -1 until the first flush with records created the file */
    uint64_t size;           /* bytes of the file: every chunk before is whole */
    uint64_t records, last_bytes;
    uint64_t flush_seq;
    int backends_written;
    uint64_t drops_written;  /* dropped records the last DROPS chunk said */
    opscope_cap_decodes_cursor decodes; /* libllama's batches: where the DECODES chunks stand */
    uint64_t run_hash;       /* the last RUN chunk that reached the file (0: none) */
    uint64_t run_pending;    /* the one this flush appends (0: none) */
    uint64_t win_gen;        /* the windows' generation the last WINDOWS chunk in the file said */
    uint64_t win_pending;    /* the one this flush appends (0: none) */
    bool full;               /* the cap was reached: every later record is dropped too */
    opscope_hindex index;
    OPSCOPE_VEC(tmpl_ent) tmpls;
    OPSCOPE_VEC(uint32_t) defined; /* templates this flush defines */
    opscope_cap_gather g;
    opscope_oplog_buf out, payload, tmpl_bytes, inst, one;
    void *scratch;           /* the sort's scratch: mmap'd, so the watcher makes no heap call */
    size_t scratch_size;
} g_log = {.fd = -1};

/* The sort's scratch for N entries: the log's own mapping, grown by mremap (NULL when the
 * kernel refuses; the flush then sorts with qsort). */
static opscope_cap_gather_ent *sort_scratch(size_t n) {
    size_t need = n * sizeof(opscope_cap_gather_ent);
    if (need > g_log.scratch_size) {
        size_t size = g_log.scratch_size ? g_log.scratch_size : 1u << 16;
        while (size < need) size *= 2;
        void *p = g_log.scratch ? mremap(g_log.scratch, g_log.scratch_size, size, MREMAP_MAYMOVE)
                                : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            return NULL;
        }
        g_log.scratch = p;
        g_log.scratch_size = size;
    }
    return g_log.scratch;
}

void opscope_cap_log_start(const char *path, uint64_t max_bytes) {
    opscope_cap_log_close();
    opscope_hindex_free(&g_log.index);
    memset(&g_log.index, 0, sizeof g_log.index);
    g_log.tmpls.n = 0;
    g_log.size = g_log.records = g_log.last_bytes = 0;
    g_log.backends_written = 0;
    g_log.drops_written = 0;
    g_log.decodes = (opscope_cap_decodes_cursor){0};
    g_log.run_hash = g_log.run_pending = 0;
    g_log.win_gen = g_log.win_pending = 0;
    g_log.full = false;
    snprintf(g_log.path, sizeof g_log.path, "%s", path);
    g_log.max_bytes = max_bytes;
    g_log.g.sched = -2;
    g_log.on = true;
    opscope_cap_buf_renew_enable(true); /* the flushes take every record: kept chains may renew */
}

bool opscope_cap_log_on(void) {
    return g_log.on;
}

bool opscope_cap_log_exists(void) {
    return g_log.fd >= 0;
}

int opscope_cap_log_fd(void) {
    return g_log.fd;
}

uint64_t opscope_cap_log_records(void) {
    return g_log.records;
}

uint64_t opscope_cap_log_bytes(void) {
    return g_log.size;
}

uint64_t opscope_cap_log_last_bytes(void) {
    return g_log.last_bytes;
}

static void set_why(char *why, size_t size, const char *what, int e) {
    if (why && size) {
        snprintf(why, size, "%s%s%s", what, e ? ": " : "", e ? strerror(e) : "");
    }
}

/* Appends a chunk of TYPE holding P (N bytes) to g_log.out. */
static int put_chunk(uint32_t type, const opscope_oplog_buf *p) {
    size_t n = p->n;
    if (opscope_vec_reserve((void **)&g_log.out.v, &g_log.out.cap, g_log.out.n + OPSCOPE_OPLOG_CHUNK_HEAD + n,
                            1, 1u << 16)) {
        return -1;
    }
    opscope_oplog_chunk_head(g_log.out.v + g_log.out.n, type, p->v, (uint32_t)n);
    if (n) {
        memcpy(g_log.out.v + g_log.out.n + OPSCOPE_OPLOG_CHUNK_HEAD, p->v, n);
    }
    g_log.out.n += OPSCOPE_OPLOG_CHUNK_HEAD + n;
    return 0;
}

static int put_meta(void) {
    const opscope_capture_info *c = opscope_cap_meta_facts();
    opscope_oplog_buf *b = &g_log.one;
    b->n = 0;
    int e = opscope_oplog_put_str(b, c->host) | opscope_oplog_put_str(b, c->program) |
            opscope_oplog_put_str(b, c->clock) | opscope_oplog_put_str(b, c->boot_id) |
            opscope_oplog_put_i(b, c->pid) | opscope_oplog_put_u(b, c->time_ns) |
            opscope_oplog_put_i(b, c->realtime_offset_ns) | opscope_oplog_put_u(b, c->start_ns) |
            opscope_oplog_put_u(b, c->has);
    return e ? -1 : put_chunk(OPSCOPE_OPLOG_META, b);
}

/* Writes all of P (N bytes) at the end of the file; on failure the file is cut back to its
 * last whole chunk, so a later flush still appends after intact data. */
static int append(const unsigned char *p, size_t n, int *err) {
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(g_log.fd, p + done, n - done);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            *err = w < 0 ? errno : ENOSPC;
            if (ftruncate(g_log.fd, (off_t)g_log.size) == 0) {
                (void)lseek(g_log.fd, (off_t)g_log.size, SEEK_SET);
            }
            return -1;
        }
        done += (size_t)w;
    }
    g_log.size += n;
    return 0;
}

/* Creates the log: a temporary file beside PATH with the file header and META, renamed over
 * PATH (an earlier profile there stays until a whole log replaces it). */
static int create(char *why, size_t why_size) {
    char tmp[sizeof g_log.path + 16];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", g_log.path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        set_why(why, why_size, "cannot create the record log", errno);
        return -1;
    }
    (void)fchmod(fd, 0644);
    g_log.fd = fd;
    g_log.size = 0;
    g_log.out.n = 0;
    unsigned char head[OPSCOPE_OPLOG_HEAD];
    opscope_oplog_file_head(head);
    int e = 0;
    if (opscope_vec_reserve((void **)&g_log.out.v, &g_log.out.cap, OPSCOPE_OPLOG_HEAD, 1, 1u << 16) == 0) {
        memcpy(g_log.out.v, head, OPSCOPE_OPLOG_HEAD);
        g_log.out.n = OPSCOPE_OPLOG_HEAD;
    }
    if (g_log.out.n != OPSCOPE_OPLOG_HEAD || put_meta() || append(g_log.out.v, g_log.out.n, &e) ||
        rename(tmp, g_log.path) != 0) {
        set_why(why, why_size, "cannot create the record log", e ? e : errno);
        close(fd);
        unlink(tmp);
        g_log.fd = -1;
        return -1;
    }
    g_log.out.n = 0;
    return 0;
}

/* Backends added since the last flush; returns how many the log will then hold. */
static int put_backends(void) {
    int nb = opscope_cap_backend_count();
    for (int i = g_log.backends_written; i < nb; i++) {
        const opscope_cap_backend *cb = opscope_cap_backend_at(i);
        opscope_oplog_buf *b = &g_log.one;
        b->n = 0;
        if (opscope_oplog_put_u(b, (uint64_t)i) | opscope_oplog_put_str(b, cb->name) |
            opscope_oplog_put_str(b, cb->device) | opscope_oplog_put_u(b, (uint64_t)cb->device_type) ||
            put_chunk(OPSCOPE_OPLOG_BACKEND, b)) {
            return i;
        }
    }
    return nb;
}

static bool tmpl_eq(const void *ctx, uint32_t id, const void *key) {
    (void)ctx;
    const tmpl_ent *k = key;
    return g_log.tmpls.v[id].h2 == k->h2 && g_log.tmpls.v[id].len == k->len;
}

/* The id of the template in g_log.one (defining it in this chunk when the log lacks it), or
 * UINT32_MAX when out of memory. */
static uint32_t tmpl_id(void) {
    const opscope_oplog_buf *t = &g_log.one;
    uint64_t h = opscope_hash_bytes(t->v, t->n);
    tmpl_ent key = {.h2 = opscope_fnv1a(OPSCOPE_FNV_BASIS, t->v, t->n), .len = (uint32_t)t->n};
    uint32_t id = g_log.index.slots ? opscope_hindex_find(&g_log.index, h, &key, tmpl_eq, NULL)
                                    : OPSCOPE_HINDEX_NONE;
    if (id == OPSCOPE_HINDEX_NONE) {
        if ((!g_log.index.slots && opscope_hindex_init(&g_log.index, 1024)) ||
            OPSCOPE_VEC_PUSH(g_log.tmpls, key)) {
            return UINT32_MAX;
        }
        id = (uint32_t)(g_log.tmpls.n - 1);
        if (opscope_hindex_add(&g_log.index, h, id)) {
            g_log.tmpls.n--;
            return UINT32_MAX;
        }
    }
    tmpl_ent *e = &g_log.tmpls.v[id];
    if (!e->written && e->defined_in != g_log.flush_seq) {
        e->defined_in = g_log.flush_seq;
        if (OPSCOPE_VEC_PUSH(g_log.defined, id) || opscope_oplog_put_u(&g_log.tmpl_bytes, id)) {
            return UINT32_MAX;
        }
        size_t at = g_log.tmpl_bytes.n;
        if (opscope_vec_reserve((void **)&g_log.tmpl_bytes.v, &g_log.tmpl_bytes.cap, at + t->n, 1, 4096)) {
            return UINT32_MAX;
        }
        memcpy(g_log.tmpl_bytes.v + at, t->v, t->n);
        g_log.tmpl_bytes.n += t->n;
    }
    return id;
}

/* Encodes the gathered records (sorted) as one RECORDS chunk into g_log.out. */
static int put_records(void) {
    opscope_cap_gather *g = &g_log.g;
    g_log.tmpl_bytes.n = 0;
    g_log.inst.n = 0;
    g_log.defined.n = 0;
    opscope_oplog_state st = {0};
    uint64_t total = 0;
    opscope_record rec;
    opscope_cap_strbuf sb;
    for (size_t i = 0; i < g->n; i++) {
        opscope_cap_convert_any(g->v[i].r, g->v[i].step, &rec, &sb);
        g_log.one.n = 0;
        if (opscope_oplog_put_tmpl(&g_log.one, &rec)) {
            return -1;
        }
        opscope_oplog_inst in = {
            .tmpl = tmpl_id(),
            .key = opscope_cap_ticks_to_ns(g->v[i].t0),
            .key_end = opscope_cap_ticks_to_ns(g->v[i].t1),
            .graph = rec.graph_id,
            .start_ns = rec.start_ns,
            .duration_ns = rec.duration_ns,
            .host_start_ns = rec.host_start_ns,
            .host_end_ns = rec.host_end_ns,
        };
        if (rec.has & OPSCOPE_HAS_THREADS) {
            in.threads = rec.threads;
            in.n_threads = rec.n_threads;
            in.thread_cpus = rec.thread_cpus;
        }
        if (in.tmpl == UINT32_MAX ||
            opscope_oplog_put_inst(&g_log.inst, &st, &in, (rec.has & OPSCOPE_HAS_GRAPH) != 0) ||
            ((rec.has & OPSCOPE_HAS_THREADS) && opscope_oplog_put_threads(&g_log.inst, &in))) {
            return -1;
        }
        total += in.key_end > in.key ? in.key_end - in.key : 0;
    }
    opscope_oplog_buf *p = &g_log.payload;
    p->n = 0;
    if (opscope_oplog_put_u(p, g->n) || opscope_oplog_put_u(p, total) ||
        opscope_oplog_put_u(p, g_log.defined.n) ||
        opscope_vec_reserve((void **)&p->v, &p->cap, p->n + g_log.tmpl_bytes.n + g_log.inst.n, 1, 4096)) {
        return -1;
    }
    if (g_log.tmpl_bytes.n) {
        memcpy(p->v + p->n, g_log.tmpl_bytes.v, g_log.tmpl_bytes.n);
    }
    p->n += g_log.tmpl_bytes.n;
    if (g_log.inst.n) {
        memcpy(p->v + p->n, g_log.inst.v, g_log.inst.n);
    }
    p->n += g_log.inst.n;
    if (p->n > OPSCOPE_OPLOG_MAX_CHUNK) {
        return -1;
    }
    return put_chunk(OPSCOPE_OPLOG_RECORDS, p);
}

static int put_drops(void) {
    opscope_meta m = {0};
    opscope_cap_drops_meta(&m);
    if (m.dropped_records == g_log.drops_written) {
        return 0;
    }
    opscope_oplog_buf *b = &g_log.one;
    b->n = 0;
    if (opscope_oplog_put_u(b, m.dropped_records) | opscope_oplog_put_u(b, m.dropped_graphs) |
        opscope_oplog_put_i(b, m.dropped_first_graph) | opscope_oplog_put_i(b, m.dropped_last_graph) |
        opscope_oplog_put_u(b, m.capture_cap_mb) | opscope_oplog_put_u(b, (uint64_t)m.dropped_cause) ||
        put_chunk(OPSCOPE_OPLOG_DROPS, b)) {
        return -1;
    }
    g_log.drops_written = m.dropped_records;
    return 0;
}

/* libllama's batches since the last DECODES chunk (cap_decodes.h), as one chunk. Returns 0
 * (also when none are new) or -1; *AT0 receives the cursor before, to take back. */
static int put_decodes(opscope_cap_decodes_cursor *at0) {
    opscope_oplog_buf *b = &g_log.one;
    b->n = 0;
    *at0 = g_log.decodes;
    int n = opscope_cap_decodes_put(b, &g_log.decodes);
    if (n < 0 || b->n == 0) {
        return n < 0 ? -1 : 0;
    }
    if (put_chunk(OPSCOPE_OPLOG_DECODES, b)) {
        g_log.decodes = *at0;
        return -1;
    }
    return 0;
}

/* What ran (cap_run.h), when it changed since the last RUN chunk that reached the file: a
 * killed run's log then says its command line, models and llama contexts. */
static int put_run(void) {
    const opscope_run_info *run = opscope_cap_run_get_base(); /* no calls: they go in DECODES */
    if (!run) {
        return 0; /* the tables are busy: the next flush says it */
    }
    opscope_oplog_buf *b = &g_log.one;
    b->n = 0;
    if (opscope_oplog_put_run(b, run)) {
        return -1;
    }
    uint64_t h = opscope_hash_bytes(b->v, b->n) | 1;
    if (h == g_log.run_hash || b->n > OPSCOPE_OPLOG_MAX_CHUNK || put_chunk(OPSCOPE_OPLOG_RUN, b)) {
        return 0;
    }
    g_log.run_pending = h;
    return 0;
}

/* The windows and marks (cap_window.h), when they changed since the last WINDOWS chunk that
 * reached the file, and always once when windowed. The tables are copied into static arrays:
 * the watcher's flush makes no heap call for them. */
static int put_windows(void) {
    static opscope_window w[OPSCOPE_WIN_MAX_WINDOWS];
    static opscope_mark m[OPSCOPE_WIN_MAX_MARKS];
    uint64_t gen = opscope_cap_window_gen() + 1; /* never 0: 0 is "none written" */
    if (gen == g_log.win_gen) {
        return 0;
    }
    size_t nw, nm;
    bool windowed = opscope_cap_window_get(w, OPSCOPE_WIN_MAX_WINDOWS, &nw, m, OPSCOPE_WIN_MAX_MARKS, &nm);
    if (!windowed && !nm) {
        return 0;
    }
    opscope_oplog_buf *b = &g_log.one;
    b->n = 0;
    if (opscope_oplog_put_win(b, windowed, w, nw, m, nm) || put_chunk(OPSCOPE_OPLOG_WINDOWS, b)) {
        return -1;
    }
    g_log.win_pending = gen;
    return 0;
}

static int put_end(const char *how, const char *sig) {
    opscope_oplog_buf *b = &g_log.one;
    b->n = 0;
    int e = opscope_oplog_put_str(b, how) | opscope_oplog_put_str(b, sig) |
            opscope_oplog_put_u(b, opscope_cap_mono_ns()) | opscope_oplog_put_u(b, 0);
    return e ? -1 : put_chunk(OPSCOPE_OPLOG_END, b);
}

static int by_id(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The graphs this flush's records belonged to, as the drop ledger's (cap_drops.h). */
static void note_graphs(void) {
    opscope_cap_gather *g = &g_log.g;
    int64_t *ids = malloc(g->n * sizeof *ids);
    if (!ids) {
        return;
    }
    size_t n = 0;
    opscope_record rec;
    opscope_cap_strbuf sb;
    for (size_t i = 0; i < g->n; i++) {
        opscope_cap_convert_any(g->v[i].r, g->v[i].step, &rec, &sb);
        if (rec.has & OPSCOPE_HAS_GRAPH) {
            ids[n++] = rec.graph_id;
        }
    }
    qsort(ids, n, sizeof *ids, by_id);
    uint64_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        distinct += i == 0 || ids[i] != ids[i - 1];
    }
    if (n) {
        opscope_cap_drops_log_full(ids[0], ids[n - 1], distinct);
    }
    free(ids);
}

/* This flush's records are lost (cap, write error): counted as drops. */
static void lose(uint64_t n) {
    if (n) {
        opscope_cap_buf_note_dropped(n);
    }
    for (size_t k = 0; k < g_log.defined.n; k++) {
        g_log.tmpls.v[g_log.defined.v[k]].defined_in = 0; /* define again when used again */
    }
}

int opscope_cap_log_flush(const char *how, const char *sig, char *why, size_t why_size) {
    if (why && why_size) {
        why[0] = '\0';
    }
    g_log.g.n = 0;
    g_log.g.oom = false;
    int rc = opscope_cap_buf_take_new(opscope_cap_gather_one, &g_log.g);
    if (rc || g_log.g.oom) {
        set_why(why, why_size, "out of memory", 0);
        return -1; /* nothing taken: the records wait for the next flush */
    }
    if (g_log.fd < 0 && create(why, why_size)) {
        return -1; /* they wait in memory too (up to the buffers' cap) */
    }
    g_log.flush_seq++;
    g_log.out.n = 0;
    g_log.defined.n = 0;
    int nb_after = put_backends();
    size_t before_records = g_log.out.n;
    uint64_t n = g_log.g.n;
    opscope_cap_gather_ent *tmp = sort_scratch(n);
    if (tmp) {
        opscope_cap_gather_sort_with(&g_log.g, tmp);
    } else {
        opscope_cap_gather_sort(&g_log.g);
    }
    opscope_cap_clock_calibrate();
    if (n && put_records()) {
        g_log.out.n = before_records;
        lose(n);
        n = 0;
        set_why(why, why_size, "out of memory", 0);
    } else if (n && (g_log.full || (g_log.max_bytes && g_log.size + g_log.out.n > g_log.max_bytes))) {
        g_log.out.n = before_records; /* the cap: OPSCOPE_MAX_MB bounds the log on disk */
        g_log.full = true;             /* and what comes later is dropped too: one gap, at the end */
        note_graphs();
        lose(n);
        n = 0;
    }
    opscope_cap_buf_release_taken(); /* taken: in g_log.out, or counted as dropped */
    opscope_cap_decodes_cursor decodes0;
    put_decodes(&decodes0); /* out of memory: they wait for the next flush */
    put_drops();
    g_log.run_pending = 0;
    put_run();
    g_log.win_pending = 0;
    put_windows(); /* out of memory: the next flush writes them */
    put_end(how, sig);
    int e = 0;
    uint64_t size0 = g_log.size;
    if (append(g_log.out.v, g_log.out.n, &e)) {
        lose(n);
        g_log.drops_written = UINT64_MAX;
        g_log.decodes = decodes0; /* written again by the next flush */
        set_why(why, why_size, "cannot write the record log", e);
        return -1;
    }
    g_log.backends_written = nb_after;
    opscope_cap_decodes_release(g_log.decodes.next); /* in the file: memory holds only what is not */
    if (g_log.run_pending) {
        g_log.run_hash = g_log.run_pending;
    }
    if (g_log.win_pending) {
        g_log.win_gen = g_log.win_pending;
    }
    for (size_t k = 0; k < g_log.defined.n; k++) {
        g_log.tmpls.v[g_log.defined.v[k]].written = true;
    }
    g_log.records += n;
    g_log.last_bytes = g_log.size - size0;
    return 0;
}

void opscope_cap_log_close(void) {
    opscope_cap_buf_renew_enable(false); /* no flush takes records any more */
    if (g_log.fd >= 0) {
        close(g_log.fd);
        g_log.fd = -1;
    }
}

size_t opscope_cap_log_usage_line(char *buf, size_t size) {
    opscope_cap_buf_held b;
    opscope_cap_buf_usage(&b);
    opscope_cap_decodes_held d;
    opscope_cap_decodes_usage(&d);
    /* the log's own tables: templates (kept for the log's life: ids are the log's) and the
     * flush's buffers (reused, so their capacity is the largest flush so far) */
    uint64_t tmpl = g_log.tmpls.cap * sizeof *g_log.tmpls.v +
                    (g_log.index.slots ? (g_log.index.mask + 1) * sizeof *g_log.index.slots : 0);
    uint64_t bufs = g_log.out.cap + g_log.payload.cap + g_log.tmpl_bytes.cap + g_log.inst.cap + g_log.one.cap +
                    g_log.defined.cap * sizeof *g_log.defined.v;
    struct mallinfo2 mi = mallinfo2(); /* every arena: the program's and the capture's */
    int n = snprintf(buf, size,
                     "opscope: mem: mono_s=%.1f records=%llu log_records=%llu rec_kb=%llu keep_kb=%llu "
                     "keep_written_kb=%llu descs=%llu caches_kb=%llu threads=%llu log_tmpls=%zu log_tmpl_kb=%llu "
                     "log_bufs_kb=%llu gather_kb=%llu decodes_held=%u decodes_kb=%llu dropped=%llu "
                     "malloc_arena_kb=%zu malloc_used_kb=%zu malloc_free_kb=%zu malloc_mmap_kb=%zu\n",
                     (double)opscope_cap_mono_ns() / 1e9,
                     (unsigned long long)atomic_load(&opscope_cap_stats.records),
                     (unsigned long long)g_log.records, (unsigned long long)(b.rec_bytes >> 10),
                     (unsigned long long)(b.keep_bytes >> 10), (unsigned long long)(b.keep_written >> 10),
                     (unsigned long long)atomic_load(&opscope_cap_stats.descs),
                     (unsigned long long)(b.cache_bytes >> 10), (unsigned long long)b.threads, g_log.tmpls.n,
                     (unsigned long long)(tmpl >> 10), (unsigned long long)(bufs >> 10),
                     (unsigned long long)((g_log.g.cap * sizeof *g_log.g.v) >> 10), d.calls,
                     (unsigned long long)(d.bytes >> 10), (unsigned long long)opscope_cap_buf_dropped(),
                     mi.arena >> 10, mi.uordblks >> 10, mi.fordblks >> 10, mi.hblkhd >> 10);
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}
