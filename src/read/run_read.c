/* run_read.c - the run members of "capture" (see run_read.h). */
#include "read/run_read.h"
#include "read/decode_read.h"

#include <stdlib.h>
#include <string.h>

static int fail(opscope_json_t *j, const char *msg, const opscope_json_token *t) {
    return opscope_json_fail(j, OPSCOPE_ERROR_SCHEMA, msg, t->pos);
}

static int nomem(opscope_json_t *j, const opscope_json_token *t) {
    return opscope_json_fail(j, OPSCOPE_ERROR_NOMEM, "out of memory", t->pos);
}

/* A non-negative integer (null: left as is). */
static int get_u64(opscope_json_t *j, const opscope_json_token *t, uint64_t *out) {
    if (t->type == OPSCOPE_JSON_NULL) return 0;
    if (t->type != OPSCOPE_JSON_NUMBER || !t->is_int || t->i < 0)
        return fail(j, "expected a non-negative integer", t);
    *out = (uint64_t)t->i;
    return 0;
}

static int get_u32(opscope_json_t *j, const opscope_json_token *t, uint32_t *out) {
    uint64_t v = *out;
    if (get_u64(j, t, &v)) return -1;
    if (v > UINT32_MAX) return opscope_json_fail(j, OPSCOPE_ERROR_RANGE, "number out of range for this field", t->pos);
    *out = (uint32_t)v;
    return 0;
}

static int get_i32(opscope_json_t *j, const opscope_json_token *t, int32_t *out) {
    if (t->type == OPSCOPE_JSON_NULL) return 0;
    if (t->type != OPSCOPE_JSON_NUMBER || !t->is_int) return fail(j, "expected an integer", t);
    if (t->i < INT32_MIN || t->i > INT32_MAX)
        return opscope_json_fail(j, OPSCOPE_ERROR_RANGE, "number out of range for this field", t->pos);
    *out = (int32_t)t->i;
    return 0;
}

#define KEY_IS(lit) (n == sizeof(lit) - 1 && memcmp(k, lit, sizeof(lit) - 1) == 0)

static int read_argv(opscope_json_t *j, const opscope_json_token *open, opscope_run_t *r) {
    if (open->type != OPSCOPE_JSON_ARR_BEGIN) return fail(j, "\"argv\" must be an array of strings", open);
    opscope_json_token t;
    for (;;) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
        if (t.type == OPSCOPE_JSON_ARR_END) return 0;
        if (t.type != OPSCOPE_JSON_STRING) return fail(j, "\"argv\" must be an array of strings", &t);
        if (opscope_run_add_arg(r, t.str, t.len)) return nomem(j, &t);
    }
}

/* Copies of a model's strings while its object is read (token strings die at the next one). */
typedef struct model_strs {
    char path[4096], arch[128], name[256];
} model_strs;

static int get_str(opscope_json_t *j, const opscope_json_token *t, char *buf, size_t size,
                   const char **out) {
    if (t->type == OPSCOPE_JSON_NULL) return 0;
    if (t->type != OPSCOPE_JSON_STRING) return fail(j, "expected a string", t);
    size_t n = t->len < size - 1 ? t->len : size - 1;
    memcpy(buf, t->str, n);
    buf[n] = 0;
    *out = buf;
    return 0;
}

static int read_model_in(opscope_json_t *j, opscope_run_t *r, model_strs *s,
                         const opscope_json_token *open);

static int read_model(opscope_json_t *j, const opscope_json_token *open, opscope_run_t *r) {
    if (open->type != OPSCOPE_JSON_OBJ_BEGIN) return fail(j, "a model must be an object", open);
    model_strs *s = malloc(sizeof *s);
    if (!s) return nomem(j, open);
    int rc = read_model_in(j, r, s, open);
    free(s);
    return rc;
}

static int read_model_in(opscope_json_t *j, opscope_run_t *r, model_strs *s,
                         const opscope_json_token *open) {
    opscope_run_model m = {.file_type = -1};
    opscope_json_token t, v;
    for (;;) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
        if (t.type == OPSCOPE_JSON_OBJ_END) break;
        const char *k = t.str;
        size_t n = t.len;
        int key = KEY_IS("path") ? 1 : KEY_IS("size") ? 2 : KEY_IS("architecture") ? 3
                : KEY_IS("name") ? 4 : KEY_IS("n_params") ? 5 : KEY_IS("file_type") ? 6 : 0;
        if (opscope_json_next(j, &v) == OPSCOPE_JSON_ERROR) return -1;
        int rc = key == 1   ? get_str(j, &v, s->path, sizeof s->path, &m.path)
                 : key == 2 ? get_u64(j, &v, &m.size_bytes)
                 : key == 3 ? get_str(j, &v, s->arch, sizeof s->arch, &m.architecture)
                 : key == 4 ? get_str(j, &v, s->name, sizeof s->name, &m.name)
                 : key == 5 ? get_u64(j, &v, &m.n_params)
                 : key == 6 ? get_i32(j, &v, &m.file_type)
                            : opscope_json_skip(j, &v);
        if (rc < 0) return -1;
    }
    return opscope_run_add_model(r, &m) ? nomem(j, open) : 0;
}

enum { MAX_REPS = 4096 }; /* llama-bench's -r: a context's repetitions kept */

static int read_context_in(opscope_json_t *j, opscope_run_t *r, uint64_t *reps,
                           const opscope_json_token *open);

static int read_context(opscope_json_t *j, const opscope_json_token *open, opscope_run_t *r) {
    if (open->type != OPSCOPE_JSON_OBJ_BEGIN) return fail(j, "a context must be an object", open);
    uint64_t *reps = malloc(MAX_REPS * sizeof *reps);
    if (!reps) return nomem(j, open);
    int rc = read_context_in(j, r, reps, open);
    free(reps);
    return rc;
}

static int read_context_in(opscope_json_t *j, opscope_run_t *r, uint64_t *reps,
                           const opscope_json_token *open) {
    opscope_run_context c = {.model = -1};
    opscope_json_token t, v;
    for (;;) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
        if (t.type == OPSCOPE_JSON_OBJ_END) break;
        const char *k = t.str;
        size_t n = t.len;
        int key = KEY_IS("model") ? 1 : KEY_IS("n_ctx") ? 2 : KEY_IS("n_batch") ? 3
                : KEY_IS("n_ubatch") ? 4 : KEY_IS("n_threads") ? 5 : KEY_IS("end_ns") ? 6
                : KEY_IS("reps_ns") ? 7 : 0;
        if (opscope_json_next(j, &v) == OPSCOPE_JSON_ERROR) return -1;
        int rc = 0;
        if (key == 1) rc = get_i32(j, &v, &c.model);
        else if (key == 2) rc = get_u32(j, &v, &c.n_ctx);
        else if (key == 3) rc = get_u32(j, &v, &c.n_batch);
        else if (key == 4) rc = get_u32(j, &v, &c.n_ubatch);
        else if (key == 5) rc = get_u32(j, &v, &c.n_threads);
        else if (key == 6) rc = get_u64(j, &v, &c.end_ns);
        else if (key == 7) {
            if (v.type != OPSCOPE_JSON_ARR_BEGIN) return fail(j, "\"reps_ns\" must be an array of integers", &v);
            for (;;) {
                if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
                if (t.type == OPSCOPE_JSON_ARR_END) break;
                uint64_t x = 0;
                if (get_u64(j, &t, &x)) return -1;
                if (c.n_reps < MAX_REPS) reps[c.n_reps++] = x;
            }
        } else rc = opscope_json_skip(j, &v);
        if (rc < 0) return -1;
    }
    c.reps_ns = reps;
    return opscope_run_add_context(r, &c) ? nomem(j, open) : 0;
}

/* An array of objects, each read by EACH. */
static int read_list(opscope_json_t *j, const opscope_json_token *open, opscope_run_t *r,
                     const char *what, int (*each)(opscope_json_t *, const opscope_json_token *, opscope_run_t *)) {
    if (open->type != OPSCOPE_JSON_ARR_BEGIN) return fail(j, what, open);
    opscope_json_token t;
    for (;;) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
        if (t.type == OPSCOPE_JSON_ARR_END) return 0;
        if (each(j, &t, r)) return -1;
    }
}

static int read_blas(opscope_json_t *j, const opscope_json_token *open, opscope_run_t *r) {
    if (open->type != OPSCOPE_JSON_OBJ_BEGIN) return fail(j, "\"blas\" must be an object", open);
    char name[64], path[4096];
    const char *nm = NULL, *pa = NULL;
    int32_t threads = 0;
    opscope_json_token t, v;
    for (;;) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
        if (t.type == OPSCOPE_JSON_OBJ_END) break;
        const char *k = t.str;
        size_t n = t.len;
        int key = KEY_IS("name") ? 1 : KEY_IS("path") ? 2 : KEY_IS("threads") ? 3 : 0;
        if (opscope_json_next(j, &v) == OPSCOPE_JSON_ERROR) return -1;
        int rc = key == 1   ? get_str(j, &v, name, sizeof name, &nm)
                 : key == 2 ? get_str(j, &v, path, sizeof path, &pa)
                 : key == 3 ? get_i32(j, &v, &threads)
                            : opscope_json_skip(j, &v);
        if (rc < 0) return -1;
    }
    return opscope_run_set_blas(r, nm, pa, threads) ? nomem(j, open) : 0;
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
    if (key == 1) rc = read_argv(j, val, r);
    else if (key == 2) rc = read_list(j, val, r, "\"models\" must be an array of objects", read_model);
    else if (key == 3) rc = read_list(j, val, r, "\"contexts\" must be an array of objects", read_context);
    else if (key == 4) rc = read_blas(j, val, r);
    else if (key == 6) rc = opscope_read_run_decodes(j, val, r);
    else if (key == 7) {
        uint64_t lost = 0;
        rc = get_u64(j, val, &lost);
        opscope_run_set_decodes_lost(r, lost);
    } else {
        int32_t cores = 0;
        rc = get_i32(j, val, &cores);
        opscope_run_set_cores(r, cores);
    }
    return rc < 0 ? -1 : 1;
}
