/*
 * fuzz_kineto_cpu.c - libFuzzer target for a trace's CPU side: the Kineto reader (format
 * detection, read status of a trace cut short) with the collector teed through the viewer's
 * CPU lanes (export/html/html_cpu.c), the analysis finished, every CPU op checked (a name the
 * table holds, start <= end), then the CPU lanes and the report section written to /dev/null.
 */
#include "analyze/kineto/kineto.h"
#include "export/html/html_cpu.h"
#include "export/kineto/kineto_report.h"
#include "model/strtab.h"
#include "read/readers.h"
#include "util/out.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int on_record(void *ud, const opscope_record *r) {
    uint64_t *n = ud;
    *n += r->duration_ns + (r->name[0] != 0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static FILE *devnull;
    if (!devnull) devnull = fopen("/dev/null", "wb");
    uint64_t n = 0;
    opscope_sink sink = {&n, NULL, NULL, on_record, NULL};
    opscope_strtab_t *names = opscope_strtab_new();
    opscope_kineto_t *an = names ? opscope_kineto_new(names) : NULL;
    opscope_html_cpu_t *cpu = opscope_html_cpu_new();
    if (an && cpu) {
        opscope_kineto_keep_dims(an);
        opscope_read_status st;
        opscope_read_options o = {0};
        o.kineto = opscope_html_cpu_tee(cpu, opscope_kineto_collector_of(an));
        o.status = &st;
        opscope_error err;
        if (opscope_read_buffer_opts(data, size, "fuzz", OPSCOPE_FORMAT_AUTO, &sink, &o, &err) == 0) {
            if (st.truncated_at > size) abort();
            if (opscope_kineto_finish(an) == 0) {
                uint32_t n_names = opscope_strtab_count(opscope_kineto_names(an));
                for (size_t i = 0, m = opscope_kineto_n_cpu_ops(an); i < m; i++) {
                    opscope_kineto_cpu_op op;
                    opscope_kineto_cpu_op_get(an, i, &op);
                    if (op.name >= n_names || op.end_ns < op.start_ns) abort();
                }
                if (opscope_html_cpu_add_kineto(cpu, an) == 0 && devnull) {
                    opscope_out_t *w = opscope_out_from_file(devnull, &err);
                    if (w) {
                        opscope_html_cpu_write(w, cpu, 0);
                        opscope_kineto_report_write(w, an);
                        opscope_out_commit(w, &err);
                    }
                }
            }
        }
    }
    opscope_html_cpu_free(cpu);
    opscope_kineto_free(an);
    opscope_strtab_free(names);
    return 0;
}
