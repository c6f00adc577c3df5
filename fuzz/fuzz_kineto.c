/*
 * fuzz_kineto.c - libFuzzer target for the Kineto / Chrome trace reader and the Kineto
 * analysis: every input is read as a Kineto trace and as a Chrome trace (memory source) into a
 * sink that touches every string, with a collector; the analysis is finished and the report
 * section written to /dev/null. The first byte of the input picks the format order, so both
 * paths are reached with the rest of the input.
 */
#include "analyze/kineto/kineto.h"
#include "read/kineto_read.h"
#include "export/kineto/kineto_report.h"
#include "util/out.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int on_record(void *ud, const opscope_record *r) {
    uint64_t *n = ud;
    *n += strlen(r->name) + (r->category ? strlen(r->category) : 0) + (r->sub_op ? strlen(r->sub_op) : 0);
    return 0;
}

static int on_backend(void *ud, const opscope_backend *b) {
    uint64_t *n = ud;
    *n += strlen(b->name) + strlen(b->device);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static FILE *devnull;
    if (!devnull) devnull = fopen("/dev/null", "wb");
    for (int pass = 0; pass < 2; pass++) {
        opscope_format f = pass == 0 ? OPSCOPE_FORMAT_KINETO : OPSCOPE_FORMAT_CHROME;
        uint64_t n = 0;
        opscope_sink sink = {&n, NULL, on_backend, on_record, NULL};
        opscope_strtab_t *names = opscope_strtab_new();
        opscope_kineto_t *an = names ? opscope_kineto_new(names) : NULL;
        opscope_json_t *j = opscope_json_new(NULL, NULL, data, size, "fuzz");
        if (an && j) {
            opscope_error err;
            if (opscope_kineto_read_json(j, f, &sink, opscope_kineto_collector_of(an), &err) == 0 && opscope_kineto_finish(an) == 0 &&
                devnull) {
                opscope_out_t *w = opscope_out_from_file(devnull, &err);
                if (w) {
                    opscope_kineto_report_write(w, an);
                    opscope_out_commit(w, &err);
                }
            }
        }
        opscope_json_free(j);
        opscope_kineto_free(an);
        opscope_strtab_free(names);
    }
    return 0;
}
