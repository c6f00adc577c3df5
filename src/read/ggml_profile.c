/*
 * ggml_profile.c - reader of ggml profiler JSON (versions 2 and 3, opscope's additions).
 *
 * One pass over the token stream: each record object is decoded into one opscope_record that
 * is handed to the sink when the object closes, so memory does not grow with the file. Fields
 * missing from a record take the seed tool's defaults (docs/formats.md); unknown keys are
 * skipped (and validated by the parser). A value of the wrong type or range stops the reader
 * with an error at that value's position.
 */
#include "read/run_read.h"
#include "read/readers.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

typedef struct gp {
    opscope_json_t *j;
    const opscope_sink *sink;
    /* growable copies of the string fields (token strings die at the next token) */
    opscope_strbuf name, extra, sub_op, sub_name, tensor, category, kernel, tsrc; /* record strings */
    opscope_strbuf bname, bdev, bproc; /* backend strings */
    opscope_strbuf profiler;
    opscope_strbuf c_host, c_program, c_clock, c_boot, c_end, c_sig; /* "capture" strings */
    opscope_capture_info capture;
    opscope_run_t *run; /* capture's run members (read/run_read.c) */
    OPSCOPE_VEC(opscope_window) windows; /* capture.windows */
    OPSCOPE_VEC(opscope_mark) marks;     /* capture.marks: text set at the object's end */
    OPSCOPE_VEC(size_t) mark_at;         /* each mark's text's offset in mark_text */
    opscope_strbuf mark_text;            /* the marks' texts, each with its NUL */
    opscope_meta meta;
    uint32_t thr[2 * OPSCOPE_MAX_THREADS]; /* the record's "threads" */
    int32_t thr_cpu[OPSCOPE_MAX_THREADS];  /* its "thread_cpus" */
    int has_total_records, has_total_ns;
    int opened; /* the top-level object began: a cut after this is a truncated profile */
    uint64_t n_records, sum_ns;
    uint64_t weighted_ns; /* the durations times their weights: at most OPSCOPE_READ_MAX_TOTAL_NS */
} gp;

enum { GP_FAIL = -1 };

static const char *gp_set(gp *g, opscope_strbuf *s, const opscope_json_token *t) {
    if (opscope_strbuf_set(s, t->str, t->len)) {
        opscope_json_fail(g->j, OPSCOPE_ERROR_NOMEM, "out of memory", t->pos);
        return NULL;
    }
    return s->s;
}

static int gp_next(gp *g, opscope_json_token *t) {
    return opscope_json_next(g->j, t) == OPSCOPE_JSON_ERROR ? GP_FAIL : 0;
}

/* The next member of an object: KEY is OBJ_END at its end (VAL then untouched). */
static inline int gp_member(gp *g, opscope_json_token *key, opscope_json_token *val) {
    return opscope_json_next_member(g->j, key, val) == OPSCOPE_JSON_ERROR ? GP_FAIL : 0;
}

static int gp_fail(gp *g, opscope_error_code code, const char *msg, const opscope_json_token *t) {
    return opscope_json_fail(g->j, code, msg, t->pos);
}

/* A string field; null means "absent" (*OUT unchanged). */
static int gp_string(gp *g, const opscope_json_token *t, opscope_strbuf *buf, const char **out) {
    if (t->type == OPSCOPE_JSON_NULL) return 0;
    if (t->type != OPSCOPE_JSON_STRING)
        return gp_fail(g, OPSCOPE_ERROR_SCHEMA, "expected a string", t);
    const char *s = gp_set(g, buf, t);
    if (!s) return GP_FAIL;
    *out = s;
    return 0;
}

/* An integer in [LO, HI]. Returns 1 if set, 0 for null (absent), -1 on error. */
static int gp_int_slow(gp *g, const opscope_json_token *t, int64_t lo, int64_t hi, int64_t *out) {
    if (t->type == OPSCOPE_JSON_NUMBER && t->is_int) {
        if (t->i < lo || t->i > hi) {
            if (t->i < 0 && lo == 0)
                return gp_fail(g, OPSCOPE_ERROR_RANGE, "expected a non-negative integer", t);
            return gp_fail(g, OPSCOPE_ERROR_RANGE, "number out of range for this field", t);
        }
        *out = t->i;
        return 1;
    }
    if (t->type == OPSCOPE_JSON_NULL) return 0;
    if (t->type != OPSCOPE_JSON_NUMBER)
        return gp_fail(g, OPSCOPE_ERROR_SCHEMA, "expected an integer", t);
    if (memchr(t->str, '.', t->len) || memchr(t->str, 'e', t->len) || memchr(t->str, 'E', t->len))
        return gp_fail(g, OPSCOPE_ERROR_SCHEMA, "expected an integer, not a fraction or exponent", t);
    return gp_fail(g, OPSCOPE_ERROR_RANGE, "number out of range for this field", t);
}

/* A non-negative integer up to UINT64_MAX. Returns 1 if set, 0 for null, -1 on error. */
/* The common case inline: a plain integer within range. */
static inline int gp_int(gp *g, const opscope_json_token *t, int64_t lo, int64_t hi, int64_t *out) {
    if (t->type == OPSCOPE_JSON_NUMBER && t->is_int && t->i >= lo && t->i <= hi) {
        *out = t->i;
        return 1;
    }
    return gp_int_slow(g, t, lo, hi, out);
}

static int gp_u64_slow(gp *g, const opscope_json_token *t, uint64_t *out) {
    if (t->type == OPSCOPE_JSON_NUMBER && t->is_int) {
        if (t->i < 0) return gp_fail(g, OPSCOPE_ERROR_RANGE, "expected a non-negative integer", t);
        *out = (uint64_t)t->i;
        return 1;
    }
    if (t->type == OPSCOPE_JSON_NUMBER && t->str[0] != '-' && !memchr(t->str, '.', t->len) &&
        !memchr(t->str, 'e', t->len) && !memchr(t->str, 'E', t->len)) {
        /* digits only, above INT64_MAX: exact up to UINT64_MAX */
        uint64_t v = 0;
        for (size_t k = 0; k < t->len; k++) {
            unsigned d = (unsigned)(t->str[k] - '0');
            if (v > (UINT64_MAX - d) / 10)
                return gp_fail(g, OPSCOPE_ERROR_RANGE, "number out of range for this field", t);
            v = v * 10 + d;
        }
        *out = v;
        return 1;
    }
    if (t->type == OPSCOPE_JSON_NUMBER && t->str[0] == '-' && !memchr(t->str, '.', t->len) &&
        !memchr(t->str, 'e', t->len) && !memchr(t->str, 'E', t->len))
        return gp_fail(g, OPSCOPE_ERROR_RANGE, "expected a non-negative integer", t);
    int64_t dummy;
    return gp_int(g, t, 0, INT64_MAX, &dummy);
}

static inline int gp_u64(gp *g, const opscope_json_token *t, uint64_t *out) {
    if (t->type == OPSCOPE_JSON_NUMBER && t->is_int && t->i >= 0) {
        *out = (uint64_t)t->i;
        return 1;
    }
    return gp_u64_slow(g, t, out);
}

/* A time in ns (readers.h): a non-negative integer up to OPSCOPE_READ_MAX_TIME_NS, else MSG
 * (OPSCOPE_READ_TIME_MSG of the field) at the value. Returns as gp_u64. */
static inline int gp_time(gp *g, const opscope_json_token *t, uint64_t *out, const char *msg) {
    int rc = gp_u64(g, t, out);
    if (rc > 0 && *out > OPSCOPE_READ_MAX_TIME_NS) return gp_fail(g, OPSCOPE_ERROR_RANGE, msg, t);
    return rc;
}

static inline int gp_i32(gp *g, const opscope_json_token *t, int32_t *out) {
    int64_t v;
    int r = gp_int(g, t, INT32_MIN, INT32_MAX, &v);
    if (r > 0) *out = (int32_t)v;
    return r;
}

/*
 * An array of up to MAX integers starting at T (ARR_BEGIN; null = absent). Each element is
 * range-checked to [LO, HI] and stored through STORE at index k. Returns the count or -1.
 * Shorter arrays leave the rest untouched (the caller pre-zeroes), like the seed's padding.
 */
typedef void (*gp_store_fn)(void *dst, int k, int64_t v);

static int gp_int_array(gp *g, const opscope_json_token *t, int max, int64_t lo, int64_t hi,
                        const char *too_long, void *dst, gp_store_fn store) {
    if (t->type == OPSCOPE_JSON_NULL) return 0;
    if (t->type != OPSCOPE_JSON_ARR_BEGIN)
        return gp_fail(g, OPSCOPE_ERROR_SCHEMA, "expected an array of integers", t);
    int n = 0;
    opscope_json_token e;
    for (;;) {
        if (gp_next(g, &e)) return GP_FAIL;
        if (e.type == OPSCOPE_JSON_ARR_END) return n;
        if (n >= max) return gp_fail(g, OPSCOPE_ERROR_RANGE, too_long, &e);
        int64_t v = 0;
        int r;
        if (hi == INT64_MAX && lo == 0) {
            uint64_t u = 0;
            r = gp_u64(g, &e, &u);
            memcpy(&v, &u, sizeof v);
        } else {
            r = gp_int(g, &e, lo, hi, &v);
        }
        if (r < 0) return GP_FAIL;
        if (r == 0 && e.type != OPSCOPE_JSON_NULL) return GP_FAIL;
        store(dst, n, v);
        n++;
    }
}

static void st_i64(void *d, int k, int64_t v) { ((int64_t *)d)[k] = v; }
static void st_u64(void *d, int k, int64_t v) {
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    ((uint64_t *)d)[k] = u;
}
static void st_i32(void *d, int k, int64_t v) { ((int32_t *)d)[k] = (int32_t)v; }
static void st_u32_as_i32(void *d, int k, int64_t v) {
    /* op_params are raw 32-bit words: accept signed or unsigned spellings */
    uint32_t u = (uint32_t)(uint64_t)v;
    int32_t s;
    memcpy(&s, &u, sizeof s);
    ((int32_t *)d)[k] = s;
}

static const char TOO_MANY_DIMS[] = "more than 4 dimensions (ggml tensors have at most 4)";
static const char TOO_MANY_SRC[] = "more than 10 sources (ggml nodes have at most 10)";

/* ne: one shape, up to 4 int64 (the hottest array: a direct loop, no store callback) */
static int gp_ne(gp *g, const opscope_json_token *t, int64_t ne[OPSCOPE_MAX_DIMS]) {
    if (t->type != OPSCOPE_JSON_ARR_BEGIN)
        return gp_int_array(g, t, OPSCOPE_MAX_DIMS, INT64_MIN, INT64_MAX, TOO_MANY_DIMS, ne, st_i64);
    int n = opscope_json_int_array(g->j, ne, OPSCOPE_MAX_DIMS);
    if (n >= 0) return n;
    n = 0;
    opscope_json_token e;
    for (;;) {
        if (gp_next(g, &e)) return GP_FAIL;
        if (e.type == OPSCOPE_JSON_ARR_END) return n;
        if (n >= OPSCOPE_MAX_DIMS) return gp_fail(g, OPSCOPE_ERROR_RANGE, TOO_MANY_DIMS, &e);
        int64_t v = 0;
        if (gp_int(g, &e, INT64_MIN, INT64_MAX, &v) < 0) return GP_FAIL;
        ne[n++] = v;
    }
}

/* ne_src / nb_src: up to 10 shapes. U64: strides (non-negative). */
static int gp_shapes(gp *g, const opscope_json_token *t, int u64, void *dst) {
    if (t->type == OPSCOPE_JSON_NULL) return 0;
    if (t->type != OPSCOPE_JSON_ARR_BEGIN)
        return gp_fail(g, OPSCOPE_ERROR_SCHEMA, "expected an array of shapes", t);
    int n = 0;
    opscope_json_token e;
    for (;;) {
        if (gp_next(g, &e)) return GP_FAIL;
        if (e.type == OPSCOPE_JSON_ARR_END) return n;
        if (n >= OPSCOPE_MAX_SRC) return gp_fail(g, OPSCOPE_ERROR_RANGE, TOO_MANY_SRC, &e);
        int r;
        if (u64) {
            uint64_t(*nb)[OPSCOPE_MAX_DIMS] = dst;
            r = gp_int_array(g, &e, OPSCOPE_MAX_DIMS, 0, INT64_MAX, TOO_MANY_DIMS, nb[n], st_u64);
        } else {
            int64_t(*ne)[OPSCOPE_MAX_DIMS] = dst;
            r = gp_ne(g, &e, ne[n]);
        }
        if (r < 0) return GP_FAIL;
        n++;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Records.                                                                                   */

enum rk {
    RK_UNKNOWN,
    RK_TYPE, RK_NAME, RK_BACKEND_ID, RK_SPLIT_ID, RK_START_NS, RK_DURATION_NS, RK_BYTES,
    RK_EXTRA, RK_NE_SRC0, RK_NE_SRC1, RK_NE_SRC2, RK_NE, RK_N_SRC, RK_NE_SRC, RK_NB_SRC,
    RK_TYPE_SRC, RK_TENSOR_NAME, RK_OUT_TYPE, RK_OP_PARAMS, RK_SUB_OP, RK_SUB_OP_NAME, RK_GRAPH_ID,
    RK_NODE_INDEX, RK_N_FUSED, RK_THREAD_ID, RK_HOST_START_NS, RK_HOST_END_NS, RK_FLOPS,
    RK_CATEGORY, RK_KERNEL, RK_N_KERNELS, RK_TIME_SOURCE, RK_WEIGHT, RK_BATCH, RK_QUERIES, RK_SAMPLED_OUT,
    RK_THREADS, RK_THREAD_CPUS,
};

#define KEY_IS(lit) (n == sizeof(lit) - 1 && memcmp(k, lit, sizeof(lit) - 1) == 0)

static enum rk gp_record_key(const char *k, size_t n) {
    switch (k[0]) {
    case 'b':
        if (KEY_IS("bytes")) return RK_BYTES;
        if (KEY_IS("backend_id")) return RK_BACKEND_ID;
        if (KEY_IS("batch")) return RK_BATCH;
        break;
    case 'c':
        if (KEY_IS("category")) return RK_CATEGORY;
        break;
    case 'd':
        if (KEY_IS("duration_ns")) return RK_DURATION_NS;
        break;
    case 'e':
        if (KEY_IS("extra")) return RK_EXTRA;
        break;
    case 'f':
        if (KEY_IS("flops")) return RK_FLOPS;
        break;
    case 'g':
        if (KEY_IS("graph_id")) return RK_GRAPH_ID;
        break;
    case 'h':
        if (KEY_IS("host_start_ns")) return RK_HOST_START_NS;
        if (KEY_IS("host_end_ns")) return RK_HOST_END_NS;
        break;
    case 'n':
        if (n == 7 && memcmp(k, "ne_src", 6) == 0) {
            if (k[6] == '0') return RK_NE_SRC0;
            if (k[6] == '1') return RK_NE_SRC1;
            if (k[6] == '2') return RK_NE_SRC2;
        }
        if (KEY_IS("name")) return RK_NAME;
        if (KEY_IS("ne")) return RK_NE;
        if (KEY_IS("n_src")) return RK_N_SRC;
        if (KEY_IS("ne_src")) return RK_NE_SRC;
        if (KEY_IS("nb_src")) return RK_NB_SRC;
        if (KEY_IS("node_index")) return RK_NODE_INDEX;
        if (KEY_IS("n_fused")) return RK_N_FUSED;
        if (KEY_IS("n_kernels")) return RK_N_KERNELS;
        break;
    case 'o':
        if (KEY_IS("out_type")) return RK_OUT_TYPE;
        if (KEY_IS("op_params")) return RK_OP_PARAMS;
        break;
    case 'q':
        if (KEY_IS("queries")) return RK_QUERIES;
        break;
    case 'k':
        if (KEY_IS("kernel")) return RK_KERNEL;
        break;
    case 's':
        if (KEY_IS("start_ns")) return RK_START_NS;
        if (KEY_IS("split_id")) return RK_SPLIT_ID;
        if (KEY_IS("sub_op")) return RK_SUB_OP;
        if (KEY_IS("sub_op_name")) return RK_SUB_OP_NAME;
        if (KEY_IS("sampled_out")) return RK_SAMPLED_OUT;
        break;
    case 't':
        if (KEY_IS("time_source")) return RK_TIME_SOURCE;
        if (KEY_IS("type")) return RK_TYPE;
        if (KEY_IS("type_src")) return RK_TYPE_SRC;
        if (KEY_IS("tensor_name")) return RK_TENSOR_NAME;
        if (KEY_IS("thread_id")) return RK_THREAD_ID;
        if (KEY_IS("threads")) return RK_THREADS;
        if (KEY_IS("thread_cpus")) return RK_THREAD_CPUS;
        break;
    case 'w':
        if (KEY_IS("weight")) return RK_WEIGHT;
        break;
    default:
        break;
    }
    return RK_UNKNOWN;
}

/* A record being read: the record and what decides its shapes and names at its end. The
 * record is set by opscope_record_init alone and the rest zeroed apart: zeroing the whole
 * (an opscope_record is about 1 KB) before the init wrote it twice per record, 7% of a
 * plain report's CPU on a 1 GB profile. */
typedef struct gp_rec {
    opscope_record r;
    struct gp_rec_end {
        int64_t ne_old[OPSCOPE_MAX_DIMS];
        int64_t ne_out[OPSCOPE_MAX_DIMS];
        int have_ne, have_src0, have_v3_src, have_n_src, n_src_arr;
        int have_host_start, have_host_end;
        int32_t n_src;
        const char *sub_str, *sub_name; /* "sub_op" as a string, "sub_op_name" */
    } e;
} gp_rec;

/* The fields after sub_op in rk's order; returns what the gp_ getter returned. */
static int gp_record_field2(gp *g, gp_rec *rs, enum rk key, opscope_json_token *v) {
    int rc = 0;
    int64_t x;
    switch (key) {
    case RK_SUB_OP_NAME: rc = gp_string(g, v, &g->sub_name, &rs->e.sub_name); break;
    case RK_GRAPH_ID:
        rc = gp_int(g, v, INT64_MIN, INT64_MAX, &rs->r.graph_id);
        if (rc > 0) rs->r.has |= OPSCOPE_HAS_GRAPH;
        break;
    case RK_NODE_INDEX:
        rc = gp_i32(g, v, &rs->r.node_index);
        if (rc > 0) rs->r.has |= OPSCOPE_HAS_NODE;
        break;
    case RK_N_FUSED:
        rc = gp_int(g, v, 1, INT32_MAX, &x);
        if (rc > 0) rs->r.n_fused = (int32_t)x;
        break;
    case RK_THREAD_ID:
        rc = gp_i32(g, v, &rs->r.thread_id);
        if (rc > 0) rs->r.has |= OPSCOPE_HAS_THREAD;
        break;
    case RK_THREADS: /* each thread's work and wait, ns */
        rc = gp_int_array(g, v, 2 * OPSCOPE_MAX_THREADS, 0, UINT32_MAX, "more than 64 threads' times",
                          g->thr, st_u32_as_i32);
        if (rc > 0 && rc % 2) rc = gp_fail(g, OPSCOPE_ERROR_SCHEMA, "threads: an odd count (work and wait pairs)", v);
        if (rc > 0) {
            rs->r.threads = g->thr;
            rs->r.n_threads = rc / 2;
            rs->r.has |= OPSCOPE_HAS_THREADS;
        }
        break;
    case RK_THREAD_CPUS: /* with "threads" (either order): the CPU of each, -1 unknown */
        for (int i = 0; i < OPSCOPE_MAX_THREADS; i++) g->thr_cpu[i] = -1;
        rc = gp_int_array(g, v, OPSCOPE_MAX_THREADS, -1, INT32_MAX, "more than 64 threads' CPUs", g->thr_cpu, st_i32);
        if (rc > 0) rs->r.thread_cpus = g->thr_cpu;
        break;
    case RK_HOST_START_NS:
        rc = gp_time(g, v, &rs->r.host_start_ns, OPSCOPE_READ_TIME_MSG("host_start_ns"));
        if (rc > 0) rs->e.have_host_start = 1;
        break;
    case RK_HOST_END_NS:
        rc = gp_time(g, v, &rs->r.host_end_ns, OPSCOPE_READ_TIME_MSG("host_end_ns"));
        if (rc > 0) rs->e.have_host_end = 1;
        break;
    case RK_FLOPS:
        rc = gp_u64(g, v, &rs->r.flops);
        if (rc > 0) rs->r.has |= OPSCOPE_HAS_FLOPS;
        break;
    case RK_CATEGORY: rc = gp_string(g, v, &g->category, &rs->r.category); break;
    case RK_KERNEL:
        rc = gp_string(g, v, &g->kernel, &rs->r.kernel);
        if (rc > 0) rs->r.has |= OPSCOPE_HAS_KERNEL;
        break;
    case RK_WEIGHT:
        rc = gp_int(g, v, 1, UINT32_MAX, &x);
        if (rc > 0) {
            rs->r.weight = (uint32_t)x;
            rs->r.has |= OPSCOPE_HAS_WEIGHT;
        }
        break;
    case RK_BATCH:
    case RK_QUERIES:
        rc = gp_int(g, v, 0, INT64_MAX, &x);
        if (rc > 0) {
            *(key == RK_BATCH ? &rs->r.batch : &rs->r.queries) = x;
            rs->r.has |= OPSCOPE_HAS_BATCH;
        }
        break;
    case RK_SAMPLED_OUT:
        if (v->type == OPSCOPE_JSON_TRUE) {
            rs->r.has |= OPSCOPE_HAS_SAMPLED_OUT;
        } else if (v->type != OPSCOPE_JSON_FALSE && v->type != OPSCOPE_JSON_NULL) {
            rc = gp_fail(g, OPSCOPE_ERROR_SCHEMA, "expected true or false", v);
        }
        break;
    case RK_N_KERNELS:
        rc = gp_int(g, v, 0, INT32_MAX, &x);
        if (rc > 0) {
            rs->r.n_kernels = (int32_t)x;
            rs->r.has |= OPSCOPE_HAS_KERNEL;
        }
        break;
    case RK_TIME_SOURCE: {
        const char *ts = NULL;
        rc = gp_string(g, v, &g->tsrc, &ts);
        if (rc > 0 && ts && strncmp(ts, "device", 6) == 0) {
            rs->r.has |= OPSCOPE_HAS_DEVICE_TIME;
            if (strcmp(ts, "device_aligned") == 0) rs->r.has |= OPSCOPE_HAS_CLOCK_ALIGNED;
        }
        break;
    }
    default:
        rc = opscope_json_skip(g->j, v);
        break;
    }
    return rc;
}

/* One member's value into RS (the identity, time, shape and type fields; the rest in field2). */
static int gp_record_field(gp *g, gp_rec *rs, enum rk key, opscope_json_token *v) {
    int rc = 0;
    int64_t x;
    switch (key) {
    case RK_TYPE:
        rc = gp_int(g, v, 0, 1, &x);
        if (rc > 0) rs->r.type = (opscope_record_type)x;
        break;
    case RK_NAME: rc = gp_string(g, v, &g->name, &rs->r.name); break;
    case RK_BACKEND_ID: rc = gp_i32(g, v, &rs->r.backend_id); break;
    case RK_SPLIT_ID: rc = gp_i32(g, v, &rs->r.split_id); break;
    case RK_START_NS: rc = gp_time(g, v, &rs->r.start_ns, OPSCOPE_READ_TIME_MSG("start_ns")); break;
    case RK_DURATION_NS:
        rc = gp_u64(g, v, &rs->r.duration_ns);
        if (rc > 0 && rs->r.duration_ns > OPSCOPE_READ_MAX_DURATION_NS)
            return gp_fail(g, OPSCOPE_ERROR_RANGE, OPSCOPE_READ_DURATION_MSG("duration_ns"), v);
        break;
    case RK_BYTES: rc = gp_u64(g, v, &rs->r.bytes); break;
    case RK_EXTRA: rc = gp_string(g, v, &g->extra, &rs->r.extra); break;
    case RK_NE_SRC0:
    case RK_NE_SRC1:
    case RK_NE_SRC2: {
        int s = key - RK_NE_SRC0;
        memset(rs->r.ne_src[s], 0, sizeof rs->r.ne_src[s]);
        rc = gp_ne(g, v, rs->r.ne_src[s]);
        if (key == RK_NE_SRC0) rs->e.have_src0 = 1;
        break;
    }
    case RK_NE:
        memset(rs->e.ne_old, 0, sizeof rs->e.ne_old);
        rc = gp_ne(g, v, rs->e.ne_old);
        memcpy(rs->e.ne_out, rs->e.ne_old, sizeof rs->e.ne_out);
        rs->e.have_ne = 1;
        break;
    case RK_N_SRC:
        rc = gp_int(g, v, 0, OPSCOPE_MAX_SRC, &x);
        if (rc > 0) {
            rs->e.n_src = (int32_t)x;
            rs->e.have_n_src = 1;
        }
        break;
    case RK_NE_SRC:
        memset(rs->r.ne_src, 0, sizeof rs->r.ne_src);
        rc = gp_shapes(g, v, 0, rs->r.ne_src);
        if (rc >= 0) {
            rs->e.n_src_arr = rc;
            rs->e.have_v3_src = 1;
        }
        break;
    case RK_NB_SRC:
        memset(rs->r.nb_src, 0, sizeof rs->r.nb_src);
        rc = gp_shapes(g, v, 1, rs->r.nb_src);
        if (rc > 0 || v->type == OPSCOPE_JSON_ARR_BEGIN) rs->r.has |= OPSCOPE_HAS_STRIDES;
        break;
    case RK_TYPE_SRC:
        for (int s = 0; s < OPSCOPE_MAX_SRC; s++) rs->r.type_src[s] = -1;
        rc = gp_int_array(g, v, OPSCOPE_MAX_SRC, INT32_MIN, INT32_MAX, TOO_MANY_SRC,
                          rs->r.type_src, st_i32);
        if (v->type == OPSCOPE_JSON_ARR_BEGIN) rs->r.has |= OPSCOPE_HAS_SRC_TYPES;
        break;
    case RK_TENSOR_NAME: rc = gp_string(g, v, &g->tensor, &rs->r.tensor_name); break;
    case RK_OUT_TYPE:
        rc = gp_i32(g, v, &rs->r.out_type);
        if (rc > 0) rs->r.has |= OPSCOPE_HAS_OUT;
        break;
    case RK_OP_PARAMS:
        memset(rs->r.op_params, 0, sizeof rs->r.op_params);
        rc = gp_int_array(g, v, OPSCOPE_MAX_OP_PARAMS, INT32_MIN, UINT32_MAX,
                          "more than 16 op_params", rs->r.op_params, st_u32_as_i32);
        if (v->type == OPSCOPE_JSON_ARR_BEGIN) rs->r.has |= OPSCOPE_HAS_OP_PARAMS;
        break;
    case RK_SUB_OP:
        /* the seed's v3 files and opscope's: ggml's enum value, -1 for none; opscope's
         * older files: the name */
        if (v->type == OPSCOPE_JSON_STRING || v->type == OPSCOPE_JSON_NULL) {
            rc = gp_string(g, v, &g->sub_op, &rs->e.sub_str);
            break;
        }
        if (v->type != OPSCOPE_JSON_NUMBER) {
            rc = gp_fail(g, OPSCOPE_ERROR_SCHEMA, "expected an integer or a string", v);
            break;
        }
        rc = gp_int(g, v, -1, INT32_MAX, &x);
        rs->r.has &= ~(uint32_t)OPSCOPE_HAS_SUB_OP;
        if (rc > 0 && x >= 0) {
            rs->r.sub_op_value = (int32_t)x;
            rs->r.has |= OPSCOPE_HAS_SUB_OP;
        }
        break;
    default:
        return gp_record_field2(g, rs, key, v);
    }
    return rc;
}

/* What needs the whole record: the shapes' version rule, host time, the sub-op's name. */
static void gp_record_finish(gp_rec *rs) {
    /*
     * "ne": in version 3 (a record with n_src or ne_src) the output shape; in old version-2
     * files the shape of src0, used only when ne_src0 is absent (the seed tool's rule).
     */
    if (rs->e.have_v3_src || rs->e.have_n_src) {
        rs->r.n_src = rs->e.have_n_src ? rs->e.n_src : rs->e.n_src_arr;
        if (rs->e.have_ne) {
            memcpy(rs->r.ne, rs->e.ne_out, sizeof rs->r.ne);
            rs->r.has |= OPSCOPE_HAS_OUT;
        }
    } else {
        rs->r.n_src = 3;
        if (rs->e.have_ne && !rs->e.have_src0) memcpy(rs->r.ne_src[0], rs->e.ne_old, sizeof rs->e.ne_old);
    }
    if (rs->e.have_host_start && rs->e.have_host_end) rs->r.has |= OPSCOPE_HAS_HOST_TIME;
    /* the name: opscope's own field, else "sub_op" as a string, else the value's name (the
     * op's name may come after the value, so only now) */
    rs->r.sub_op = rs->e.sub_name ? rs->e.sub_name : rs->e.sub_str;
    if (!rs->r.sub_op && (rs->r.has & OPSCOPE_HAS_SUB_OP))
        rs->r.sub_op = opscope_sub_op_name(rs->r.name, rs->r.sub_op_value);
}

/* The sums of a profile never wrap (readers.h): a record standing for more than a year (its
 * duration times its weight), or one past the profile's total, is refused at its opening
 * brace. */
static int gp_record_bounds(gp *g, const opscope_record *r, const opscope_json_token *open) {
    uint64_t wt = r->weight > 1 ? r->weight : 1;
    if (r->duration_ns > OPSCOPE_READ_MAX_DURATION_NS / wt)
        return gp_fail(g, OPSCOPE_ERROR_RANGE,
                       OPSCOPE_READ_DURATION_MSG("duration_ns times weight"), open);
    g->weighted_ns += r->duration_ns * wt;
    if (g->weighted_ns > OPSCOPE_READ_MAX_TOTAL_NS)
        return gp_fail(g, OPSCOPE_ERROR_RANGE,
                       OPSCOPE_READ_TOTAL_MSG, open);
    return 0;
}

/* One record object; the OBJ_BEGIN token was just read. */
static int gp_record(gp *g, const opscope_json_token *open) {
    gp_rec s;
    opscope_record_init(&s.r);
    s.e = (struct gp_rec_end){0};
    s.r.name = "unknown";
    opscope_json_token t, v;
    for (;;) {
        if (gp_member(g, &t, &v)) return GP_FAIL;
        if (t.type == OPSCOPE_JSON_OBJ_END) break;
        if (gp_record_field(g, &s, gp_record_key(t.str, t.len), &v) < 0) return GP_FAIL;
    }
    gp_record_finish(&s);
    if (gp_record_bounds(g, &s.r, open)) return GP_FAIL;
    g->n_records++;
    g->sum_ns += s.r.duration_ns;
    if (g->sink->on_record && g->sink->on_record(g->sink->ud, &s.r))
        return opscope_json_fail(g->j, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader",
                                 open->pos);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Backends and the top level.                                                                */

static int gp_backend(gp *g, const opscope_json_token *open) {
    opscope_backend b = {0, "unknown", "unknown", OPSCOPE_DEVICE_CPU, NULL};
    opscope_json_token t, v;
    for (;;) {
        if (gp_next(g, &t)) return GP_FAIL;
        if (t.type == OPSCOPE_JSON_OBJ_END) break;
        /* classify the key now: its bytes are released when the value is read */
        const char *k = t.str;
        size_t n = t.len;
        int key = KEY_IS("id") ? 1 : KEY_IS("name") ? 2 : KEY_IS("device") ? 3 : KEY_IS("device_type") ? 4
                : KEY_IS("process") ? 5 : 0;
        if (gp_next(g, &v)) return GP_FAIL;
        int rc;
        int64_t x;
        if (key == 1) {
            rc = gp_i32(g, &v, &b.id);
        } else if (key == 2) {
            rc = gp_string(g, &v, &g->bname, &b.name);
        } else if (key == 3) {
            rc = gp_string(g, &v, &g->bdev, &b.device);
        } else if (key == 4) {
            rc = gp_int(g, &v, INT32_MIN, INT32_MAX, &x);
            if (rc > 0)
                b.device_type = x == 0   ? OPSCOPE_DEVICE_CPU
                                : x == 1 ? OPSCOPE_DEVICE_GPU
                                : x == 2 ? OPSCOPE_DEVICE_ACCEL
                                         : OPSCOPE_DEVICE_OTHER;
        } else if (key == 5) {
            rc = gp_string(g, &v, &g->bproc, &b.process);
        } else {
            rc = opscope_json_skip(g->j, &v);
        }
        if (rc < 0) return GP_FAIL;
    }
    if (g->sink->on_backend && g->sink->on_backend(g->sink->ud, &b))
        return opscope_json_fail(g->j, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader",
                                 open->pos);
    return 0;
}

/* capture.end: how the program ended, as far as the file knows (docs/formats.md). */
static int gp_capture_end(gp *g, const opscope_json_token *open) {
    if (open->type == OPSCOPE_JSON_NULL) return 0;
    if (open->type != OPSCOPE_JSON_OBJ_BEGIN)
        return gp_fail(g, OPSCOPE_ERROR_SCHEMA, "\"end\" must be an object", open);
    opscope_capture_info *c = &g->capture;
    opscope_json_token t, v;
    for (;;) {
        if (gp_next(g, &t)) return GP_FAIL;
        if (t.type == OPSCOPE_JSON_OBJ_END) return 0;
        const char *k = t.str;
        size_t n = t.len;
        int key = KEY_IS("how") ? 1 : KEY_IS("signal") ? 2 : KEY_IS("at_ns") ? 3 : KEY_IS("died_ns") ? 4 : 0;
        if (gp_next(g, &v)) return GP_FAIL;
        int rc = key == 1   ? gp_string(g, &v, &g->c_end, &c->end)
                 : key == 2 ? gp_string(g, &v, &g->c_sig, &c->end_signal)
                 : key == 3 ? gp_time(g, &v, &c->end_ns, OPSCOPE_READ_TIME_MSG("capture.end.at_ns"))
                 : key == 4 ? gp_time(g, &v, &c->died_ns, OPSCOPE_READ_TIME_MSG("capture.end.died_ns"))
                            : opscope_json_skip(g->j, &v);
        if (rc < 0) return GP_FAIL;
    }
}

static int gp_object_array(gp *g, const opscope_json_token *t, const char *what,
                           int (*each)(gp *, const opscope_json_token *));

/* KEY's name is LIT. */
static inline bool gp_key_is(const opscope_json_token *key, const char *lit) {
    return key->len == strlen(lit) && memcmp(key->str, lit, key->len) == 0;
}

/* One of capture.windows: {"start_ns", "end_ns"}, in time order, each closed before the next. */
static int gp_window(gp *g, const opscope_json_token *open) {
    opscope_window w = {0};
    opscope_json_token t, v;
    for (;;) {
        if (gp_member(g, &t, &v)) return GP_FAIL;
        if (t.type == OPSCOPE_JSON_OBJ_END) break;
        bool start = gp_key_is(&t, "start_ns"), end = !start && gp_key_is(&t, "end_ns");
        if ((start || end ? gp_time(g, &v, start ? &w.start_ns : &w.end_ns,
                                    start ? OPSCOPE_READ_TIME_MSG("a window's start_ns")
                                          : OPSCOPE_READ_TIME_MSG("a window's end_ns"))
                          : opscope_json_skip(g->j, &v)) < 0)
            return GP_FAIL;
    }
    const opscope_window *prev = g->windows.n ? &g->windows.v[g->windows.n - 1] : NULL;
    if ((w.end_ns && w.end_ns < w.start_ns) || (prev && (!prev->end_ns || prev->end_ns > w.start_ns)))
        return gp_fail(g, OPSCOPE_ERROR_SCHEMA, "capture windows must be in time order, each closed before the next",
                       open);
    return OPSCOPE_VEC_PUSH(g->windows, w) ? gp_fail(g, OPSCOPE_ERROR_NOMEM, "out of memory", open) : 0;
}

/* One of capture.marks: {"ts_ns", "text"}, in time order; its text appended to mark_text. */
static int gp_mark(gp *g, const opscope_json_token *open) {
    opscope_mark m = {.text = ""};
    size_t at = g->mark_text.len;
    opscope_json_token t, v;
    for (;;) {
        if (gp_member(g, &t, &v)) return GP_FAIL;
        if (t.type == OPSCOPE_JSON_OBJ_END) break;
        if (gp_key_is(&t, "text")) {
            if (v.type != OPSCOPE_JSON_STRING) return gp_fail(g, OPSCOPE_ERROR_SCHEMA, "a mark's text must be a string", &v);
            opscope_strbuf_truncate(&g->mark_text, at);
            if (opscope_strbuf_add(&g->mark_text, v.str, v.len)) return gp_fail(g, OPSCOPE_ERROR_NOMEM, "out of memory", &v);
        } else if ((gp_key_is(&t, "ts_ns") ? gp_time(g, &v, &m.ts_ns, OPSCOPE_READ_TIME_MSG("a mark's ts_ns"))
                                           : opscope_json_skip(g->j, &v)) < 0) {
            return GP_FAIL;
        }
    }
    if (g->marks.n && g->marks.v[g->marks.n - 1].ts_ns > m.ts_ns)
        return gp_fail(g, OPSCOPE_ERROR_SCHEMA, "capture marks must be in time order", open);
    if (opscope_strbuf_add_char(&g->mark_text, '\0') || OPSCOPE_VEC_PUSH(g->marks, m) ||
        OPSCOPE_VEC_PUSH(g->mark_at, at))
        return gp_fail(g, OPSCOPE_ERROR_NOMEM, "out of memory", open);
    return 0;
}

/* capture.windowed, .windows, .marks (KEY 1, 2, 3) into C: the arrays point into G's. */
static int gp_capture_win(gp *g, int key, const opscope_json_token *v, opscope_capture_info *c) {
    if (key == 1) {
        if (v->type != OPSCOPE_JSON_TRUE && v->type != OPSCOPE_JSON_FALSE && v->type != OPSCOPE_JSON_NULL)
            return gp_fail(g, OPSCOPE_ERROR_SCHEMA, "\"windowed\" must be true or false", v);
        c->windowed = v->type == OPSCOPE_JSON_TRUE;
        return 0;
    }
    if (key == 2) {
        g->windows.n = 0;
        if (gp_object_array(g, v, "\"windows\" must be an array of objects", gp_window)) return GP_FAIL;
        c->n_windows = g->windows.n;
        c->windows = g->windows.n ? g->windows.v : NULL;
        return 0;
    }
    g->marks.n = g->mark_at.n = 0;
    opscope_strbuf_reset(&g->mark_text);
    if (gp_object_array(g, v, "\"marks\" must be an array of objects", gp_mark)) return GP_FAIL;
    for (size_t i = 0; i < g->marks.n; i++) g->marks.v[i].text = g->mark_text.s + g->mark_at.v[i];
    c->n_marks = g->marks.n;
    c->marks = g->marks.n ? g->marks.v : NULL;
    return 0;
}

/* "capture": where and on which clock the capture ran (docs/formats.md). */
static int gp_capture(gp *g, const opscope_json_token *open) {
    if (open->type == OPSCOPE_JSON_NULL) return 0;
    if (open->type != OPSCOPE_JSON_OBJ_BEGIN)
        return gp_fail(g, OPSCOPE_ERROR_SCHEMA, "\"capture\" must be an object", open);
    opscope_capture_info *c = &g->capture;
    memset(c, 0, sizeof *c);
    opscope_json_token t, v;
    for (;;) {
        if (gp_next(g, &t)) return GP_FAIL;
        if (t.type == OPSCOPE_JSON_OBJ_END) break;
        const char *k = t.str;
        size_t n = t.len;
        int key = KEY_IS("host") ? 1 : KEY_IS("program") ? 2 : KEY_IS("clock") ? 3
                : KEY_IS("boot_id") ? 4 : KEY_IS("pid") ? 5 : KEY_IS("time_ns") ? 6
                : KEY_IS("realtime_offset_ns") ? 7 : KEY_IS("start_ns") ? 8 : KEY_IS("end") ? 9 : 0;
        int win_key = KEY_IS("windowed") ? 1 : KEY_IS("windows") ? 2 : KEY_IS("marks") ? 3 : 0;
        int run_key = key || win_key ? 0 : opscope_read_run_key(k, n);
        if (gp_next(g, &v)) return GP_FAIL;
        int rc;
        int64_t x;
        if (key == 1) {
            rc = gp_string(g, &v, &g->c_host, &c->host);
        } else if (key == 2) {
            rc = gp_string(g, &v, &g->c_program, &c->program);
        } else if (key == 3) {
            rc = gp_string(g, &v, &g->c_clock, &c->clock);
        } else if (key == 4) {
            rc = gp_string(g, &v, &g->c_boot, &c->boot_id);
        } else if (key == 5) {
            rc = gp_int(g, &v, 0, INT64_MAX, &x);
            if (rc > 0) c->pid = x, c->has |= OPSCOPE_CAPTURE_HAS_PID;
        } else if (key == 6) {
            rc = gp_u64(g, &v, &c->time_ns);
            if (rc > 0) c->has |= OPSCOPE_CAPTURE_HAS_TIME_NS;
        } else if (key == 7) {
            rc = gp_int(g, &v, INT64_MIN, INT64_MAX, &x);
            if (rc > 0 && (x > (int64_t)OPSCOPE_READ_MAX_TIME_NS || x < -(int64_t)OPSCOPE_READ_MAX_TIME_NS))
                return gp_fail(g, OPSCOPE_ERROR_RANGE, OPSCOPE_READ_TIME_MSG("capture.realtime_offset_ns"), &v);
            if (rc > 0) c->realtime_offset_ns = x, c->has |= OPSCOPE_CAPTURE_HAS_REALTIME;
        } else if (key == 8) {
            rc = gp_time(g, &v, &c->start_ns, OPSCOPE_READ_TIME_MSG("capture.start_ns"));
            if (rc > 0) c->has |= OPSCOPE_CAPTURE_HAS_START;
        } else if (key == 9) {
            rc = gp_capture_end(g, &v);
        } else if (win_key) {
            rc = gp_capture_win(g, win_key, &v, c);
        } else if (run_key) {
            rc = opscope_read_run_member(g->j, run_key, &v, &g->run);
        } else {
            rc = opscope_json_skip(g->j, &v);
        }
        if (rc < 0) return GP_FAIL;
    }
    c->run = opscope_run_view(g->run);
    g->meta.capture = c;
    return 0;
}

/* An array of objects, each handed to EACH. */
static int gp_object_array(gp *g, const opscope_json_token *t, const char *what,
                           int (*each)(gp *, const opscope_json_token *)) {
    if (t->type == OPSCOPE_JSON_NULL) return 0;
    if (t->type != OPSCOPE_JSON_ARR_BEGIN) return gp_fail(g, OPSCOPE_ERROR_SCHEMA, what, t);
    opscope_json_token e;
    for (;;) {
        if (gp_next(g, &e)) return GP_FAIL;
        if (e.type == OPSCOPE_JSON_ARR_END) return 0;
        if (e.type != OPSCOPE_JSON_OBJ_BEGIN) return gp_fail(g, OPSCOPE_ERROR_SCHEMA, what, &e);
        if (each(g, &e)) return GP_FAIL;
    }
}

static int gp_finish(gp *g, uint64_t pos);

static int gp_top(gp *g) {
    opscope_json_token t, v;
    if (gp_next(g, &t)) return GP_FAIL;
    if (t.type != OPSCOPE_JSON_OBJ_BEGIN)
        return gp_fail(g, OPSCOPE_ERROR_SCHEMA, "a ggml profile is a JSON object", &t);
    g->opened = 1;
    for (;;) {
        if (gp_next(g, &t)) return GP_FAIL;
        if (t.type == OPSCOPE_JSON_OBJ_END) break;
        /* classify the key now: its bytes are released when the value is read */
        const char *k = t.str;
        size_t n = t.len;
        int key = KEY_IS("records") ? 1 : KEY_IS("backends") ? 2 : KEY_IS("profiler") ? 3
                : KEY_IS("version") ? 4 : KEY_IS("total_records") ? 5 : KEY_IS("total_ns") ? 6
                : KEY_IS("dropped_records") ? 7 : KEY_IS("dropped_graphs") ? 8
                : KEY_IS("dropped_first_graph") ? 9 : KEY_IS("dropped_last_graph") ? 10
                : KEY_IS("capture_cap_mb") ? 11 : KEY_IS("dropped_cause") ? 12
                : KEY_IS("capture") ? 20 : 0;
        if (gp_next(g, &v)) return GP_FAIL;
        int rc;
        int64_t x;
        if (key == 1) {
            rc = gp_object_array(g, &v, "\"records\" must be an array of objects", gp_record);
        } else if (key == 2) {
            rc = gp_object_array(g, &v, "\"backends\" must be an array of objects", gp_backend);
        } else if (key == 3) {
            rc = gp_string(g, &v, &g->profiler, &g->meta.profiler);
        } else if (key == 4) {
            rc = gp_int(g, &v, INT32_MIN, INT32_MAX, &x);
            if (rc > 0) g->meta.version = (int32_t)x;
        } else if (key == 5) {
            rc = gp_u64(g, &v, &g->meta.total_records);
            if (rc > 0) g->has_total_records = 1;
        } else if (key == 6) {
            rc = gp_u64(g, &v, &g->meta.total_ns);
            if (rc > 0) g->has_total_ns = 1;
        } else if (key == 7) {
            rc = gp_u64(g, &v, &g->meta.dropped_records);
        } else if (key == 20) {
            rc = gp_capture(g, &v);
        } else if (key == 8) {
            rc = gp_u64(g, &v, &g->meta.dropped_graphs);
        } else if (key == 9 || key == 10) {
            rc = gp_int(g, &v, -1, INT64_MAX, &x);
            if (rc > 0) *(key == 9 ? &g->meta.dropped_first_graph : &g->meta.dropped_last_graph) = x;
        } else if (key == 11) {
            rc = gp_u64(g, &v, &g->meta.capture_cap_mb);
        } else if (key == 12) {
            /* a cause this reader does not know stays "unknown" */
            if (v.type != OPSCOPE_JSON_STRING && v.type != OPSCOPE_JSON_NULL)
                return gp_fail(g, OPSCOPE_ERROR_SCHEMA, "expected a string", &v);
            rc = 0;
            if (v.type == OPSCOPE_JSON_STRING)
                g->meta.dropped_cause = v.len == 10 && !memcmp(v.str, "memory cap", 10) ? OPSCOPE_DROP_CAP
                                      : v.len == 13 && !memcmp(v.str, "out of memory", 13) ? OPSCOPE_DROP_OUT_OF_MEMORY
                                      : v.len == 18 && !memcmp(v.str, "device timing lost", 18) ? OPSCOPE_DROP_DEVICE
                                      : v.len == 7 && !memcmp(v.str, "log cap", 7) ? OPSCOPE_DROP_LOG_CAP
                                      : OPSCOPE_DROP_UNKNOWN;
        } else {
            rc = opscope_json_skip(g->j, &v);
        }
        if (rc < 0) return GP_FAIL;
    }
    if (gp_next(g, &t)) return GP_FAIL; /* EOF: the parser checks only whitespace follows */
    return gp_finish(g, t.pos);
}

/* Meta, then end. A truncated profile's totals are what was read, never the file's (the
 * header of a streamed file may state more than survived). */
static int gp_finish(gp *g, uint64_t pos) {
    /* the seed tool's defaults: the records' count and the sum of their durations */
    if (!g->has_total_records || g->meta.truncated_at) g->meta.total_records = g->n_records;
    if (!g->has_total_ns || g->meta.truncated_at) g->meta.total_ns = g->sum_ns;
    if (g->sink->on_meta && g->sink->on_meta(g->sink->ud, &g->meta))
        return opscope_json_fail(g->j, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader", pos);
    if (g->sink->on_end && g->sink->on_end(g->sink->ud))
        return opscope_json_fail(g->j, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader", pos);
    return 0;
}

static void gp_copy(char *dst, size_t size, const char *s) {
    snprintf(dst, size, "%s", s ? s : "");
}

static void gp_status(const gp *g, opscope_read_status *st) {
    memset(st, 0, sizeof *st);
    st->truncated_at = g->meta.truncated_at;
    st->records = g->n_records;
    const opscope_capture_info *c = g->meta.capture;
    if (!c) return;
    gp_copy(st->program, sizeof st->program, c->program);
    gp_copy(st->end, sizeof st->end, c->end);
    gp_copy(st->end_signal, sizeof st->end_signal, c->end_signal);
    st->end_ns = c->end_ns;
    st->died_ns = c->died_ns;
}

int opscope_ggml_read_json(opscope_json_t *j, const opscope_sink *sink, opscope_read_status *status,
                           opscope_error *err) {
    static const opscope_sink none = {0};
    gp g;
    memset(&g, 0, sizeof g);
    g.j = j;
    g.sink = sink ? sink : &none;
    g.meta.profiler = "";
    int rc = gp_top(&g);
    const char *why = NULL;
    if (rc && g.opened && opscope_json_ended_early(j) && g.n_records == 0) {
        /* Cut short before its first complete record: nothing stands, so say it (exit 2)
         * rather than report an empty profile. */
        why = "the profile ends (cut short) before its first complete record: nothing to read";
    } else if (rc && g.opened && opscope_json_ended_early(j)) {
        /* Cut short (a crash while writing, a copy interrupted): what was read stands. */
        g.meta.truncated_at = opscope_json_error(j)->pos;
        rc = gp_finish(&g, g.meta.truncated_at);
    }
    if (rc && err) {
        *err = *opscope_json_error(j);
        if (why) err->msg = why;
    }
    if (!rc && status) gp_status(&g, status);
    opscope_strbuf *strs[] = {&g.name, &g.extra, &g.sub_op, &g.sub_name, &g.tensor, &g.category, &g.kernel, &g.tsrc,
                      &g.bname, &g.bdev, &g.bproc, &g.profiler, &g.c_host, &g.c_program,
                      &g.c_clock, &g.c_boot, &g.c_end, &g.c_sig};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) opscope_strbuf_free(strs[i]);
    opscope_run_free(g.run);
    opscope_strbuf_free(&g.mark_text);
    free(g.windows.v);
    free(g.marks.v);
    free(g.mark_at.v);
    return rc ? -1 : 0;
}
