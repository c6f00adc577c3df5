/* run_read.c - the run members of "capture" (see run_read.h). */
#include "read/run_read.h"
#include "read/decode_read.h"
#include "read/members.h"

#include <stdlib.h>
#include <string.h>

static int fail(opscope_json_t *j, const char *msg, const opscope_json_token *t) {
    return opscope_json_fail(j, OPSCOPE_ERROR_SCHEMA, msg, t->pos);
}

static int nomem(opscope_json_t *j, const opscope_json_token *t) {
    return opscope_json_fail(j, OPSCOPE_ERROR_NOMEM, "out of memory", t->pos);
}

#define KEY_IS(lit) (n == sizeof(lit) - 1 && memcmp(k, lit, sizeof(lit) - 1) == 0)

static int read_arg(opscope_json_t *j, const opscope_json_token *t, void *r) {
    if (t->type != OPSCOPE_JSON_STRING) return fail(j, "\"argv\" must be an array of strings", t);
    return opscope_run_add_arg(r, t->str, t->len) ? nomem(j, t) : 0;
}

/* A model being read, with copies of its strings (token strings die at the next token). */
typedef struct model_in {
    opscope_run_model m;
    char path[4096], arch[128], name[256];
} model_in;

static const opscope_member MODEL[] = {
    OPSCOPE_MEMBER_ROW_STR_NULL("path", model_in, m.path, path),
    OPSCOPE_MEMBER_ROW_UINT_NULL("size", model_in, m.size_bytes, INT64_MAX),
    OPSCOPE_MEMBER_ROW_STR_NULL("architecture", model_in, m.architecture, arch),
    OPSCOPE_MEMBER_ROW_STR_NULL("name", model_in, m.name, name),
    OPSCOPE_MEMBER_ROW_UINT_NULL("n_params", model_in, m.n_params, INT64_MAX),
    OPSCOPE_MEMBER_ROW_INT_NULL("file_type", model_in, m.file_type, INT32_MIN, INT32_MAX),
};

static int read_model(opscope_json_t *j, const opscope_json_token *open, void *r) {
    if (open->type != OPSCOPE_JSON_OBJ_BEGIN) return fail(j, "a model must be an object", open);
    model_in *in = malloc(sizeof *in);
    if (!in) return nomem(j, open);
    in->m = (opscope_run_model){.file_type = -1};
    int rc = opscope_members_read(j, open, "", MODEL, sizeof MODEL / sizeof MODEL[0], in);
    if (!rc && opscope_run_add_model(r, &in->m)) rc = nomem(j, open);
    free(in);
    return rc;
}

enum { MAX_REPS = 4096 }; /* llama-bench's -r: a context's repetitions kept */

/* Lone values: a uint64_t (a non-negative integer; a repetition's time, a time: readers.h) or an
 * int32_t, each or null (left as is). */
static const opscope_member U64 = {"", OPSCOPE_MEMBER_UINT_NULL, 0, sizeof(uint64_t), 0, INT64_MAX, 0, NULL, NULL};
static const opscope_member REP = {"", OPSCOPE_MEMBER_UINT_NULL, 0, sizeof(uint64_t), 0, (int64_t)OPSCOPE_READ_MAX_TIME_NS,
                                   0, NULL, OPSCOPE_READ_TIME_MSG("reps_ns")};
static const opscope_member I32 = {"", OPSCOPE_MEMBER_INT_NULL, 0, sizeof(int32_t), INT32_MIN, INT32_MAX, 0, NULL, NULL};

/* A context being read, with the buffer its repetitions go to. */
typedef struct context_in {
    opscope_run_context c;
    uint64_t *reps; /* MAX_REPS */
} context_in;

static int read_rep(opscope_json_t *j, const opscope_json_token *t, void *obj) {
    context_in *in = obj;
    uint64_t x = 0;
    if (opscope_member_read(j, &REP, t, &x)) return -1;
    if (in->c.n_reps < MAX_REPS) in->reps[in->c.n_reps++] = x;
    return 0;
}

static int read_reps(opscope_json_t *j, const opscope_json_token *open, void *obj) {
    return opscope_elements_read(j, open, "\"reps_ns\" must be an array of integers", read_rep, obj);
}

static const opscope_member CONTEXT[] = {
    OPSCOPE_MEMBER_ROW_INT_NULL("model", context_in, c.model, INT32_MIN, INT32_MAX),
    OPSCOPE_MEMBER_ROW_UINT_NULL("n_ctx", context_in, c.n_ctx, UINT32_MAX),
    OPSCOPE_MEMBER_ROW_UINT_NULL("n_batch", context_in, c.n_batch, UINT32_MAX),
    OPSCOPE_MEMBER_ROW_UINT_NULL("n_ubatch", context_in, c.n_ubatch, UINT32_MAX),
    OPSCOPE_MEMBER_ROW_UINT_NULL("n_threads", context_in, c.n_threads, UINT32_MAX),
    OPSCOPE_MEMBER_ROW_TIME_NULL("end_ns", context_in, c.end_ns),
    OPSCOPE_MEMBER_ROW_CALL("reps_ns", read_reps),
};

static int read_context(opscope_json_t *j, const opscope_json_token *open, void *r) {
    if (open->type != OPSCOPE_JSON_OBJ_BEGIN) return fail(j, "a context must be an object", open);
    context_in in = {.c = {.model = -1}, .reps = malloc(MAX_REPS * sizeof *in.reps)};
    if (!in.reps) return nomem(j, open);
    int rc = opscope_members_read(j, open, "", CONTEXT, sizeof CONTEXT / sizeof CONTEXT[0], &in);
    in.c.reps_ns = in.reps;
    if (!rc && opscope_run_add_context(r, &in.c)) rc = nomem(j, open);
    free(in.reps);
    return rc;
}

/* The BLAS library being read, with copies of its strings. */
typedef struct blas_in {
    const char *name, *path;
    int32_t threads;
    char name_buf[64], path_buf[4096];
} blas_in;

static const opscope_member BLAS[] = {
    OPSCOPE_MEMBER_ROW_STR_NULL("name", blas_in, name, name_buf),
    OPSCOPE_MEMBER_ROW_STR_NULL("path", blas_in, path, path_buf),
    OPSCOPE_MEMBER_ROW_INT_NULL("threads", blas_in, threads, INT32_MIN, INT32_MAX),
};

static int read_blas(opscope_json_t *j, const opscope_json_token *open, opscope_run_t *r) {
    blas_in in = {.name = NULL};
    if (opscope_members_read(j, open, "\"blas\" must be an object", BLAS, sizeof BLAS / sizeof BLAS[0], &in))
        return -1;
    return opscope_run_set_blas(r, in.name, in.path, in.threads) ? nomem(j, open) : 0;
}

int opscope_read_run_key(const char *k, size_t n) {
    return KEY_IS("argv") ? 1 : KEY_IS("models") ? 2 : KEY_IS("contexts") ? 3
         : KEY_IS("blas") ? 4 : KEY_IS("cpu_cores") ? 5 : KEY_IS("decodes") ? 6
         : KEY_IS("decodes_lost") ? 7 : 0;
}

int opscope_read_run_member(opscope_json_t *j, int key, const opscope_json_token *val,
                            opscope_run_t **run) {
    if (key <= 0) return 0;
    if (val->type == OPSCOPE_JSON_NULL) return 1;
    if (!*run && !(*run = opscope_run_new())) return nomem(j, val);
    opscope_run_t *r = *run;
    int rc;
    if (key == 1) rc = opscope_elements_read(j, val, "\"argv\" must be an array of strings", read_arg, r);
    else if (key == 2) rc = opscope_elements_read(j, val, "\"models\" must be an array of objects", read_model, r);
    else if (key == 3) rc = opscope_elements_read(j, val, "\"contexts\" must be an array of objects", read_context, r);
    else if (key == 4) rc = read_blas(j, val, r);
    else if (key == 6) rc = opscope_read_run_decodes(j, val, r);
    else if (key == 7) {
        uint64_t lost = 0;
        rc = opscope_member_read(j, &U64, val, &lost);
        opscope_run_set_decodes_lost(r, lost);
    } else {
        int32_t cores = 0;
        rc = opscope_member_read(j, &I32, val, &cores);
        opscope_run_set_cores(r, cores);
    }
    return rc < 0 ? -1 : 1;
}
