/*
 * job_view.c - `opscope view DIR` and `opscope view A B C...`: a distributed job in the HTML
 * viewer. The job is read as `report` reads it (cli/job.c: every trace in parallel, one rank
 * per thread at a time), each trace once: its read feeds both the rank's figures
 * (analyze/job/job_rank.h, teed into the read) and a session with the viewer's sink (its records,
 * CPU side and critical path), whose block body goes to a temporary file of its own (tmpfile:
 * deleted when closed, whatever happens) before the rank is freed and the thread takes the
 * next: memory is one rank's per thread. A job summary's rank has no trace read yet: its trace
 * (the summary names it) is read afterwards for its block alone, in parallel too. The page is
 * then written with the blocks copied in rank order (a rank is known once every input was
 * read). See docs/viewer.md, "A job".
 */
#include "analyze/job/job_rank.h"
#include "analyze/session/session.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/job.h"
#include "export/html/html.h"
#include "export/job/job_html.h"
#include "read/readers.h"
#include "util/out.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One rank's block as a session output: its sink buffers the trace, its finish writes the block. */
typedef struct rank_block {
    opscope_html_sink_t *h;
    opscope_out_t *page;
    uint64_t kept;
} rank_block;

static int block_finish(void *impl, opscope_session_t *s, opscope_error *err) {
    rank_block *b = impl;
    if (opscope_html_sink_add_kineto(b->h, opscope_session_kineto(s))) {
        *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
        return -1;
    }
    opscope_html_sink_set_cpath(b->h, opscope_session_cpath(s));
    b->kept = opscope_html_sink_kept(b->h);
    return opscope_job_html_rank_data(b->page, b->h, err);
}

static opscope_kineto_collector *block_collector(void *impl, opscope_kineto_collector *next) {
    return opscope_html_sink_kineto_tee(((rank_block *)impl)->h, next);
}

static void block_release(void *impl, bool discard) {
    (void)discard;
    rank_block *b = impl;
    opscope_html_sink_abort(b->h);
    b->h = NULL;
}

/* A rank's block once its trace was read: the body in an unlinked temporary file, its records. */
typedef struct view_block {
    FILE *f;
    uint64_t kept;
} view_block;

static void block_drop(void *user) {
    view_block *v = user;
    if (v && v->f) fclose(v->f);
    free(v);
}

/* Reads PATH once into its block body, written to W (KEPT: its records), and, when SUM is not
 * NULL, into the rank's figures SUM (the rank's analysis teed into the same read). Returns 0, 1
 * (bad input, ERR filled), 2 (out of memory) or 3 (no trace events), as cli/job.h's reader. */
static int read_trace(opscope_out_t *w, const char *path, const opscope_cli_job_view_opts *o,
                      opscope_job_rank_summary *sum, uint64_t *kept, opscope_error *err) {
    rank_block b = {.page = w};
    opscope_session_opts so = {.no_stats = true, .kineto = true, .critical_path = true};
    opscope_session_t *s = opscope_session_new(&so);
    opscope_job_rank_t *jr = sum ? opscope_job_rank_new(NULL) : NULL;
    *kept = 0;
    if (!s || (sum && !jr) || !(b.h = opscope_html_sink_new(o->output, path, o->max_records, err))) {
        opscope_job_rank_free(jr);
        opscope_session_free(s);
        *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
        return 2;
    }
    opscope_output out = {.name = "view", .path = NULL, .impl = &b, .sink = opscope_html_sink(b.h),
                          .on_derived = opscope_html_sink_derived, .finish = block_finish,
                          .release = block_release, .collector = block_collector};
    int rc = 2;
    if (!opscope_session_add(s, &out)) {
        opscope_sink sink = opscope_session_sink(s);
        opscope_read_options ro = {0};
        opscope_session_read_options(s, &ro);
        /* the session's collector reads first; the rank's figures see the same events */
        if (jr && !(ro.kineto = opscope_job_rank_tee(jr, ro.kineto))) rc = 2;
        else if (opscope_read_file_opts(path, OPSCOPE_FORMAT_AUTO, &sink, &ro, err)) rc = 1;
        else if (jr && !opscope_job_rank_events(jr)) rc = 3; /* a ggml profile, say */
        else if (opscope_session_finish(s, err) || opscope_session_commit(s, NULL, NULL)) rc = 1;
        else if (jr && opscope_job_rank_finish(jr, sum)) rc = 2; /* before the session's names go */
        else rc = 0;
    }
    if (rc == 2) *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
    *kept = b.kept;
    opscope_job_rank_free(jr);
    opscope_session_free(s);
    return rc;
}

/* PATH's block into a temporary file of its own (deleted when closed): *OUT, or NULL with the
 * status of read_trace (SUM as there). */
static int block_of(const char *path, const opscope_cli_job_view_opts *o, opscope_job_rank_summary *sum,
                    view_block **out, opscope_error *err) {
    *out = NULL;
    view_block *v = calloc(1, sizeof *v);
    if (!v) {
        *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
        return 2;
    }
    v->f = tmpfile();
    opscope_out_t *w = v->f ? opscope_out_from_file(v->f, err) : NULL;
    if (!w) {
        block_drop(v);
        *err = (opscope_error){.code = OPSCOPE_ERROR_IO, .msg = "cannot make a temporary file"};
        return 1;
    }
    int rc = read_trace(w, path, o, sum, &v->kept, err);
    if (rc) opscope_out_abort(w);
    if (!rc && (opscope_out_commit(w, err) || fflush(v->f))) {
        if (!err->msg) *err = (opscope_error){.code = OPSCOPE_ERROR_IO, .msg = "temporary file"};
        rc = 1;
    }
    if (rc) {
        block_drop(v);
        return rc;
    }
    *out = v;
    return 0;
}

/* cli/job.h's reader: a trace read once for its figures and its block. */
static int job_read(void *ud, const char *path, opscope_job_rank_summary *sum, void **user, opscope_error *err) {
    view_block *v;
    int rc = block_of(path, ud, sum, &v, err);
    *user = v;
    return rc;
}

typedef struct job_page_ctx {
    const opscope_cli_job_view_opts *o;
    opscope_cli_job_set *set;
    const opscope_job *job;
    opscope_job_read_info ri;
    int threads;                         /* summaries' timelines read at once */
    /* per row: its block (taken from the load, or read for a job summary's rank), error */
    view_block **block;
    opscope_error *err;
    atomic_size_t next;
    const opscope_job_row *failed;       /* the rank whose timeline could not be written */
} job_page_ctx;

/* A worker: takes the next row whose trace was not read yet (a job summary's rank), reads its
 * block, frees the rank, takes the next. */
static void *block_worker(void *ud) {
    job_page_ctx *c = ud;
    for (;;) {
        size_t i = atomic_fetch_add(&c->next, 1);
        if (i >= c->job->n) return NULL;
        if (c->block[i]) continue;
        view_block *v;
        if (!block_of(c->job->rows[i].path, c->o, NULL, &v, &c->err[i])) c->block[i] = v;
    }
}

/* The page's data: every rank's block, in rank order, then the job. */
static int write_data(opscope_out_t *w, void *ctx, opscope_error *err) {
    job_page_ctx *c = ctx;
    pthread_t tid[64];
    int started = 0;
    for (int t = 1; t < c->threads && t < 64; t++)
        if (!pthread_create(&tid[started], NULL, block_worker, c)) started++;
    block_worker(c);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    for (size_t i = 0; i < c->job->n; i++) {
        if (!c->block[i]) {
            *err = c->err[i];
            c->failed = &c->job->rows[i];
            return -1;
        }
        FILE *f = c->block[i]->f;
        c->block[i]->f = NULL;
        if (opscope_job_html_copy_block(w, c->job->rows[i].s->rank, f)) {
            *err = (opscope_error){.code = OPSCOPE_ERROR_IO, .msg = "cannot read a temporary file back"};
            return -1;
        }
    }
    opscope_job_html_job(w, c->job, &c->ri);
    return 0;
}

/* The context's per-rank arrays (NULL members when out of memory; freed by page_free), the
 * blocks the load made taken from SET. */
static int page_init(job_page_ctx *c, const opscope_cli_job_view_opts *o, opscope_cli_job_set *set) {
    c->o = o;
    c->set = set;
    c->job = opscope_cli_job_of(set, &c->ri);
    size_t n = c->job->n ? c->job->n : 1, pending = 0;
    atomic_init(&c->next, 0);
    c->block = calloc(n, sizeof *c->block);
    c->err = calloc(n, sizeof *c->err);
    if (!c->block || !c->err) return -1;
    for (size_t i = 0; i < c->job->n; i++)
        if (!(c->block[i] = opscope_cli_job_row_take(set, &c->job->rows[i]))) pending++;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    c->threads = o->threads > 0 ? o->threads : cores > 0 ? (int)cores : 1;
    if ((size_t)c->threads > pending) c->threads = pending ? (int)pending : 1;
    return 0;
}

static void page_free(job_page_ctx *c) {
    for (size_t i = 0; c->block && i < c->job->n; i++) block_drop(c->block[i]);
    free(c->block);
    free(c->err);
}

int opscope_cli_job_view(const opscope_cli_job_view_opts *o) {
    opscope_error err;
    memset(&err, 0, sizeof err);
    opscope_out_t *w = opscope_out_open(o->output, &err);
    if (!w) {
        opscope_cli_print_error("view", &err);
        return OPSCOPE_EXIT_INPUT;
    }
    opscope_cli_job_set *set;
    opscope_cli_job_reader rd = {.read = job_read, .drop = block_drop, .ud = (void *)o};
    int st = opscope_cli_job_load_with(o->inputs, o->n_inputs, o->threads, &rd, &set);
    if (st) {
        opscope_out_abort(w);
        return st;
    }
    job_page_ctx c;
    memset(&c, 0, sizeof c);
    if (page_init(&c, o, set)) {
        err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
    }
    if (!c.block || !c.err || opscope_job_html_write(w, write_data, &c, &err) ||
        opscope_out_commit_take(&w, &err)) {
        opscope_out_abort(w);
        char line[512];
        opscope_error_format(&err, line, sizeof line);
        if (c.failed) /* a job summary names its trace: it must be readable here */
            fprintf(stderr, "opscope view: rank %lld's timeline: %s\n", (long long)c.failed->s->rank, line);
        else
            fprintf(stderr, "opscope view: %s\n", line);
        st = OPSCOPE_EXIT_INPUT;
    } else {
        uint64_t kept = 0;
        for (size_t i = 0; i < c.job->n; i++) kept += c.block[i] ? c.block[i]->kept : 0;
        if (!o->quiet && strcmp(o->output, "-"))
            fprintf(stderr, "opscope view: wrote %s (%zu ranks, %llu records); open it in a browser\n", o->output,
                    c.job->n, (unsigned long long)kept);
        st = OPSCOPE_EXIT_OK;
    }
    page_free(&c);
    opscope_cli_job_set_free(set);
    return st;
}
