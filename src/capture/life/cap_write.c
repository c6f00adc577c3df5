/* cap_write.c - profile writers (see cap_write.h). */
#include "capture/life/cap_write.h"

#include "analyze/session/session.h"
#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_log.h"
#include "capture/store/cap_replay.h"
#include "export/capture/graph_log.h"
#include "export/outputs/outputs.h"
#include "read/readers.h"
#include "util/out.h"

#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

/* ---- writing ---- */

/* A stream output (a FIFO, a pipe, /dev/stdout) never holds the program: a reader absent or
 * stalled for this long fails the write, which the caller then says. */
static const opscope_out_opts k_stream_wait = {.stream_wait_ms = OPSCOPE_CAP_STREAM_WAIT_MS};

/* Says why PATH was not written: into INFO when given, else one line on stderr. */
static int write_failed(opscope_cap_written *info, const char *path, const opscope_error *err) {
    char why[288];
    if (!err) {
        snprintf(why, sizeof why, "out of memory");
    } else if (err->errno_value) {
        snprintf(why, sizeof why, "%s: %s", err->msg ? err->msg : "error", strerror(err->errno_value));
    } else {
        snprintf(why, sizeof why, "%s", err->msg ? err->msg : "error");
    }
    if (info) {
        snprintf(info->error, sizeof info->error, "%s", why);
    } else {
        fprintf(stderr, "opscope: cannot write %s: %s\n", path ? path : "the profile", why);
    }
    return -1;
}

/* The commit's failure, kept for write_failed. */
typedef struct commit_err {
    bool failed;
    opscope_error err;
} commit_err;

static void on_commit(void *ud, const opscope_output *o, const opscope_error *err) {
    (void)o;
    commit_err *ce = ud;
    if (err) {
        ce->failed = true;
        ce->err = *err;
    }
}

int opscope_cap_write(opscope_cap_dest dest, const char *path, FILE *fp, int sched) {
    return opscope_cap_write_info(dest, path, fp, sched, NULL);
}

/* The one output DEST asks for, writing through W (taken over). Returns 0 or -1. */
static int add_output(opscope_session_t *s, opscope_cap_dest dest, opscope_out_t *w) {
    opscope_error err = {0};
    opscope_output o;
    opscope_json_output_opts jo = {0};
    opscope_report_opts ro = {.source = "opscope capture"};
    int rc = dest == OPSCOPE_CAP_DEST_JSON
                 ? opscope_output_json(&o, w, &jo, &err)
                 : opscope_output_summary(&o, w, dest == OPSCOPE_CAP_DEST_TEXT ? OPSCOPE_SUMMARY_TEXT
                                                                              : OPSCOPE_SUMMARY_CONSOLE,
                                          &ro, 0, &err);
    return rc ? -1 : opscope_session_add(s, &o);
}

/* The records streamed to the log (cap_log.h), read back through the log's reader: the
 * buffers hold only what the last flush had not taken. The log's last RUN and END chunks say
 * what ran and how it ended (the flush before this write appended them). */
static int replay_log(const opscope_sink *sink) {
    int fd = opscope_cap_log_fd();
    size_t size = (size_t)opscope_cap_log_bytes();
    void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
        return -1;
    }
    opscope_error err = {0};
    int rc = opscope_oplog_read(m, size, "the record log", sink, NULL, &err);
    munmap(m, size);
    return rc;
}

int opscope_cap_write_info(opscope_cap_dest dest, const char *path, FILE *fp, int sched,
                           opscope_cap_written *info) {
    if (info) {
        info->records = 0;
        info->error[0] = '\0';
    }
    /* the report's session (analyze/session/session.h): the stats, the graphs and one output */
    opscope_session_opts so = {.stats = {.top_kernels = 20}, .graphs = true};
    opscope_session_t *s = opscope_session_new(&so);
    if (!s) {
        return write_failed(info, path, NULL);
    }
    opscope_error err = {0};
    opscope_out_t *w = NULL;
    if (path) {
        w = opscope_out_open_opts(path, &k_stream_wait, &err);
    } else {
        fflush(fp);
        w = opscope_out_from_file(fp, &err);
    }
    if (!w) {
        opscope_session_free(s);
        return write_failed(info, path, &err);
    }
    int rc = add_output(s, dest, w);
    opscope_sink sink = opscope_session_sink(s);
    if (rc == 0) {
        rc = sched == -2 && opscope_cap_log_exists() ? replay_log(&sink) : opscope_cap_replay(sched, &sink);
    }
    if (rc == 0) {
        rc = opscope_session_finish(s, &err);
    }
    uint64_t n_records = opscope_stats_totals(opscope_session_stats(s))->n_records;
    if (rc != 0) {
        opscope_session_free(s);
        return write_failed(info, path, NULL);
    }
    commit_err ce = {0};
    opscope_session_commit(s, on_commit, &ce);
    opscope_session_free(s);
    if (ce.failed) {
        return write_failed(info, path, &ce.err);
    }
    if (info) {
        info->records = n_records;
    }
    return 0;
}

/* ---- graph log (OPSCOPE_GRAPH_LOG) ---- */

typedef struct graph_log {
    opscope_out_t *w;
} graph_log;

static int graph_line(void *ud, const opscope_cap_rec *rec) {
    if (rec->kind != OPSCOPE_CAP_KIND_GRAPH) {
        return 0;
    }
    const opscope_cap_graph *r = (const opscope_cap_graph *)rec;
    static const char *const attr[] = {"exact", "nofusion", "aborted", "inexact"};
    opscope_graph_log_row row = {
        .graph = r->graph, .split = r->split, .backend = r->backend, .sched = r->sched,
        .n_nodes = r->n_nodes, .n_steps = r->n_steps,
        .start_ns = opscope_cap_ticks_to_ns(r->t0), .end_ns = opscope_cap_ticks_to_ns(r->t1),
        .capture_ns = r->t_done > r->t1 ? opscope_cap_ticks_to_ns(r->t_done) - opscope_cap_ticks_to_ns(r->t1) : 0,
        .attribution = r->attr < sizeof attr / sizeof attr[0] ? attr[r->attr] : "?",
        .tail_ns = (uint64_t)((double)r->tail * opscope_cap_ns_per_tick() + 0.5),
    };
    opscope_graph_log_write(((graph_log *)ud)->w, &row);
    return 0;
}

int opscope_cap_write_graphs(const char *path) {
    opscope_error err = {0};
    graph_log g = {opscope_out_open_opts(path, &k_stream_wait, &err)};
    if (!g.w) {
        fprintf(stderr, "opscope: cannot write %s\n", path);
        return -1;
    }
    opscope_graph_log_header(g.w);
    opscope_cap_clock_calibrate();
    opscope_cap_buf_foreach(graph_line, &g);
    return opscope_out_commit(g.w, &err);
}
