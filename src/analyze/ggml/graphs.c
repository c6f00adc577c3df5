/* graphs.c - per graph aggregates and their groups by batch (graphs.h). */
#include "analyze/ggml/graphs.h"
#include "analyze/ggml/warm_ops.h"
#include "model/ggml_vocab.h"

#include "util/sort.h"
#include "util/hash.h"
#include "util/hindex.h"
#include "util/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct opscope_graphs {
    OPSCOPE_VEC(opscope_graph_stats) ents; /* in order of first record */
    opscope_hindex ix;                     /* the id's hash -> ents */
    size_t last;                           /* the entry of the last record */
    opscope_graph_stats *sorted;           /* after finish: by id */
    opscope_graph_batch *batches;
    size_t n_sorted, n_batches;
    bool finished;
    bool weighted;                         /* a record with a sampling weight was seen */
    uint64_t load_records, load_ns;        /* before the first graph's first record */
    OPSCOPE_VEC(uint8_t) split_only;       /* per entry: a GRAPH_SPLIT record (untimed) */
    opscope_warm_ops_t *ops;               /* the op groups' warm-up (session's records) */
    bool ops_failed;
};

opscope_graphs_t *opscope_graphs_new(void) {
    opscope_graphs_t *g = calloc(1, sizeof(opscope_graphs_t));
    if (g && opscope_hindex_init(&g->ix, 128)) {
        free(g);
        return NULL;
    }
    return g;
}

void opscope_graphs_free(opscope_graphs_t *g) {
    if (!g) return;
    free(g->ents.v);
    free(g->split_only.v);
    opscope_warm_ops_free(g->ops);
    opscope_hindex_free(&g->ix);
    free(g->sorted);
    free(g->batches);
    free(g);
}

int64_t opscope_record_batch(const opscope_record *r) {
    /* compares, not a lookup: this runs for every record of a report */
    if (r->type != OPSCOPE_RECORD_OP) return 0;
    if (r->has & OPSCOPE_HAS_BATCH) return r->batch; /* a whole split: its nodes' batch */
    if (r->n_src < 2) return 0;
    if (opscope_ggml_op_is(r->name, OPSCOPE_GGML_OP_MUL_MAT)) return r->ne_src[1][1];
    if (opscope_ggml_op_is(r->name, OPSCOPE_GGML_OP_MUL_MAT_ID)) return r->ne_src[1][2];
    return 0;
}

const char *opscope_graph_warm_name(opscope_graph_warm w) {
    return w == OPSCOPE_GRAPH_WARMUP ? "warm-up" : w == OPSCOPE_GRAPH_OUTLIER ? "outlier" : "steady";
}

void opscope_graphs_load(const opscope_graphs_t *g, uint64_t *records, uint64_t *ns) {
    *records = g->load_records;
    *ns = g->load_ns;
}

const char *opscope_graph_phase_name(opscope_graph_phase p) {
    return p == OPSCOPE_GRAPH_PHASE_PREFILL ? "prefill" : p == OPSCOPE_GRAPH_PHASE_DECODE ? "decode" : "none";
}

static opscope_graph_phase phase_of(const opscope_graph_stats *s) {
    int64_t t = s->queries ? s->queries : s->batch;
    return t > 1 ? OPSCOPE_GRAPH_PHASE_PREFILL : t == 1 ? OPSCOPE_GRAPH_PHASE_DECODE : OPSCOPE_GRAPH_PHASE_NONE;
}

static bool id_eq(const void *ctx, uint32_t i, const void *key) {
    return ((const opscope_graphs_t *)ctx)->ents.v[i].id == *(const int64_t *)key;
}

static opscope_graph_stats *get(opscope_graphs_t *g, int64_t id) {
    if (g->last < g->ents.n && g->ents.v[g->last].id == id) return &g->ents.v[g->last];
    uint64_t h = opscope_mix64((uint64_t)id);
    uint32_t i = opscope_hindex_find(&g->ix, h, &id, id_eq, g);
    if (i == OPSCOPE_HINDEX_NONE) {
        opscope_graph_stats s = {.id = id, .start_ns = UINT64_MAX};
        i = (uint32_t)g->ents.n;
        uint8_t no = 0;
        if (i == OPSCOPE_HINDEX_NONE || OPSCOPE_VEC_PUSH(g->ents, s)) return NULL;
        if (OPSCOPE_VEC_PUSH(g->split_only, no) || opscope_hindex_add(&g->ix, h, i)) {
            g->ents.n--;
            g->split_only.n = g->ents.n;
            return NULL;
        }
    }
    g->last = i;
    return &g->ents.v[i];
}

uint64_t opscope_record_topo(const opscope_record *r, int op) {
    uint64_t id = op;
    if (op < 0) { /* not a ggml op: its name, hashed (never a small number) */
        const char *n = r->name ? r->name : "";
        id = opscope_hash_bytes(n, strlen(n)) | 1ull << 63;
    }
    return opscope_mix64(id ^ (uint64_t)(uint32_t)r->backend_id << 40);
}

/* TOPO: the record's part of the topology (opscope_record_topo; 0 for a copy). */
static int add(opscope_graphs_t *g, const opscope_record *r, uint64_t flops, uint64_t topo) {
    if (r->has & OPSCOPE_HAS_WEIGHT) g->weighted = true;
    if (!(r->has & OPSCOPE_HAS_GRAPH)) {
        if (!g->ents.n) { /* before any graph compute: loading the model */
            g->load_records++;
            g->load_ns += r->duration_ns;
        }
        return 0;
    }
    opscope_graph_stats *s = get(g, r->graph_id);
    if (!s) return -1;
    g->finished = false;
    if (r->type == OPSCOPE_RECORD_OP) {
        s->topo += topo;
        if (r->name && r->name[0] == 'G' && !strcmp(r->name, "GRAPH_SPLIT")) g->split_only.v[s - g->ents.v] = 1;
    }
    uint64_t end = r->start_ns + r->duration_ns;
    s->n++;
    if (r->type == OPSCOPE_RECORD_COPY) {
        s->n_copies++;
        s->copy_ns += r->duration_ns;
    } else {
        s->n_ops++;
        s->op_ns += r->duration_ns;
        int64_t b = opscope_record_batch(r);
        if (b > s->batch) s->batch = b;
        if (r->n_src >= 1 && r->ne_src[0][1] > s->queries && opscope_ggml_op_is(r->name, OPSCOPE_GGML_OP_FLASH_ATTN_EXT))
            s->queries = r->ne_src[0][1];
        if ((r->has & OPSCOPE_HAS_BATCH) && r->queries > s->queries) s->queries = r->queries;
        /* sampled device timing: the estimate counts a timed record for the computes it
         * stands for, a sampled-out split not at all (the weights hold its device work) */
        if (r->has & OPSCOPE_HAS_WEIGHT) {
            s->device_timed = true;
            s->est_op_ns += r->duration_ns * (r->weight ? r->weight : 1);
        } else if (r->has & OPSCOPE_HAS_SAMPLED_OUT) {
            s->sampled_out = true;
        } else {
            s->est_op_ns += r->duration_ns;
        }
    }
    s->bytes += r->bytes;
    s->flops += flops;
    if (r->start_ns < s->start_ns) s->start_ns = r->start_ns;
    if (end > s->end_ns) s->end_ns = end;
    s->backend_mask |= 1ull << (r->backend_id < 0 ? 63 : r->backend_id > 63 ? 63 : r->backend_id);
    if (s->cur_end == 0 && s->cur_start == 0) {
        s->cur_start = r->start_ns, s->cur_end = end;
    } else if (r->start_ns > s->cur_end) { /* a gap: the merged interval is done */
        s->wall_ns += s->cur_end - s->cur_start;
        s->cur_start = r->start_ns, s->cur_end = end;
    } else {
        if (r->start_ns < s->cur_start) s->cur_start = r->start_ns;
        if (end > s->cur_end) s->cur_end = end;
    }
    return 0;
}

int opscope_graphs_add(opscope_graphs_t *g, const opscope_record *r, uint64_t flops) {
    return add(g, r, flops, r->type == OPSCOPE_RECORD_OP ? opscope_record_topo(r, -1) : 0);
}

static int sink_record(void *ud, const opscope_record *r) {
    return opscope_graphs_add(ud, r, 0);
}

int opscope_graphs_add_derived(void *ud, const opscope_record *rec, opscope_derived *d) {
    opscope_graphs_t *g = ud;
    /* the op as the stats found it: no hash of the name (the same partition as by name) */
    uint64_t topo = rec->type == OPSCOPE_RECORD_OP && (rec->has & OPSCOPE_HAS_GRAPH)
                        ? opscope_record_topo(rec, opscope_derived_op(d)) : 0;
    if (!g->ops && !g->ops_failed) g->ops_failed = !(g->ops = opscope_warm_ops_new());
    if (g->ops && opscope_warm_ops_add(g->ops, rec, d, topo)) { /* the marks only: the graphs go on */
        opscope_warm_ops_free(g->ops);
        g->ops = NULL;
        g->ops_failed = true;
    }
    return add(g, rec, opscope_derived_flops(d), topo);
}

bool opscope_graphs_peek(const opscope_graphs_t *g, int64_t id, uint64_t *topo, bool *split_only, bool *weighted) {
    *weighted = g->weighted;
    uint32_t i = g->last < g->ents.n && g->ents.v[g->last].id == id
                     ? (uint32_t)g->last
                     : opscope_hindex_find(&g->ix, opscope_mix64((uint64_t)id), &id, id_eq, g);
    if (i == OPSCOPE_HINDEX_NONE) return false;
    *topo = g->ents.v[i].topo;
    *split_only = g->split_only.v[i];
    return true;
}

const opscope_warm_ops_t *opscope_graphs_warm_ops(const opscope_graphs_t *g) {
    return g ? g->ops : NULL;
}

static int sink_end(void *ud) {
    return opscope_graphs_finish(ud);
}

opscope_sink opscope_graphs_sink(opscope_graphs_t *g) {
    opscope_sink s = {0};
    s.ud = g;
    s.on_record = sink_record;
    s.on_end = sink_end;
    return s;
}

static int by_id(const void *a, const void *b) {
    const opscope_graph_stats *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int by_batch(const void *a, const void *b) {
    const opscope_graph_stats *x = *(const opscope_graph_stats *const *)a;
    const opscope_graph_stats *y = *(const opscope_graph_stats *const *)b;
    if (x->batch != y->batch) return x->batch < y->batch ? -1 : 1;
    if (x->phase != y->phase) return x->phase < y->phase ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static int by_op_time(const void *a, const void *b) {
    const opscope_graph_batch *x = a, *y = b;
    if (x->op_ns != y->op_ns) return x->op_ns > y->op_ns ? -1 : 1;
    if (x->batch != y->batch) return x->batch < y->batch ? -1 : 1;
    return (x->phase > y->phase) - (x->phase < y->phase);
}

/* The median of V[0..N), N > 0 (sorts V): the lower middle for an even N. */
static uint64_t median(uint64_t *v, size_t n) {
    opscope_sort(v, n, sizeof *v, cmp_u64);
    return v[(n - 1) / 2];
}

static int by_topo(const void *a, const void *b) {
    const opscope_graph_stats *x = *(const opscope_graph_stats *const *)a;
    const opscope_graph_stats *y = *(const opscope_graph_stats *const *)b;
    if (x->topo != y->topo) return x->topo < y->topo ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The first compute (lowest id) of each topology is a warm-up. In a sampled run, a compute
 * with an untimed split (GRAPH_SPLIT) is never one: the capture times the first computes of
 * each topology, so an untimed one is only another topology by its records. Marks the
 * entries; ORDER: room for a pointer per entry. */
static void mark_warmups(opscope_graphs_t *g, const opscope_graph_stats **order) {
    for (size_t i = 0; i < g->ents.n; i++) order[i] = &g->ents.v[i];
    opscope_sort(order, g->ents.n, sizeof *order, by_topo);
    bool have = false;
    uint64_t last = 0;
    for (size_t i = 0; i < g->ents.n; i++) {
        size_t at = (size_t)(order[i] - g->ents.v);
        opscope_graph_stats *e = &g->ents.v[at];
        e->warm = OPSCOPE_GRAPH_STEADY;
        if (g->weighted && g->split_only.v[at]) continue;
        if (!have || e->topo != last) e->warm = OPSCOPE_GRAPH_WARMUP;
        have = true;
        last = e->topo;
    }
}

/* The steady graphs of one batch group (ORDER, N of them, pointing into g->sorted) whose wall
 * is over OPSCOPE_GRAPHS_OUTLIER_X times the group's MEDIAN become outliers, when they are
 * rare (a quarter of the group's steady graphs at most): stalls. More is a noisy run, whose
 * spread is its own, so they stay steady (the report flags them all the same). */
static void mark_stalls(opscope_graphs_t *g, const opscope_graph_stats **order, size_t n, uint64_t median) {
    size_t steady = 0, over = 0;
    for (size_t k = 0; k < n; k++) {
        if (order[k]->warm != OPSCOPE_GRAPH_STEADY) continue;
        steady++;
        over += order[k]->wall_ns > OPSCOPE_GRAPHS_OUTLIER_X * median;
    }
    if (!over || over * OPSCOPE_GRAPHS_STALLS_MAX > steady) return;
    for (size_t k = 0; k < n; k++)
        if (order[k]->warm == OPSCOPE_GRAPH_STEADY && order[k]->wall_ns > OPSCOPE_GRAPHS_OUTLIER_X * median)
            g->sorted[order[k] - g->sorted].warm = OPSCOPE_GRAPH_OUTLIER;
}

int opscope_graphs_finish(opscope_graphs_t *g) {
    if (g->finished) return 0;
    if (g->ops) opscope_warm_ops_finish(g->ops);
    free(g->sorted);
    free(g->batches);
    g->sorted = NULL;
    g->batches = NULL;
    g->n_sorted = g->n_batches = 0;
    if (!g->ents.n) {
        g->finished = true;
        return 0;
    }
    g->sorted = malloc(g->ents.n * sizeof *g->sorted);
    const opscope_graph_stats **order = malloc(g->ents.n * sizeof *order);
    uint64_t *tmp = malloc(2 * g->ents.n * sizeof *tmp);
    g->batches = malloc(g->ents.n * sizeof *g->batches);
    if (!g->sorted || !order || !g->batches || !tmp) {
        free(order);
        free(tmp);
        return -1;
    }
    mark_warmups(g, order);
    for (size_t i = 0; i < g->ents.n; i++) {
        g->sorted[g->n_sorted] = g->ents.v[i];
        g->sorted[g->n_sorted].phase = phase_of(&g->ents.v[i]);
        /* the wall so far plus the interval still open (the entry itself stays open for more) */
        g->sorted[g->n_sorted].wall_ns += g->ents.v[i].cur_end - g->ents.v[i].cur_start;
        g->n_sorted++;
    }
    opscope_sort(g->sorted, g->n_sorted, sizeof *g->sorted, by_id);
    for (size_t i = 0; i < g->n_sorted; i++) order[i] = &g->sorted[i];
    opscope_sort(order, g->n_sorted, sizeof *order, by_batch);
    for (size_t i = 0; i < g->n_sorted;) {
        size_t j = i;
        opscope_graph_batch b = {.batch = order[i]->batch, .phase = order[i]->phase, .first_graph = order[i]->id};
        uint64_t *ops = tmp, *walls = tmp + g->ents.n;
        for (; j < g->n_sorted && order[j]->batch == b.batch && order[j]->phase == b.phase; j++) {
            const opscope_graph_stats *s = order[j];
            uint64_t wall = s->wall_ns;
            b.span_ns += s->end_ns - s->start_ns;
            ops[j - i] = s->op_ns;
            walls[j - i] = wall;
            b.graphs++;
            b.records += s->n;
            b.n_ops += s->n_ops;
            b.op_ns += s->op_ns;
            b.copy_ns += s->copy_ns;
            b.wall_ns += wall;
            if (s->warm == OPSCOPE_GRAPH_WARMUP) {
                b.warmup_graphs++;
                b.warmup_op_ns += s->op_ns;
                b.warmup_wall_ns += wall;
            }
            b.est_op_ns += s->est_op_ns;
            b.device_timed_graphs += s->device_timed;
            b.sampled_out_graphs += s->sampled_out;
        }
        b.median_op_ns = median(ops, j - i);
        b.median_wall_ns = median(walls, j - i);
        mark_stalls(g, order + i, j - i, b.median_wall_ns);
        for (size_t k = i; k < j; k++) { /* each graph of the group against its median */
            uint64_t wall = order[k]->wall_ns;
            if (wall <= OPSCOPE_GRAPHS_OUTLIER_X * b.median_wall_ns) continue;
            b.n_outliers++;
            b.outlier_wall_ns += wall;
            if (wall > b.max_outlier_wall_ns) {
                b.max_outlier_wall_ns = wall;
                b.max_outlier_graph = order[k]->id;
            }
        }
        g->batches[g->n_batches++] = b;
        i = j;
    }
    free(order);
    free(tmp);
    opscope_graph_batch *fit = realloc(g->batches, g->n_batches * sizeof *fit); /* a few, usually */
    if (fit) g->batches = fit;
    opscope_sort(g->batches, g->n_batches, sizeof *g->batches, by_op_time);
    g->finished = true;
    return 0;
}

size_t opscope_graphs_n(const opscope_graphs_t *g) {
    return g->n_sorted;
}

const opscope_graph_stats *opscope_graphs_at(const opscope_graphs_t *g, size_t i) {
    return i < g->n_sorted ? &g->sorted[i] : NULL;
}

const opscope_graph_stats *opscope_graphs_find(const opscope_graphs_t *g, int64_t id) {
    size_t lo = 0, hi = g->n_sorted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->sorted[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < g->n_sorted && g->sorted[lo].id == id ? &g->sorted[lo] : NULL;
}

size_t opscope_graphs_n_batches(const opscope_graphs_t *g) {
    return g->n_batches;
}

const opscope_graph_batch *opscope_graphs_batch_at(const opscope_graphs_t *g, size_t i) {
    return i < g->n_batches ? &g->batches[i] : NULL;
}
