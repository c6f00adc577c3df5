/*
 * fuzz_oplog.c - libFuzzer target for the record log's reader (read/oplog_read.c: a killed
 * run's profile). A chunk with a bad checksum ends a log, so mutated bytes would rarely get
 * past the framing: an input that is a log (its 16-byte header first) is read as it is, then
 * again with every chunk's header made whole (the type and length it says, the length cut to
 * the bytes left, the checksum computed), so the chunks' payloads (META, BACKEND, RECORDS,
 * DROPS, END, RUN) reach their decoders; any other input is read after a log header. The sink
 * touches every string it gets (records, backends, what ran). The reader must succeed or fail
 * with a message, deliver one end on success, never more records than it counted.
 */
#include "opscope.h"
#include "read/readers.h"
#include "util/oplog.h"

#include "oplog_reframe.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct counts {
    uint64_t records, said, ends, bytes;
} counts;

static size_t len0(const char *s) {
    return s ? strlen(s) : 0;
}

static void touch_run(counts *c, const opscope_run_info *r) {
    for (size_t i = 0; i < r->n_argv; i++) c->bytes += len0(r->argv[i]);
    for (size_t i = 0; i < r->n_models; i++)
        c->bytes += len0(r->models[i].path) + len0(r->models[i].architecture) + len0(r->models[i].name);
    for (size_t i = 0; i < r->n_contexts; i++)
        for (size_t k = 0; k < r->contexts[i].n_reps; k++) c->bytes += r->contexts[i].reps_ns[k] & 1;
    c->bytes += len0(r->blas) + len0(r->blas_path);
}

static int on_meta(void *ud, const opscope_meta *m) {
    counts *c = ud;
    c->said = m->total_records;
    const opscope_capture_info *k = m->capture;
    if (k) {
        c->bytes += len0(k->host) + len0(k->program) + len0(k->clock) + len0(k->boot_id) + len0(k->end) +
                    len0(k->end_signal);
        if (k->run) touch_run(c, k->run);
    }
    return 0;
}

static int on_backend(void *ud, const opscope_backend *b) {
    ((counts *)ud)->bytes += len0(b->name) + len0(b->device);
    return 0;
}

static int on_record(void *ud, const opscope_record *r) {
    counts *c = ud;
    c->records++;
    c->bytes += len0(r->name) + len0(r->sub_op) + len0(r->extra) + len0(r->tensor_name) + len0(r->category) +
                len0(r->kernel);
    if (r->n_src < 0 || r->n_src > OPSCOPE_MAX_SRC) abort();
    return 0;
}

static int on_end(void *ud) {
    ((counts *)ud)->ends++;
    return 0;
}

static void read_one(const uint8_t *data, size_t size) {
    counts c = {0};
    opscope_sink sink = {&c, on_meta, on_backend, on_record, on_end};
    opscope_error err;
    opscope_read_status st;
    int rc = opscope_oplog_read(data, size, "fuzz", &sink, &st, &err);
    if (rc != 0 && rc != -1) abort();
    if (rc == 0 && (c.ends != 1 || c.records > c.said || st.records != c.records)) abort();
    if (rc != 0 && (c.ends != 0 || !err.msg)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reframe_each(data, size, read_one);
    return 0;
}
