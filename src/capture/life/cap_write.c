/* cap_write.c - profile writers (see cap_write.h). */
#include "capture/life/cap_write.h"

#include "analyze/graphs.h"
#include "analyze/stats.h"
#include "analyze/tee.h"
#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_replay.h"
#include "export/graph_log.h"
#include "export/json_export.h"
#include "export/text.h"
#include "util/out.h"

#include <string.h>

/* ---- writing ---- */

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

int opscope_cap_write(opscope_cap_dest dest, const char *path, FILE *fp, int sched) {
    return opscope_cap_write_info(dest, path, fp, sched, NULL);
}

int opscope_cap_write_info(opscope_cap_dest dest, const char *path, FILE *fp, int sched,
                           opscope_cap_written *info) {
    if (info) {
        info->records = 0;
        info->error[0] = '\0';
    }
    opscope_stats_opts so = {0};
    so.top_kernels = 20;
    opscope_stats_t *st = opscope_stats_new(&so);
    if (!st) {
        return write_failed(info, path, NULL);
    }
    opscope_error err = {0};
    opscope_out_t *w = NULL;
    if (path) {
        w = opscope_out_open(path, &err);
    } else {
        fflush(fp);
        w = opscope_out_from_file(fp, &err);
    }
    if (!w) {
        opscope_stats_free(st);
        return write_failed(info, path, &err);
    }
    int rc = 0;
    opscope_json_export_t *jx = NULL;
    opscope_graphs_t *graphs = opscope_graphs_new(); /* NULL (no memory): no graphs section */
    opscope_tee t;
    opscope_tee_init(&t);
    opscope_tee_add(&t, opscope_stats_sink(st)); /* the stats first: the JSON export reads them */
    if (graphs) {
        opscope_tee_add(&t, opscope_graphs_sink(graphs));
    }
    if (dest == OPSCOPE_CAP_DEST_JSON) {
        jx = opscope_json_export_new(w);
        if (!jx) {
            rc = -1;
        } else {
            opscope_json_export_set_graphs(jx, graphs);
            opscope_tee_add(&t, opscope_json_export_sink(jx));
        }
    }
    opscope_sink s = opscope_tee_sink(&t);
    if (rc == 0) {
        rc = opscope_cap_replay(sched, &s);
    }
    if (rc == 0) {
        rc = opscope_stats_finish(st);
    }
    if (rc == 0) {
        opscope_report_opts ro = {0};
        ro.source = "opscope capture";
        ro.graphs = graphs;
        if (dest == OPSCOPE_CAP_DEST_JSON) {
            rc = opscope_json_export_finish(jx, st);
        } else if (dest == OPSCOPE_CAP_DEST_TEXT) {
            opscope_text_write(w, st, &ro);
        } else {
            opscope_console_write(w, st, &ro);
        }
    }
    if (jx) {
        opscope_json_export_free(jx);
    }
    uint64_t n_records = opscope_stats_totals(st)->n_records;
    opscope_stats_free(st);
    opscope_graphs_free(graphs);
    if (rc != 0) {
        opscope_out_abort(w);
        return write_failed(info, path, NULL);
    }
    if (opscope_out_commit(w, &err) != 0) {
        return write_failed(info, path, &err);
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
    graph_log g = {opscope_out_open(path, &err)};
    if (!g.w) {
        fprintf(stderr, "opscope: cannot write %s\n", path);
        return -1;
    }
    opscope_graph_log_header(g.w);
    opscope_cap_clock_calibrate();
    opscope_cap_buf_foreach(graph_line, &g);
    return opscope_out_commit(g.w, &err);
}
