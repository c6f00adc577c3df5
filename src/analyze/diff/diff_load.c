/*
 * diff_load.c - a diff's two sides read and compared (diff_load.h): the flow of `opscope diff`
 * from its inputs to the finished comparison, shared by the CLI and the Python package.
 */
#include "analyze/diff/diff_load.h"

#include "analyze/diff/diff_kind.h"
#include "analyze/ggml/graphs.h"
#include "analyze/ggml/warm_apart.h"
#include "analyze/ggml/warm_defer.h"
#include "analyze/session/tee.h"
#include "model/run_info.h"
#include "model/strtab.h"
#include "read/readers.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records held back while a graph compute's warm-up is decided (warm_defer.h). */
#define DIFF_HOLD_BYTES (32u << 20)

static void set_nomem(opscope_error *err) {
    memset(err, 0, sizeof *err);
    err->code = OPSCOPE_ERROR_NOMEM;
    err->msg = "out of memory";
}

/* One input: its side of the diff, the Kineto analysis the trace reader fills, its timeline. */
typedef struct input {
    opscope_diff_side_t *side;
    opscope_strtab_t *names;
    opscope_kineto_t *kin;
    opscope_trace_ops_t *tops; /* the trace's events per name and step, fed before KIN */
    const opscope_diff_timeline *tl; /* the timeline of its first run (NULL: none) */
    int side_no;               /* 0 BASE, 1 NEW (for TL) */
    bool tl_open;
    opscope_sink tl_sink;
    opscope_graph_selection sel; /* --batch, --graphs: of the run being read */
    uint64_t kept, dropped;    /* the filter's counts over the side's runs */
    opscope_diff_kind kind;    /* ggml profile or trace, per run (a mix is refused) */
    opscope_graphs_t *graphs;  /* the first run's graphs and what ran: its llama-bench tests */
    opscope_run_t *run;
    opscope_run_test *tests;
    size_t n_tests;
    opscope_warm_apart *apart; /* per run: its warm-up and outlier graphs (found while read) */
    uint64_t apart_graphs[3], apart_records[3], apart_ns[3]; /* left out, over the runs */
    opscope_run_request *requests;
    size_t n_requests;
    opscope_warm_defer_t *defer; /* the run being read, when its warm-up is found in the read */
} input;

typedef struct opscope_diff_load loader;

struct opscope_diff_load {
    opscope_diff_load_opts o;
    opscope_graph_select select; /* O's, its steady state set (no --include-warmup, no stdin) */
    bool apart_stdin;            /* the steady state not found: an input is stdin (read once) */
    input in[2];
    opscope_diff_t *d;
    opscope_trace_ops_cmp tcmp;
    opscope_diff_load_view v;
};


/* The first run's capture.run, copied (the reader's is gone after the read). */
static int catch_meta(void *ud, const opscope_meta *m) {
    input *in = ud;
    if (m->capture && m->capture->run && !in->run) {
        int failed = 0;
        in->run = opscope_run_copy(m->capture->run, &failed);
        if (failed) return -1;
    }
    return 0;
}

static void input_free(input *in) {
    opscope_warm_defer_free(in->defer);
    opscope_diff_side_free(in->side);
    opscope_trace_ops_free(in->tops);
    opscope_kineto_free(in->kin);
    opscope_strtab_free(in->names);
    if (in->tl_open) in->tl->drop(in->tl->ud, in->side_no); /* the caller's timeline */
    opscope_graph_select_close(&in->sel);
    opscope_graphs_free(in->graphs);
    opscope_run_free(in->run);
    free(in->tests);
    for (size_t r = 0; in->apart && r < OPSCOPE_DIFF_MAX_INPUTS; r++) opscope_warm_apart_free(&in->apart[r]);
    free(in->apart);
    free(in->requests);
}

/* How a side's runs are read (read_side, read_input). */
typedef struct read_plan {
    const opscope_graph_select *sel; /* the graph computes read: --batch, --graphs, steady state */
    bool find_apart; /* each run's warm-up and outliers found in its own read (warm_defer.h, steady
                        state without --batch and --graphs only), else known (the side's apart
                        list, or none) before it */
    bool *held;      /* with FIND_APART: cleared when a read must be redone with the lists found */
    opscope_diff_read_fn read; /* every read */
    FILE *msg;       /* the selection's note */
} read_plan;

/* Reads PATH, run RUN of IN's side (the first one feeds its timeline), only the graph computes
 * PLAN's selection chooses; with its steady state, without the run's warm-up and outlier graphs
 * (IN->apart[RUN]) and the load (the graphs, for llama-bench's tests, still see them unless
 * --batch or --graphs filter too). With PLAN's FIND_APART, IN->apart[RUN] is not known yet but
 * found in this read. Returns 0, or -1 with ERR filled. */
static int read_input(const char *path, input *in, size_t run, const read_plan *plan, opscope_error *err) {
    bool first = run == 0;
    opscope_warm_apart *own = in->apart ? &in->apart[run] : NULL;
    const opscope_warm_apart *apart = plan->find_apart ? NULL : own;
    opscope_warm_apart *found = plan->find_apart ? own : NULL;
    opscope_graph_select one = *plan->sel;
    const opscope_graph_select *sel = &one;
    if (found) {
        memset(found, 0, sizeof *found);
        opscope_format fmt = opscope_detect_file_format(path);
        if (fmt == OPSCOPE_FORMAT_KINETO || fmt == OPSCOPE_FORMAT_CHROME) found = NULL; /* zeros */
        apart = found;
    }
    /* no graph computes (a trace): no warm-up to find, no load before them */
    if (!found && (!apart || !(apart->graphs[0] + apart->graphs[1] + apart->graphs[2]))) one.steady = false;
    opscope_graph_select_close(&in->sel);
    memset(&in->sel, 0, sizeof in->sel);
    if (opscope_graph_select_open(sel, path, plan->read, &in->sel, err)) return -1;
    in->sel.filter.apart = apart;
    bool filtered = opscope_graph_select_filters(sel), only_steady = filtered && !opscope_graph_select_any(sel);
    opscope_tee tee, outer;
    opscope_tee_init(&tee);
    opscope_tee_init(&outer);
    opscope_tee *whole = only_steady ? &outer : &tee; /* what sees the warm-up too */
    opscope_tee_add(&tee, opscope_diff_side_sink(in->side));
    in->kind.reading = path;
    opscope_tee_add(&tee, opscope_diff_kind_sink(&in->kind));
    /* the page's timeline: the whole run, warm-up and load included (only --batch and --graphs
     * narrow it); its tables are the comparison's */
    if (in->tl_open && first) opscope_tee_add(whole, in->tl_sink);
    if (first && in->graphs) {
        opscope_tee_add(whole, opscope_graphs_sink(in->graphs));
        opscope_sink meta = {in, catch_meta, NULL, NULL, NULL};
        opscope_tee_add(whole, meta);
    }
    opscope_sink sink = opscope_tee_sink(&tee);
    if (filtered) {
        in->sel.filter.next = sink;
        sink = opscope_graph_filter_sink(&in->sel.filter);
    }
    opscope_warm_defer_free(in->defer);
    in->defer = NULL;
    if (found) { /* held back until decided, then the filter; PLAIN: no graph computes */
        /* the first run's graphs (fed before the defer, in OUTER) are the rule's */
        opscope_graphs_t *g = first && only_steady ? in->graphs : NULL;
        if (!(in->defer = opscope_warm_defer_new(sink, opscope_tee_sink(&tee), DIFF_HOLD_BYTES, g)))
            return set_nomem(err), -1;
        in->sel.filter.warm_of = opscope_warm_defer_verdict;
        in->sel.filter.warm_ctx = in->defer;
        sink = opscope_warm_defer_sink(in->defer);
    }
    if (only_steady) {
        opscope_tee_add(&outer, sink);
        sink = opscope_tee_sink(&outer);
    }
    opscope_read_options ro = {0};
    /* filled by Kineto and Chrome input only */
    ro.kineto = in->tops ? opscope_trace_ops_collector(in->tops) : opscope_kineto_collector_of(in->kin);
    int rc = plan->read(path, OPSCOPE_FORMAT_AUTO, &sink, &ro, err);
    if (rc) {
        if (err->code == OPSCOPE_ERROR_ABORTED) set_nomem(err);
        return -1;
    }
    if (in->kin && opscope_kineto_finish(in->kin)) {
        set_nomem(err);
        return -1;
    }
    if (in->defer) {
        bool ok = false;
        if (opscope_warm_defer_check(in->defer, found, &ok)) return set_nomem(err), -1;
        *plan->held &= ok;
    }
    opscope_graph_select_note(plan->msg, "diff", sel, path, &in->sel);
    in->kept += in->sel.filter.kept;
    in->dropped += in->sel.filter.dropped;
    for (int k = 0; k < 3; k++) {
        in->apart_records[k] += in->sel.filter.apart_n[k];
        in->apart_ns[k] += in->sel.filter.apart_ns[k];
        if (k && sel->steady && apart) in->apart_graphs[k] += apart->graphs[k];
    }
    return 0;
}

/* The first passes of every input (PATHS, N_IN per side) into IN[s].apart; the steady state
 * is compared only when every input with graph computes has a steady one among those --batch
 * and --graphs choose, else *NO_STEADY names the first input without. Returns 0, or -1 with ERR filled. */
static int find_aparts(loader *a, input in[2], const char *const *paths[2],
                       const char **no_steady, opscope_error *err) {
    *no_steady = NULL;
    opscope_graph_filter f; /* what --batch and --graphs choose, for chosen_steady */
    opscope_graph_select_filter_init(&a->select, &f);
    for (int s = 0; s < 2; s++) {
        in[s].apart = calloc(OPSCOPE_DIFF_MAX_INPUTS, sizeof *in[s].apart);
        if (!in[s].apart) return set_nomem(err), -1;
        for (size_t r = 0; r < a->o.n_in[s]; r++) {
            opscope_warm_apart *w = &in[s].apart[r];
            if (opscope_diff_apart_find(paths[s][r], &f, a->o.read, w, err)) return -1;
            uint64_t all = w->graphs[0] + w->graphs[1] + w->graphs[2];
            if (all && !w->chosen_steady && !*no_steady) *no_steady = paths[s][r];
        }
    }
    return 0;
}

/* Reads side IN's runs (PATHS, N of them) as PLAN says (read_input). Returns 0, or -1 with ERR
 * filled. */
static int read_side(loader *a, input *in, const char *const *paths, size_t n,
                     const read_plan *plan, opscope_error *err) {
    in->side = opscope_diff_side_new(a->o.keys);
    in->names = opscope_strtab_new();
    /* the trace analysis holds one trace: several runs are compared by their kernels */
    bool one = n == 1;
    in->kin = in->names && one ? opscope_kineto_new(in->names) : NULL;
    in->tl = a->o.timeline;
    in->side_no = (int)(in - a->in);
    if (in->tl) in->tl_open = !in->tl->open(in->tl->ud, in->side_no, paths[0], &in->tl_sink);
    if (!in->side || !in->names || (one && !in->kin) || (in->tl && !in->tl_open)) return set_nomem(err), -1;
    if (in->kin) {
        opscope_kineto_keep_dims(in->kin); /* work pairs: CPU ops with their dims */
        /* CPU-op records are compared for CPU-only traces; with kernels, kernels are */
        opscope_kineto_cpu_ops_without_gpu_only(in->kin);
        /* the trace ops' tally wraps the collector as now set (it copies what it asks) */
        if (!(in->tops = opscope_trace_ops_new(opscope_kineto_collector_of(in->kin)))) return set_nomem(err), -1;
    }
    if (!(in->graphs = opscope_graphs_new())) return set_nomem(err), -1;
    opscope_diff_side_set_kineto(in->side, in->kin);
    for (size_t r = 0; r < n; r++)
        if (read_input(paths[r], in, r, plan, err)) return -1;
    opscope_warm_defer_free(in->defer); /* the last run's: its verdicts are no longer asked */
    in->defer = NULL;
    return 0;
}

/* IN emptied for another read, its runs' warm-up lists kept. */
static void input_reset(input *in) {
    opscope_warm_apart *apart = in->apart;
    in->apart = NULL;
    input_free(in);
    memset(in, 0, sizeof *in);
    in->apart = apart;
}

/* ERR: PATH lacks what --by asked for (MSG); -1. */
static int lacks(opscope_error *err, const char *path, const char *msg) {
    memset(err, 0, sizeof *err);
    err->code = OPSCOPE_ERROR_USAGE; /* no position: the whole profile lacks them */
    err->msg = msg;
    snprintf(err->file, sizeof err->file, "%s", path);
    return -1;
}

/* After side S's read (IN, its first run PATHS[0]): its graphs finished, its llama-bench tests
 * and requests, and the error of a --by test / request without them. Returns 0, or -1 with
 * ERR filled. */
static int finish_side(loader *a, input *in, const char *const *paths, opscope_error *err) {
    if (opscope_graphs_finish(in->graphs) ||
        opscope_run_tests(opscope_run_view(in->run), in->graphs, &in->tests, &in->n_tests) ||
        opscope_run_requests(opscope_run_view(in->run), in->graphs, &in->requests, &in->n_requests, NULL))
        return set_nomem(err), -1;
    /* llama.cpp's warm-ups are no client's requests: left out of the pairing */
    in->n_requests = opscope_run_requests_clients_first(in->requests, in->n_requests);
    if (a->o.requests_only && !in->n_requests)
        return lacks(err, paths[0], "--by request: no llama requests in this profile (its capture saw no "
                                    "libllama batches)");
    if (a->o.tests_only && !in->n_tests)
        return lacks(err, paths[0], "--by test: no llama-bench tests in this profile (its capture says no "
                                    "llama contexts with a warm-up and repetitions)");
    return 0;
}

/* Reads each side's runs into IN (PATHS[s], A->n_in[s] of them). With the steady state alone
 * (no --batch, --graphs), each input is read once and its warm-up found in that read; read
 * again, with the lists then known, only when a guess made while reading failed (a stall, far
 * interleaved graphs) or an input has no steady graph. Returns 0, or -1 with ERR filled. */
static int read_sides(loader *a, input in[2], const char *const *paths[2],
                      const char **no_steady, opscope_error *err) {
    opscope_graph_select sel = a->select;
    *no_steady = NULL;
    bool once = sel.steady && !opscope_graph_select_any(&sel), held = true;
    if (once) {
        for (int s = 0; s < 2; s++)
            if (!(in[s].apart = calloc(OPSCOPE_DIFF_MAX_INPUTS, sizeof *in[s].apart))) return set_nomem(err), -1;
    } else if (sel.steady && find_aparts(a, in, paths, no_steady, err)) {
        return -1;
    }
    if (*no_steady) sel.steady = false;
    read_plan plan = {.sel = &sel, .find_apart = once, .held = &held, .read = a->o.read, .msg = a->o.msg};
    for (int s = 0; s < 2; s++) /* without ONCE each side is done before the next is read */
        if (read_side(a, &in[s], paths[s], a->o.n_in[s], &plan, err) ||
            (!once && finish_side(a, &in[s], paths[s], err)))
            return -1;
    if (once) {
        for (int s = 0; s < 2; s++)
            for (size_t r = 0; r < a->o.n_in[s]; r++) {
                const opscope_warm_apart *w = &in[s].apart[r];
                uint64_t all = w->graphs[0] + w->graphs[1] + w->graphs[2];
                if (all && !w->chosen_steady && !*no_steady) *no_steady = paths[s][r];
            }
        if (*no_steady) sel.steady = false;
        plan.find_apart = false; /* the lists are known now */
        if (!held || *no_steady)
            for (int s = 0; s < 2; s++) {
                input_reset(&in[s]);
                if (read_side(a, &in[s], paths[s], a->o.n_in[s], &plan, err) ||
                    finish_side(a, &in[s], paths[s], err))
                    return -1;
            }
        else
            for (int s = 0; s < 2; s++)
                if (finish_side(a, &in[s], paths[s], err)) return -1;
    }
    return 0;
}

/* The diff of the two sides read into A->in, and what the outputs read of A. NULL: *WHY says
 * why, or memory ran out (*WHY NULL). */
static opscope_diff_t *compute(loader *a, const char *no_steady, const char **why) {
    input *in = a->in;
    opscope_diff_load_view *v = &a->v;
    /* the key's default and the backend merge depend on what was read */
    unsigned keys = a->o.keys ? a->o.keys : OPSCOPE_DIFF_KEY_OP;
    bool merge = a->o.merge_backends || !opscope_diff_sides_same_backends(in[0].side, in[1].side);
    *why = NULL;
    for (int s = 0; s < 2; s++)
        if (opscope_diff_side_finish(in[s].side, merge)) return NULL;
    if (opscope_diff_sides_pair(in[0].side, in[1].side)) return NULL;
    opscope_diff_opts o = {.keys = keys, .norm = a->o.norm, .alpha = a->o.alpha,
                           .min_share = a->o.min_share, .fail_pct = a->o.fail_pct,
                           .merged_backends = merge, .by = a->o.by};
    for (int s = 0; s < 2; s++) {
        v->tests[s] = in[s].tests;
        v->n_tests[s] = in[s].n_tests;
        v->requests[s] = in[s].requests;
        v->n_requests[s] = in[s].n_requests;
    }
    if (opscope_graph_select_any(&a->select)) {
        v->filter = in[0].sel.desc;
        for (int s = 0; s < 2; s++) {
            v->filter_kept[s] = in[s].kept;
            v->filter_records[s] = in[s].kept + in[s].dropped;
        }
    }
    opscope_diff_load_apart *ap = &v->apart;
    ap->on = a->select.steady && !no_steady;
    ap->stdin_read = a->apart_stdin;
    ap->no_steady = no_steady;
    bool graphs = false; /* any input with graph computes (first pass) */
    for (int s = 0; s < 2; s++)
        for (size_t r = 0; in[s].apart && r < a->o.n_in[s]; r++)
            graphs |= in[s].apart[r].graphs[0] + in[s].apart[r].graphs[1] + in[s].apart[r].graphs[2] > 0;
    ap->no_graphs = a->select.steady && !graphs;
    ap->on &= !ap->no_graphs;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 3; k++) {
            ap->graphs[s][k] = in[s].apart_graphs[k];
            ap->records[s][k] = in[s].apart_records[k];
            ap->ns[s][k] = in[s].apart_ns[k];
        }
    return opscope_diff_new(in[0].side, in[1].side, &o, why);
}

/* Two traces' events per name over A's steps into A->tcmp, when both sides are one Kineto
 * trace; --steps of inputs that are not is refused. Returns 0, 1 (WHY says why) or -1 (out of
 * memory). */
static int trace_ops(loader *a, char *why, size_t size) {
    input *in = a->in;
    const char *const *const *paths = a->o.paths;
    bool traces = true;
    for (int s = 0; s < 2; s++) traces &= in[s].tops && opscope_kineto_get_info(in[s].kin)->is_kineto;
    if (!traces) {
        if (a->o.steps.all) return 0;
        snprintf(why, size, "--steps: for one PyTorch (Kineto) trace a side");
        return 1;
    }
    for (int s = 0; s < 2; s++) {
        int64_t first, last;
        int rc = opscope_trace_ops_finish(in[s].tops, &a->o.steps, &first, &last);
        if (rc < 0) return -1;
        if (rc && first < 0) snprintf(why, size, "--steps: %s has no ProfilerStep#N", paths[s][0]);
        else if (rc) snprintf(why, size, "--steps: %s has ProfilerStep#%" PRId64 " to #%" PRId64 ", none chosen",
                              paths[s][0], first, last);
        if (rc) return 1;
    }
    if (opscope_trace_ops_compare(in[0].tops, in[1].tops, &a->tcmp)) return -1;
    a->tcmp.chosen = !a->o.steps.all;
    return 0;
}

void opscope_diff_load_opts_init(opscope_diff_load_opts *o, opscope_diff_read_fn read) {
    memset(o, 0, sizeof *o);
    o->steps.all = true;
    o->min_share = 0.5;
    o->fail_pct = -1;
    o->alpha = 0.05;
    o->read = read;
}

int opscope_diff_norm_parse(const char *s, opscope_diff_norm *out) {
    static const char *const names[] = {"auto", "none", "graph", "token", "iteration"};
    static const opscope_diff_norm norms[] = {OPSCOPE_DIFF_NORM_AUTO, OPSCOPE_DIFF_NORM_NONE, OPSCOPE_DIFF_NORM_GRAPH,
                                              OPSCOPE_DIFF_NORM_TOKEN, OPSCOPE_DIFF_NORM_ITERATION};
    for (size_t i = 0; s && i < sizeof names / sizeof *names; i++)
        if (!strcmp(s, names[i])) return *out = norms[i], 0;
    return -1;
}

/* The sides of A read and compared. Returns as opscope_diff_load. */
static int load_run(loader *a, opscope_error *err, char *why, size_t size) {
    const char *no_steady = NULL, *reason = NULL;
    if (read_sides(a, a->in, a->o.paths, &no_steady, err)) return -1;
    /* the refusal's sentence is cut at 1023 bytes, as the command has always written it */
    if (opscope_diff_kind_refusal(&a->in[0].kind, &a->in[1].kind, why, size < 1024 ? size : 1024)) return 1;
    a->d = compute(a, no_steady, &reason);
    if (!a->d && reason) return snprintf(why, size, "%s", reason), 1;
    if (!a->d) return set_nomem(err), -1;
    int rc = trace_ops(a, why, size);
    if (rc < 0) snprintf(why, size, "out of memory"); /* said as the command always said it */
    if (rc) return 1;
    a->v.trace_ops = a->tcmp.cpu ? &a->tcmp : NULL;
    a->v.d = a->d;
    return 0;
}

int opscope_diff_load(const opscope_diff_load_opts *o, opscope_diff_load_t **out, opscope_error *err, char *why,
                      size_t size) {
    *out = NULL;
    memset(err, 0, sizeof *err);
    if (size) why[0] = 0;
    loader *a = calloc(1, sizeof *a);
    if (!a) return set_nomem(err), -1;
    a->o = *o;
    a->select = o->select;
    int n_stdin = 0;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < o->n_in[s]; i++) n_stdin += !strcmp(o->paths[s][i], "-");
    a->select.steady = !o->include_warmup && !n_stdin; /* found in a first pass */
    a->apart_stdin = !o->include_warmup && n_stdin;
    int rc = load_run(a, err, why, size);
    if (rc) {
        opscope_diff_load_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

void opscope_diff_load_free(opscope_diff_load_t *l) {
    if (!l) return;
    opscope_diff_free(l->d);
    opscope_trace_ops_cmp_free(&l->tcmp);
    for (int i = 0; i < 2; i++) input_free(&l->in[i]);
    free(l);
}

const opscope_diff_load_view *opscope_diff_load_get(const opscope_diff_load_t *l) { return &l->v; }
