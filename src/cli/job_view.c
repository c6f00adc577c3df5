/*
 * job_view.c - `opscope view DIR` and `opscope view A B C...`: a distributed job in the HTML
 * viewer. The job is read as `report` reads it (cli/job.c: every trace in parallel, only the
 * ranks' summaries kept), which gives the ranks (distributedInfo, else the file name) and the
 * per-rank table; then each rank's trace is read again, one at a time, through a session with
 * the viewer's sink (its records, CPU side and critical path), written into the page as its
 * own block and freed before the next: memory is one rank's. See docs/viewer.md, "A job".
 */
#include "analyze/session.h"
#include "cli/cli.h"
#include "cli/job.h"
#include "export/html.h"
#include "export/job_html.h"
#include "read/readers.h"
#include "util/out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    uint64_t kept;                       /* records in the page */
    const opscope_job_row *failed;       /* the rank whose timeline could not be written */
} job_page_ctx;

/* Reads ROW's trace into its block of the page W. Returns 0, or -1 with ERR filled. */
static int write_rank(opscope_out_t *w, const opscope_job_row *row, job_page_ctx *c, opscope_error *err) {
    rank_block b = {.page = w, .rank = row->s->rank};
    opscope_session_opts so = {.no_stats = true, .kineto = true, .critical_path = true};
    opscope_session_t *s = opscope_session_new(&so);
    if (!s || !(b.h = opscope_html_sink_new(c->o->output, row->path, c->o->max_records, err))) {
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
        block_release(&b, true);
        *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
    }
    c->kept += b.kept;
    opscope_session_free(s);
    return rc;
}

static int write_data(opscope_out_t *w, void *ctx, opscope_error *err) {
    job_page_ctx *c = ctx;
    for (size_t i = 0; i < c->job->n; i++)
        if (write_rank(w, &c->job->rows[i], c, err)) {
            c->failed = &c->job->rows[i];
            return -1;
        }
    opscope_job_html_job(w, c->job, &c->ri);
    return 0;
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
    job_page_ctx c = {.o = o};
    c.job = opscope_cli_job_of(set, &c.ri);
    if (opscope_job_html_write(w, write_data, &c, &err) || opscope_out_commit_take(&w, &err)) {
        opscope_out_abort(w);
        char line[512];
        opscope_error_format(&err, line, sizeof line);
        if (c.failed) /* a job summary names its trace: it must be readable here */
            fprintf(stderr, "opscope view: rank %lld's timeline: %s\n", (long long)c.failed->s->rank, line);
        else
            fprintf(stderr, "opscope view: %s\n", line);
        st = OPSCOPE_EXIT_INPUT;
    } else {
        if (!o->quiet && strcmp(o->output, "-"))
            fprintf(stderr, "opscope view: wrote %s (%zu ranks, %llu records); open it in a browser\n", o->output,
                    c.job->n, (unsigned long long)c.kept);
        st = OPSCOPE_EXIT_OK;
    }
    opscope_cli_job_set_free(set);
    return st;
}
