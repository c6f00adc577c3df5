/*
 * job_summary.c - a job's rank summaries read back from the summary.job JSON opscope writes
 * (job_summary.h; the layout in docs/job.md).
 */
#include "read/job_summary.h"

#include "read/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JS_MAX_FILE (1u << 30) /* a summary is a few kB per rank */

static const char JS_MAGIC[] = "{\"summary\":{\"job\":";

void opscope_job_rank_summary_free(opscope_job_rank_summary *s) {
    if (!s) return;
    free(s->steps);
    free(s->streams);
    free(s->colls);
    s->steps = NULL;
    s->streams = NULL;
    s->colls = NULL;
    s->n_steps = s->n_streams = s->n_colls = 0;
}

bool opscope_job_summary_sniff(const void *prefix, size_t size) {
    return size >= sizeof JS_MAGIC - 1 && !memcmp(prefix, JS_MAGIC, sizeof JS_MAGIC - 1);
}

/* A numeric member: its key, where it goes in the struct, its type ('i' int64, 'u' uint64,
 * 'd' double). */
typedef struct js_field {
    const char *key;
    size_t off;
    char type;
} js_field;

#define F(T, k, f, t) {k, offsetof(T, f), t}

static const js_field STEP_FIELDS[] = {
    F(opscope_job_step, "step", num, 'i'), F(opscope_job_step, "start_ns", start_ns, 'i'),
    F(opscope_job_step, "dur_ns", dur_ns, 'i'), F(opscope_job_step, "busy_ns", busy_ns, 'i'),
    F(opscope_job_step, "compute_ns", compute_ns, 'i'), F(opscope_job_step, "comm_ns", comm_ns, 'i'),
    F(opscope_job_step, "overlap_ns", overlap_ns, 'i'), F(opscope_job_step, "input_ns", input_ns, 'i'),
};

static const js_field STREAM_FIELDS[] = {
    F(opscope_job_stream, "device", device, 'i'), F(opscope_job_stream, "stream", stream, 'i'),
    F(opscope_job_stream, "activities", activities, 'u'), F(opscope_job_stream, "span_ns", span_ns, 'i'),
    F(opscope_job_stream, "busy_ns", busy_ns, 'i'), F(opscope_job_stream, "idle_ns", idle_ns, 'i'),
    F(opscope_job_stream, "host_wait_ns", host_wait_ns, 'i'),
    F(opscope_job_stream, "kernel_wait_ns", kernel_wait_ns, 'i'),
    F(opscope_job_stream, "other_wait_ns", other_wait_ns, 'i'),
    F(opscope_job_stream, "queue_max", queue_max, 'i'), F(opscope_job_stream, "queue_mean", queue_mean, 'd'),
    F(opscope_job_stream, "queue_at_max_ns", queue_at_max_ns, 'i'),
};

static const js_field LAUNCH_FIELDS[] = {
    F(opscope_job_launch, "launches", launches, 'u'), F(opscope_job_launch, "delay_p50_ns", delay_p50_ns, 'i'),
    F(opscope_job_launch, "delay_p90_ns", delay_p90_ns, 'i'), F(opscope_job_launch, "delay_p99_ns", delay_p99_ns, 'i'),
    F(opscope_job_launch, "delay_max_ns", delay_max_ns, 'i'), F(opscope_job_launch, "cpu_p50_ns", cpu_p50_ns, 'i'),
    F(opscope_job_launch, "cpu_p90_ns", cpu_p90_ns, 'i'), F(opscope_job_launch, "cpu_max_ns", cpu_max_ns, 'i'),
    F(opscope_job_launch, "delay_outliers", delay_outliers, 'u'),
    F(opscope_job_launch, "cpu_outliers", cpu_outliers, 'u'),
};

static const js_field OUTLIER_FIELDS[] = {
    F(opscope_job_outlier, "count", count, 'u'), F(opscope_job_outlier, "launches", launches, 'u'),
    F(opscope_job_outlier, "max_delay_ns", max_delay_ns, 'i'),
};

static const js_field ANNOT_FIELDS[] = {
    F(opscope_job_annot, "count", count, 'u'), F(opscope_job_annot, "kernels", kernels, 'u'),
    F(opscope_job_annot, "cpu_ns", cpu_ns, 'i'), F(opscope_job_annot, "gpu_ns", gpu_ns, 'i'),
    F(opscope_job_annot, "self_gpu_ns", self_gpu_ns, 'i'),
};

static const js_field COLL_FIELDS[] = {
    F(opscope_job_coll, "bucket", bucket, 'i'), F(opscope_job_coll, "group_size", group_size, 'i'),
    F(opscope_job_coll, "count", count, 'u'), F(opscope_job_coll, "bytes", bytes, 'u'),
    F(opscope_job_coll, "bus_bytes", bus_bytes, 'u'), F(opscope_job_coll, "time_ns", time_ns, 'i'),
};

static const js_field RANK_FIELDS[] = {
    F(opscope_job_rank_summary, "rank", rank, 'i'), F(opscope_job_rank_summary, "world_size", world_size, 'i'),
    F(opscope_job_rank_summary, "gpu_activities", gpu_activities, 'u'),
    F(opscope_job_rank_summary, "cpu_ops", cpu_ops, 'u'), F(opscope_job_rank_summary, "span_ns", span_ns, 'i'),
    F(opscope_job_rank_summary, "busy_ns", busy_ns, 'i'), F(opscope_job_rank_summary, "idle_ns", idle_ns, 'i'),
    F(opscope_job_rank_summary, "compute_ns", compute_ns, 'i'), F(opscope_job_rank_summary, "comm_ns", comm_ns, 'i'),
    F(opscope_job_rank_summary, "memory_ns", memory_ns, 'i'), F(opscope_job_rank_summary, "input_ns", input_ns, 'i'),
    F(opscope_job_rank_summary, "overlap_ns", overlap_ns, 'i'),
    F(opscope_job_rank_summary, "host_wait_ns", host_wait_ns, 'i'),
    F(opscope_job_rank_summary, "kernel_wait_ns", kernel_wait_ns, 'i'),
    F(opscope_job_rank_summary, "other_wait_ns", other_wait_ns, 'i'),
    F(opscope_job_rank_summary, "step_median_ns", step_median_ns, 'i'),
};

#undef F

/* A member's nested value: handled (1), not this callback's key (0) or failed (-1). */
typedef int (*js_special)(opscope_json_t *j, const opscope_json_token *key, const opscope_json_token *val,
                          void *ctx);

static int fail(opscope_json_t *j, const opscope_json_token *t, const char *msg) {
    return opscope_json_fail(j, OPSCOPE_ERROR_SCHEMA, msg, t->pos);
}

/* Reads an object (its OBJ_BEGIN consumed) into BASE by FIELDS; SPECIAL (may be NULL) takes the
 * other members first; unknown members are skipped. Returns 0 or -1. */
static int read_obj(opscope_json_t *j, void *base, const js_field *fields, size_t nf, js_special special,
                    void *ctx) {
    opscope_json_token key, val;
    for (;;) {
        opscope_json_tok t = opscope_json_next_member(j, &key, &val);
        if (t == OPSCOPE_JSON_OBJ_END) return 0;
        if (t != OPSCOPE_JSON_KEY) return -1;
        int done = special ? special(j, &key, &val, ctx) : 0;
        if (done < 0) return -1;
        if (done) continue;
        size_t i = 0;
        while (i < nf && strcmp(fields[i].key, key.str)) i++;
        if (i == nf) {
            if (opscope_json_skip(j, &val)) return -1;
            continue;
        }
        if (val.type != OPSCOPE_JSON_NUMBER || (fields[i].type != 'd' && !val.is_int))
            return fail(j, &val, "job summary: expected an integer");
        char *p = (char *)base + fields[i].off;
        if (fields[i].type == 'd') *(double *)p = val.d;
        else if (fields[i].type == 'u') *(uint64_t *)p = (uint64_t)val.i;
        else *(int64_t *)p = val.i;
    }
}

/* An array of objects (VAL its ARR_BEGIN) into a growing array *V of ELEM-byte elements. */
static int read_arr(opscope_json_t *j, const opscope_json_token *val, void **v, size_t *n, size_t elem,
                    size_t max, const js_field *fields, size_t nf, js_special special) {
    if (val->type != OPSCOPE_JSON_ARR_BEGIN) return fail(j, val, "job summary: expected an array");
    size_t cap = *n;
    opscope_json_token t;
    while (opscope_json_next(j, &t) == OPSCOPE_JSON_OBJ_BEGIN) {
        if (*n == max) return fail(j, &t, "job summary: too many elements");
        if (*n == cap) {
            size_t nc = cap ? 2 * cap : 8;
            if (nc > max) nc = max;
            void *nv = realloc(*v, nc * elem);
            if (!nv) return opscope_json_fail(j, OPSCOPE_ERROR_NOMEM, "out of memory", t.pos);
            *v = nv;
            cap = nc;
        }
        void *e = (char *)*v + *n * elem;
        memset(e, 0, elem);
        (*n)++;
        if (read_obj(j, e, fields, nf, special, e)) return -1;
    }
    return t.type == OPSCOPE_JSON_ARR_END ? 0 : t.type == OPSCOPE_JSON_ERROR ? -1
                                                   : fail(j, &t, "job summary: expected an object");
}

/* The "name" member of an outlier or an annotation (both start with char name[160]). */
static int elem_name(opscope_json_t *j, const opscope_json_token *key, const opscope_json_token *val,
                     void *ctx) {
    if (strcmp(key->str, "name")) return 0;
    if (val->type != OPSCOPE_JSON_STRING) return fail(j, val, "job summary: expected a string");
    _Static_assert(offsetof(opscope_job_outlier, name) == 0 && offsetof(opscope_job_annot, name) == 0 &&
                       sizeof ((opscope_job_outlier *)0)->name == sizeof ((opscope_job_annot *)0)->name,
                   "name first, of one size");
    snprintf((char *)ctx, sizeof ((opscope_job_outlier *)0)->name, "%s", val->str);
    return 1;
}

static int launch_outliers(opscope_json_t *j, const opscope_json_token *key, const opscope_json_token *val,
                           void *ctx) {
    if (strcmp(key->str, "outliers")) return 0;
    opscope_job_launch *l = ctx;
    void *v = NULL;
    size_t n = 0;
    int rc = read_arr(j, val, &v, &n, sizeof *l->outliers, OPSCOPE_JOB_OUTLIERS, OUTLIER_FIELDS,
                      sizeof OUTLIER_FIELDS / sizeof *OUTLIER_FIELDS, elem_name);
    if (!rc && n) memcpy(l->outliers, v, n * sizeof *l->outliers);
    l->n_outliers = (int)n;
    free(v);
    return rc ? -1 : 1;
}

/* The "type" member of a collectives row. */
static int coll_type(opscope_json_t *j, const opscope_json_token *key, const opscope_json_token *val, void *ctx) {
    if (strcmp(key->str, "type")) return 0;
    if (val->type != OPSCOPE_JSON_STRING) return fail(j, val, "job summary: expected a string");
    snprintf(((opscope_job_coll *)ctx)->type, sizeof ((opscope_job_coll *)0)->type, "%s", val->str);
    return 1;
}

/* The nested members of a rank (CTX: its opscope_job_summary_rank). */
static int rank_special(opscope_json_t *j, const opscope_json_token *key, const opscope_json_token *val,
                        void *ctx) {
    opscope_job_summary_rank *r = ctx;
    opscope_job_rank_summary *s = &r->sum;
    const char *k = key->str;
    if (!strcmp(k, "trace") || !strcmp(k, "backend") || !strcmp(k, "measured_on") || !strcmp(k, "collectives_on")) {
        if (val->type != OPSCOPE_JSON_STRING) return fail(j, val, "job summary: expected a string");
        if (!strcmp(k, "collectives_on")) {
            s->colls_on_kernels = !strcmp(val->str, "kernels");
            s->colls_unsized = !strcmp(val->str, "annotations");
        } else if (!strcmp(k, "backend")) {
            snprintf(s->backend, sizeof s->backend, "%s", val->str);
        } else if (!strcmp(k, "measured_on")) {
            s->gpu = !strcmp(val->str, "gpu");
        } else {
            free(r->trace);
            if (!(r->trace = strdup(val->str)))
                return opscope_json_fail(j, OPSCOPE_ERROR_NOMEM, "out of memory", val->pos);
        }
        return 1;
    }
    if (!strcmp(k, "steps"))
        return read_arr(j, val, (void **)&s->steps, &s->n_steps, sizeof *s->steps, SIZE_MAX / 2, STEP_FIELDS,
                        sizeof STEP_FIELDS / sizeof *STEP_FIELDS, NULL) ? -1 : 1;
    if (!strcmp(k, "streams"))
        return read_arr(j, val, (void **)&s->streams, &s->n_streams, sizeof *s->streams, SIZE_MAX / 2,
                        STREAM_FIELDS, sizeof STREAM_FIELDS / sizeof *STREAM_FIELDS, NULL) ? -1 : 1;
    if (!strcmp(k, "annotations") || !strcmp(k, "modules")) {
        bool mod = k[0] == 'm';
        void *v = NULL;
        size_t n = 0;
        int rc = read_arr(j, val, &v, &n, sizeof *s->annots, OPSCOPE_JOB_ANNOTS, ANNOT_FIELDS,
                          sizeof ANNOT_FIELDS / sizeof *ANNOT_FIELDS, elem_name);
        if (!rc && n) memcpy(mod ? s->modules : s->annots, v, n * sizeof *s->annots);
        *(mod ? &s->n_modules : &s->n_annots) = (int)n;
        free(v);
        return rc ? -1 : 1;
    }
    if (!strcmp(k, "collectives")) {
        if (read_arr(j, val, (void **)&s->colls, &s->n_colls, sizeof *s->colls, 4096, COLL_FIELDS,
                     sizeof COLL_FIELDS / sizeof *COLL_FIELDS, coll_type))
            return -1;
        for (size_t i = 0; i < s->n_colls; i++) /* a bucket is a power of two of a 64-bit size */
            if (s->colls[i].bucket < -1 || s->colls[i].bucket > 63)
                return fail(j, val, "job summary: collectives bucket out of range (-1..63)");
        return 1;
    }
    if (!strcmp(k, "launch")) {
        if (val->type != OPSCOPE_JSON_OBJ_BEGIN) return fail(j, val, "job summary: expected an object");
        return read_obj(j, &s->launch, LAUNCH_FIELDS, sizeof LAUNCH_FIELDS / sizeof *LAUNCH_FIELDS,
                        launch_outliers, &s->launch) ? -1 : 1;
    }
    return 0;
}

typedef struct js_ctx {
    opscope_job_summary_rank *v;
    size_t n;
    bool seen_ranks;
} js_ctx;

/* summary -> job -> ranks: the path to the ranks; every other member skipped. */
static int path_special(opscope_json_t *j, const opscope_json_token *key, const opscope_json_token *val,
                        void *ctx) {
    js_ctx *c = ctx;
    if (!strcmp(key->str, "summary") || !strcmp(key->str, "job")) {
        if (val->type != OPSCOPE_JSON_OBJ_BEGIN) return fail(j, val, "job summary: expected an object");
        return read_obj(j, NULL, NULL, 0, path_special, c) ? -1 : 1;
    }
    if (strcmp(key->str, "ranks")) return 0;
    c->seen_ranks = true;
    return read_arr(j, val, (void **)&c->v, &c->n, sizeof *c->v, SIZE_MAX / 2, RANK_FIELDS,
                    sizeof RANK_FIELDS / sizeof *RANK_FIELDS, rank_special) ? -1 : 1;
}

/* The whole file PATH into *BUF. Returns 0, or -1 with ERR filled. */
static int slurp(const char *path, char **buf, size_t *size, opscope_error *err) {
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    size_t n = 0, cap = 0;
    if (f) {
        for (;;) {
            if (n == cap) {
                cap = cap ? 2 * cap : 65536;
                char *nb = cap <= JS_MAX_FILE ? realloc(b, cap) : NULL;
                if (!nb) break;
                b = nb;
            }
            size_t got = fread(b + n, 1, cap - n, f);
            n += got;
            if (got == 0) break;
        }
    }
    if (!f || ferror(f) || n == cap) {
        *err = (opscope_error){.code = f && n == cap ? OPSCOPE_ERROR_NOMEM : OPSCOPE_ERROR_IO,
                               .msg = f && n == cap ? "job summary too large" : "cannot read the file",
                               .errno_value = errno};
        snprintf(err->file, sizeof err->file, "%s", path);
        if (f) fclose(f);
        free(b);
        return -1;
    }
    fclose(f);
    *buf = b;
    *size = n;
    return 0;
}

int opscope_job_summary_read(const char *path, opscope_job_summary_rank **out, size_t *n,
                             opscope_error *err) {
    char *buf = NULL;
    size_t size = 0;
    *out = NULL;
    *n = 0;
    if (slurp(path, &buf, &size, err)) return -1;
    int rc = opscope_job_summary_read_buffer(buf, size, path, out, n, err);
    free(buf);
    return rc;
}

int opscope_job_summary_read_buffer(const void *buf, size_t size, const char *path,
                                    opscope_job_summary_rank **out, size_t *n, opscope_error *err) {
    *out = NULL;
    *n = 0;
    opscope_json_t *j = opscope_json_new(NULL, NULL, buf, size, path);
    js_ctx c = {0};
    opscope_json_token t;
    int rc = -1;
    if (!j) {
        *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
    } else if (opscope_json_next(j, &t) != OPSCOPE_JSON_OBJ_BEGIN) {
        if (t.type != OPSCOPE_JSON_ERROR) fail(j, &t, "job summary: expected an object");
    } else if (!read_obj(j, NULL, NULL, 0, path_special, &c)) {
        if (opscope_json_next(j, &t) != OPSCOPE_JSON_EOF) {
            if (t.type != OPSCOPE_JSON_ERROR) fail(j, &t, "job summary: text after the object");
        } else if (!c.seen_ranks) {
            opscope_json_fail(j, OPSCOPE_ERROR_SCHEMA, "job summary: no summary.job.ranks", 0);
        } else {
            rc = 0;
        }
    }
    if (rc && j) *err = *opscope_json_error(j);
    opscope_json_free(j);
    if (rc) {
        for (size_t i = 0; i < c.n; i++) {
            opscope_job_rank_summary_free(&c.v[i].sum);
            free(c.v[i].trace);
        }
        free(c.v);
        return -1;
    }
    *out = c.v;
    *n = c.n;
    return 0;
}
