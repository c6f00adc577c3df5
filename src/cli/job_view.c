/*
 * job_view.c - `opscope view DIR` and `opscope view A B C...`: a distributed job in the HTML
 * viewer. The job is read as `report` reads it (cli/job.c: every trace in parallel, only the
 * ranks' summaries kept), which gives the ranks (distributedInfo, else the file name) and the
 * per-rank table; then each rank's trace is read again, on as many threads, through a session
 * with the viewer's sink (its records, CPU side and critical path), its block written to a
 * temporary file of its own (tmpfile: deleted when closed, whatever happens) and the rank freed
 * before the thread takes the next: memory is one rank's per thread. The page is then written
 * with the blocks copied in rank order. See docs/viewer.md, "A job".
 */
#include "analyze/session.h"
#include "cli/cli.h"
#include "cli/job.h"
#include "export/html.h"
#include "export/job_html.h"
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
    int64_t rank;
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
    return opscope_job_html_rank(b->page, b->h, b->rank, err);
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

typedef struct job_page_ctx {
    const opscope_cli_job_view_opts *o;
    const opscope_job *job;
    opscope_job_read_info ri;
    int threads;                         /* ranks' timelines read at once */
    /* per row: its block (an unlinked temporary file, tmpfile), records, error */
    FILE **block;
    uint64_t *kept;
    opscope_error *err;
    atomic_size_t next;
    const opscope_job_row *failed;       /* the rank whose timeline could not be written */
} job_page_ctx;

/* Reads ROW's trace into its block, written to W. KEPT gets its records. Returns 0, or -1
 * with ERR filled. */
static int write_rank(opscope_out_t *w, const opscope_job_row *row, const opscope_cli_job_view_opts *o,
                      uint64_t *kept, opscope_error *err) {
    rank_block b = {.page = w, .rank = row->s->rank};
    opscope_session_opts so = {.no_stats = true, .kineto = true, .critical_path = true};
    opscope_session_t *s = opscope_session_new(&so);
    if (!s || !(b.h = opscope_html_sink_new(o->output, row->path, o->max_records, err))) {
        opscope_session_free(s);
        *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
        return -1;
    }
    opscope_output out = {.name = "view", .path = NULL, .impl = &b, .sink = opscope_html_sink(b.h),
                          .on_derived = opscope_html_sink_derived, .finish = block_finish,
                          .release = block_release, .collector = block_collector};
    int rc = -1;
    if (!opscope_session_add(s, &out)) {
        opscope_sink sink = opscope_session_sink(s);
        opscope_read_options ro = {0};
        opscope_session_read_options(s, &ro);
        if (!opscope_read_file_opts(row->path, OPSCOPE_FORMAT_AUTO, &sink, &ro, err) &&
            !opscope_session_finish(s, err) && !opscope_session_commit(s, NULL, NULL))
            rc = 0;
    } else {
        *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
    }
    *kept = b.kept;
    opscope_session_free(s);
    return rc;
}

/* A worker: takes the next rank, writes its block into a temporary file of its own (deleted
 * when closed), frees the rank, takes the next. */
static void *block_worker(void *ud) {
    job_page_ctx *c = ud;
    for (;;) {
        size_t i = atomic_fetch_add(&c->next, 1);
        if (i >= c->job->n) return NULL;
        FILE *f = tmpfile();
        opscope_out_t *w = f ? opscope_out_from_file(f, &c->err[i]) : NULL;
        if (!w) {
            if (f) fclose(f);
            c->err[i] = (opscope_error){.code = OPSCOPE_ERROR_IO, .msg = "cannot make a temporary file"};
            continue;
        }
        int rc = write_rank(w, &c->job->rows[i], c->o, &c->kept[i], &c->err[i]);
        if (rc) opscope_out_abort(w);
        if (rc || opscope_out_commit(w, &c->err[i]) || fflush(f)) {
            if (!c->err[i].msg) c->err[i] = (opscope_error){.code = OPSCOPE_ERROR_IO, .msg = "temporary file"};
            fclose(f);
            continue;
        }
        c->block[i] = f;
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
        FILE *f = c->block[i];
        c->block[i] = NULL;
        if (opscope_job_html_copy_block(w, f)) {
            *err = (opscope_error){.code = OPSCOPE_ERROR_IO, .msg = "cannot read a temporary file back"};
            return -1;
        }
    }
    opscope_job_html_job(w, c->job, &c->ri);
    return 0;
}

/* The context's per-rank arrays (NULL members when out of memory); freed by page_free. */
static int page_init(job_page_ctx *c, const opscope_cli_job_view_opts *o, const opscope_cli_job_set *set) {
    c->o = o;
    c->job = opscope_cli_job_of(set, &c->ri);
    size_t n = c->job->n ? c->job->n : 1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    c->threads = o->threads > 0 ? o->threads : cores > 0 ? (int)cores : 1;
    if ((size_t)c->threads > c->job->n) c->threads = (int)c->job->n;
    atomic_init(&c->next, 0);
    c->block = calloc(n, sizeof *c->block);
    c->kept = calloc(n, sizeof *c->kept);
    c->err = calloc(n, sizeof *c->err);
    return c->block && c->kept && c->err ? 0 : -1;
}

static void page_free(job_page_ctx *c) {
    for (size_t i = 0; c->block && i < c->job->n; i++)
        if (c->block[i]) fclose(c->block[i]);
    free(c->block);
    free(c->kept);
    free(c->err);
}

int opscope_cli_job_view(const opscope_cli_job_view_opts *o) {
    opscope_error err;
    memset(&err, 0, sizeof err);
    opscope_out_t *w = opscope_out_open(o->output, &err);
    if (!w) {
        char line[512];
        opscope_error_format(&err, line, sizeof line);
        fprintf(stderr, "opscope view: %s\n", line);
        return OPSCOPE_EXIT_INPUT;
    }
    opscope_cli_job_set *set;
    int st = opscope_cli_job_load(o->inputs, o->n_inputs, o->threads, &set);
    if (st >= 0) {
        opscope_out_abort(w);
        return st;
    }
    job_page_ctx c;
    memset(&c, 0, sizeof c);
    if (page_init(&c, o, set)) {
        err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
    }
    if (!c.block || !c.kept || !c.err || opscope_job_html_write(w, write_data, &c, &err) ||
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
        for (size_t i = 0; i < c.job->n; i++) kept += c.kept[i];
        if (!o->quiet && strcmp(o->output, "-"))
            fprintf(stderr, "opscope view: wrote %s (%zu ranks, %llu records); open it in a browser\n", o->output,
                    c.job->n, (unsigned long long)kept);
        st = OPSCOPE_EXIT_OK;
    }
    page_free(&c);
    opscope_cli_job_set_free(set);
    return st;
}
