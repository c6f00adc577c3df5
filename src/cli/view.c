/*
 * view.c - `opscope view PROFILE [-o OUT.html] [--max-records N] [--format F]`: streams a
 * profile into the HTML viewer sink and writes one self-contained HTML file (temp file +
 * rename, so a bad input leaves nothing behind).
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/select.h"
#include "export/html.h"
#include "model/strtab.h"
#include "cli/progress.h"
#include "read/readers.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f) {
    fputs("usage: opscope view PROFILE [-o OUT.html] [--max-records N] [--format F]\n"
          "\n"
          "Write a self-contained HTML timeline of PROFILE ('-' reads stdin): one file, no\n"
          "network access, opens from file:// in any current browser.\n"
          "\n"
          "Options:\n"
          "  -o, --output FILE     where to write (default: PROFILE with its extension replaced\n"
          "                        by .html; required when reading stdin; '-' = stdout)\n"
          "  --max-records N       keep at most N evenly spaced records (0 = all, the default)\n"
          "  --format F            auto (default), ggml, kineto or chrome\n"
          "  --peak FILE|cache     draw the roofs of measured peaks in the roofline chart (a\n"
          "                        file of 'opscope peak --json', or 'cache': this machine's)\n"
          "  --batch N|A-B|A-      only the graph computes of that batch (the widest MUL_MAT's\n"
          "                        rows: 1 = llama.cpp's generation steps; decode|prefill: by\n"
          "                        phase); reads PROFILE twice\n"
          "  --graphs N|A-B|A-     only the graph computes with those graph ids\n"
          "  -h, --help            this help\n"
          "\n"
          "Exit status: 0 ok, 1 usage error, 2 bad input or failed output.\n",
          f);
}

#define usage_error(...) opscope_cli_usage_error("view", __VA_ARGS__)

enum { OPT_OUTPUT, OPT_MAX_RECORDS, OPT_PEAK, OPT_FORMAT, OPT_BATCH, OPT_GRAPHS };

static const opscope_cli_opt view_opts[] = {
    {"--output", "-o", OPT_OUTPUT, true},
    {"--max-records", NULL, OPT_MAX_RECORDS, true},
    {"--html-max-records", NULL, OPT_MAX_RECORDS, true}, /* report's name for it */
    {"--peak", NULL, OPT_PEAK, true},
    {"--format", NULL, OPT_FORMAT, true},
    {"--batch", NULL, OPT_BATCH, true},
    {"--graphs", NULL, OPT_GRAPHS, true},
};

typedef struct view_args {
    const char *input, *output, *peak;
    size_t max_records;
    opscope_format format;
    opscope_cli_select select;
} view_args;

static int on_option(void *ctx, const opscope_cli_arg *o) {
    view_args *a = ctx;
    const char *val = o->val;
    switch (o->id) {
    case OPT_OUTPUT: a->output = val; break;
    case OPT_MAX_RECORDS:
        if (!opscope_cli_parse_count(val, &a->max_records))
            return usage_error("%s: expected a non-negative integer, got '%s'", o->name, val);
        break;
    case OPT_PEAK: a->peak = val; break;
    case OPT_FORMAT:
        if (!strcmp(val, "auto")) a->format = OPSCOPE_FORMAT_AUTO;
        else if (!strcmp(val, "ggml")) a->format = OPSCOPE_FORMAT_GGML;
        else if (!strcmp(val, "kineto")) a->format = OPSCOPE_FORMAT_KINETO;
        else if (!strcmp(val, "chrome")) a->format = OPSCOPE_FORMAT_CHROME;
        else return usage_error("--format: unknown format '%s' (auto, ggml, kineto or chrome)", val);
        break;
    case OPT_BATCH:
    case OPT_GRAPHS: return opscope_cli_select_option("view", &a->select, o->name, val);
    }
    return -1;
}

/* PROFILE.json -> PROFILE.html (a trailing .gz is dropped first). Caller frees. */
static char *default_output(const char *in) {
    size_t n = strlen(in);
    char *out = malloc(n + 6);
    if (!out) return NULL;
    memcpy(out, in, n + 1);
    if (n > 3 && !strcmp(out + n - 3, ".gz")) out[n -= 3] = 0;
    char *slash = strrchr(out, '/');
    char *dot = strrchr(out, '.');
    if (dot && (!slash || dot > slash + 1)) *dot = 0;
    strcat(out, ".html");
    return out;
}

int opscope_cli_view(int argc, char **argv) {
    view_args a;
    memset(&a, 0, sizeof a);
    a.format = OPSCOPE_FORMAT_AUTO;
    opscope_cli_parser p = {.cmd = "view", .usage = usage, OPSCOPE_CLI_OPTS(view_opts), .inputs = &a.input,
                            .max_inputs = 1, .argc = argc, .argv = argv};
    int st = opscope_cli_parse(&p, on_option, &a);
    if (st >= 0) return st;
    if (!a.input) return usage_error("missing PROFILE");
    st = opscope_cli_select_check("view", &a.select, &a.input, 1);
    if (st >= 0) return st;
    const char *input = a.input, *output = a.output, *peak_arg = a.peak;
    opscope_peak peak;
    if (peak_arg) {
        int prc = opscope_cli_load_peak("view", peak_arg, &peak);
        if (prc >= 0) return prc;
    }
    char *def = NULL;
    if (!output) {
        if (!strcmp(input, "-")) return usage_error("-o is required when reading stdin");
        def = default_output(input);
        if (!def) {
            fprintf(stderr, "opscope view: out of memory\n");
            return OPSCOPE_EXIT_INPUT;
        }
        output = def;
    }
    st = opscope_cli_check_not_input("view", &output, 1, &input, 1);
    if (st >= 0) {
        free(def);
        return st;
    }

    opscope_error err;
    memset(&err, 0, sizeof err);
    char msg[768];
    opscope_cli_selection sel;
    opscope_html_sink_t *h = NULL;
    int rc = OPSCOPE_EXIT_INPUT;
    if (opscope_cli_select_open(&a.select, input, &sel, &err)) goto fail;
    h = opscope_html_sink_new(output, input, a.max_records, &err);
    if (!h) goto fail;
    opscope_html_sink_set_peak(h, peak_arg ? &peak : NULL);
    opscope_sink sink = opscope_html_sink(h);
    if (opscope_cli_select_any(&a.select)) {
        sel.filter.next = sink;
        sink = opscope_graph_filter_sink(&sel.filter);
    }
    /* a trace's CPU lanes, steps and busy fractions (a filter keeps no trace analysis) */
    opscope_strtab_t *kn = opscope_cli_select_any(&a.select) ? NULL : opscope_strtab_new();
    opscope_kineto_t *k = kn ? opscope_kineto_new(kn) : NULL; /* NULL (no memory): no CPU side */
    opscope_read_options ro = {0};
    ro.kineto = opscope_html_sink_kineto_tee(h, k ? opscope_kineto_collector_of(k) : NULL);
    int rrc = opscope_progress_read(input, a.format, &sink, &ro, &err); /* a progress line for big files */
    if (rrc == 0 && k && opscope_kineto_finish(k) == 0 && opscope_html_sink_add_kineto(h, k) != 0)
        rrc = -1, err.code = OPSCOPE_ERROR_NOMEM, err.msg = "out of memory";
    opscope_kineto_free(k);
    opscope_strtab_free(kn);
    if (rrc != 0) {
        opscope_html_sink_abort(h);
        goto fail;
    }
    opscope_cli_select_note("view", &a.select, input, &sel);
    uint64_t seen = opscope_html_sink_seen(h), kept = opscope_html_sink_kept(h);
    if (opscope_html_sink_finish(h, &err) != 0) goto fail;
    /* said also when stderr is no terminal: the page's name is the command's result */
    if (!p.quiet && strcmp(output, "-"))
        fprintf(stderr, "opscope view: wrote %s (%llu of %llu records); open it in a browser\n",
                output, (unsigned long long)kept, (unsigned long long)seen);
    free(def);
    opscope_cli_select_close(&sel);
    return OPSCOPE_EXIT_OK;
fail:
    opscope_error_format(&err, msg, sizeof msg);
    fprintf(stderr, "opscope view: %s\n", msg);
    free(def);
    opscope_cli_select_close(&sel);
    return rc;
}
