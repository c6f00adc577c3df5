/* run_tests.c - a llama-bench run's tests (see run_tests.h). */
#include "analyze/ggml/run_tests.h"
#include "model/ggml_vocab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The graphs of one repetition: from clear AT up to (not including) NEXT. */
typedef struct rep_acc {
    int64_t prompt, gen;
    uint64_t last_end;
    bool any;
} rep_acc;

/* Adds graph S (in start order) to repetition R. */
static void rep_add(rep_acc *r, const opscope_graph_stats *s) {
    int64_t b = s->batch > 0 ? s->batch : 0;
    if (b > 1) { /* a prompt graph: any 1-row graphs before it were the prompt's too */
        r->prompt += r->gen + b;
        r->gen = 0;
    } else {
        r->gen += b;
    }
    if (s->end_ns > r->last_end) r->last_end = s->end_ns;
    r->any = true;
}

static int by_start(const void *a, const void *b) {
    const opscope_graph_stats *x = *(const opscope_graph_stats *const *)a;
    const opscope_graph_stats *y = *(const opscope_graph_stats *const *)b;
    return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* Test of context C over the graphs LIST[0..N) that start in (FROM, C's end]. */
static void one_test(const opscope_run_info *run, size_t ci, const opscope_graph_stats **list,
                     size_t n, opscope_run_test *t, rep_acc *reps) {
    const opscope_run_context *c = &run->contexts[ci];
    memset(t, 0, sizeof *t);
    t->context = ci;
    if (c->model >= 0 && (size_t)c->model < run->n_models) t->model = run->models[c->model].path;
    t->n_batch = c->n_batch;
    t->n_ubatch = c->n_ubatch;
    t->n_threads = c->n_threads;
    size_t nr = c->n_reps - 1; /* segments after the warm-up */
    memset(reps, 0, nr * sizeof *reps);
    for (size_t i = 0; i < n; i++) {
        const opscope_graph_stats *s = list[i];
        t->backend_mask |= s->backend_mask;
        /* the segment: the last clear at or before its start */
        size_t k = 0;
        while (k < c->n_reps && c->reps_ns[k] <= s->start_ns) k++;
        if (k <= 1) { /* before the first clear (setup) or the warm-up */
            t->warmup_graphs++;
            t->warmup_op_ns += s->op_ns;
            continue;
        }
        t->graphs++;
        t->op_ns += s->op_ns;
        rep_add(&reps[k - 2], s);
    }
    double sum = 0, sum2 = 0;
    uint64_t sum_ns = 0;
    for (size_t k = 0; k < nr; k++) {
        const rep_acc *r = &reps[k];
        uint64_t at = c->reps_ns[k + 1];
        if (!r->any || r->last_end <= at) continue;
        if (!t->n_reps) {
            t->n_prompt = r->prompt;
            t->n_gen = r->gen;
        }
        double ts = (double)(r->prompt + r->gen) * 1e9 / (double)(r->last_end - at);
        sum += ts;
        sum2 += ts * ts;
        sum_ns += r->last_end - at;
        t->n_reps++;
    }
    if (t->n_reps) {
        t->avg_ts = sum / (double)t->n_reps;
        t->avg_ns = sum_ns / t->n_reps;
        if (t->n_reps > 1) {
            double var = (sum2 - sum * sum / (double)t->n_reps) / (double)(t->n_reps - 1);
            t->stddev_ts = var > 0 ? sqrt(var) : 0;
        }
    }
}

/* Whether a call in (FROM, TO] followed a clear of the memory with its data (llama.cpp's
 * warm-ups end so; llama-bench's repetitions clear without it). *AT: the calls' cursor (calls
 * come in call order, the contexts in the order they were freed). */
static bool wiped_in(const opscope_run_info *run, size_t *at, uint64_t from, uint64_t to) {
    while (*at < run->n_decodes && run->decodes[*at].start_ns <= from) (*at)++;
    for (size_t i = *at; i < run->n_decodes && run->decodes[i].start_ns <= to; i++)
        if (run->decodes[i].wiped) return true;
    return false;
}

int opscope_run_tests(const opscope_run_info *run, const opscope_graphs_t *g,
                      opscope_run_test **out, size_t *n) {
    *out = NULL;
    *n = 0;
    if (!run || !run->n_contexts || !g) return 0;
    size_t ng = opscope_graphs_n(g), max_reps = 0;
    for (size_t i = 0; i < run->n_contexts; i++)
        if (run->contexts[i].n_reps > max_reps) max_reps = run->contexts[i].n_reps;
    const opscope_graph_stats **list = malloc((ng ? ng : 1) * sizeof *list);
    opscope_run_test *tests = malloc(run->n_contexts * sizeof *tests);
    rep_acc *reps = malloc((max_reps ? max_reps : 1) * sizeof *reps);
    if (!list || !tests || !reps) {
        free(list);
        free(tests);
        free(reps);
        return -1;
    }
    for (size_t i = 0; i < ng; i++) list[i] = opscope_graphs_at(g, i);
    qsort(list, ng, sizeof *list, by_start);
    size_t nt = 0, gi = 0, di = 0;
    uint64_t from = 0;
    for (size_t ci = 0; ci < run->n_contexts; ci++) {
        const opscope_run_context *c = &run->contexts[ci];
        while (gi < ng && list[gi]->start_ns <= from) gi++;
        size_t g0 = gi;
        while (gi < ng && list[gi]->start_ns <= c->end_ns) gi++;
        uint64_t prev = from;
        if (c->end_ns > from) from = c->end_ns;
        if (c->n_reps < 2) continue; /* no llama-bench test: no warm-up and repetitions */
        /* its clears wiped the data: a server's or a program's warm-ups, not repetitions */
        if (wiped_in(run, &di, prev, c->end_ns)) continue;
        one_test(run, ci, list + g0, gi - g0, &tests[nt], reps);
        if (tests[nt].n_reps) nt++;
    }
    free(list);
    free(reps);
    if (!nt) {
        free(tests);
        return 0;
    }
    *out = tests;
    *n = nt;
    return 0;
}

static bool on_test(const opscope_run_test *t, int32_t backend) {
    int b = backend < 0 ? 63 : backend > 63 ? 63 : backend;
    return (t->backend_mask >> b) & 1u;
}

/* The groups are by time already; one op on several of the test's backends (CPU and BLAS)
 * is one entry, its times summed. Up to KEEP distinct names are merged. */
enum { KEEP = 64 };

static int by_total(const void *a, const void *b) {
    const opscope_run_test_op *x = a, *y = b;
    return x->total_ns > y->total_ns ? -1 : x->total_ns < y->total_ns;
}

size_t opscope_run_test_top_ops(const opscope_stats_t *s, const opscope_run_test *t,
                                opscope_run_test_op *out, size_t max) {
    opscope_run_test_op acc[KEEP];
    uint64_t all = 0;
    size_t k = 0, n = opscope_stats_n_ops(s);
    for (size_t i = 0; i < n; i++) {
        const opscope_op_stats *o = opscope_stats_op(s, i);
        if (o->type != OPSCOPE_RECORD_OP || !on_test(t, o->backend_id)) continue;
        all += o->total_ns;
        size_t j = 0;
        while (j < k && strcmp(acc[j].display, o->display) != 0) j++;
        if (j < k) acc[j].total_ns += o->total_ns;
        else if (k < KEEP) acc[k++] = (opscope_run_test_op){o->display, o->total_ns, 0};
    }
    qsort(acc, k, sizeof *acc, by_total);
    if (k > max) k = max;
    for (size_t i = 0; i < k; i++) {
        out[i] = acc[i];
        out[i].share = all ? (double)acc[i].total_ns / (double)all : 0;
    }
    return k;
}

bool opscope_run_tests_share_backends(const opscope_run_test *tests, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (tests[i].backend_mask & tests[j].backend_mask) return true;
    return false;
}

/* MUL_MAT on the backends named "BLAS": FLOPs and time into N. */
static void blas_mul_mat(const opscope_stats_t *s, opscope_run_note *n) {
    uint64_t all = 0;
    for (size_t i = 0; i < opscope_stats_n_ops(s); i++) {
        const opscope_op_stats *o = opscope_stats_op(s, i);
        if (o->type != OPSCOPE_RECORD_OP) continue;
        all += o->total_ns;
        if (!opscope_ggml_op_is(o->name, OPSCOPE_GGML_OP_MUL_MAT)) continue;
        for (size_t b = 0; b < opscope_stats_n_backends(s); b++) {
            const opscope_backend_stats *be = opscope_stats_backend(s, b);
            if (be->backend_id == o->backend_id && be->name && !strcmp(be->name, "BLAS")) {
                n->flops += o->flops;
                n->ns += o->total_ns;
            }
        }
    }
    n->share = all ? (double)n->ns / (double)all : 0;
}

/* The longest op group with at least 10% of the op time below 10% of its roofline. */
static bool below_peak(const opscope_stats_t *s, const opscope_peak *peak, opscope_run_note *n) {
    uint64_t all = opscope_stats_totals(s)->op_ns;
    for (size_t i = 0; peak && all && i < opscope_stats_n_ops(s); i++) {
        const opscope_op_stats *o = opscope_stats_op(s, i);
        if (o->type != OPSCOPE_RECORD_OP) continue;
        if ((double)o->total_ns < 0.1 * (double)all) break; /* by time: the rest are smaller */
        const opscope_backend_stats *be = NULL;
        for (size_t b = 0; b < opscope_stats_n_backends(s) && !be; b++)
            if (opscope_stats_backend(s, b)->backend_id == o->backend_id) be = opscope_stats_backend(s, b);
        opscope_roof r;
        if (!be || !opscope_roofline_applies(be) ||
            opscope_roofline_of(peak, o, be, &r) == OPSCOPE_BOUND_UNKNOWN || r.pct >= 10.0)
            continue;
        n->group = o;
        n->roof = r;
        n->ns = o->total_ns;
        n->share = (double)o->total_ns / (double)all;
        return true;
    }
    return false;
}

size_t opscope_run_notes(const opscope_stats_t *s, const opscope_peak *peak, opscope_run_note *out,
                         size_t max) {
    const opscope_run_info *run = opscope_stats_run(s);
    size_t k = 0;
    if (k < max) {
        memset(&out[k], 0, sizeof out[k]);
        out[k].kind = OPSCOPE_RUN_NOTE_BELOW_PEAK;
        if (below_peak(s, peak, &out[k])) k++;
    }
    if (!run) return k;
    if (k < max && run->blas && !strcmp(run->blas, "reference")) {
        memset(&out[k], 0, sizeof out[k]);
        out[k].kind = OPSCOPE_RUN_NOTE_REFERENCE_BLAS;
        blas_mul_mat(s, &out[k]);
        k++;
    }
    uint32_t fewest = 0;
    for (size_t i = 0; i < run->n_contexts; i++) {
        uint32_t t = run->contexts[i].n_threads;
        if (t && (!fewest || t < fewest)) fewest = t;
    }
    if (k < max && fewest && run->cpu_cores > 0 && fewest < (uint32_t)run->cpu_cores) {
        memset(&out[k], 0, sizeof out[k]);
        out[k].kind = OPSCOPE_RUN_NOTE_FEW_THREADS;
        out[k].threads = fewest;
        out[k].cores = (uint32_t)run->cpu_cores;
        k++;
    }
    return k;
}
