/* stats.c - streaming aggregation: groups, per-shape groups, backends, top records. */
#include "analyze/ggml/stats.h"
#include "analyze/record/fused_name.h"
#include "model/op_cost.h"
#include "analyze/rpc/rpc_cover.h"
#include "model/ggml_vocab.h"
#include "model/record.h"
#include "util/hash.h"
#include "util/heap.h"
#include "util/hindex.h"
#include "analyze/record/shape_fmt.h"
#include "model/strtab.h"
#include "model/oplog_win.h"
#include "model/run_info.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_SHAPE_GROUPS 65536

/* An array of opscope_op_stats with its hash index (util/hindex.h). */
typedef struct group_table {
    opscope_hindex ix;
    opscope_op_stats *items;
    size_t n, cap;
    /* per item: the key it was inserted with */
    uint32_t *key_group; /* by-shape table: the parent group; plain table: unused */
} group_table;

typedef struct top_entry {
    opscope_record rec;
    uint64_t seq;
} top_entry;

struct opscope_stats {
    opscope_stats_opts opts;
    opscope_strtab_t *strings;
    group_table groups;
    uint32_t *group_name_id, *group_sub_id, *group_extra_id; /* per group: name length, ids */
    int16_t *group_op; /* per group: its ggml op value (-1: none), looked up once */
    size_t cap_group_ids; /* of the four arrays above */
    group_table shapes;
    opscope_backend_stats *backends;
    size_t n_backends, cap_backends, last_backend;
    opscope_device_stats *devices; /* after finish */
    int32_t *device_ids;
    size_t n_devices;
    top_entry *top; /* min-heap on (duration, -seq): the root is the first to evict */
    size_t n_top, cap_top; /* grows up to opts.top_kernels as records arrive */
    uint64_t seq;
    opscope_totals totals;
    opscope_meta meta;  /* its capture is CAPTURE, or NULL: read's is gone after the read */
    opscope_capture_info capture; /* the read's, its strings interned, its run RUN's view */
    opscope_run_t *run; /* the meta's capture.run, copied */
    void *win;          /* the capture's windows and marks, copied */
    bool busy_keep_all; /* a trace: streams come one after another (busy.h) */
    opscope_rpc_cover cover; /* a merged RPC profile: client time its servers cover */
    bool finished;
    /* results */
    const opscope_op_stats **sorted_ops, **sorted_shapes, **ineff;
    size_t n_ineff;
    opscope_op_stats *copy_dirs, *copy_calls;
    size_t n_copy_dirs, n_copy_calls;
    const opscope_record **sorted_top;
};

/* ---------------------------------------------------------------------------------------- */

static int table_init(group_table *t) {
    memset(t, 0, sizeof *t);
    return opscope_hindex_init(&t->ix, 192); /* 256 slots */
}

static void table_free(group_table *t) {
    opscope_hindex_free(&t->ix);
    free(t->items);
    free(t->key_group);
}

/* Appends a zeroed item indexed under HASH; returns its index or -1 (nothing added). */
static long table_push(group_table *t, uint64_t hash) {
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 64;
        if (opscope_vec_resize((void **)&t->items, nc, sizeof *t->items) ||
            opscope_vec_resize((void **)&t->key_group, nc, sizeof *t->key_group))
            return -1;
        t->cap = nc;
    }
    if (t->n >= OPSCOPE_HINDEX_NONE || opscope_hindex_add(&t->ix, hash, (uint32_t)t->n)) return -1;
    memset(&t->items[t->n], 0, sizeof t->items[t->n]);
    return (long)t->n++;
}

/* ---------------------------------------------------------------------------------------- */

opscope_stats_t *opscope_stats_new(const opscope_stats_opts *opts) {
    opscope_stats_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    if (opts) s->opts = *opts;
    if (!s->opts.max_shape_groups) s->opts.max_shape_groups = DEFAULT_MAX_SHAPE_GROUPS;
    s->strings = opscope_strtab_new();
    if (!s->strings || table_init(&s->groups) || table_init(&s->shapes)) {
        opscope_stats_free(s);
        return NULL;
    }
    s->meta.profiler = "";
    return s;
}

static void free_record_strings(opscope_record *r) {
    free((char *)r->name);
    free((char *)r->sub_op);
    free((char *)r->extra);
    free((char *)r->tensor_name);
    free((char *)r->category);
}

void opscope_stats_free(opscope_stats_t *s) {
    if (!s) return;
    opscope_strtab_free(s->strings);
    opscope_run_free(s->run);
    free(s->win);
    table_free(&s->groups);
    table_free(&s->shapes);
    free(s->group_name_id);
    free(s->group_sub_id);
    free(s->group_extra_id);
    free(s->group_op);
    for (size_t i = 0; i < s->n_backends; i++) opscope_busy_free(&s->backends[i].busy);
    free(s->backends);
    free(s->devices);
    free(s->device_ids);
    for (size_t i = 0; i < s->n_top; i++) free_record_strings(&s->top[i].rec);
    free(s->top);
    free(s->sorted_ops);
    free(s->sorted_shapes);
    free(s->ineff);
    free(s->copy_dirs);
    free(s->copy_calls);
    free(s->sorted_top);
    free(s);
}

static const char *intern(opscope_stats_t *s, const char *str, uint32_t *id) {
    return opscope_strtab_intern(s->strings, str, strlen(str), id);
}

static void fill_shape(opscope_shape *sh, const opscope_record *rec) {
    opscope_shape_of_record(sh, rec);
}

static void accumulate(opscope_op_stats *g, const opscope_record *rec, uint64_t flops,
                       bool keep_shape) {
    uint64_t d = rec->duration_ns;
    if (g->count == 0 || d < g->min_ns) g->min_ns = d;
    /* ">=": the seed tool keeps the shape of the LAST call among equally long ones. */
    if (g->count == 0 || d >= g->max_ns) {
        g->max_ns = d;
        if (keep_shape) fill_shape(&g->shape, rec);
    }
    if (rec->has & OPSCOPE_HAS_WEIGHT) {
        uint64_t wt = rec->weight ? rec->weight : 1;
        g->est_ns += d * wt;
        /* a compute's records of one group come together: count each compute once */
        if (!g->timed_computes || g->last_graph_ != rec->graph_id || g->last_split_ != rec->split_id) {
            g->timed_computes++;
            g->sampled_computes += wt;
            g->last_graph_ = rec->graph_id;
            g->last_split_ = rec->split_id;
        }
    } else if (rec->has & OPSCOPE_HAS_SAMPLED_OUT) {
        g->n_sampled_out++;
        g->sampled_out_ns += d;
    }
    g->count++;
    g->total_ns += d;
    g->bytes += rec->bytes;
    g->flops += flops;
    if (flops) g->n_with_flops++;
}

/* Memory traffic of one call into G (opscope_record_traffic). */
static void add_traffic(opscope_op_stats *g, const opscope_traffic *tr) {
    if (!(tr->flags & OPSCOPE_TRAFFIC_KNOWN)) return;
    uint64_t b = tr->read_bytes + tr->write_bytes;
    g->traffic_bytes = g->traffic_bytes > UINT64_MAX - b ? UINT64_MAX : g->traffic_bytes + b;
    g->n_with_traffic++;
    if (tr->flags & OPSCOPE_TRAFFIC_UPPER_BOUND) g->n_traffic_upper++;
}

/* A group's key as the record gives it: the name in place, the rest as ids. */
typedef struct group_key {
    const char *name;
    size_t nlen;
    uint32_t sub_id, extra_id;
    int32_t backend_id;
    opscope_record_type type;
} group_key;

static bool group_eq(const void *ctx, uint32_t i, const void *key) {
    const opscope_stats_t *s = ctx;
    const group_key *k = key;
    const opscope_op_stats *g = &s->groups.items[i];
    return s->group_name_id[i] == k->nlen && s->group_sub_id[i] == k->sub_id &&
           s->group_extra_id[i] == k->extra_id && g->backend_id == k->backend_id &&
           g->type == k->type && memcmp(g->name, k->name, k->nlen) == 0;
}

/* Room for N groups in the per-group arrays (name length, ids, op). 0 or -1. */
static int group_ids_reserve(opscope_stats_t *s, size_t n) {
    if (n <= s->cap_group_ids) return 0;
    size_t nc = s->cap_group_ids ? s->cap_group_ids * 2 : 64;
    uint32_t *a = realloc(s->group_name_id, nc * sizeof *a);
    if (a) s->group_name_id = a;
    uint32_t *b = realloc(s->group_sub_id, nc * sizeof *b);
    if (b) s->group_sub_id = b;
    uint32_t *c = realloc(s->group_extra_id, nc * sizeof *c);
    if (c) s->group_extra_id = c;
    int16_t *o = realloc(s->group_op, nc * sizeof *o);
    if (o) s->group_op = o;
    if (!a || !b || !c || !o) return -1;
    s->cap_group_ids = nc;
    return 0;
}

static long find_group(opscope_stats_t *s, const opscope_record *rec, const char *sub_op, const char *fused) {
    /* The name is hashed and compared in place (no interning on the hot path); only sub-op
     * and fused names, rare, go through the string table first. */
    uint32_t sub_id = 0, extra_id = 0, id;
    const char *rname = rec->name ? rec->name : "";
    size_t nlen = strlen(rname);
    const char *sub = NULL, *extra = NULL;
    if (sub_op) {
        if (!(sub = intern(s, sub_op, &id))) return -1;
        sub_id = id + 1;
    }
    if (fused) { /* one vocabulary across backends, as diff's (opscope_derived_fused) */
        if (!(extra = intern(s, fused, &id))) return -1;
        extra_id = id + 1;
    }
    uint64_t h = opscope_hash_bytes(rname, nlen) ^
                 opscope_mix64((uint64_t)sub_id << 32 ^ extra_id ^
                       (uint64_t)(uint32_t)rec->backend_id << 16 ^ (uint64_t)rec->type << 62);
    group_table *t = &s->groups;
    group_key k = {rname, nlen, sub_id, extra_id, rec->backend_id, rec->type};
    uint32_t found = opscope_hindex_find(&t->ix, h, &k, group_eq, s);
    if (found != OPSCOPE_HINDEX_NONE) return (long)found;
    /* New group. */
    const char *name = opscope_strtab_intern(s->strings, rname, nlen, NULL);
    if (!name || nlen > UINT32_MAX || group_ids_reserve(s, t->n + 1)) return -1;
    long i = table_push(t, h);
    if (i < 0) return -1;
    s->group_name_id[i] = (uint32_t)nlen;
    s->group_sub_id[i] = sub_id;
    s->group_extra_id[i] = extra_id;
    s->group_op[i] = (int16_t)opscope_ggml_op_value(name);
    opscope_op_stats *g = &t->items[i];
    g->name = name;
    g->sub_op = sub;
    if (rec->type == OPSCOPE_RECORD_COPY)
        g->call = extra;
    else
        g->extra = extra;
    g->type = rec->type;
    g->backend_id = rec->backend_id;
    /* Kineto kernel names run to thousands of bytes: the display is never cut. */
    char buf[512], *dp = buf;
    size_t dn = opscope_op_display(buf, sizeof buf, rec->type, name, sub, extra);
    if (dn >= sizeof buf) {
        if (!(dp = malloc(dn + 1))) return -1;
        opscope_op_display(dp, dn + 1, rec->type, name, sub, extra);
    }
    g->display = intern(s, dp, NULL);
    if (dp != buf) free(dp);
    if (!g->display) return -1;
    return i;
}

/* Hash of the per-shape key straight from the record: one multiply per value, one final mix. */
static uint64_t shape_hash(const opscope_record *r, int n, uint32_t group) {
    uint64_t h = OPSCOPE_FNV_BASIS ^ ((uint64_t)group << 8 | (uint64_t)n);
    for (int i = 0; i < n; i++) {
        for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) h = opscope_hash_word(h, (uint64_t)r->ne_src[i][d]);
        h = opscope_hash_word(h, (uint64_t)(uint32_t)r->type_src[i]);
    }
    return opscope_mix64(h);
}

/* A per-shape key: the record's sources under its group. */
typedef struct shape_key {
    const opscope_record *rec;
    int n;
    uint32_t group;
} shape_key;

static bool shape_eq(const void *ctx, uint32_t i, const void *key) {
    const group_table *t = ctx;
    const shape_key *k = key;
    const opscope_shape *a = &t->items[i].shape;
    if (t->key_group[i] != k->group || a->n_src != k->n) return false;
    for (int j = 0; j < k->n; j++) {
        if (memcmp(a->ne_src[j], k->rec->ne_src[j], sizeof a->ne_src[j]) != 0) return false;
        if (a->type_src[j] != k->rec->type_src[j]) return false;
    }
    return true;
}

/* Adds REC to its shape group; *AT: that group's index, -1 when the cap left it out. */
static int add_by_shape(opscope_stats_t *s, uint32_t group, const opscope_record *rec,
                        uint64_t flops, const opscope_traffic *tr, long *at) {
    int n = opscope_record_n_src(rec);
    uint64_t h = shape_hash(rec, n, group);
    group_table *t = &s->shapes;
    shape_key k = {rec, n, group};
    uint32_t found = opscope_hindex_find(&t->ix, h, &k, shape_eq, t);
    if (found != OPSCOPE_HINDEX_NONE) {
        *at = (long)found;
        accumulate(&t->items[found], rec, flops, false);
        add_traffic(&t->items[found], tr);
        return 0;
    }
    if (t->n >= s->opts.max_shape_groups) {
        s->totals.shape_groups_dropped++;
        return 0;
    }
    long i = table_push(t, h);
    if (i < 0) return -1;
    *at = i;
    const opscope_op_stats *g = &s->groups.items[group];
    opscope_op_stats *e = &t->items[i];
    t->key_group[i] = group;
    e->name = g->name;
    e->sub_op = g->sub_op;
    e->extra = g->extra;
    e->call = g->call;
    e->display = g->display;
    e->type = g->type;
    e->backend_id = g->backend_id;
    accumulate(e, rec, flops, false);
    add_traffic(e, tr);
    fill_shape(&e->shape, rec);
    return 0;
}

static opscope_backend_stats *backend_slot(opscope_stats_t *s, int32_t id) {
    if (s->last_backend < s->n_backends && s->backends[s->last_backend].backend_id == id)
        return &s->backends[s->last_backend];
    for (size_t i = 0; i < s->n_backends; i++) {
        if (s->backends[i].backend_id == id) {
            s->last_backend = i;
            return &s->backends[i];
        }
    }
    if (s->n_backends == s->cap_backends) {
        size_t nc = s->cap_backends ? s->cap_backends * 2 : 8;
        opscope_backend_stats *nb = realloc(s->backends, nc * sizeof *nb);
        if (!nb) return NULL;
        s->backends = nb;
        s->cap_backends = nc;
    }
    opscope_backend_stats *b = &s->backends[s->n_backends];
    memset(b, 0, sizeof *b);
    b->backend_id = id;
    b->name = "";
    b->device = "";
    if (s->busy_keep_all) opscope_busy_keep_all(&b->busy);
    s->last_backend = s->n_backends++;
    return b;
}

static char *dup_or_null(const char *str, bool *fail) {
    if (!str) return NULL;
    char *d = strdup(str);
    if (!d) *fail = true;
    return d;
}

/* Heap order: A must be evicted before B. */
static inline bool top_worse(const void *ctx, const top_entry *a, const top_entry *b) {
    if (a->rec.duration_ns != b->rec.duration_ns) return a->rec.duration_ns < b->rec.duration_ns;
    return a->seq > b->seq;
}
OPSCOPE_HEAP_DEFINE(top_heap, top_entry, const void *, top_worse)

static int add_top(opscope_stats_t *s, const opscope_record *rec, const char *sub_op,
                   uint64_t flops, uint64_t seq) {
    size_t cap = s->opts.top_kernels;
    bool full = s->n_top == cap;
    /* Strictly longer only: among equal durations the earlier record stays (stable sort). */
    if (full && rec->duration_ns <= s->top[0].rec.duration_ns) return 0;
    top_entry e;
    e.rec = *rec;
    e.rec.threads = NULL; /* borrowed from the reader: not kept */
    e.rec.thread_cpus = NULL;
    e.rec.n_threads = 0;
    e.rec.has &= ~(uint32_t)OPSCOPE_HAS_THREADS;
    e.seq = seq;
    bool fail = false;
    e.rec.name = dup_or_null(rec->name ? rec->name : "", &fail);
    e.rec.sub_op = dup_or_null(sub_op, &fail);
    e.rec.extra = dup_or_null(rec->extra, &fail);
    e.rec.tensor_name = dup_or_null(rec->tensor_name, &fail);
    e.rec.category = dup_or_null(rec->category, &fail);
    e.rec.flops = flops;
    if (fail) {
        free_record_strings(&e.rec);
        return -1;
    }
    if (!full && s->n_top == s->cap_top) {
        size_t nc = s->cap_top ? s->cap_top * 2 : 16;
        if (nc > cap) nc = cap;
        top_entry *nt = realloc(s->top, nc * sizeof *nt);
        if (!nt) {
            free_record_strings(&e.rec);
            return -1;
        }
        s->top = nt;
        s->cap_top = nc;
    }
    if (full) {
        free_record_strings(&s->top[0].rec);
        top_heap_replace_top(s->top, s->n_top, &e, NULL);
    } else {
        top_heap_push(s->top, &s->n_top, &e, NULL);
    }
    return 0;
}

static void cover_credit(void *ud, const opscope_rpc_cover_ref *ref, uint64_t ns) {
    opscope_stats_t *s = ud;
    s->groups.items[ref->group].rpc_covered_ns += ns;
    if (ref->shape >= 0) s->shapes.items[ref->shape].rpc_covered_ns += ns;
    opscope_backend_stats *b = backend_slot(s, ref->backend_id); /* present: the record's */
    if (b) b->rpc_covered_ns += ns;
    s->totals.rpc_covered_ns += ns;
}

int opscope_stats_add(opscope_stats_t *s, const opscope_record *rec) {
    opscope_derived d;
    opscope_derived_init(&d, rec);
    return opscope_stats_add_derived(s, rec, &d);
}

int opscope_stats_add_derived(void *ud, const opscope_record *rec, opscope_derived *d) {
    opscope_stats_t *s = ud;
    opscope_derived_need(d, OPSCOPE_DERIVED_SUB_OP | OPSCOPE_DERIVED_FUSED);
    const char *sub_op = d->sub_op;
    long gi = find_group(s, rec, sub_op, d->fused);
    if (gi < 0) return -1;
    /* the group's name is the record's: no lookup per record */
    if (!(d->have & OPSCOPE_DERIVED_OP)) opscope_derived_set_op(d, s->group_op[gi]);
    d->display = s->groups.items[gi].display;
    opscope_derived_need(d, OPSCOPE_DERIVED_FLOPS | OPSCOPE_DERIVED_TRAFFIC);
    uint64_t flops = d->flops;
    const opscope_traffic tr = d->traffic;
    accumulate(&s->groups.items[gi], rec, flops, true);
    add_traffic(&s->groups.items[gi], &tr);
    long si = -1;
    if (s->opts.by_shape && add_by_shape(s, (uint32_t)gi, rec, flops, &tr, &si)) return -1;

    opscope_backend_stats *b = backend_slot(s, rec->backend_id);
    if (!b) return -1;
    if (s->cover.client) {
        opscope_rpc_cover_ref ref = {gi, si, rec->backend_id};
        opscope_rpc_cover_add(&s->cover, opscope_rpc_cover_role(&s->cover, b->name, b->process),
                              rec->start_ns, rec->start_ns + rec->duration_ns, &ref, cover_credit, s);
    }
    uint64_t start = rec->start_ns, end = rec->start_ns + rec->duration_ns;
    bool first_b = b->n_ops + b->n_copies == 0;
    if (first_b || start < b->first_start_ns) b->first_start_ns = start;
    if (first_b || end > b->last_end_ns) b->last_end_ns = end;
    opscope_totals *t = &s->totals;
    if (t->n_records == 0 || start < t->first_start_ns) t->first_start_ns = start;
    if (t->n_records == 0 || end > t->last_end_ns) t->last_end_ns = end;
    t->n_records++;
    t->total_ns += rec->duration_ns;
    uint64_t est = rec->duration_ns; /* the record's share of the estimate over all computes */
    if (rec->has & OPSCOPE_HAS_WEIGHT) {
        t->n_weighted++;
        est *= rec->weight ? rec->weight : 1;
    } else if (rec->has & OPSCOPE_HAS_SAMPLED_OUT) {
        t->n_sampled_out++;
        est = 0;
    }
    t->est_total_ns += est;
    *(rec->type == OPSCOPE_RECORD_COPY ? &t->est_copy_ns : &t->est_op_ns) += est;
    t->bytes += rec->bytes;
    t->flops += flops;
    if (rec->type == OPSCOPE_RECORD_COPY) {
        b->n_copies++;
        b->copy_ns += rec->duration_ns;
        b->copy_bytes += rec->bytes;
        t->n_copies++;
        t->copy_ns += rec->duration_ns;
        t->copy_bytes += rec->bytes;
    } else {
        if (opscope_busy_add(&b->busy, start, end)) return -1;
        b->n_ops++;
        b->op_ns += rec->duration_ns;
        b->op_bytes += rec->bytes;
        b->op_flops += flops;
        b->op_traffic += tr.read_bytes + tr.write_bytes;
        t->traffic_bytes += tr.read_bytes + tr.write_bytes;
        t->n_ops++;
        t->op_ns += rec->duration_ns;
    }
    uint64_t seq = s->seq++;
    if (s->opts.top_kernels && add_top(s, rec, sub_op, flops, seq)) return -1;
    s->finished = false;
    return 0;
}

int opscope_stats_add_backend(opscope_stats_t *s, const opscope_backend *be) {
    opscope_backend_stats *b = backend_slot(s, be->id);
    if (!b) return -1;
    const char *name = intern(s, be->name ? be->name : "", NULL);
    const char *device = intern(s, be->device ? be->device : "", NULL);
    const char *process = be->process ? intern(s, be->process, NULL) : NULL;
    if (!name || !device || (be->process && !process)) return -1;
    b->name = name;
    b->device = device;
    b->process = process;
    b->device_type = be->device_type;
    b->described = true;
    opscope_rpc_cover_backend(&s->cover, name, process);
    return 0;
}

int opscope_stats_set_meta(opscope_stats_t *s, const opscope_meta *m) {
    const char *p = intern(s, m->profiler ? m->profiler : "", NULL);
    if (!p) return -1;
    s->meta = *m;
    s->meta.profiler = p;
    s->meta.capture = NULL;
    if (m->capture && m->capture->run) {
        int failed = 0;
        opscope_run_free(s->run);
        s->run = opscope_run_copy(m->capture->run, &failed);
        if (failed) return -1;
    }
    if (m->capture) { /* how the program ended, for every output (model/run_end.h) */
        s->capture = *m->capture;
        const char **strs[] = {&s->capture.host, &s->capture.program, &s->capture.clock, &s->capture.boot_id,
                               &s->capture.end, &s->capture.end_signal};
        for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
            if (*strs[i] && !(*strs[i] = intern(s, *strs[i], NULL))) return -1;
        s->capture.run = m->capture->run ? opscope_run_view(s->run) : NULL;
        int failed = 0;
        free(s->win);
        s->win = opscope_capture_win_copy(&s->capture, &s->capture, &failed);
        if (failed) return -1;
        s->meta.capture = &s->capture;
    }
    /* the trace readers announce themselves before their first record */
    if (strcmp(p, "kineto") == 0 || strcmp(p, "chrome") == 0) {
        s->busy_keep_all = true;
        for (size_t i = 0; i < s->n_backends; i++) opscope_busy_keep_all(&s->backends[i].busy);
    }
    return 0;
}

static int sink_meta(void *ud, const opscope_meta *m) { return opscope_stats_set_meta(ud, m); }
static int sink_backend(void *ud, const opscope_backend *b) {
    return opscope_stats_add_backend(ud, b);
}
static int sink_record(void *ud, const opscope_record *r) { return opscope_stats_add(ud, r); }
static int sink_end(void *ud) { return opscope_stats_finish(ud); }

opscope_sink opscope_stats_sink(opscope_stats_t *s) {
    opscope_sink k = {s, sink_meta, sink_backend, sink_record, sink_end};
    return k;
}

/* ---------------------------------------------------------------------------------------- */

static int cmp_by_total(const void *pa, const void *pb) {
    const opscope_op_stats *a = *(const opscope_op_stats *const *)pa;
    const opscope_op_stats *b = *(const opscope_op_stats *const *)pb;
    /* by the time %Time counts (a merged RPC profile's covered client time left out) */
    uint64_t ta = a->total_ns - a->rpc_covered_ns, tb = b->total_ns - b->rpc_covered_ns;
    if (ta != tb) return ta > tb ? -1 : 1;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    int c = strcmp(a->display, b->display);
    if (c) return c;
    if (a->type != b->type) return a->type < b->type ? -1 : 1;
    return a->backend_id < b->backend_id ? -1 : a->backend_id > b->backend_id;
}

static int cmp_time_per_byte(const void *pa, const void *pb) {
    const opscope_op_stats *a = *(const opscope_op_stats *const *)pa;
    const opscope_op_stats *b = *(const opscope_op_stats *const *)pb;
    double ta = (double)a->total_ns / (double)a->bytes, tb = (double)b->total_ns / (double)b->bytes;
    if (ta != tb) return ta > tb ? -1 : 1;
    return cmp_by_total(pa, pb);
}

static int cmp_backend(const void *pa, const void *pb) {
    const opscope_backend_stats *a = pa, *b = pb;
    return a->backend_id < b->backend_id ? -1 : a->backend_id > b->backend_id;
}

static int cmp_top(const void *pa, const void *pb) {
    const top_entry *a = *(const top_entry *const *)pa, *b = *(const top_entry *const *)pb;
    if (a->rec.duration_ns != b->rec.duration_ns)
        return a->rec.duration_ns > b->rec.duration_ns ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static const opscope_op_stats **sorted_view(const group_table *t,
                                            int (*cmp)(const void *, const void *)) {
    const opscope_op_stats **v = malloc((t->n ? t->n : 1) * sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < t->n; i++) v[i] = &t->items[i];
    opscope_sort(v, t->n, sizeof *v, cmp);
    return v;
}

/* D becomes a copy of G standing for every backend. */
static void new_merged(opscope_op_stats *d, const opscope_op_stats *g) {
    *d = *g;
    d->backend_id = -1;
}

/* Adds group G into the merged group D. */
static void merge_group(opscope_op_stats *d, const opscope_op_stats *g) {
    if (g->min_ns < d->min_ns) d->min_ns = g->min_ns;
    if (g->max_ns >= d->max_ns) {
        d->max_ns = g->max_ns;
        d->shape = g->shape;
    }
    d->count += g->count;
    d->total_ns += g->total_ns;
    d->bytes += g->bytes;
    d->flops += g->flops;
    d->n_with_flops += g->n_with_flops;
    d->traffic_bytes += g->traffic_bytes;
    d->n_with_traffic += g->n_with_traffic;
    d->n_traffic_upper += g->n_traffic_upper;
    d->timed_computes += g->timed_computes;
    d->sampled_computes += g->sampled_computes;
    d->est_ns += g->est_ns;
    d->n_sampled_out += g->n_sampled_out;
    d->sampled_out_ns += g->sampled_out_ns;
    d->rpc_covered_ns += g->rpc_covered_ns;
}

/* Names and sub-ops are interned: equal strings are equal pointers. */
static bool same_direction(const opscope_op_stats *a, const opscope_op_stats *b) {
    return a->name == b->name && a->sub_op == b->sub_op;
}

/* Directions by total time; calls grouped under their direction, each by total time. */
static int sort_copy_lists(opscope_stats_t *s) {
    size_t nd = s->n_copy_dirs, nc = s->n_copy_calls;
    const opscope_op_stats **v = malloc((nd + nc ? nd + nc : 1) * sizeof *v);
    opscope_op_stats *dirs = malloc((nd ? nd : 1) * sizeof *dirs);
    opscope_op_stats *calls = malloc((nc ? nc : 1) * sizeof *calls);
    if (!v || !dirs || !calls) {
        free(v);
        free(dirs);
        free(calls);
        return -1;
    }
    for (size_t i = 0; i < nd; i++) v[i] = &s->copy_dirs[i];
    opscope_sort(v, nd, sizeof *v, cmp_by_total);
    for (size_t i = 0; i < nd; i++) dirs[i] = *v[i];
    for (size_t i = 0; i < nc; i++) v[i] = &s->copy_calls[i];
    opscope_sort(v, nc, sizeof *v, cmp_by_total);
    size_t k = 0;
    for (size_t d = 0; d < nd; d++)
        for (size_t i = 0; i < nc; i++)
            if (same_direction(&dirs[d], v[i])) calls[k++] = *v[i];
    free(v);
    free(s->copy_dirs);
    free(s->copy_calls);
    s->copy_dirs = dirs;
    s->copy_calls = calls;
    return 0;
}

static bool same_device(const opscope_backend_stats *a, const opscope_backend_stats *b) {
    /* names are interned: equal strings are the same pointer */
    return a->described && b->described && a->name == b->name && a->device == b->device &&
           a->device_type == b->device_type && a->process == b->process; /* a merged profile's
                                                                          * processes stay apart */
}

/* Devices from the backends (sorted by id): each backend joins the first device it shares. */
static int merge_devices(opscope_stats_t *s) {
    size_t n = s->n_backends;
    free(s->devices);
    free(s->device_ids);
    s->n_devices = 0;
    s->devices = calloc(n ? n : 1, sizeof *s->devices);
    s->device_ids = malloc((n ? n : 1) * sizeof *s->device_ids);
    size_t *dev_of = malloc((n ? n : 1) * sizeof *dev_of);
    if (!s->devices || !s->device_ids || !dev_of) {
        free(dev_of);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const opscope_backend_stats *b = &s->backends[i];
        size_t d = 0;
        while (d < s->n_devices && !same_device(&s->devices[d].sum, b)) d++;
        opscope_device_stats *dv = &s->devices[d];
        dev_of[i] = d;
        if (d == s->n_devices) {
            s->n_devices++;
            dv->sum = *b;
            dv->sum.busy = (opscope_busy){0}; /* the backend's own; the sum has busy_ns only */
        } else {
            opscope_backend_stats *m = &dv->sum;
            bool had = m->n_ops + m->n_copies > 0, has = b->n_ops + b->n_copies > 0;
            if (has && (!had || b->first_start_ns < m->first_start_ns)) m->first_start_ns = b->first_start_ns;
            if (has && (!had || b->last_end_ns > m->last_end_ns)) m->last_end_ns = b->last_end_ns;
            m->n_ops += b->n_ops;
            m->op_ns += b->op_ns;
            m->op_bytes += b->op_bytes;
            m->op_flops += b->op_flops;
            m->n_copies += b->n_copies;
            m->copy_ns += b->copy_ns;
            m->copy_bytes += b->copy_bytes;
            m->busy_ns += b->busy_ns;
            m->overlap_ns += b->overlap_ns;
            m->n_unsorted += b->n_unsorted;
            m->op_traffic += b->op_traffic;
            m->rpc_covered_ns += b->rpc_covered_ns;
        }
        dv->n_ids++;
    }
    /* ids in backend order (ascending), each device's together */
    size_t at = 0;
    for (size_t d = 0; d < s->n_devices; d++) {
        s->devices[d].ids = s->device_ids + at;
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (dev_of[i] == d) s->device_ids[at + k++] = s->backends[i].backend_id;
        at += k;
    }
    free(dev_of);
    return 0;
}

/* Records out of start order: the covered figures would be partial, so none (rpc_cover.h). */
static void drop_rpc_cover(opscope_stats_t *s) {
    if (!s->cover.unsorted || s->totals.rpc_cover_unsorted) return;
    s->totals.rpc_cover_unsorted = true;
    s->totals.rpc_covered_ns = 0;
    for (size_t i = 0; i < s->groups.n; i++) s->groups.items[i].rpc_covered_ns = 0;
    for (size_t i = 0; i < s->shapes.n; i++) s->shapes.items[i].rpc_covered_ns = 0;
    for (size_t i = 0; i < s->n_backends; i++) s->backends[i].rpc_covered_ns = 0;
}

int opscope_stats_finish(opscope_stats_t *s) {
    if (s->finished) return 0;
    drop_rpc_cover(s);
    for (size_t i = 0; i < s->n_backends; i++) {
        opscope_backend_stats *b = &s->backends[i];
        b->busy_ns = opscope_busy_total(&b->busy);
        b->overlap_ns = b->op_ns - b->busy_ns;
        b->n_unsorted = b->busy.n_unsorted;
    }
    free(s->sorted_ops);
    free(s->sorted_shapes);
    free(s->ineff);
    free(s->copy_dirs);
    free(s->copy_calls);
    free(s->sorted_top);
    s->sorted_ops = s->sorted_shapes = s->ineff = NULL;
    s->copy_dirs = s->copy_calls = NULL;
    s->sorted_top = NULL;
    s->n_ineff = s->n_copy_dirs = s->n_copy_calls = 0;

    s->sorted_ops = sorted_view(&s->groups, cmp_by_total);
    s->sorted_shapes = sorted_view(&s->shapes, cmp_by_total);
    size_t n = s->groups.n;
    s->ineff = malloc((n ? n : 1) * sizeof *s->ineff);
    s->copy_dirs = calloc(n ? n : 1, sizeof *s->copy_dirs);
    s->copy_calls = calloc(n ? n : 1, sizeof *s->copy_calls);
    s->sorted_top = malloc((s->n_top ? s->n_top : 1) * sizeof *s->sorted_top);
    if (!s->sorted_ops || !s->sorted_shapes || !s->ineff || !s->copy_dirs || !s->copy_calls ||
        !s->sorted_top)
        return -1;

    for (size_t i = 0; i < n; i++) {
        const opscope_op_stats *g = &s->groups.items[i];
        if (g->type == OPSCOPE_RECORD_OP && g->bytes > 0) s->ineff[s->n_ineff++] = g;
    }
    opscope_sort(s->ineff, s->n_ineff, sizeof *s->ineff, cmp_time_per_byte);

    /* Copies by direction and call: COPY groups with the same display merged over backends;
     * then by direction: those merged over calls. Walk in sorted order so each merged entry
     * keeps the shape of the longest call. */
    for (size_t i = 0; i < n; i++) {
        const opscope_op_stats *g = s->sorted_ops[i];
        if (g->type != OPSCOPE_RECORD_COPY) continue;
        opscope_op_stats *d = NULL;
        for (size_t k = 0; k < s->n_copy_calls && !d; k++)
            if (s->copy_calls[k].display == g->display) d = &s->copy_calls[k];
        if (d) merge_group(d, g);
        else new_merged(&s->copy_calls[s->n_copy_calls++], g);
    }
    for (size_t i = 0; i < s->n_copy_calls; i++) {
        const opscope_op_stats *g = &s->copy_calls[i];
        opscope_op_stats *d = NULL;
        for (size_t k = 0; k < s->n_copy_dirs && !d; k++)
            if (same_direction(&s->copy_dirs[k], g)) d = &s->copy_dirs[k];
        if (d) {
            merge_group(d, g);
            continue;
        }
        d = &s->copy_dirs[s->n_copy_dirs++];
        new_merged(d, g);
        d->call = NULL;
        char buf[512], *dp = buf;
        size_t dn = opscope_op_display(buf, sizeof buf, OPSCOPE_RECORD_COPY, g->name, g->sub_op,
                                       NULL);
        if (dn >= sizeof buf) {
            if (!(dp = malloc(dn + 1))) return -1;
            opscope_op_display(dp, dn + 1, OPSCOPE_RECORD_COPY, g->name, g->sub_op, NULL);
        }
        d->display = intern(s, dp, NULL);
        if (dp != buf) free(dp);
        if (!d->display) return -1;
    }
    if (sort_copy_lists(s)) return -1;

    opscope_sort(s->backends, s->n_backends, sizeof *s->backends, cmp_backend);
    s->last_backend = 0;
    if (merge_devices(s)) return -1;

    const top_entry **tv = (const top_entry **)malloc((s->n_top ? s->n_top : 1) * sizeof *tv);
    if (!tv) return -1;
    for (size_t i = 0; i < s->n_top; i++) tv[i] = &s->top[i];
    opscope_sort(tv, s->n_top, sizeof *tv, cmp_top);
    for (size_t i = 0; i < s->n_top; i++) s->sorted_top[i] = &tv[i]->rec;
    free(tv);
    s->finished = true;
    return 0;
}

const opscope_totals *opscope_stats_totals(const opscope_stats_t *s) { return &s->totals; }
const opscope_meta *opscope_stats_meta(const opscope_stats_t *s) { return &s->meta; }

const opscope_run_info *opscope_stats_run(const opscope_stats_t *s) { return opscope_run_view(s->run); }

size_t opscope_stats_n_ops(const opscope_stats_t *s) { return s->finished ? s->groups.n : 0; }
const opscope_op_stats *opscope_stats_op(const opscope_stats_t *s, size_t i) {
    return i < opscope_stats_n_ops(s) ? s->sorted_ops[i] : NULL;
}

size_t opscope_stats_n_shapes(const opscope_stats_t *s) { return s->finished ? s->shapes.n : 0; }
const opscope_op_stats *opscope_stats_shape(const opscope_stats_t *s, size_t i) {
    return i < opscope_stats_n_shapes(s) ? s->sorted_shapes[i] : NULL;
}

size_t opscope_stats_n_inefficient(const opscope_stats_t *s) {
    return s->finished ? s->n_ineff : 0;
}
const opscope_op_stats *opscope_stats_inefficient(const opscope_stats_t *s, size_t i) {
    return i < opscope_stats_n_inefficient(s) ? s->ineff[i] : NULL;
}

size_t opscope_stats_n_copy_dirs(const opscope_stats_t *s) {
    return s->finished ? s->n_copy_dirs : 0;
}
const opscope_op_stats *opscope_stats_copy_dir(const opscope_stats_t *s, size_t i) {
    return i < opscope_stats_n_copy_dirs(s) ? &s->copy_dirs[i] : NULL;
}

size_t opscope_stats_n_copy_calls(const opscope_stats_t *s) {
    return s->finished ? s->n_copy_calls : 0;
}
const opscope_op_stats *opscope_stats_copy_call(const opscope_stats_t *s, size_t i) {
    return i < opscope_stats_n_copy_calls(s) ? &s->copy_calls[i] : NULL;
}

size_t opscope_stats_n_backends(const opscope_stats_t *s) { return s->n_backends; }
size_t opscope_stats_n_devices(const opscope_stats_t *s) { return s->finished ? s->n_devices : 0; }
const opscope_device_stats *opscope_stats_device(const opscope_stats_t *s, size_t i) {
    return i < s->n_devices ? &s->devices[i] : NULL;
}
const opscope_backend_stats *opscope_stats_backend(const opscope_stats_t *s, size_t i) {
    return i < s->n_backends ? &s->backends[i] : NULL;
}
const opscope_backend_stats *opscope_stats_backend_by_id(const opscope_stats_t *s, int32_t id) {
    for (size_t i = 0; i < s->n_backends; i++)
        if (s->backends[i].backend_id == id) return &s->backends[i];
    return NULL;
}

size_t opscope_stats_n_top(const opscope_stats_t *s) { return s->finished ? s->n_top : 0; }
const opscope_record *opscope_stats_top(const opscope_stats_t *s, size_t i) {
    return i < opscope_stats_n_top(s) ? s->sorted_top[i] : NULL;
}
