/* decode_read.c - capture.decodes (see decode_read.h). */
#include "read/decode_read.h"
#include "read/members.h"

#include <stdlib.h>
#include <string.h>

/* A call's sequences: at most llama's LLAMA_MAX_SEQ (256) distinct ones; more is damage. */
enum { MAX_SEQS = 256 };

static int fail(opscope_json_t *j, const char *msg, const opscope_json_token *t) {
    return opscope_json_fail(j, OPSCOPE_ERROR_SCHEMA, msg, t->pos);
}

static const opscope_member SEQ[] = {
    OPSCOPE_MEMBER_ROW_INT("seq", opscope_run_seq, seq, INT32_MIN, INT32_MAX),
    OPSCOPE_MEMBER_ROW_INT("request", opscope_run_seq, request, 0, UINT32_MAX),
    OPSCOPE_MEMBER_ROW_INT("tokens", opscope_run_seq, n_tokens, 0, UINT32_MAX),
    OPSCOPE_MEMBER_ROW_INT("prompt", opscope_run_seq, n_prompt, 0, UINT32_MAX),
    OPSCOPE_MEMBER_ROW_INT("outputs", opscope_run_seq, n_outputs, 0, UINT32_MAX),
};

/* A call being read, with the buffer its sequences go to. */
typedef struct decode_in {
    opscope_run_decode d;
    opscope_run_seq *seqs; /* MAX_SEQS */
} decode_in;

static int read_seq(opscope_json_t *j, const opscope_json_token *open, void *obj) {
    decode_in *in = obj;
    if (in->d.n_seqs == MAX_SEQS) return fail(j, "a decode has more than 256 sequences", open);
    opscope_run_seq *q = &in->seqs[in->d.n_seqs];
    memset(q, 0, sizeof *q);
    if (opscope_members_read(j, open, "a decode's sequence must be an object", SEQ, sizeof SEQ / sizeof SEQ[0], q))
        return -1;
    in->d.n_seqs++;
    return 0;
}

static int read_seqs(opscope_json_t *j, const opscope_json_token *open, void *obj) {
    return opscope_elements_read(j, open, "\"seqs\" must be an array of objects", read_seq, obj);
}

static const opscope_member DECODE[] = {
    OPSCOPE_MEMBER_ROW_TIME("start_ns", decode_in, d.start_ns),
    OPSCOPE_MEMBER_ROW_TIME("end_ns", decode_in, d.end_ns),
    OPSCOPE_MEMBER_ROW_INT("graph", decode_in, d.graph, INT64_MIN, INT64_MAX),
    OPSCOPE_MEMBER_ROW_INT("graphs", decode_in, d.n_graphs, 0, UINT32_MAX),
    OPSCOPE_MEMBER_ROW_INT("tokens", decode_in, d.n_tokens, 0, UINT32_MAX),
    OPSCOPE_MEMBER_ROW_INT("outputs", decode_in, d.n_outputs, 0, UINT32_MAX),
    OPSCOPE_MEMBER_ROW_INT("context", decode_in, d.context, INT32_MIN, INT32_MAX),
    OPSCOPE_MEMBER_ROW_INT("ret", decode_in, d.ret, INT32_MIN, INT32_MAX),
    OPSCOPE_MEMBER_ROW_INT("wiped", decode_in, d.wiped, 0, 1),
    OPSCOPE_MEMBER_ROW_CALL("seqs", read_seqs),
};

/* The calls' reading: where they go, and the one buffer each call's sequences are read into. */
typedef struct decodes_in {
    opscope_run_t *r;
    opscope_run_seq *seqs; /* MAX_SEQS */
} decodes_in;

static int read_decode(opscope_json_t *j, const opscope_json_token *open, void *obj) {
    decodes_in *all = obj;
    decode_in in = {.d = {.context = -1}, .seqs = all->seqs};
    if (opscope_members_read(j, open, "a decode must be an object", DECODE, sizeof DECODE / sizeof DECODE[0], &in))
        return -1;
    if (in.d.end_ns < in.d.start_ns) return fail(j, "a decode ends before it starts", open);
    in.d.seqs = all->seqs;
    return opscope_run_add_decode(all->r, &in.d)
               ? opscope_json_fail(j, OPSCOPE_ERROR_NOMEM, "out of memory", open->pos) : 0;
}

int opscope_read_run_decodes(opscope_json_t *j, const opscope_json_token *open, opscope_run_t *r) {
    if (open->type != OPSCOPE_JSON_ARR_BEGIN) return fail(j, "\"decodes\" must be an array of objects", open);
    decodes_in all = {r, malloc(MAX_SEQS * sizeof *all.seqs)};
    if (!all.seqs) return opscope_json_fail(j, OPSCOPE_ERROR_NOMEM, "out of memory", open->pos);
    int rc = opscope_elements_read(j, open, "", read_decode, &all);
    free(all.seqs);
    return rc;
}
