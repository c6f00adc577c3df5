/* live.c - the figures of a running capture (see live.h). */
#include "analyze/live/live.h"

#include "analyze/record/derived.h"
#include "util/hash.h"
#include "util/hindex.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

#define NS_PER_S 1000000000ull
/* A sequence's request is in flight while it had a batch this recently. */
#define IN_FLIGHT_NS (2ull * NS_PER_S)

/* One second's sums. sec + 1 (0: unused), so second 0 of the clock is a bucket too. */
typedef struct bucket {
    uint64_t sec1;
    uint64_t ns, calls, bytes;
} bucket;

typedef struct group {
    uint64_t hash;
    opscope_record_type type;
    int32_t backend_id;
    char *display;
    uint64_t total_ns, total_calls, total_bytes;
    bucket *ring; /* window buckets */
} group;

typedef struct backend {
    int32_t id;
    char *name, *device;
    uint64_t total_ns;
    bucket *ring;
} backend;

/* A llama sequence (context, seq): its request, its latest batch's end, and what the request
 * counted so far (taken back when it turns out a warm-up). */
typedef struct seq_state {
    int32_t context, seq;
    uint32_t request;
    uint64_t last_ns;
    uint64_t req_prompt, req_gen; /* the request's tokens counted */
    uint64_t last_call;           /* its context's call number of the request's latest batch */
} seq_state;

/* A llama context's calls so far (numbered from 1). */
typedef struct ctx_state {
    int32_t context;
    uint64_t calls;
} ctx_state;

struct opscope_live {
    unsigned window;
    OPSCOPE_VEC(group) groups;
    opscope_hindex ix;
    OPSCOPE_VEC(uint32_t) by_tmpl; /* template id -> group + 1 (0: not yet) */
    OPSCOPE_VEC(backend) backends;
    OPSCOPE_VEC(seq_state) seqs;
    OPSCOPE_VEC(ctx_state) ctxs;
    OPSCOPE_VEC(opscope_live_row) rows;
    OPSCOPE_VEC(opscope_live_backend) brows;
    bucket tok_ring[OPSCOPE_LIVE_MAX_WINDOW]; /* ns: prompt tokens, calls: generated */
    uint64_t first_ns, now_ns, clock_ns, records, decodes, prompt, gen;
    uint32_t requests;
};

opscope_live_t *opscope_live_new(unsigned window_s) {
    opscope_live_t *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->window = window_s < 1 ? 1 : window_s > OPSCOPE_LIVE_MAX_WINDOW ? OPSCOPE_LIVE_MAX_WINDOW : window_s;
    if (opscope_hindex_init(&l->ix, 64)) {
        free(l);
        return NULL;
    }
    return l;
}

unsigned opscope_live_window(const opscope_live_t *l) {
    return l->window;
}

void opscope_live_free(opscope_live_t *l) {
    if (!l) return;
    for (size_t i = 0; i < l->groups.n; i++) {
        free(l->groups.v[i].display);
        free(l->groups.v[i].ring);
    }
    for (size_t i = 0; i < l->backends.n; i++) {
        free(l->backends.v[i].name);
        free(l->backends.v[i].device);
        free(l->backends.v[i].ring);
    }
    free(l->groups.v);
    free(l->by_tmpl.v);
    free(l->backends.v);
    free(l->seqs.v);
    free(l->ctxs.v);
    free(l->rows.v);
    free(l->brows.v);
    opscope_hindex_free(&l->ix);
    free(l);
}

/* Adds to the bucket of second SEC in RING (W buckets): a bucket holding an older second is
 * reset, one holding a newer second (the record is older than the window) is left alone. */
static void ring_add(bucket *ring, unsigned w, uint64_t sec, uint64_t ns, uint64_t calls, uint64_t bytes) {
    bucket *b = &ring[sec % w];
    if (b->sec1 > sec + 1) return;
    if (b->sec1 != sec + 1) *b = (bucket){sec + 1, 0, 0, 0};
    b->ns += ns;
    b->calls += calls;
    b->bytes += bytes;
}

/* The sums of RING's buckets in the W seconds up to NOW_SEC. */
static bucket ring_sum(const bucket *ring, unsigned w, uint64_t now_sec) {
    bucket s = {0, 0, 0, 0};
    for (unsigned i = 0; i < w; i++) {
        uint64_t sec = ring[i].sec1 - 1;
        if (ring[i].sec1 && sec <= now_sec && sec + w > now_sec) {
            s.ns += ring[i].ns;
            s.calls += ring[i].calls;
            s.bytes += ring[i].bytes;
        }
    }
    return s;
}

static backend *find_backend(opscope_live_t *l, int32_t id) {
    for (size_t i = 0; i < l->backends.n; i++)
        if (l->backends.v[i].id == id) return &l->backends.v[i];
    return NULL;
}

static char *dup_or_empty(const char *s) {
    return strdup(s ? s : "");
}

int opscope_live_add_backend(opscope_live_t *l, const opscope_backend *b) {
    backend *e = find_backend(l, b->id);
    if (e) return 0; /* a backend is said once; the first naming stays */
    backend nb = {b->id, dup_or_empty(b->name), dup_or_empty(b->device), 0, calloc(l->window, sizeof(bucket))};
    if (!nb.name || !nb.device || !nb.ring || OPSCOPE_VEC_PUSH(l->backends, nb)) {
        free(nb.name);
        free(nb.device);
        free(nb.ring);
        return -1;
    }
    return 0;
}

typedef struct group_key {
    opscope_record_type type;
    int32_t backend_id;
    const char *display;
} group_key;

static bool group_eq(const void *ctx, uint32_t id, const void *key) {
    const opscope_live_t *l = ctx;
    const group_key *k = key;
    const group *g = &l->groups.v[id];
    return g->type == k->type && g->backend_id == k->backend_id && strcmp(g->display, k->display) == 0;
}

/* The group of REC (made when new): its index, or -1 when out of memory. */
static long find_group(opscope_live_t *l, const opscope_record *rec) {
    opscope_derived d;
    opscope_derived_init(&d, rec);
    char buf[512];
    group_key k = {rec->type, rec->backend_id, opscope_derived_display(&d, buf, sizeof buf)};
    uint64_t h = opscope_hash_bytes(k.display, strlen(k.display)) ^
                 opscope_mix64((uint64_t)(uint32_t)rec->backend_id << 8 ^ (uint64_t)rec->type);
    uint32_t found = opscope_hindex_find(&l->ix, h, &k, group_eq, l);
    if (found != OPSCOPE_HINDEX_NONE) return (long)found;
    group g = {h, rec->type, rec->backend_id, strdup(k.display), 0, 0, 0, calloc(l->window, sizeof(bucket))};
    if (!g.display || !g.ring || OPSCOPE_VEC_PUSH(l->groups, g)) {
        free(g.display);
        free(g.ring);
        return -1;
    }
    if (opscope_hindex_add(&l->ix, h, (uint32_t)(l->groups.n - 1))) {
        l->groups.n--;
        free(g.display);
        free(g.ring);
        return -1;
    }
    return (long)(l->groups.n - 1);
}

/* The group of REC through the template cache. -1 when out of memory. */
static long group_of(opscope_live_t *l, const opscope_record *rec, uint32_t tmpl) {
    if (tmpl != OPSCOPE_LIVE_NO_TMPL && tmpl < l->by_tmpl.n && l->by_tmpl.v[tmpl])
        return (long)l->by_tmpl.v[tmpl] - 1;
    long gi = find_group(l, rec);
    if (gi < 0 || tmpl == OPSCOPE_LIVE_NO_TMPL) return gi;
    if (tmpl >= l->by_tmpl.n) {
        size_t want = (size_t)tmpl + 1;
        if (opscope_vec_reserve((void **)&l->by_tmpl.v, &l->by_tmpl.cap, want, sizeof *l->by_tmpl.v, 256))
            return gi; /* uncached: found by name next time */
        memset(l->by_tmpl.v + l->by_tmpl.n, 0, (want - l->by_tmpl.n) * sizeof *l->by_tmpl.v);
        l->by_tmpl.n = want;
    }
    l->by_tmpl.v[tmpl] = (uint32_t)gi + 1;
    return gi;
}

static void see_time(opscope_live_t *l, uint64_t start, uint64_t end) {
    if (!l->first_ns || start < l->first_ns) l->first_ns = start;
    if (end > l->now_ns) l->now_ns = end;
}

int opscope_live_add_record(opscope_live_t *l, const opscope_record *rec, uint32_t tmpl) {
    long gi = group_of(l, rec, tmpl);
    if (gi < 0) return -1;
    group *g = &l->groups.v[gi];
    uint64_t bytes = rec->type == OPSCOPE_RECORD_COPY ? rec->bytes : 0;
    g->total_ns += rec->duration_ns;
    g->total_calls++;
    g->total_bytes += bytes;
    uint64_t sec = rec->start_ns / NS_PER_S;
    ring_add(g->ring, l->window, sec, rec->duration_ns, 1, bytes);
    backend *b = find_backend(l, rec->backend_id);
    if (!b) {
        opscope_backend nb = {.id = rec->backend_id, .name = "?", .device = ""};
        if (opscope_live_add_backend(l, &nb)) return -1;
        b = find_backend(l, rec->backend_id);
    }
    b->total_ns += rec->duration_ns;
    ring_add(b->ring, l->window, sec, rec->duration_ns, 1, 0);
    see_time(l, rec->start_ns, rec->start_ns + rec->duration_ns);
    l->records++;
    return 0;
}

/* The state of sequence (CONTEXT, SEQ), made when new; NULL when out of memory. */
static seq_state *find_seq(opscope_live_t *l, int32_t context, int32_t seq) {
    for (size_t i = 0; i < l->seqs.n; i++)
        if (l->seqs.v[i].context == context && l->seqs.v[i].seq == seq) return &l->seqs.v[i];
    seq_state s = {context, seq, UINT32_MAX, 0, 0, 0, 0};
    if (OPSCOPE_VEC_PUSH(l->seqs, s)) return NULL;
    return &l->seqs.v[l->seqs.n - 1];
}

/* Context CONTEXT's call count, one more for this call; the call's number, 0 when out of
 * memory. */
static uint64_t count_call(opscope_live_t *l, int32_t context) {
    for (size_t i = 0; i < l->ctxs.n; i++)
        if (l->ctxs.v[i].context == context) return ++l->ctxs.v[i].calls;
    ctx_state c = {context, 1};
    return OPSCOPE_VEC_PUSH(l->ctxs, c) ? 0 : 1;
}

/* A call of CONTEXT marked wiped (its memory cleared with its data since call CALL - 1): the
 * requests whose last batch was that call and that generated nothing were llama.cpp's
 * warm-ups, as report's requests table says (analyze/ggml/run_requests.c): taken back. */
static void take_back_warmups(opscope_live_t *l, int32_t context, uint64_t call) {
    for (size_t i = 0; i < l->seqs.n; i++) {
        seq_state *s = &l->seqs.v[i];
        if (s->context != context || s->last_call + 1 != call || s->req_gen || s->request == UINT32_MAX) continue;
        l->prompt -= s->req_prompt;
        l->requests--;
        bucket *b = &l->tok_ring[(s->last_ns / NS_PER_S) % l->window];
        if (b->sec1 == s->last_ns / NS_PER_S + 1) b->ns -= b->ns < s->req_prompt ? b->ns : s->req_prompt;
        s->req_prompt = 0;
        s->request = UINT32_MAX; /* taken back once */
    }
}

int opscope_live_add_decode(opscope_live_t *l, const opscope_run_decode *d) {
    uint64_t call = count_call(l, d->context);
    if (!call) return -1;
    if (d->wiped && d->context >= 0) take_back_warmups(l, d->context, call);
    if (d->ret != 0) return 0;
    uint64_t prompt = 0, gen = 0;
    for (size_t i = 0; i < d->n_seqs; i++) {
        const opscope_run_seq *q = &d->seqs[i];
        uint64_t g = q->n_tokens > q->n_prompt ? q->n_tokens - q->n_prompt : 0;
        prompt += q->n_prompt;
        gen += g;
        seq_state *s = find_seq(l, d->context, q->seq);
        if (!s) return -1;
        if (s->request != q->request) {
            l->requests++;
            s->req_prompt = s->req_gen = 0;
        }
        s->request = q->request;
        s->req_prompt += q->n_prompt;
        s->req_gen += g;
        s->last_call = call;
        if (d->end_ns > s->last_ns) s->last_ns = d->end_ns;
    }
    l->decodes++;
    l->prompt += prompt;
    l->gen += gen;
    ring_add(l->tok_ring, l->window, d->end_ns / NS_PER_S, prompt, gen, 0);
    see_time(l, d->start_ns, d->end_ns);
    return 0;
}

/* The window's rows and backend rows, summed into V. 0, or -1 when out of memory. */
static int fill_rows(opscope_live_t *l, opscope_live_view *v, uint64_t now_sec) {
    if (opscope_vec_reserve((void **)&l->rows.v, &l->rows.cap, l->groups.n, sizeof *l->rows.v, 64) ||
        opscope_vec_reserve((void **)&l->brows.v, &l->brows.cap, l->backends.n, sizeof *l->brows.v, 8))
        return -1;
    l->rows.n = l->groups.n;
    for (size_t i = 0; i < l->groups.n; i++) {
        const group *g = &l->groups.v[i];
        bucket w = ring_sum(g->ring, l->window, now_sec);
        l->rows.v[i] = (opscope_live_row){g->display, g->type, g->backend_id, g->total_ns, g->total_calls,
                                          g->total_bytes, w.ns, w.calls, w.bytes};
        v->total_ns += g->total_ns;
        v->win_ns += w.ns;
        if (g->type != OPSCOPE_RECORD_COPY) continue;
        v->copies += g->total_calls;
        v->copy_ns += g->total_ns;
        v->copy_bytes += g->total_bytes;
        v->win_copies += w.calls;
        v->win_copy_ns += w.ns;
        v->win_copy_bytes += w.bytes;
    }
    l->brows.n = l->backends.n;
    for (size_t i = 0; i < l->backends.n; i++) {
        const backend *b = &l->backends.v[i];
        bucket w = ring_sum(b->ring, l->window, now_sec);
        l->brows.v[i] = (opscope_live_backend){b->id, b->name, b->device, b->total_ns, w.ns};
    }
    return 0;
}

void opscope_live_set_now(opscope_live_t *l, uint64_t now_ns) {
    if (now_ns > l->clock_ns) l->clock_ns = now_ns;
}

void opscope_live_get(opscope_live_t *l, opscope_live_view *v) {
    memset(v, 0, sizeof *v);
    v->first_ns = l->first_ns;
    v->now_ns = l->now_ns;
    v->span_ns = l->now_ns > l->first_ns ? l->now_ns - l->first_ns : 0;
    uint64_t now_sec = l->now_ns / NS_PER_S;
    /* the window: the W - 1 whole seconds before now's second and its part so far */
    uint64_t win_start = now_sec >= l->window - 1 ? (now_sec - (l->window - 1)) * NS_PER_S : 0;
    if (win_start < l->first_ns) win_start = l->first_ns;
    v->win_span_ns = l->now_ns > win_start ? l->now_ns - win_start : 0;
    v->records = l->records;
    v->decodes = l->decodes;
    v->prompt_tokens = l->prompt;
    v->gen_tokens = l->gen;
    bucket t = ring_sum(l->tok_ring, l->window, now_sec);
    v->win_prompt = t.ns;
    v->win_gen = t.calls;
    v->requests = l->requests;
    uint64_t clock = l->clock_ns > l->now_ns ? l->clock_ns : l->now_ns;
    v->idle_ns = clock - l->now_ns;
    for (size_t i = 0; i < l->seqs.n; i++)
        if (l->seqs.v[i].last_ns + IN_FLIGHT_NS > clock) v->in_flight++;
    if (fill_rows(l, v, now_sec) == 0) {
        v->n_rows = l->rows.n;
        v->rows = l->rows.v;
        v->n_backends = l->brows.n;
        v->backends = l->brows.v;
    }
}

static int sink_meta(void *ud, const opscope_meta *m) {
    const opscope_run_info *run = m->capture ? m->capture->run : NULL;
    for (size_t i = 0; run && i < run->n_decodes; i++)
        if (opscope_live_add_decode(ud, &run->decodes[i])) return -1;
    return 0;
}

static int sink_backend(void *ud, const opscope_backend *b) {
    return opscope_live_add_backend(ud, b);
}

static int sink_record(void *ud, const opscope_record *rec) {
    return opscope_live_add_record(ud, rec, OPSCOPE_LIVE_NO_TMPL);
}

opscope_sink opscope_live_sink(opscope_live_t *l) {
    return (opscope_sink){l, sink_meta, sink_backend, sink_record, NULL};
}
