/* decode_read.c - capture.decodes (see decode_read.h). */
#include "read/decode_read.h"

#include <stdlib.h>
#include <string.h>

/* A call's sequences: at most llama's LLAMA_MAX_SEQ (256) distinct ones; more is damage. */
enum { MAX_SEQS = 256 };

#define KEY_IS(lit) (n == sizeof(lit) - 1 && memcmp(k, lit, sizeof(lit) - 1) == 0)

static int fail(opscope_json_t *j, const char *msg, const opscope_json_token *t) {
    return opscope_json_fail(j, OPSCOPE_ERROR_SCHEMA, msg, t->pos);
}

/* An integer in [LO, HI] into *OUT. */
static int get_int(opscope_json_t *j, const opscope_json_token *t, int64_t lo, int64_t hi, int64_t *out) {
    if (t->type != OPSCOPE_JSON_NUMBER || !t->is_int) return fail(j, "expected an integer", t);
    if (t->i < lo || t->i > hi)
        return opscope_json_fail(j, OPSCOPE_ERROR_RANGE, "number out of range for this field", t->pos);
    *out = t->i;
    return 0;
}

static int read_seq(opscope_json_t *j, const opscope_json_token *open, opscope_run_seq *q) {
    if (open->type != OPSCOPE_JSON_OBJ_BEGIN) return fail(j, "a decode's sequence must be an object", open);
    memset(q, 0, sizeof *q);
    opscope_json_token t, v;
    for (;;) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
        if (t.type == OPSCOPE_JSON_OBJ_END) return 0;
        const char *k = t.str;
        size_t n = t.len;
        int key = KEY_IS("seq") ? 1 : KEY_IS("request") ? 2 : KEY_IS("tokens") ? 3
                : KEY_IS("prompt") ? 4 : KEY_IS("outputs") ? 5 : 0;
        if (opscope_json_next(j, &v) == OPSCOPE_JSON_ERROR) return -1;
        int64_t x = 0;
        if (!key) {
            if (opscope_json_skip(j, &v)) return -1;
            continue;
        }
        if (get_int(j, &v, key == 1 ? INT32_MIN : 0, key == 1 ? INT32_MAX : UINT32_MAX, &x)) return -1;
        if (key == 1) q->seq = (int32_t)x;
        else if (key == 2) q->request = (uint32_t)x;
        else if (key == 3) q->n_tokens = (uint32_t)x;
        else if (key == 4) q->n_prompt = (uint32_t)x;
        else q->n_outputs = (uint32_t)x;
    }
}

static int read_seqs(opscope_json_t *j, const opscope_json_token *open, opscope_run_seq *seqs, size_t *n) {
    if (open->type != OPSCOPE_JSON_ARR_BEGIN) return fail(j, "\"seqs\" must be an array of objects", open);
    opscope_json_token t;
    for (;;) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
        if (t.type == OPSCOPE_JSON_ARR_END) return 0;
        if (*n == MAX_SEQS) return fail(j, "a decode has more than 256 sequences", &t);
        if (read_seq(j, &t, &seqs[*n])) return -1;
        (*n)++;
    }
}

/* One call's scalar member KEY (1..8, 10) from V into D. */
static int set_scalar(opscope_json_t *j, int key, const opscope_json_token *v, opscope_run_decode *d) {
    static const int64_t lo[11] = {0, 0, 0, INT64_MIN, 0, 0, 0, INT32_MIN, INT32_MIN, 0, 0};
    static const int64_t hi[11] = {0, INT64_MAX, INT64_MAX, INT64_MAX, UINT32_MAX, UINT32_MAX,
                                   UINT32_MAX, INT32_MAX, INT32_MAX, 0, 1};
    int64_t x = 0;
    if (get_int(j, v, lo[key], hi[key], &x)) return -1;
    switch (key) {
    case 1: d->start_ns = (uint64_t)x; break;
    case 2: d->end_ns = (uint64_t)x; break;
    case 3: d->graph = x; break;
    case 4: d->n_graphs = (uint32_t)x; break;
    case 5: d->n_tokens = (uint32_t)x; break;
    case 6: d->n_outputs = (uint32_t)x; break;
    case 7: d->context = (int32_t)x; break;
    case 10: d->wiped = (uint8_t)x; break;
    default: d->ret = (int32_t)x; break;
    }
    return 0;
}

static int read_decode(opscope_json_t *j, const opscope_json_token *open, opscope_run_t *r,
                       opscope_run_seq *seqs) {
    if (open->type != OPSCOPE_JSON_OBJ_BEGIN) return fail(j, "a decode must be an object", open);
    opscope_run_decode d = {.context = -1};
    opscope_json_token t, v;
    for (;;) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
        if (t.type == OPSCOPE_JSON_OBJ_END) break;
        const char *k = t.str;
        size_t n = t.len;
        int key = KEY_IS("start_ns") ? 1 : KEY_IS("end_ns") ? 2 : KEY_IS("graph") ? 3
                : KEY_IS("graphs") ? 4 : KEY_IS("tokens") ? 5 : KEY_IS("outputs") ? 6
                : KEY_IS("context") ? 7 : KEY_IS("ret") ? 8 : KEY_IS("seqs") ? 9
                : KEY_IS("wiped") ? 10 : 0;
        if (opscope_json_next(j, &v) == OPSCOPE_JSON_ERROR) return -1;
        int rc = key == 9 ? read_seqs(j, &v, seqs, &d.n_seqs)
               : key ? set_scalar(j, key, &v, &d) : opscope_json_skip(j, &v);
        if (rc < 0) return -1;
    }
    if (d.end_ns < d.start_ns) return fail(j, "a decode ends before it starts", open);
    d.seqs = seqs;
    return opscope_run_add_decode(r, &d)
               ? opscope_json_fail(j, OPSCOPE_ERROR_NOMEM, "out of memory", open->pos) : 0;
}

int opscope_read_run_decodes(opscope_json_t *j, const opscope_json_token *open, opscope_run_t *r) {
    if (open->type != OPSCOPE_JSON_ARR_BEGIN) return fail(j, "\"decodes\" must be an array of objects", open);
    opscope_run_seq *seqs = malloc(MAX_SEQS * sizeof *seqs);
    if (!seqs) return opscope_json_fail(j, OPSCOPE_ERROR_NOMEM, "out of memory", open->pos);
    opscope_json_token t;
    int rc = 0;
    for (;;) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) {
            rc = -1;
            break;
        }
        if (t.type == OPSCOPE_JSON_ARR_END) break;
        if (read_decode(j, &t, r, seqs)) {
            rc = -1;
            break;
        }
    }
    free(seqs);
    return rc;
}
