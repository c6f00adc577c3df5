/* select.c - --batch and --graphs for report and diff (select.h). */
#include "cli/select.h"

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "read/readers.h"

#include <stdio.h>
#include <string.h>

int opscope_cli_select_option(const char *cmd, opscope_cli_select *s, const char *name, const char *val) {
    bool batch = !strcmp(name, "--batch");
    if (batch && val && (!strcmp(val, "decode") || !strcmp(val, "prefill"))) {
        s->by_phase = true;
        s->phase = val[0] == 'd' ? OPSCOPE_GRAPH_PHASE_DECODE : OPSCOPE_GRAPH_PHASE_PREFILL;
    } else if (!opscope_range_parse(val, batch ? &s->batch : &s->graphs)) {
        return opscope_cli_usage_error(cmd, "%s: expected N, A-B or A- (%s >= 0)%s, got '%s'", name,
                                       batch ? "integers" : "graph ids", batch ? ", decode or prefill" : "", val);
    } else if (batch) {
        s->by_phase = false;
    }
    if (batch) s->batch_spec = val;
    else s->graphs_spec = val;
    return OPSCOPE_EXIT_OK;
}

int opscope_cli_select_check(const char *cmd, const opscope_cli_select *s, const char *const *inputs, int n) {
    for (int i = 0; s->batch_spec && i < n; i++) {
        if (inputs[i] && !strcmp(inputs[i], "-"))
            return opscope_cli_usage_error(cmd, "--batch reads each input twice: it needs files, not stdin");
    }
    return OPSCOPE_EXIT_OK;
}

void opscope_cli_select_filter_init(const opscope_cli_select *s, opscope_graph_filter *f) {
    memset(f, 0, sizeof *f);
    f->by_graph = s->graphs_spec != NULL;
    f->by_batch = s->batch_spec != NULL && !s->by_phase;
    f->by_phase = s->batch_spec != NULL && s->by_phase;
    f->phase = s->phase;
    f->graphs = s->graphs;
    f->batch = s->batch;
    f->steady = s->steady;
}

int opscope_cli_select_open(const opscope_cli_select *s, const char *path, opscope_cli_selection *sel,
                            opscope_error *err) {
    memset(sel, 0, sizeof *sel);
    opscope_cli_select_filter_init(s, &sel->filter);
    snprintf(sel->desc, sizeof sel->desc, "%s%s%s%s%s", s->batch_spec ? "batch " : "",
             s->batch_spec ? s->batch_spec : "", s->batch_spec && s->graphs_spec ? ", " : "",
             s->graphs_spec ? "graph ids " : "", s->graphs_spec ? s->graphs_spec : "");
    if (!s->batch_spec) return 0;
    sel->index = opscope_graphs_new();
    if (!sel->index) {
        memset(err, 0, sizeof *err);
        err->code = OPSCOPE_ERROR_NOMEM;
        err->msg = "out of memory";
        return -1;
    }
    opscope_sink is = opscope_graphs_sink(sel->index);
    int rc = opscope_progress_read(path, OPSCOPE_FORMAT_AUTO, &is, NULL, err);
    if (rc) {
        if (err->code == OPSCOPE_ERROR_ABORTED) {
            err->code = OPSCOPE_ERROR_NOMEM; /* the graphs sink stops only when out of memory */
            err->msg = "out of memory";
        }
        return -1;
    }
    sel->filter.index = sel->index;
    return 0;
}

void opscope_cli_select_note(const char *cmd, const opscope_cli_select *s, const char *path,
                             const opscope_cli_selection *sel) {
    if (!opscope_cli_select_any(s) || sel->filter.kept) return;
    const opscope_graphs_t *index = sel->index;
    if (!index || !opscope_graphs_n(index)) {
        fprintf(stderr, "opscope %s: no record of %s matches %s%s\n", cmd, path, sel->desc,
                index ? ": its records carry no graph ids (a trace, not a ggml profile)" : "");
        return;
    }
    fprintf(stderr, "opscope %s: no record of %s matches %s; its batches:", cmd, path, sel->desc);
    for (size_t i = 0; i < opscope_graphs_n_batches(index) && i < 20; i++) {
        const opscope_graph_batch *b = opscope_graphs_batch_at(index, i);
        fprintf(stderr, " %lld %s (%llu graphs)", (long long)b->batch, opscope_graph_phase_name(b->phase),
                (unsigned long long)b->graphs);
    }
    fprintf(stderr, "; graph ids %lld-%lld\n", (long long)opscope_graphs_at(index, 0)->id,
            (long long)opscope_graphs_at(index, opscope_graphs_n(index) - 1)->id);
}

void opscope_cli_select_close(opscope_cli_selection *sel) {
    opscope_graphs_free(sel->index);
    sel->index = NULL;
    sel->filter.index = NULL;
}
