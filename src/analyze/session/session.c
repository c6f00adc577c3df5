/* session.c - one run's analyses and outputs (see session.h). */
#include "analyze/session/session.h"

#include "analyze/kineto/critical_path.h"

#include "analyze/session/tee.h"
#include "model/strtab.h"

#include <stdlib.h>
#include <string.h>

enum { OUT_OPEN, OUT_DONE }; /* an output not yet released, or released */

struct opscope_session {
    opscope_session_opts opts;
    opscope_stats_t *stats;
    opscope_graphs_t *graphs;
    opscope_threads_t *threads; /* CPU threads at ggml's barriers (with the stats) */
    opscope_rpc_t *rpc;
    opscope_strtab_t *kineto_names;
    opscope_kineto_t *kineto;
    opscope_cpath_t *cpath;    /* in front of the trace analysis: the critical path */
    bool cpath_done;           /* its steps computed (cpath_steps) */
    bool kineto_done;          /* finished: the analysis may be read */
    opscope_output out[OPSCOPE_SESSION_MAX];
    int state[OPSCOPE_SESSION_MAX];
    int n_out;
    int failed;                /* the output whose finish failed, -1: none */
    opscope_tee tee;
};

opscope_session_t *opscope_session_new(const opscope_session_opts *opts) {
    opscope_session_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->opts = *opts;
    s->failed = -1;
    s->stats = opts->no_stats ? NULL : opscope_stats_new(&opts->stats);
    if (!s->stats && !opts->no_stats) {
        free(s);
        return NULL;
    }
    /* NULL on no memory: the output simply has no such section */
    if (opts->graphs) s->graphs = opscope_graphs_new();
    if (s->stats) s->threads = opscope_threads_new();
    if (opts->rpc) s->rpc = opscope_rpc_new();
    if (opts->kineto) {
        s->kineto_names = opscope_strtab_new();
        s->kineto = s->kineto_names ? opscope_kineto_new(s->kineto_names) : NULL;
        /* the CPU-op records carry their input shapes and dtypes (analyze/kineto/cpu_ops.h) */
        if (s->kineto) opscope_kineto_keep_dims(s->kineto);
        if (s->kineto && opts->no_sequences) opscope_kineto_skip_sequences(s->kineto);
    }
    return s;
}

static void release(opscope_session_t *s, int i, bool discard) {
    if (s->state[i] == OUT_DONE) return;
    s->state[i] = OUT_DONE;
    if (s->out[i].release) s->out[i].release(s->out[i].impl, discard);
}

void opscope_session_free(opscope_session_t *s) {
    if (!s) return;
    for (int i = 0; i < s->n_out; i++) release(s, i, true);
    opscope_stats_free(s->stats);
    opscope_graphs_free(s->graphs);
    opscope_threads_free(s->threads);
    opscope_rpc_free(s->rpc);
    opscope_cpath_free(s->cpath);
    opscope_kineto_free(s->kineto);
    opscope_strtab_free(s->kineto_names);
    free(s);
}

int opscope_session_add(opscope_session_t *s, const opscope_output *o) {
    if (s->n_out >= OPSCOPE_SESSION_MAX) {
        if (o->release) o->release(o->impl, true);
        return -1;
    }
    s->out[s->n_out] = *o;
    s->state[s->n_out++] = OUT_OPEN;
    return 0;
}

opscope_sink opscope_session_sink(opscope_session_t *s) {
    opscope_tee_init(&s->tee);
    if (s->stats) opscope_tee_add_derived(&s->tee, opscope_stats_sink(s->stats), opscope_stats_add_derived);
    /* the tee holds OPSCOPE_TEE_MAX: the stats, the outputs, the RPC calls and the graphs */
    for (int i = 0; i < s->n_out; i++) {
        opscope_tee_add_derived(&s->tee, s->out[i].sink, s->out[i].on_derived);
        if (s->out[i].kineto_links && s->kineto) opscope_kineto_keep_links(s->kineto);
        /* out of memory here leaves the series out: the output that asked says so */
        if (s->out[i].kineto_series && s->kineto) (void)opscope_kineto_keep_series(s->kineto);
    }
    if (s->rpc) opscope_tee_add(&s->tee, opscope_rpc_sink(s->rpc));
    if (s->graphs) opscope_tee_add_derived(&s->tee, opscope_graphs_sink(s->graphs), opscope_graphs_add_derived);
    if (s->threads) opscope_tee_add_derived(&s->tee, opscope_threads_sink(s->threads), opscope_threads_add_derived);
    opscope_sink sink = opscope_tee_sink(&s->tee);
    if (s->opts.filter) {
        s->opts.filter->next = sink;
        sink = opscope_graph_filter_sink(s->opts.filter);
    }
    return sink;
}

/* The critical path of each step, as soon as the trace analysis knows its steps; then its
 * events are freed, before the CPU-op records are made (the report's peak memory). */
static int cpath_steps(void *ud, const struct opscope_kineto_results *r) {
    opscope_session_t *s = ud;
    s->cpath_done = opscope_cpath_has_events(s->cpath) && !opscope_cpath_run_steps(s->cpath, r);
    opscope_cpath_release_events(s->cpath);
    return s->cpath_done ? 0 : -1;
}

void opscope_session_read_options(opscope_session_t *s, opscope_read_options *ro) {
    opscope_kineto_collector *c = s->opts.filter ? NULL : opscope_kineto_collector_of(s->kineto);
    if (c && !s->cpath && s->opts.critical_path) {
        s->cpath = opscope_cpath_new(c); /* NULL: no path */
        if (s->cpath && opscope_cpath_set_window(s->cpath, s->opts.cpath_annotation, s->opts.cpath_instance1 - 1)) {
            opscope_cpath_free(s->cpath);
            s->cpath = NULL;
        }
        if (s->cpath) opscope_kineto_on_steps(s->kineto, cpath_steps, s);
        for (int i = 0; i < s->n_out; i++)
            if (s->out[i].cpath_marks) opscope_cpath_keep_marks(s->cpath);
        opscope_cpath_share(s->cpath, opscope_kineto_cpu_ops(s->kineto)); /* one copy of the CPU side */
    }
    if (c && s->cpath) c = opscope_cpath_collector(s->cpath);
    for (int i = 0; i < s->n_out && c; i++)
        if (s->out[i].collector) c = s->out[i].collector(s->out[i].impl, c);
    ro->kineto = c;
    ro->hta_steps = s->opts.hta_steps;
}

static void set_nomem(opscope_error *err) {
    memset(err, 0, sizeof *err);
    err->code = OPSCOPE_ERROR_NOMEM;
    err->msg = "out of memory";
}

void opscope_session_stopped(const opscope_session_t *s, opscope_error *err) {
    for (int i = 0; i < s->n_out; i++) {
        const opscope_error *why = s->out[i].stopped ? s->out[i].stopped(s->out[i].impl) : NULL;
        if (why && why->code) {
            *err = *why;
            return;
        }
    }
    set_nomem(err);
}

int opscope_session_finish(opscope_session_t *s, opscope_error *err) {
    /* a trace analysis that ran out of memory is left out, as if the input had none */
    if (s->kineto && opscope_kineto_finish(s->kineto) != 0) {
        opscope_kineto_free(s->kineto);
        s->kineto = NULL;
    }
    s->kineto_done = s->kineto != NULL;
    /* a trace read: the critical path of each step (left out when out of memory) */
    if (s->cpath && (!s->kineto || !s->cpath_done)) {
        opscope_cpath_free(s->cpath);
        s->cpath = NULL;
    }
    if (s->stats && opscope_stats_finish(s->stats)) {
        set_nomem(err);
        return -1;
    }
    for (int i = 0; i < s->n_out; i++) {
        if (s->out[i].finish && s->out[i].finish(s->out[i].impl, s, err)) {
            s->failed = i;
            return -1;
        }
    }
    return 0;
}

const opscope_output *opscope_session_failed(const opscope_session_t *s) {
    return s->failed >= 0 ? &s->out[s->failed] : NULL;
}

int opscope_session_commit(opscope_session_t *s, opscope_session_done_fn done, void *ud) {
    int rc = 0;
    for (int i = 0; i < s->n_out; i++) {
        opscope_error err;
        memset(&err, 0, sizeof err);
        int c = s->out[i].commit ? s->out[i].commit(s->out[i].impl, &err) : 0;
        if (c) rc = -1;
        if (done) done(ud, &s->out[i], c ? &err : NULL);
        release(s, i, c != 0);
    }
    return rc;
}

opscope_stats_t *opscope_session_stats(const opscope_session_t *s) { return s->stats; }
opscope_graphs_t *opscope_session_graphs(const opscope_session_t *s) { return s->graphs; }
opscope_threads_t *opscope_session_threads(const opscope_session_t *s) { return s->threads; }
opscope_rpc_t *opscope_session_rpc(const opscope_session_t *s) { return s->rpc; }

const opscope_kineto_t *opscope_session_kineto(const opscope_session_t *s) {
    return s->kineto_done ? s->kineto : NULL;
}

opscope_session_filtered opscope_session_filter(const opscope_session_t *s) {
    opscope_session_filtered f = {0};
    if (!s->opts.filter) return f;
    f.desc = s->opts.filter_desc;
    f.kept = s->opts.filter->kept;
    f.records = s->opts.filter->kept + s->opts.filter->dropped;
    return f;
}

const opscope_cpath_t *opscope_session_cpath(const opscope_session_t *s) {
    return s->kineto_done ? s->cpath : NULL;
}
