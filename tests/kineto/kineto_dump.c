/*
 * kineto_dump - test helper: reads a trace through the reader `opscope report` uses
 * (opscope_read_file_opts: file or stdin, gzip, format detection, the Kineto collector as an
 * option) and prints, as TSV, the per-name record totals and the analysis figures that
 * tests/kineto/check_kineto.py compares with its own computation. Exit status 2 on a read
 * error (message on stderr).
 * Usage: kineto_dump [--chrome|--report] TRACE   (--chrome: read as a Chrome trace, not
 * detected; --report: print the report's Kineto section only)
 */
#include "analyze/kineto/kineto.h"
#include "export/kineto/kineto_report.h"
#include "util/out.h"
#include "read/readers.h"
#include "model/strtab.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct agg { const char *name; const char *cat; int copy; uint64_t n, ns, bytes; } agg;

typedef struct dump {
    agg *v;
    size_t n, cap;
    uint64_t records;
    const char **hkey; /* open addressing: interned name pointer + type -> index in v */
    size_t *hval, hmask;
} dump;

static int on_record(void *ud, const opscope_record *r) {
    dump *d = ud;
    d->records++;
    int copy = r->type == OPSCOPE_RECORD_COPY;
    /* the reader interns names: the pointer identifies the name (mixed with the type) */
    uintptr_t key = (uintptr_t)r->name ^ (uintptr_t)copy;
    size_t h = (size_t)((key >> 3) * 0x9e3779b97f4a7c15ull) & d->hmask;
    while (d->hkey[h] && (uintptr_t)d->hkey[h] != key) h = (h + 1) & d->hmask;
    if (d->hkey[h]) {
        agg *a = &d->v[d->hval[h]];
        a->n++;
        a->ns += r->duration_ns;
        a->bytes += r->bytes;
        return 0;
    }
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 256;
        d->v = realloc(d->v, d->cap * sizeof *d->v);
        if (!d->v) return 1;
    }
    if (d->n * 2 >= d->hmask) return 1; /* more distinct names than the test table holds */
    d->hkey[h] = (const char *)key;
    d->hval[h] = d->n;
    d->v[d->n++] = (agg){strdup(r->name), strdup(r->category ? r->category : ""), copy, 1,
                         r->duration_ns, r->bytes};
    return 0;
}

static void tsv_str(const char *s) {
    for (; *s; s++) putchar(*s == '\t' || *s == '\n' ? ' ' : *s);
}

static void print_all(const dump *dd, const opscope_kineto_t *an, const opscope_strtab_t *names);

int main(int argc, char **argv) {
    int chrome = argc > 2 && !strcmp(argv[1], "--chrome");
    int report = argc > 2 && !strcmp(argv[1], "--report");
    if (argc != 2 + chrome + report) {
        fprintf(stderr, "usage: kineto_dump [--chrome|--report] TRACE\n");
        return 1;
    }
    const char *path = argv[argc - 1];
    opscope_strtab_t *names = opscope_strtab_new();
    opscope_kineto_t *an = opscope_kineto_new(names);
    dump d = {0};
    d.hmask = (1u << 20) - 1;
    d.hkey = calloc(d.hmask + 1, sizeof *d.hkey);
    d.hval = calloc(d.hmask + 1, sizeof *d.hval);
    opscope_sink sink = {&d, NULL, NULL, on_record, NULL};
    opscope_error err;
    int status = 0;
    opscope_read_options opts = {0};
    opts.kineto = opscope_kineto_collector_of(an);
    if (opscope_read_file_opts(path, chrome ? OPSCOPE_FORMAT_CHROME : OPSCOPE_FORMAT_AUTO, &sink,
                               &opts, &err)) {
        char buf[512];
        opscope_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
        status = 2;
    } else if (opscope_kineto_finish(an)) {
        fprintf(stderr, "out of memory\n");
        status = 2;
    } else if (report) { /* the report section only */
        opscope_out_t *w = opscope_out_from_file(stdout, &err);
        if (w) opscope_kineto_report_write(w, an);
        status = !w || opscope_out_commit(w, &err) ? 2 : 0;
    } else {
        print_all(&d, an, names);
    }
    for (size_t i = 0; i < d.n; i++) {
        free((void *)d.v[i].name);
        free((void *)d.v[i].cat);
    }
    free(d.v);
    free(d.hkey);
    free(d.hval);
    opscope_kineto_free(an);
    opscope_strtab_free(names);
    return status;
}

static void print_all(const dump *dd, const opscope_kineto_t *an, const opscope_strtab_t *names) {
    const dump d = *dd;
    for (size_t i = 0; i < d.n; i++) {
        printf("%s\t", d.v[i].copy ? "copy" : "op");
        tsv_str(d.v[i].name);
        printf("\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t", d.v[i].n, d.v[i].ns, d.v[i].bytes);
        tsv_str(d.v[i].cat);
        putchar('\n');
    }
    const opscope_kineto_results *r = opscope_kineto_get_results(an);
    const opscope_kineto_info *in = opscope_kineto_get_info(an);
    printf("link\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", r->kernels,
           r->link_runtime, r->link_cpu, r->link_python, r->link_none);
    for (int c = 0; c < OPSCOPE_KCAT_COUNT; c++)
        printf("cat\t%s\t%" PRIu64 "\t%" PRIu64 "\n", opscope_kernel_category_name(c), r->cat_count[c],
               r->cat_ns[c]);
    printf("platform\t%s\n", opscope_kineto_platform_name(in->platform));
    printf("devices\t%d\n", in->n_devices);
    for (size_t i = 0; i < r->n_streams; i++)
        printf("stream\t%" PRId64 "\t%" PRId64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
               r->streams[i].device, r->streams[i].stream, r->streams[i].n, r->streams[i].busy_ns,
               r->streams[i].idle_ns, r->streams[i].last_ns - r->streams[i].first_ns);
    for (size_t i = 0; i < r->n_top_cpu_ops; i++) {
        const char *nm = r->top_cpu_ops[i].name_id == UINT32_MAX ? "(none)"
                         : opscope_strtab_get(names, r->top_cpu_ops[i].name_id);
        printf("cpuop\t");
        tsv_str(nm);
        printf("\t%" PRIu64 "\t%" PRIu64 "\n", r->top_cpu_ops[i].count, r->top_cpu_ops[i].ns);
    }
    for (int p = 0; p < OPSCOPE_KINETO_PHASE_COUNT; p++)
        printf("phase\t%s\t%" PRIu64 "\t%" PRIu64 "\n", opscope_kineto_phase_name(p), r->phase[p].kernels,
               r->phase[p].ns);
    printf("layers\t%" PRIu64 "\t%" PRIu64 "\n", r->n_layers, r->layer_kernels);
    printf("records\t%" PRIu64 "\n", d.records);
}
