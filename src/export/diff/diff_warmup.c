/* diff_warmup.c - diff's note on the warm-up, outlier graphs and load it left out of the
 * statistics (diff_report.h; docs/diff.md, "Warm-up apart"). */
#include "export/diff/diff_report.h"
#include "analyze/ggml/graphs.h"
#include "export/fmt/json_fmt.h"

#include <inttypes.h>

static void side_text(opscope_out_t *w, const opscope_diff_apart *a, int s) {
    char t[3][32];
    for (int k = 0; k < 3; k++) opscope_fmt_time(t[k], sizeof t[k], (double)a->ns[s][k], false);
    opscope_out_printf(w, "%s %" PRIu64 " warm-up graph%s (%s), %" PRIu64 " outlier%s (%s), load %" PRIu64
                          " record%s (%s)",
                       s ? "NEW" : "BASE", a->graphs[s][OPSCOPE_GRAPH_WARMUP],
                       a->graphs[s][OPSCOPE_GRAPH_WARMUP] == 1 ? "" : "s", t[OPSCOPE_GRAPH_WARMUP],
                       a->graphs[s][OPSCOPE_GRAPH_OUTLIER], a->graphs[s][OPSCOPE_GRAPH_OUTLIER] == 1 ? "" : "s",
                       t[OPSCOPE_GRAPH_OUTLIER], a->records[s][OPSCOPE_GRAPH_STEADY],
                       a->records[s][OPSCOPE_GRAPH_STEADY] == 1 ? "" : "s", t[OPSCOPE_GRAPH_STEADY]);
}

void opscope_diff_apart_write_text(opscope_out_t *w, const opscope_diff_apart *a) {
    if (a->no_graphs) return;
    if (a->stdin_read) {
        opscope_out_str(w, "  Warm-up not set apart: an input is read from stdin, once (warm-up is found in a first pass)\n");
        return;
    }
    if (a->no_steady) {
        opscope_out_printf(w, "  Warm-up included: %s has no steady state (each of its graph computes is the first of "
                              "its topology or an outlier)\n", a->no_steady);
        return;
    }
    if (!a->on) {
        opscope_out_str(w, "  Warm-up included (--include-warmup): first computes of each graph topology, outlier graphs and load compared too\n");
        return;
    }
    opscope_out_str(w, "  Warm-up apart, left out of the statistics (first compute of each graph topology; graphs over ");
    opscope_out_printf(w, "%dx their batch's median wall; records before the first compute): ", OPSCOPE_GRAPHS_OUTLIER_X);
    side_text(w, a, 0);
    opscope_out_str(w, "; ");
    side_text(w, a, 1);
    opscope_out_str(w, " (--include-warmup compares them)\n");
}

void opscope_diff_apart_write_json(opscope_out_t *w, const opscope_diff_apart *a) {
    static const char *const kind[3] = {"load", "warmup", "outlier"};
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_obj(&j, "warmup");
    opscope_jw_bool(&j, "apart", a->on);
    opscope_jw_bool(&j, "stdin", a->stdin_read);
    opscope_jw_str(&j, "no_steady", a->no_steady);
    for (int s = 0; s < 2; s++) {
        opscope_jw_obj(&j, s ? "new" : "base");
        for (int k = 0; k < 3; k++) {
            char key[32];
            snprintf(key, sizeof key, "%s_graphs", kind[k]);
            opscope_jw_u64(&j, key, a->graphs[s][k]);
            snprintf(key, sizeof key, "%s_records", kind[k]);
            opscope_jw_u64(&j, key, a->records[s][k]);
            snprintf(key, sizeof key, "%s_ns", kind[k]);
            opscope_jw_u64(&j, key, a->ns[s][k]);
        }
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_obj(&j);
}
