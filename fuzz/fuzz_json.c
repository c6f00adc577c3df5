/*
 * fuzz_json.c - libFuzzer target for the streaming JSON parser: the input is parsed in memory
 * mode and through a read callback with a chunk size taken from the first byte; both runs
 * must agree on accept/reject, and containers are skipped on the second run to exercise
 * opscope_json_skip.
 */
#include "read/json.h"
#include "json_stream.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* SKIP: 1 = skip containers at depth 2; 2 = try the shape fast path on every array, counting
 * what it consumed as the tokens the general path would have returned. */
static int run(opscope_json_t *j, int skip, uint64_t *ntok) {
    opscope_json_token t;
    for (;;) {
        opscope_json_tok k = opscope_json_next(j, &t);
        if (k == OPSCOPE_JSON_ERROR) {
            const opscope_error *e = opscope_json_error(j);
            if (!e->msg) abort();
            return 0;
        }
        if (k == OPSCOPE_JSON_EOF) return 1;
        (*ntok)++;
        if ((k == OPSCOPE_JSON_KEY || k == OPSCOPE_JSON_STRING) && t.str[t.len] != 0) abort();
        if (skip == 2 && k == OPSCOPE_JSON_ARR_BEGIN) {
            int64_t v[4];
            int n = opscope_json_int_array(j, v, 4);
            if (n >= 0) *ntok += (uint64_t)n + 1;
            continue;
        }
        if (skip == 1 && (k == OPSCOPE_JSON_OBJ_BEGIN || k == OPSCOPE_JSON_ARR_BEGIN) && t.depth == 2) {
            if (opscope_json_skip(j, &t)) return 0;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t chunk = size ? (size_t)(data[0] % 13) + 1 : 1;
    uint64_t n1 = 0, n2 = 0, n3 = 0;
    opscope_json_t *a = opscope_json_new(NULL, NULL, data, size, "fuzz");
    int r1 = a ? run(a, 0, &n1) : -1;
    opscope_json_free(a);
    tj_src s = {data, size, 0, chunk};
    opscope_json_t *b = opscope_json_new(tj_read, &s, NULL, 0, "fuzz");
    int r2 = b ? run(b, 0, &n2) : -1;
    opscope_json_free(b);
    if (r1 >= 0 && r2 >= 0 && (r1 != r2 || n1 != n2)) abort(); /* chunking must not matter */
    s.off = 0;
    opscope_json_t *c = opscope_json_new(tj_read, &s, NULL, 0, "fuzz");
    int r3 = c ? run(c, 1, &n3) : -1;
    opscope_json_free(c);
    if (r1 >= 0 && r3 >= 0 && r1 != r3) abort(); /* skipping validates like parsing */
    uint64_t n4 = 0;
    opscope_json_t *d = opscope_json_new(NULL, NULL, data, size, "fuzz");
    int r4 = d ? run(d, 2, &n4) : -1;
    opscope_json_free(d);
    if (r1 >= 0 && r4 >= 0 && (r1 != r4 || n1 != n4)) abort(); /* the fast path changes nothing */
    return 0;
}
