/*
 * fuzz_ggml_profile.c - libFuzzer target for format detection and the ggml profile reader
 * (through opscope_read_buffer with OPSCOPE_FORMAT_GGML, so Kineto-looking inputs reach this
 * reader too; the Kineto reader has its own target) into a sink that counts and touches every
 * string it receives.
 */
#include "opscope.h"
#include "read/readers.h"
#include "util/oplog.h"
#include "json_stream.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct counts {
    uint64_t records, backends, metas, ends, bytes, sum;
} counts;

/* FNV-1a over a string, to compare two reads of the same input. */
static uint64_t mix(uint64_t h, const char *s) {
    for (; s && *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h * 31 + 7;
}

static int on_meta(void *ud, const opscope_meta *m) {
    counts *c = ud;
    c->metas++;
    c->bytes += strlen(m->profiler);
    return 0;
}

static int on_backend(void *ud, const opscope_backend *b) {
    counts *c = ud;
    c->backends++;
    c->bytes += strlen(b->name) + strlen(b->device);
    c->sum = mix(mix(c->sum, b->name), b->device) + (uint64_t)b->id;
    return 0;
}

static int on_record(void *ud, const opscope_record *r) {
    counts *c = ud;
    c->records++;
    c->bytes += strlen(r->name);
    if (r->extra) c->bytes += strlen(r->extra);
    if (r->sub_op) c->bytes += strlen(r->sub_op);
    if (r->tensor_name) c->bytes += strlen(r->tensor_name);
    if (r->category) c->bytes += strlen(r->category);
    if (r->n_src < 0 || r->n_src > OPSCOPE_MAX_SRC) abort();
    c->sum = mix(mix(mix(c->sum, r->name), r->extra), r->tensor_name) + r->start_ns + r->duration_ns +
             r->bytes + (uint64_t)r->ne_src[0][0] + r->has;
    return 0;
}

static int on_end(void *ud) {
    counts *c = ud;
    c->ends++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    counts c = {0};
    opscope_sink sink = {&c, on_meta, on_backend, on_record, on_end};
    opscope_error err;
    int events = 0;
    opscope_format f = opscope_detect_format(data, size, 1, &events);
    if (f == OPSCOPE_FORMAT_AUTO) abort(); /* a complete input always decides */
    size_t first = 0; /* the first byte after JSON whitespace */
    while (first < size && (data[first] == ' ' || data[first] == '\t' || data[first] == '\n' ||
                            data[first] == '\r'))
        first++;
    if (first < size && data[first] == '[' && f != OPSCOPE_FORMAT_CHROME) abort();
    if (f == OPSCOPE_FORMAT_KINETO && (first == size || data[first] != '{')) abort();
    int rc = opscope_read_buffer(data, size, "fuzz", OPSCOPE_FORMAT_GGML, &sink, &err);
    if (rc == 0 && c.ends != 1) abort();
    if (rc != 0 && (c.ends != 0 || !err.msg)) abort();
    /* a record log went to its own reader (read.c; fuzz_oplog.c): no JSON to read again */
    if (opscope_oplog_is_log(data, size)) return 0;
    /* the same input through small reads (refills inside every token) gives the same stream */
    counts c2 = {0};
    opscope_sink sink2 = {&c2, on_meta, on_backend, on_record, on_end};
    tj_src src = {data, size, 0, size ? (size_t)(data[size - 1] % 7) + 1 : 1};
    opscope_json_t *j = opscope_json_new(tj_read, &src, NULL, 0, "fuzz");
    if (!j) return 0;
    opscope_error err2;
    int rc2 = opscope_ggml_read_json(j, &sink2, NULL, &err2);
    opscope_json_free(j);
    if (rc2 != rc || c2.records != c.records || c2.backends != c.backends || c2.sum != c.sum) abort();
    if (rc && (err2.code != err.code || err2.pos != err.pos)) abort();
    return 0;
}
