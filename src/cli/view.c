/*
 * view.c - `opscope view PROFILE [-o OUT.html] [--max-records N] [--format F]`: streams a
 * profile into the HTML viewer sink and writes one self-contained HTML file (temp file +
 * rename, so a bad input leaves nothing behind).
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "export/html.h"
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
          "  -h, --help            this help\n"
          "\n"
          "Exit status: 0 ok, 1 usage error, 2 bad input or failed output.\n",
          f);
}

static int usage_error(const char *what, const char *arg) {
    fprintf(stderr, "opscope view: %s%s%s\nTry 'opscope view --help'.\n", what, arg ? ": " : "",
            arg ? arg : "");
    return OPSCOPE_EXIT_USAGE;
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
    const char *input = NULL, *output = NULL, *peak_arg = NULL;
    size_t max_records = 0;
    opscope_format format = OPSCOPE_FORMAT_AUTO;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return OPSCOPE_EXIT_OK;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (++i >= argc) return usage_error("missing value after", a);
            output = argv[i];
        } else if (!strcmp(a, "--max-records") || !strcmp(a, "--html-max-records")) {
            if (++i >= argc) return usage_error("missing value after", a);
            if (!opscope_cli_parse_count(argv[i], &max_records))
                return usage_error("--max-records needs a non-negative integer", argv[i]);
        } else if (!strcmp(a, "--peak")) {
            if (++i >= argc) return usage_error("missing value after", a);
            peak_arg = argv[i];
        } else if (!strcmp(a, "--format")) {
            if (++i >= argc) return usage_error("missing value after", a);
            const char *f = argv[i];
            if (!strcmp(f, "auto")) format = OPSCOPE_FORMAT_AUTO;
            else if (!strcmp(f, "ggml")) format = OPSCOPE_FORMAT_GGML;
            else if (!strcmp(f, "kineto")) format = OPSCOPE_FORMAT_KINETO;
            else if (!strcmp(f, "chrome")) format = OPSCOPE_FORMAT_CHROME;
            else return usage_error("unknown format", f);
        } else if (a[0] == '-' && a[1] != 0) {
            return usage_error("unknown option", a);
        } else if (!input) {
            input = a;
        } else {
            return usage_error("more than one PROFILE", a);
        }
    }
    if (!input) return usage_error("missing PROFILE", NULL);
    opscope_peak peak;
    if (peak_arg) {
        int prc = opscope_cli_load_peak("view", peak_arg, &peak);
        if (prc >= 0) return prc;
    }
    char *def = NULL;
    if (!output) {
        if (!strcmp(input, "-")) return usage_error("-o is required when reading stdin", NULL);
        def = default_output(input);
        if (!def) {
            fprintf(stderr, "opscope view: out of memory\n");
            return OPSCOPE_EXIT_INPUT;
        }
        output = def;
    }

    opscope_error err;
    memset(&err, 0, sizeof err);
    char msg[768];
    opscope_html_sink_t *h = opscope_html_sink_new(output, input, max_records, &err);
    int rc = OPSCOPE_EXIT_INPUT;
    if (!h) goto fail;
    opscope_html_sink_set_peak(h, peak_arg ? &peak : NULL);
    opscope_sink sink = opscope_html_sink(h);
    int rrc = opscope_progress_read(input, format, &sink, NULL, &err); /* a progress line for big files */
    if (rrc != 0) {
        opscope_html_sink_abort(h);
        goto fail;
    }
    uint64_t seen = opscope_html_sink_seen(h), kept = opscope_html_sink_kept(h);
    if (opscope_html_sink_finish(h, &err) != 0) goto fail;
    if (isatty(2) && strcmp(output, "-"))
        fprintf(stderr, "opscope view: wrote %s (%llu of %llu records)\n", output,
                (unsigned long long)kept, (unsigned long long)seen);
    free(def);
    return OPSCOPE_EXIT_OK;
fail:
    opscope_error_format(&err, msg, sizeof msg);
    fprintf(stderr, "opscope view: %s\n", msg);
    free(def);
    return rc;
}
