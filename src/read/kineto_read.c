/* kineto_read.c - Kineto / Chrome Trace Event JSON -> opscope records (see kineto_read.h). */
#include "read/kineto_read.h"
#include "util/hash.h"
#include "util/hindex.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include "read/kernel_rules.h"
#include "read/readers.h"
#include "read/kineto_comm.h"
#include "model/strtab.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BE_DEPTH 4096 /* B/E nesting kept per thread; deeper B events are dropped */
#define STR_KEY (1ull << 62) /* pid/tid keys of string ids: STR_KEY | interned id */

/* Event categories the reader distinguishes. */
typedef enum kcat {
    KC_NONE = 0, /* no "cat" member */
    KC_KERNEL,
    KC_MEMCPY,
    KC_MEMSET,
    KC_CPU_OP,
    KC_RUNTIME,
    KC_PYTHON,
    KC_ANNOT,
    KC_GPU_ANNOT,
    KC_FLOW,     /* ac2g, async_gpu: flow links launch -> kernel */
    KC_SYNC,     /* cuda_sync: a synchronization the runtime recorded (critical path) */
    KC_PROFILER, /* cuda_profiler_range: a kernel measured by CUPTI's profiler, counters in args */
    KC_KNOWN,    /* other Kineto categories (Trace, cuda_sync, fwdbwd...): ignored */
    KC_UNKNOWN,  /* not a Kineto category: a generic Chrome slice */
} kcat;

typedef struct idv { /* a pid or tid: integer, or a string interned as STR_KEY | id */
    uint64_t key;
    int64_t i;
    int is_str;
} idv;

typedef struct kev {
    char ph;
    kcat cat;
    int old_cat;
    uint32_t name_id;   /* B events on the stack: interned; else UINT32_MAX */
    size_t name_len;
    idv pid, tid;
    int has_pid, has_tid, has_ts, has_dur, frac_ts;
    int64_t ts, dur;
    int64_t id;         /* flow id, -1 */
    int64_t corr, ext, bytes, device, stream;
    int64_t hta_stream; /* args.stream as HTA reads it: a number or a decimal string, else -1 */
    int64_t wait_stream, wait_corr; /* cuda_sync: args wait_on_stream, wait_on_cuda_event_record_corr_id */
    double bw_gbps;     /* args["memory bandwidth (GB/s)"], 0 when absent (HTA's default) */
    char dir[8];        /* copy direction "HtoD"... from args.kind / args.direction */
    int has_args_name;
    uint32_t dims_id;   /* args["Input Dims"] as text ("[4096,768]x[768,50257]"), interned;
                           UINT32_MAX when absent or all scalars */
    uint32_t types_id;  /* args["Input type"] as text ("float,float"), interned; or UINT32_MAX */
} kev;

typedef struct thr_ent { uint64_t pid, tid; } thr_ent;

typedef struct be_frame { kev ev; } be_frame;

typedef struct be_stack { be_frame *v; size_t n, cap; } be_stack;

typedef struct pid_ent { uint64_t key; int32_t backend; uint32_t pname; int emitted; } pid_ent;

typedef struct kr {
    opscope_json_t *j;
    const opscope_sink *sink;
    opscope_kineto_collector *an;
    opscope_kineto_info *info;
    opscope_kineto_info own_info;
    opscope_strtab_t *names;
    int own_names;
    int chrome;
    opscope_error *err;

    /* scratch copies of borrowed token strings */
    opscope_strbuf name;       /* event name */
    opscope_strbuf cat;        /* event cat (generic slices) */
    opscope_strbuf aname;      /* args.name (metadata) */
    opscope_strbuf dims;       /* args["Input Dims"] (or "Input type") as text */
    uint32_t last_id[2]; size_t last_len[2]; /* the last dims / types interned: ops repeat them */
    size_t cat_len, aname_len;

    uint8_t *catcache; size_t catcap; /* per name id: kernel category + 1 */

    OPSCOPE_VEC(thr_ent) thr; opscope_hindex thr_index; /* (pid, tid) -> dense thread index */
    uint64_t last_pid, last_tid; int64_t last_thr; /* one-entry cache: runs of one thread */
    be_stack *stacks; size_t n_stacks;     /* per dense thread index */

    OPSCOPE_VEC(pid_ent) pids; opscope_hindex pid_index; /* pid -> backend/process name */
    int32_t next_str_backend;

    /* devices already announced as backends */
    int64_t gpu_dev[256]; int n_gpu_dev;
    opscope_kineto_platform announced_platform;
    int platform_from_props, hip_seen, cuda_seen, mtia_seen, roc_key, cupti_key;
    int meta_announced; /* the early meta went out (before the first backend) */

    opscope_record rec;
    uint64_t n_emitted; /* records handed to the sink so far (ordinals for the links) */
    uint64_t total_dur; /* the slices' durations: at most OPSCOPE_READ_MAX_TOTAL_NS (readers.h) */
    int want_links;     /* the collector keeps links: runtime call names are interned too */
    int want_dims;      /* the collector keeps CPU ops' input dims (the diff's work pairs) */
    opscope_kineto_comm comm; /* the X event being read: a collective's args (kineto_comm.h) */
    int in_events;      /* the events array began: input ending after this is a trace cut short */
    OPSCOPE_VEC(opscope_kineto_counter) ctr; /* the cuda_profiler_range being read: its counters */
    opscope_kineto_filter_t *filter; /* HTA's step filter (kineto_filter.h), or NULL */
    int filter_scan;                 /* the filter's first read: slices are only seen */
    int filter_check;                /* a checked read: slices seen and all fed (kineto_filter.h) */
} kr;

/* ---------------------------------------------------------------------------------------- */

static int kr_fail(kr *s, opscope_error_code code, const char *msg) {
    const opscope_error *je = opscope_json_error(s->j);
    if (s->err) {
        if (code == OPSCOPE_OK) {
            *s->err = *je;
        } else {
            memset(s->err, 0, sizeof *s->err);
            s->err->code = code;
            s->err->msg = msg;
            s->err->pos = opscope_json_bytes_read(s->j);
            memcpy(s->err->file, je->file, sizeof s->err->file);
        }
    }
    return -1;
}

static int key_is(const opscope_json_token *t, const char *lit, size_t n) {
    return t->len == n && memcmp(t->str, lit, n) == 0;
}
#define KEY(t, lit) key_is((t), lit, sizeof(lit) - 1)

static kcat cat_of(const char *s, size_t n, int *old) {
    *old = 0;
#define C(lit, v) if (n == sizeof(lit) - 1 && memcmp(s, lit, n) == 0) return v
    switch (s[0]) {
    case 'k': C("kernel", KC_KERNEL); break;
    case 'K': C("Kernel", (*old = 1, KC_KERNEL)); break;
    case 'c':
        C("cpu_op", KC_CPU_OP);
        C("cuda_runtime", KC_RUNTIME);
        C("cuda_driver", KC_RUNTIME);
        C("cuda_sync", KC_SYNC);
        C("cuda_profiler_range", KC_PROFILER);
        break;
    case 'g':
        C("gpu_memcpy", KC_MEMCPY);
        C("gpu_memset", KC_MEMSET);
        C("gpu_user_annotation", KC_GPU_ANNOT);
        break;
    case 'p':
        C("python_function", KC_PYTHON);
        C("privateuse1_runtime", KC_RUNTIME);
        C("privateuse1_driver", KC_RUNTIME);
        break;
    case 'u': C("user_annotation", KC_ANNOT); break;
    case 'a':
        C("ac2g", KC_FLOW);
        C("async_gpu", (*old = 1, KC_FLOW));
        C("async_cpu_to_gpu", (*old = 1, KC_FLOW));
        break;
    case 'm':
        C("mtia_ccp_events", KC_KERNEL);
        C("mtia_runtime", KC_RUNTIME);
        C("mtia_cmd_runtime", KC_RUNTIME);
        break;
    case 'M':
        C("Memcpy", (*old = 1, KC_MEMCPY));
        C("Memset", (*old = 1, KC_MEMSET));
        break;
    case 'R': C("Runtime", (*old = 1, KC_RUNTIME)); break;
    case 'D': C("Driver", (*old = 1, KC_RUNTIME)); break;
    case 'O': C("Operator", (*old = 1, KC_CPU_OP)); break;
    case 'T': C("Trace", KC_KNOWN); break;
    case 'f': C("fwdbwd", KC_KNOWN); break;
    case 'o': C("overhead", KC_KNOWN); break;
    case 'x': C("xpu_runtime", KC_RUNTIME); break;
    default: break;
    }
#undef C
    if (n >= 7 && memcmp(s, "cuda_", 5) == 0) return KC_KNOWN;
    return KC_UNKNOWN;
}

/*
 * Microseconds text -> ns: exact for up to 3 decimals, half away from zero beyond; numbers
 * with an exponent go through double. Returns 0, or -1 when out of int64 range or not a number.
 */
static int us_text_to_ns(const char *s, size_t n, double d, int64_t *out) {
    size_t i = 0;
    int neg = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    uint64_t ip = 0;
    size_t d0 = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (ip > (UINT64_MAX / 1000 - 9) / 10) return -1;
        ip = ip * 10 + (uint64_t)(s[i++] - '0');
    }
    uint64_t frac = 0;
    int round_up = 0;
    if (i < n && s[i] == '.') {
        i++;
        for (int k = 0; k < 3; k++) {
            frac *= 10;
            if (i < n && s[i] >= '0' && s[i] <= '9') frac += (uint64_t)(s[i++] - '0');
        }
        if (i < n && s[i] >= '5' && s[i] <= '9') round_up = 1;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    }
    if (i == d0) return -1;
    if (i < n) { /* exponent (or junk in a string value) */
        if (s[i] != 'e' && s[i] != 'E') return -1;
        double v = d * 1000.0;
        if (!(v > -9.2e18 && v < 9.2e18)) return -1;
        *out = (int64_t)(v < 0 ? v - 0.5 : v + 0.5);
        return 0;
    }
    uint64_t v = ip * 1000 + frac + (uint64_t)round_up;
    if (v > (uint64_t)INT64_MAX) return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* |ts|, |dur| <= 2^61 ns (73 years): sums and differences of two stay within int64. */
#define NS_LIMIT ((int64_t)1 << 61)

static int num_to_ns(const opscope_json_token *t, int64_t *out) {
    static const uint64_t P10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    int rc;
    if (t->type == OPSCOPE_JSON_NUMBER && t->is_int) {
        if (t->i > NS_LIMIT / 1000 || t->i < -NS_LIMIT / 1000) return -1;
        *out = t->i * 1000;
        return 0;
    }
    if (t->type == OPSCOPE_JSON_NUMBER && t->dec >= 0 && t->dec <= 8) {
        /* the tokenizer's digits: us_text_to_ns's rule (3 decimals, the 4th rounds) on them */
        uint64_t v;
        if (t->dec <= 3) {
            uint64_t p = P10[3 - t->dec];
            if (t->mant > (uint64_t)NS_LIMIT / p) return -1;
            v = t->mant * p;
        } else {
            uint64_t q = t->mant / P10[t->dec - 4];
            v = q / 10 + (q % 10 >= 5);
            if (v > (uint64_t)NS_LIMIT) return -1;
        }
        *out = signbit(t->d) ? -(int64_t)v : (int64_t)v;
        return 0;
    }
    if (t->type == OPSCOPE_JSON_STRING) {
        char tmp[64];
        if (t->len == 0 || t->len >= sizeof tmp) return -1;
        memcpy(tmp, t->str, t->len);
        tmp[t->len] = '\0';
        rc = us_text_to_ns(t->str, t->len, strtod(tmp, NULL), out);
    } else {
        rc = us_text_to_ns(t->str, t->len, t->d, out);
    }
    return rc || *out > NS_LIMIT || *out < -NS_LIMIT ? -1 : 0;
}

int opscope_kineto_us_to_ns(const opscope_json_token *t, int64_t *out) { return num_to_ns(t, out); }

/* An integer from a number or a numeric string ("2560", "0x10"); -1 when neither. */
static int64_t int_of(const opscope_json_token *t) {
    if (t->type == OPSCOPE_JSON_NUMBER) {
        if (t->is_int) return t->i;
        return t->d >= 0 && t->d < 9.2e18 ? (int64_t)t->d : -1;
    }
    if (t->type == OPSCOPE_JSON_STRING && t->len > 0 && t->len < 32) {
        char tmp[32];
        memcpy(tmp, t->str, t->len);
        tmp[t->len] = '\0';
        char *e;
        errno = 0;
        long long v = strtoll(tmp, &e, 0);
        if (*e == '\0' && !errno && v >= 0) return (int64_t)v;
    }
    return -1;
}

/* ---------------------------------------------------------------------------------------- */
/* Tables: threads, pids.                                                                    */

static int idv_of(kr *s, const opscope_json_token *t, idv *out) {
    memset(out, 0, sizeof *out);
    if (t->type == OPSCOPE_JSON_NUMBER) {
        /* a float id keeps its integer part; out-of-range floats share one id */
        out->i = t->is_int ? t->i : (t->d > -9.2e18 && t->d < 9.2e18) ? (int64_t)t->d : -1;
        out->key = (uint64_t)out->i & ~STR_KEY;
        if (out->i < 0) out->key = STR_KEY >> 1 | ((uint64_t)-out->i & 0xffffffffu);
        return 0;
    }
    if (t->type == OPSCOPE_JSON_STRING) {
        uint32_t id;
        if (!opscope_strtab_intern(s->names, t->str, t->len, &id)) return -1;
        out->is_str = 1;
        out->i = -1;
        out->key = STR_KEY | id;
        return 0;
    }
    out->key = STR_KEY - 1; /* null / other: one shared "unknown" id */
    out->i = -1;
    return 0;
}

static uint64_t mix(uint64_t a, uint64_t b) {
    return opscope_mix64(opscope_hash_word(OPSCOPE_FNV_BASIS ^ a, b));
}

static bool thr_eq(const void *ctx, uint32_t id, const void *key) {
    const thr_ent *e = &((const kr *)ctx)->thr.v[id], *k = key;
    return e->pid == k->pid && e->tid == k->tid;
}

/* Dense index of the thread (PID, TID); -1 when out of memory. */
static int64_t thread_of(kr *s, uint64_t pid, uint64_t tid) {
    if (s->last_thr >= 0 && pid == s->last_pid && tid == s->last_tid) return s->last_thr;
    thr_ent key = {pid, tid};
    uint64_t h = mix(pid, tid);
    uint32_t id = opscope_hindex_find(&s->thr_index, h, &key, thr_eq, s);
    if (id == OPSCOPE_HINDEX_NONE) {
        id = (uint32_t)s->thr.n;
        if (OPSCOPE_VEC_PUSH(s->thr, key)) return -1;
        if (opscope_hindex_add(&s->thr_index, h, id)) {
            s->thr.n--;
            return -1;
        }
    }
    s->last_pid = pid;
    s->last_tid = tid;
    s->last_thr = id;
    return s->last_thr;
}

static bool pid_eq(const void *ctx, uint32_t id, const void *key) {
    return ((const kr *)ctx)->pids.v[id].key == *(const uint64_t *)key;
}

/* The entry of pid KEY, added when new; NULL when out of memory. Valid until the next call. */
static pid_ent *pid_get(kr *s, uint64_t key) {
    uint64_t h = mix(key, 1);
    uint32_t id = opscope_hindex_find(&s->pid_index, h, &key, pid_eq, s);
    if (id != OPSCOPE_HINDEX_NONE) return &s->pids.v[id];
    id = (uint32_t)s->pids.n;
    if (OPSCOPE_VEC_PUSH(s->pids, ((pid_ent){key, -1, UINT32_MAX, 0}))) return NULL;
    if (opscope_hindex_add(&s->pid_index, h, id)) {
        s->pids.n--;
        return NULL;
    }
    return &s->pids.v[id];
}

/* ---------------------------------------------------------------------------------------- */
/* Platform and backends.                                                                    */

static opscope_kineto_platform platform_now(kr *s) {
    opscope_kineto_info *in = s->info;
    if (s->platform_from_props) return in->platform;
    if (s->roc_key || s->hip_seen) return OPSCOPE_KINETO_PLATFORM_AMD;
    if (s->mtia_seen) return OPSCOPE_KINETO_PLATFORM_OTHER;
    if (s->cupti_key || s->cuda_seen) return OPSCOPE_KINETO_PLATFORM_NVIDIA;
    return OPSCOPE_KINETO_PLATFORM_UNKNOWN;
}

static const opscope_kineto_device *device_props(kr *s, int64_t id) {
    for (int i = 0; i < s->info->n_devices; i++)
        if (s->info->devices[i].id == id) return &s->info->devices[i];
    return NULL;
}

static int emit_gpu_backend(kr *s, int64_t dev) {
    if (!s->sink || !s->sink->on_backend) return 0;
    opscope_kineto_platform p = platform_now(s);
    const char *pre = p == OPSCOPE_KINETO_PLATFORM_NVIDIA ? "CUDA"
                      : p == OPSCOPE_KINETO_PLATFORM_AMD  ? "ROCm"
                      : s->mtia_seen                      ? "MTIA"
                                                          : "GPU";
    char name[48];
    snprintf(name, sizeof name, "%s%lld", pre, (long long)dev);
    const opscope_kineto_device *d = device_props(s, dev);
    opscope_backend b = {(int32_t)dev, name, d ? d->name : "",
                         s->mtia_seen ? OPSCOPE_DEVICE_ACCEL : OPSCOPE_DEVICE_GPU, NULL};
    return s->sink->on_backend(s->sink->ud, &b) ? -1 : 0;
}

/* Which profiler made the input, before the first backend and record, so a consumer that
 * writes a header as the records start (the JSON export) can name it; finish sends the
 * complete meta. */
static int announce_meta(kr *s) {
    if (s->meta_announced || !s->sink->on_meta) return 0;
    s->meta_announced = 1;
    opscope_meta m = {.profiler = s->info->is_kineto ? "kineto" : "chrome"};
    return s->sink->on_meta(s->sink->ud, &m) ? -1 : 0;
}

static int ensure_gpu_backend(kr *s, int64_t dev) {
    for (int i = 0; i < s->n_gpu_dev; i++)
        if (s->gpu_dev[i] == dev) return 0;
    if (announce_meta(s)) return -1;
    if (s->n_gpu_dev < (int)(sizeof s->gpu_dev / sizeof s->gpu_dev[0]))
        s->gpu_dev[s->n_gpu_dev++] = dev;
    s->announced_platform = platform_now(s);
    return emit_gpu_backend(s, dev);
}

static int emit_pid_backend(kr *s, pid_ent *p, const idv *pid) {
    if (!s->sink) return 0;
    if (announce_meta(s)) return -1;
    if (!s->sink->on_backend) return 0;
    char name[64];
    const char *pname = p->pname != UINT32_MAX ? opscope_strtab_get(s->names, p->pname) : NULL;
    if (pid->is_str) snprintf(name, sizeof name, "%s", opscope_strtab_get(s->names, (uint32_t)(pid->key & ~STR_KEY)));
    else snprintf(name, sizeof name, "pid %lld", (long long)pid->i);
    opscope_backend b = {p->backend, pname ? pname : name, name, OPSCOPE_DEVICE_CPU, NULL};
    return s->sink->on_backend(s->sink->ud, &b) ? -1 : 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Records.                                                                                  */

static uint32_t intern_name(kr *s, const char *name, size_t len) {
    uint32_t id;
    if (!opscope_strtab_intern(s->names, name, len, &id)) return UINT32_MAX;
    return id;
}

static opscope_kernel_category kcat_of(kr *s, uint32_t id) {
    if (id >= s->catcap) {
        size_t nc = s->catcap ? s->catcap : 1024;
        while (nc <= id) nc *= 2;
        uint8_t *p = realloc(s->catcache, nc);
        if (!p) return OPSCOPE_KCAT_OTHER;
        memset(p + s->catcap, 0, nc - s->catcap);
        s->catcache = p;
        s->catcap = nc;
    }
    if (!s->catcache[id]) {
        const char *n = opscope_strtab_get(s->names, id);
        s->catcache[id] = (uint8_t)(opscope_kernel_classify(n, strlen(n)) + 1);
    }
    return (opscope_kernel_category)(s->catcache[id] - 1);
}

static const char *copy_dir(const char *name, const kev *e) {
    static const char *const dirs[] = {"HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "DtoA", "AtoD"};
    const char *src = e->dir[0] ? e->dir : name;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (strstr(src, dirs[i])) return dirs[i];
    if (strstr(src, "DEVICE_TO_HOST")) return "DtoH";
    if (strstr(src, "HOST_TO_DEVICE")) return "HtoD";
    if (strstr(src, "DEVICE_TO_DEVICE")) return "DtoD";
    return NULL;
}

/* A cuda_profiler_range slice KE (times set): counted with the ignored categories, no record
 * (its times are the profiler's replay); its counters go to the analysis. */
static int profiler_range(kr *s, const kev *e, const char *name, size_t name_len, opscope_kineto_event *ke) {
    s->info->n_other++;
    if (!s->an) return 0;
    uint32_t id = e->name_id != UINT32_MAX ? e->name_id : intern_name(s, name, name_len);
    if (id == UINT32_MAX) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
    ke->kind = OPSCOPE_KINETO_COUNTERS;
    ke->name_id = id;
    ke->device = e->pid.is_str ? -1 : e->pid.i;
    ke->stream = e->tid.is_str ? -1 : e->tid.i;
    ke->record = UINT64_MAX;
    ke->dims_id = ke->types_id = UINT32_MAX;
    ke->counters = s->ctr.v;
    ke->n_counters = (uint32_t)s->ctr.n;
    if (s->an->add(s->an->ud, ke)) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
    return 0;
}

/* A GPU activity without args.stream: HTA's stream -1, which its kernel analyses leave out
 * (MTIA's dma_request on the device's own thread). */
static bool hta_streamless(const kev *e) {
    return (e->cat == KC_KERNEL || e->cat == KC_MEMCPY || e->cat == KC_MEMSET) && e->hta_stream < 0;
}

/* HTA's step filter on a slice: the scan sees it (and reads nothing more), the second read
 * keeps it or not (1 kept, 0 dropped, -1 out of memory). Slices without "dur", which HTA drops, are dropped, and
 * so are GPU activities without a stream; the categories opscope ignores are not seen by the scan ("Trace" is
 * not an event for HTA). */
static int filter_pass(kr *s, const kev *e, const char *name, size_t name_len, int64_t ts, int64_t dur) {
    int gpu = opscope_kineto_filter_gpu_side(e->hta_stream, e->corr, name, name_len);
    if (!s->filter_scan && !s->filter_check)
        return e->has_dur && !hta_streamless(e) && opscope_kineto_filter_keeps(s->filter, gpu, e->corr, ts);
    if (s->filter_check && !e->has_dur) opscope_kineto_filter_note_dropped(s->filter);
    if (e->has_dur && e->cat != KC_KNOWN && e->cat != KC_FLOW &&
        opscope_kineto_filter_see(s->filter, gpu, e->corr, ts, ts + dur, name, name_len))
        return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
    return s->filter_check && !hta_streamless(e); /* checked: fed as an unfiltered read feeds it */
}

/* A complete slice (X, or a matched B/E). NAME is the event's name (NUL-terminated). */
static int slice(kr *s, kev *e, const char *name, size_t name_len) {
    opscope_kineto_info *in = s->info;
    if (e->old_cat) in->n_old_categories++;
    int64_t ts = e->has_ts ? e->ts : 0, dur = e->has_dur && e->dur > 0 ? e->dur : 0;
    /* the analysis' sums never wrap (readers.h) */
    if ((uint64_t)dur > OPSCOPE_READ_MAX_DURATION_NS)
        return kr_fail(s, OPSCOPE_ERROR_RANGE, "an event's \"dur\" is beyond any real run (more than a year)");
    s->total_dur += (uint64_t)dur;
    if (s->total_dur > OPSCOPE_READ_MAX_TOTAL_NS)
        return kr_fail(s, OPSCOPE_ERROR_RANGE,
                       "the events' durations add up to more than 2^58 ns (9 years): beyond any real run");
    int kept = s->filter ? filter_pass(s, e, name, name_len, ts, dur) : 1;
    if (kept <= 0) return kept;
    opscope_kineto_event ke = {0};
    ke.corr = e->corr;
    ke.ext = e->ext;
    ke.start_ns = ts;
    ke.dur_ns = dur;
    switch (e->cat) {
    case KC_KERNEL:
    case KC_MEMCPY:
    case KC_MEMSET: {
        uint32_t id = e->name_id != UINT32_MAX ? e->name_id : intern_name(s, name, name_len);
        if (id == UINT32_MAX) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        const char *iname = opscope_strtab_get(s->names, id);
        int64_t dev = e->pid.is_str ? (int64_t)(1 << 20) + (int64_t)(e->pid.key & 0xfffff) : e->pid.i;
        /* HTA's stream is args.stream (on MTIA traces not the tid); filter_pass dropped those without */
        int64_t stream = s->filter ? e->hta_stream : e->tid.is_str ? (int64_t)(e->tid.key & 0xfffffff) : e->tid.i;
        opscope_kernel_category kc = e->cat == KC_KERNEL ? kcat_of(s, id) : OPSCOPE_KCAT_MEMORY;
        if (e->cat == KC_KERNEL) in->n_kernels++;
        else if (e->cat == KC_MEMCPY) in->n_memcpy++;
        else in->n_memset++;
        if (s->sink && s->sink->on_record) {
            if (ensure_gpu_backend(s, dev)) return kr_fail(s, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader");
            opscope_record *r = &s->rec;
            r->type = e->cat == KC_MEMCPY ? OPSCOPE_RECORD_COPY : OPSCOPE_RECORD_OP;
            r->name = iname;
            r->sub_op = e->cat == KC_MEMCPY ? copy_dir(iname, e) : NULL;
            r->category = opscope_kernel_category_name(kc);
            r->backend_id = (int32_t)dev;
            r->split_id = (int32_t)stream;
            r->start_ns = ts > 0 ? (uint64_t)ts : 0;
            r->duration_ns = (uint64_t)dur;
            r->bytes = e->bytes > 0 ? (uint64_t)e->bytes : 0;
            if (s->sink->on_record(s->sink->ud, r))
                return kr_fail(s, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader");
            ke.record = s->n_emitted++;
        } else {
            ke.record = UINT64_MAX;
        }
        if (s->an) {
            ke.kind = e->cat == KC_KERNEL ? OPSCOPE_KINETO_KERNEL
                      : e->cat == KC_MEMCPY ? OPSCOPE_KINETO_MEMCPY : OPSCOPE_KINETO_MEMSET;
            ke.name_id = id;
            ke.kcat = kc;
            ke.device = dev;
            ke.stream = stream;
            ke.bytes = e->bytes > 0 ? (uint64_t)e->bytes : 0;
            ke.bw_gbps = e->bw_gbps;
            ke.comm = opscope_kineto_comm_seen(&s->comm) ? &s->comm : NULL;
            if (s->an->add(s->an->ud, &ke)) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        }
        return 0;
    }
    case KC_CPU_OP:
    case KC_PYTHON:
    case KC_ANNOT:
    case KC_GPU_ANNOT:
    case KC_RUNTIME: {
        if (e->cat == KC_CPU_OP) in->n_cpu_ops++;
        else if (e->cat == KC_PYTHON) in->n_python++;
        else if (e->cat == KC_ANNOT) in->n_annotations++;
        else if (e->cat == KC_GPU_ANNOT) in->n_gpu_annotations++;
        else {
            in->n_runtime++;
            if (name_len >= 3 && !memcmp(name, "hip", 3)) s->hip_seen = 1;
            else if (name_len >= 2 && !memcmp(name, "cu", 2)) s->cuda_seen = 1;
        }
        if (!s->an) return 0;
        int64_t th = thread_of(s, e->pid.key, e->tid.key);
        if (th < 0) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        ke.thread = (uint64_t)th;
        ke.device = e->pid.i;
        ke.stream = e->tid.i; /* the thread's own id (-1 for a string tid) */
        /* every CPU slice is a CPU-op record (analyze/kineto/cpu_ops.h): runtime calls too */
        ke.name_id = e->name_id != UINT32_MAX ? e->name_id : intern_name(s, name, name_len);
        if (ke.name_id == UINT32_MAX) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        ke.dims_id = e->cat == KC_CPU_OP || e->cat == KC_ANNOT ? e->dims_id : UINT32_MAX;
        ke.types_id = e->cat == KC_CPU_OP || e->cat == KC_ANNOT ? e->types_id : UINT32_MAX;
        ke.comm = e->cat == KC_CPU_OP && opscope_kineto_comm_seen(&s->comm) ? &s->comm : NULL;
        ke.kind = e->cat == KC_CPU_OP ? OPSCOPE_KINETO_CPU_OP
                  : e->cat == KC_PYTHON ? OPSCOPE_KINETO_PYTHON
                  : e->cat == KC_ANNOT ? OPSCOPE_KINETO_ANNOTATION
                  : e->cat == KC_GPU_ANNOT ? OPSCOPE_KINETO_GPU_ANNOTATION : OPSCOPE_KINETO_RUNTIME;
        if (s->an->add(s->an->ud, &ke)) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        return 0;
    }
    case KC_UNKNOWN:
    case KC_NONE: {
        in->n_other++;
        if (!s->chrome || !s->sink || !s->sink->on_record) return 0;
        pid_ent *p = pid_get(s, e->pid.key);
        if (!p) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        if (!p->emitted) {
            p->backend = e->pid.is_str || e->pid.i < 0 || e->pid.i > INT32_MAX
                             ? (1 << 24) + s->next_str_backend++ /* above Linux pid_max (2^22) */ : (int32_t)e->pid.i;
            p->emitted = 1;
            if (emit_pid_backend(s, p, &e->pid))
                return kr_fail(s, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader");
        }
        uint32_t id = e->name_id != UINT32_MAX ? e->name_id : intern_name(s, name, name_len);
        if (id == UINT32_MAX) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        opscope_record *r = &s->rec;
        r->type = OPSCOPE_RECORD_OP;
        r->name = opscope_strtab_get(s->names, id);
        r->sub_op = NULL;
        r->category = e->cat == KC_UNKNOWN && s->cat_len ? s->cat.s : NULL;
        r->backend_id = p->backend;
        r->split_id = e->tid.is_str ? (int32_t)(e->tid.key & 0xfffffff) : (int32_t)e->tid.i;
        r->start_ns = ts > 0 ? (uint64_t)ts : 0;
        r->duration_ns = (uint64_t)dur;
        r->bytes = 0;
        if (s->sink->on_record(s->sink->ud, r))
            return kr_fail(s, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader");
        s->n_emitted++;
        return 0;
    }
    case KC_SYNC: { /* counted with the ignored categories; handed over for the critical path */
        in->n_other++;
        if (!s->an) return 0;
        uint32_t id = e->name_id != UINT32_MAX ? e->name_id : intern_name(s, name, name_len);
        if (id == UINT32_MAX) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        ke.kind = OPSCOPE_KINETO_SYNC;
        ke.name_id = id;
        ke.device = e->pid.is_str ? -1 : e->pid.i;
        ke.stream = e->stream;
        ke.wait_stream = e->wait_stream;
        ke.wait_corr = e->wait_corr;
        ke.record = UINT64_MAX;
        ke.dims_id = UINT32_MAX;
        if (s->an->add(s->an->ud, &ke)) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        return 0;
    }
    case KC_PROFILER: return profiler_range(s, e, name, name_len, &ke);
    default: /* other Kineto categories (Trace, fwdbwd...): counted, ignored */
        in->n_other++;
        return 0;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Parsing.                                                                                  */

static int next(kr *s, opscope_json_token *t) {
    if (opscope_json_next(s->j, t) == OPSCOPE_JSON_ERROR) return kr_fail(s, OPSCOPE_OK, NULL);
    return 0;
}

/* The next member of the object being read, its key into K and its value into V in one call
 * (K's type OBJ_END at the object's end): half the tokenizer's calls of a key and a value. 0,
 * or -1 on an error. */
static int member(kr *s, opscope_json_token *k, opscope_json_token *v) {
    opscope_json_tok r = opscope_json_next_member(s->j, k, v);
    if (r == OPSCOPE_JSON_KEY || r == OPSCOPE_JSON_OBJ_END) return 0;
    if (r != OPSCOPE_JSON_ERROR) /* not inside an object: never, as the callers read one */
        opscope_json_fail(s->j, OPSCOPE_ERROR_SYNTAX, "expected an object member", k->pos);
    return kr_fail(s, OPSCOPE_OK, NULL);
}

static int skip(kr *s, const opscope_json_token *t) {
    if (opscope_json_skip(s->j, t)) return kr_fail(s, OPSCOPE_OK, NULL);
    return 0;
}

#define DIMS_MAX 160 /* longer input dims are cut (with "...") */

static int dims_put(kr *s, const char *str, size_t n) { return opscope_strbuf_add(&s->dims, str, n); }

/* One byte, inline (most of a dims string is brackets and commas). */
static inline int dims_putc(kr *s, char ch) { return opscope_strbuf_add_char(&s->dims, ch); }

/* The id of the text in dims (WHICH: 0 dims, 1 types); the last one's id again without a
 * look-up when the text repeats. UINT32_MAX when out of memory. */
static uint32_t dims_intern(kr *s, int which) {
    uint32_t id = s->last_id[which];
    if (id != UINT32_MAX && s->last_len[which] == s->dims.len &&
        !memcmp(opscope_strtab_get(s->names, id), s->dims.s, s->dims.len))
        return id;
    id = intern_name(s, s->dims.s, s->dims.len);
    s->last_id[which] = id;
    s->last_len[which] = s->dims.len;
    return id;
}

/* The tokens of a raw array's text (opscope_json_raw_array: integers, plain strings, no
 * escapes), as the tokenizer gives them: commas and spaces passed over. */
typedef struct rawlex {
    const char *p, *end;
} rawlex;

static opscope_json_tok raw_next(rawlex *x, const char **str, size_t *len) {
    while (x->p < x->end && (*x->p == ' ' || *x->p == '\t' || *x->p == '\r' || *x->p == ',')) x->p++;
    if (x->p >= x->end) return OPSCOPE_JSON_ERROR; /* not reached: the text ends with its ']' */
    const char *a = x->p++;
    switch (*a) {
    case '[': return OPSCOPE_JSON_ARR_BEGIN;
    case ']': return OPSCOPE_JSON_ARR_END;
    case '"':
        while (x->p < x->end && *x->p != '"') x->p++;
        *str = a + 1;
        *len = (size_t)(x->p - a - 1);
        x->p++;
        return OPSCOPE_JSON_STRING;
    default:
        while (x->p < x->end && *x->p >= '0' && *x->p <= '9') x->p++;
        *str = a;
        *len = (size_t)(x->p - a);
        return OPSCOPE_JSON_NUMBER;
    }
}

/* Input dims being written: where parse_dims is in the array. */
typedef struct dims_at {
    int depth, top_items;
    size_t item_start;
    bool cut;
} dims_at;

/* One token of args["Input Dims"] into dims (see parse_dims). 0, or -1 when out of memory. */
static int dims_token(kr *s, dims_at *d, opscope_json_tok type, const char *str, size_t len) {
    bool room = s->dims.len < DIMS_MAX;
    if (!room) d->cut = true;
    switch (type) {
    case OPSCOPE_JSON_ARR_BEGIN:
        if (d->depth == 1) {
            d->item_start = s->dims.len;
            if (d->top_items && room && dims_putc(s, 'x')) return -1;
        } else if (room && s->dims.len && s->dims.s[s->dims.len - 1] != '[' &&
                   s->dims.s[s->dims.len - 1] != 'x' && dims_putc(s, ',')) {
            return -1;
        }
        if (room && dims_putc(s, '[')) return -1;
        d->depth++;
        return 0;
    case OPSCOPE_JSON_ARR_END:
        d->depth--;
        if (d->depth == 1 && room && s->dims.len >= 1 && s->dims.s[s->dims.len - 1] == '[') {
            opscope_strbuf_truncate(&s->dims, d->item_start); /* a scalar: left out */
        } else if (d->depth >= 1) {
            if (room && dims_putc(s, ']')) return -1;
            if (d->depth == 1) d->top_items++;
        }
        return 0;
    case OPSCOPE_JSON_OBJ_BEGIN: return 0; /* the caller skips it */
    default:
        if (!room) return 0;
        if (s->dims.len && s->dims.s[s->dims.len - 1] != '[' && s->dims.s[s->dims.len - 1] != 'x' &&
            dims_putc(s, ','))
            return -1;
        return type == OPSCOPE_JSON_NUMBER ? dims_put(s, str, len) : dims_putc(s, '?');
    }
}

/* args["Input Dims"] (after its '['): one entry per input, a list of ints for a tensor, a
 * list of lists for a tensor list, [] for a scalar or None. Written as the tensors' dims
 * joined by 'x' ("[4096,768]x[768,50257]"), scalars left out; interned into E->dims_id.
 * Mostly read from the array's raw text (no token per number: a CPU op's shapes were 3% of
 * a report), else token by token; the same text either way. */
static int parse_dims(kr *s, kev *e) {
    dims_at d = {.depth = 1};
    opscope_strbuf_reset(&s->dims);
    const char *raw;
    size_t raw_len;
    if (!opscope_json_raw_array(s->j, &raw, &raw_len)) {
        rawlex x = {raw, raw + raw_len};
        while (d.depth > 0) {
            const char *str = NULL;
            size_t len = 0;
            opscope_json_tok type = raw_next(&x, &str, &len);
            if (type == OPSCOPE_JSON_ERROR) break;
            if (dims_token(s, &d, type, str, len)) goto nomem;
        }
    } else {
        opscope_json_token t;
        while (d.depth > 0) {
            if (next(s, &t)) return -1;
            if (dims_token(s, &d, t.type, t.str, t.len)) goto nomem;
            if (t.type == OPSCOPE_JSON_OBJ_BEGIN && skip(s, &t)) return -1;
        }
    }
    if (!s->dims.len || !s->an) return 0;
    if (d.cut && dims_put(s, "...", 3)) goto nomem;
    e->dims_id = dims_intern(s, 0);
    if (e->dims_id == UINT32_MAX) goto nomem;
    return 0;
nomem:
    return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
}

/* One string of args["Input type"] into dims. 0, or -1 when out of memory. */
static int types_put(kr *s, const char *str, size_t len) {
    if (!len || s->dims.len >= DIMS_MAX) return 0;
    return (s->dims.len && dims_putc(s, ',')) || dims_put(s, str, len) ? -1 : 0;
}

/* args["Input type"] (after its '['): one string per input ("float", "c10::BFloat16", ""
 * for a non-tensor), written joined by ',' with empty ones left out, nested values passed
 * over; into E->types_id. From the raw text when it can be (parse_dims). */
static int parse_types(kr *s, kev *e) {
    opscope_strbuf_reset(&s->dims);
    const char *raw;
    size_t raw_len;
    if (!opscope_json_raw_array(s->j, &raw, &raw_len)) {
        rawlex x = {raw, raw + raw_len};
        for (int depth = 1; depth > 0;) {
            const char *str = NULL;
            size_t len = 0;
            opscope_json_tok type = raw_next(&x, &str, &len);
            if (type == OPSCOPE_JSON_ERROR) break;
            depth += type == OPSCOPE_JSON_ARR_BEGIN ? 1 : type == OPSCOPE_JSON_ARR_END ? -1 : 0;
            if (depth == 1 && type == OPSCOPE_JSON_STRING && types_put(s, str, len))
                return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        }
    } else {
        opscope_json_token t;
        for (;;) {
            if (next(s, &t)) return -1;
            if (t.type == OPSCOPE_JSON_ARR_END) break;
            if (t.type == OPSCOPE_JSON_OBJ_BEGIN || t.type == OPSCOPE_JSON_ARR_BEGIN) {
                if (skip(s, &t)) return -1;
                continue;
            }
            if (t.type == OPSCOPE_JSON_STRING && types_put(s, t.str, t.len))
                return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        }
    }
    if (!s->dims.len || !s->an) return 0;
    e->types_id = dims_intern(s, 1);
    return e->types_id == UINT32_MAX ? kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory") : 0;
}

static int parse_args(kr *s, kev *e) {
    opscope_json_token k, t;
    for (;;) {
        if (member(s, &k, &t)) return -1;
        if (k.type == OPSCOPE_JSON_OBJ_END) return 0;
        /* decide by the key K what to do with the value T */
        int which = 0, comm = opscope_kineto_comm_key(k.str, k.len);
        switch (k.len) {
        case 4:
            if (KEY(&k, "kind")) which = 1;
            else if (KEY(&k, "name")) which = 2;
            else if (KEY(&k, "size")) which = 3;
            break;
        case 5: if (KEY(&k, "bytes")) which = 4; break;
        case 6:
            if (KEY(&k, "device")) which = 5;
            else if (KEY(&k, "stream")) which = 6;
            break;
        case 9: if (KEY(&k, "direction")) which = 1; break;
        case 10:
            if (KEY(&k, "Input Dims")) which = 9;
            else if (KEY(&k, "Input type")) which = 10;
            break;
        case 14: if (KEY(&k, "wait_on_stream")) which = 11; break;
        case 23: if (KEY(&k, "memory bandwidth (GB/s)")) which = 13; break;
        case 33: if (KEY(&k, "wait_on_cuda_event_record_corr_id")) which = 12; break;
        case 11:
            if (KEY(&k, "correlation")) which = 7;
            else if (KEY(&k, "External id") || KEY(&k, "external id")) which = 8;
            break;
        default: break;
        }
        /* a profiled kernel's counters: every other numeric arg, by its key */
        uint32_t ctr_id = UINT32_MAX;
        if (e->cat == KC_PROFILER && !which && !comm && s->an &&
            (ctr_id = intern_name(s, k.str, k.len)) == UINT32_MAX)
            return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        if (ctr_id != UINT32_MAX && t.type == OPSCOPE_JSON_NUMBER) {
            opscope_kineto_counter c = {ctr_id, t.is_int ? (double)t.i : t.d};
            if (OPSCOPE_VEC_PUSH(s->ctr, c)) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
            continue;
        }
        if (which == 9 && t.type == OPSCOPE_JSON_ARR_BEGIN && s->want_dims) {
            if (parse_dims(s, e)) return -1;
            continue;
        }
        if (which == 10 && t.type == OPSCOPE_JSON_ARR_BEGIN && s->want_dims) {
            if (parse_types(s, e)) return -1;
            continue;
        }
        if (t.type == OPSCOPE_JSON_OBJ_BEGIN || t.type == OPSCOPE_JSON_ARR_BEGIN) {
            if (skip(s, &t)) return -1;
            continue;
        }
        if (comm) opscope_kineto_comm_set(&s->comm, comm, &t);
        switch (which) {
        case 1:
            if (t.type == OPSCOPE_JSON_STRING) {
                size_t n = t.len < sizeof e->dir - 1 ? t.len : sizeof e->dir - 1;
                if (t.len >= 14) { /* "DEVICE_TO_HOST" style */
                    const char *d = strstr(t.str, "DEVICE_TO_HOST") ? "DtoH"
                                    : strstr(t.str, "HOST_TO_DEVICE") ? "HtoD"
                                    : strstr(t.str, "DEVICE_TO_DEVICE") ? "DtoD" : "";
                    snprintf(e->dir, sizeof e->dir, "%s", d);
                } else {
                    memcpy(e->dir, t.str, n);
                    e->dir[n] = '\0';
                }
            }
            break;
        case 2:
            if (t.type == OPSCOPE_JSON_STRING) {
                if (opscope_strbuf_set(&s->aname, t.str, t.len)) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
                s->aname_len = t.len;
                e->has_args_name = 1;
            }
            break;
        case 3:
        case 4: {
            int64_t v = int_of(&t);
            if (v >= 0 && (which == 4 || e->bytes < 0)) e->bytes = v;
            break;
        }
        case 5: e->device = int_of(&t); break;
        case 6:
            e->stream = int_of(&t);
            /* pandas' to_numeric: "0x0" (HIP's runtime calls) is no number */
            e->hta_stream = t.type == OPSCOPE_JSON_STRING && t.len > 1 && t.str[1] == 'x' ? -1 : e->stream;
            break;
        case 7: e->corr = int_of(&t); break;
        case 8: e->ext = int_of(&t); break;
        case 11: e->wait_stream = int_of(&t); break;
        case 12: e->wait_corr = int_of(&t); break;
        case 13: if (t.type == OPSCOPE_JSON_NUMBER && isfinite(t.d)) e->bw_gbps = t.d; break;
        default: break;
        }
    }
}

static void kev_reset(kev *e) {
    memset(e, 0, sizeof *e);
    e->name_id = UINT32_MAX;
    e->dims_id = UINT32_MAX;
    e->types_id = UINT32_MAX;
    e->id = e->corr = e->ext = e->bytes = e->device = e->stream = e->hta_stream = -1;
    e->wait_stream = e->wait_corr = -1;
}

static int parse_event(kr *s, kev *e) {
    opscope_json_token k, t;
    kev_reset(e);
    opscope_kineto_comm_reset(&s->comm);
    s->cat_len = 0;
    s->ctr.n = 0;
    int has_cat = 0;
    for (;;) {
        if (member(s, &k, &t)) return -1;
        if (k.type == OPSCOPE_JSON_OBJ_END) break;
        int which = 0;
        switch (k.len) {
        case 2:
            if (k.str[0] == 'p' && k.str[1] == 'h') which = 1;
            else if (k.str[0] == 't' && k.str[1] == 's') which = 2;
            else if (k.str[0] == 'i' && k.str[1] == 'd') which = 3;
            break;
        case 3:
            if (KEY(&k, "cat")) which = 4;
            else if (KEY(&k, "pid")) which = 5;
            else if (KEY(&k, "tid")) which = 6;
            else if (KEY(&k, "dur")) which = 7;
            break;
        case 4:
            if (KEY(&k, "name")) which = 8;
            else if (KEY(&k, "args")) which = 9;
            break;
        default: break;
        }
        if (which == 9 && t.type == OPSCOPE_JSON_OBJ_BEGIN) {
            if (parse_args(s, e)) return -1;
            continue;
        }
        if (t.type == OPSCOPE_JSON_OBJ_BEGIN || t.type == OPSCOPE_JSON_ARR_BEGIN) {
            if (skip(s, &t)) return -1;
            continue;
        }
        switch (which) {
        case 1:
            if (t.type == OPSCOPE_JSON_STRING && t.len > 0) e->ph = t.str[0];
            break;
        case 2:
        case 7: {
            if (t.type == OPSCOPE_JSON_NULL) break;
            int64_t v;
            if ((t.type != OPSCOPE_JSON_NUMBER && t.type != OPSCOPE_JSON_STRING) || num_to_ns(&t, &v)) {
                opscope_json_fail(s->j, OPSCOPE_ERROR_RANGE,
                                  which == 2 ? "\"ts\" is not a time in microseconds (or beyond 73 years)"
                                             : "\"dur\" is not a duration in microseconds (or beyond 73 years)", t.pos);
                return kr_fail(s, OPSCOPE_OK, NULL);
            }
            if (which == 2) {
                e->ts = v;
                e->has_ts = 1;
                e->frac_ts = t.type != OPSCOPE_JSON_NUMBER || !t.is_int;
            } else {
                e->dur = v;
                e->has_dur = 1;
            }
            break;
        }
        case 3: e->id = int_of(&t); break;
        case 4:
            if (t.type == OPSCOPE_JSON_STRING && t.len > 0) {
                has_cat = 1;
                e->cat = cat_of(t.str, t.len, &e->old_cat);
                if (e->cat == KC_UNKNOWN) {
                    if (opscope_strbuf_set(&s->cat, t.str, t.len)) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
                    s->cat_len = t.len;
                }
            }
            break;
        case 5:
        case 6: {
            idv v;
            if (idv_of(s, &t, &v)) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
            if (v.is_str) s->info->n_string_ids++;
            if (which == 5) {
                e->pid = v;
                e->has_pid = 1;
            } else {
                e->tid = v;
                e->has_tid = 1;
            }
            break;
        }
        case 8:
            if (t.type == OPSCOPE_JSON_STRING) {
                if (opscope_strbuf_set(&s->name, t.str, t.len)) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
                e->name_len = t.len;
            }
            break;
        default: break;
        }
    }
    if (!has_cat) e->cat = KC_NONE;
    if (!e->name_len) {
        if (opscope_strbuf_set(&s->name, "", 0)) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
    }
    return 0;
}

static int on_metadata(kr *s, kev *e) {
    s->info->n_metadata++;
    if (!e->has_args_name) return 0;
    if (e->name_len == 12 && !memcmp(s->name.s, "process_name", 12)) {
        pid_ent *p = pid_get(s, e->pid.key);
        if (!p) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        p->pname = intern_name(s, s->aname.s, s->aname_len);
        if (s->aname_len >= 4 && !memcmp(s->aname.s, "MTIA", 4)) s->mtia_seen = 1;
    }
    return 0;
}

/* torch's legacy profiler (EventList.export_chrome_trace: the autograd profiler's events, or
 * a torch before Kineto) writes CPU ops without a category on the string pid "CPU functions":
 * they are CPU ops (nested per thread), not generic slices summed whole. */
static int legacy_cpu(kr *s, const idv *pid) {
    const char *p = opscope_strtab_get(s->names, (uint32_t)(pid->key & ~STR_KEY));
    return p && !strcmp(p, "CPU functions");
}

static int on_event(kr *s, kev *e) {
    opscope_kineto_info *in = s->info;
    in->n_events++;
    if (e->frac_ts) in->n_float_ts++;
    if (e->cat == KC_NONE && e->pid.is_str && legacy_cpu(s, &e->pid)) e->cat = KC_CPU_OP;
    if (e->cat != KC_UNKNOWN && e->cat != KC_NONE) in->is_kineto = 1;
    switch (e->ph) {
    case 'X': return slice(s, e, s->name.s, e->name_len);
    case 'B': {
        if (!e->has_ts) return in->n_other++, 0;
        int64_t th = thread_of(s, e->pid.key, e->tid.key);
        if (th < 0) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        if ((size_t)th >= s->n_stacks) {
            size_t nn = s->n_stacks ? s->n_stacks : 16;
            while (nn <= (size_t)th) nn *= 2;
            be_stack *ns = realloc(s->stacks, nn * sizeof *ns);
            if (!ns) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
            memset(ns + s->n_stacks, 0, (nn - s->n_stacks) * sizeof *ns);
            s->stacks = ns;
            s->n_stacks = nn;
        }
        be_stack *st = &s->stacks[th];
        if (st->n >= MAX_BE_DEPTH) return in->n_other++, 0;
        if (st->n == st->cap) {
            size_t nc = st->cap ? st->cap * 2 : 16;
            be_frame *nv = realloc(st->v, nc * sizeof *nv);
            if (!nv) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
            st->v = nv;
            st->cap = nc;
        }
        e->name_id = intern_name(s, s->name.s, e->name_len);
        if (e->name_id == UINT32_MAX) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        if (e->cat == KC_UNKNOWN) { /* keep the category text with the frame */
            uint32_t cid = intern_name(s, s->cat.s, s->cat_len);
            e->id = cid == UINT32_MAX ? -1 : (int64_t)cid;
        }
        st->v[st->n++].ev = *e;
        return 0;
    }
    case 'E': {
        in->n_ends++;
        int64_t th = thread_of(s, e->pid.key, e->tid.key);
        if (th < 0) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        if ((size_t)th >= s->n_stacks || s->stacks[th].n == 0) {
            in->n_unmatched_end++;
            return 0;
        }
        kev b = s->stacks[th].v[--s->stacks[th].n].ev;
        if (e->has_ts) {
            b.dur = e->ts - b.ts;
            b.has_dur = 1;
        }
        if (b.corr < 0) b.corr = e->corr;
        if (b.ext < 0) b.ext = e->ext;
        if (b.bytes < 0) b.bytes = e->bytes;
        const char *nm = opscope_strtab_get(s->names, b.name_id);
        if (b.cat == KC_UNKNOWN) {
            const char *c = b.id >= 0 ? opscope_strtab_get(s->names, (uint32_t)b.id) : "";
            if (opscope_strbuf_set(&s->cat, c, strlen(c))) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
            s->cat_len = strlen(c);
        }
        return slice(s, &b, nm, strlen(nm));
    }
    case 'M': return on_metadata(s, e);
    case 's':
        in->n_flows++;
        if (e->cat == KC_FLOW && e->id >= 0 && s->filter && s->filter_check &&
            opscope_kineto_filter_note(s->filter, e->id))
            return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        if (e->cat == KC_FLOW && s->an && e->id >= 0 &&
            (!s->filter || s->filter_check ||
             (!s->filter_scan && opscope_kineto_filter_keeps(s->filter, 1, e->id, e->ts)))) {
            int64_t th = thread_of(s, e->pid.key, e->tid.key);
            if (th < 0) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
            opscope_kineto_event ke = {0};
            ke.kind = OPSCOPE_KINETO_FLOW_START;
            ke.thread = (uint64_t)th;
            ke.start_ns = e->ts;
            ke.corr = e->id;
            ke.ext = -1;
            if (s->an->add(s->an->ud, &ke)) return kr_fail(s, OPSCOPE_ERROR_NOMEM, "out of memory");
        }
        return 0;
    case 'f':
    case 't':
        in->n_flows++;
        return 0;
    default:
        in->n_other++;
        return 0;
    }
}

static int parse_events(kr *s) {
    opscope_json_token t;
    kev e;
    for (;;) {
        if (next(s, &t)) return -1;
        if (t.type == OPSCOPE_JSON_ARR_END) return 0;
        if (t.type != OPSCOPE_JSON_OBJ_BEGIN) {
            s->info->n_events++;
            s->info->n_other++;
            if (skip(s, &t)) return -1;
            continue;
        }
        if (parse_event(s, &e)) return -1;
        if (on_event(s, &e)) return -1;
    }
}

static int parse_device(kr *s) {
    opscope_kineto_info *in = s->info;
    opscope_kineto_device dv;
    memset(&dv, 0, sizeof dv);
    dv.id = -1;
    opscope_json_token t;
    for (;;) {
        if (next(s, &t)) return -1;
        if (t.type == OPSCOPE_JSON_OBJ_END) break;
        char key[40];
        size_t kn = t.len < sizeof key - 1 ? t.len : sizeof key - 1;
        memcpy(key, t.str, kn);
        key[kn] = '\0';
        if (next(s, &t)) return -1;
        if (t.type == OPSCOPE_JSON_OBJ_BEGIN || t.type == OPSCOPE_JSON_ARR_BEGIN) {
            if (skip(s, &t)) return -1;
            continue;
        }
        if (!strcmp(key, "name") && t.type == OPSCOPE_JSON_STRING) {
            size_t n = t.len < sizeof dv.name - 1 ? t.len : sizeof dv.name - 1;
            memcpy(dv.name, t.str, n);
            dv.name[n] = '\0';
            continue;
        }
        if (t.type != OPSCOPE_JSON_NUMBER) continue;
        int64_t v = t.is_int ? t.i : (t.d > -9.2e18 && t.d < 9.2e18) ? (int64_t)t.d : 0;
        if (!strcmp(key, "id")) dv.id = v;
        else if (!strcmp(key, "totalGlobalMem")) dv.total_mem = v;
        else if (!strcmp(key, "computeMajor")) dv.compute_major = (int32_t)v;
        else if (!strcmp(key, "computeMinor")) dv.compute_minor = (int32_t)v;
        else if (!strcmp(key, "numSms")) dv.num_sms = (int32_t)v;
        else if (!strcmp(key, "warpSize")) dv.warp_size = (int32_t)v;
        else if (!strcmp(key, "maxThreadsPerBlock")) dv.max_threads_per_block = (int32_t)v;
        else if (!strcmp(key, "sharedMemPerBlock")) dv.shared_mem_per_block = v;
    }
    if (dv.id < 0) dv.id = in->n_devices;
    if (in->n_devices < OPSCOPE_KINETO_MAX_DEVICES) in->devices[in->n_devices++] = dv;
    /* platform from the properties: AMD has 64-wide wavefronts */
    opscope_kineto_platform p = OPSCOPE_KINETO_PLATFORM_UNKNOWN;
    if (dv.warp_size == 64 || strstr(dv.name, "AMD") || strstr(dv.name, "Instinct") ||
        strstr(dv.name, "Radeon")) {
        p = OPSCOPE_KINETO_PLATFORM_AMD;
        snprintf(in->platform_hint, sizeof in->platform_hint, "%s",
                 dv.warp_size == 64 ? "warpSize 64" : "device name");
    } else if (strstr(dv.name, "NVIDIA") || strstr(dv.name, "Tesla") || strstr(dv.name, "GeForce") ||
               (dv.warp_size == 32 && dv.compute_major > 0)) {
        p = OPSCOPE_KINETO_PLATFORM_NVIDIA;
        snprintf(in->platform_hint, sizeof in->platform_hint, "%s", "device properties");
    } else if (dv.name[0]) {
        p = OPSCOPE_KINETO_PLATFORM_OTHER;
        snprintf(in->platform_hint, sizeof in->platform_hint, "%s", "device properties");
    }
    if (p != OPSCOPE_KINETO_PLATFORM_UNKNOWN && !s->platform_from_props) {
        in->platform = p;
        s->platform_from_props = 1;
    }
    return 0;
}

static int parse_top_object(kr *s) {
    opscope_json_token t;
    opscope_kineto_info *in = s->info;
    for (;;) {
        if (next(s, &t)) return -1;
        if (t.type == OPSCOPE_JSON_OBJ_END) return 0;
        int which = 0;
        if (KEY(&t, "traceEvents")) which = 1;
        else if (KEY(&t, "deviceProperties")) which = 2;
        else if (KEY(&t, "schemaVersion")) which = 3;
        else if (KEY(&t, "displayTimeUnit")) which = 4;
        else if (KEY(&t, "distributedInfo")) which = 5;
        else if (KEY(&t, "roctracer_version")) s->roc_key = in->is_kineto = 1;
        else if (KEY(&t, "cupti_version")) s->cupti_key = in->is_kineto = 1;
        if (next(s, &t)) return -1;
        if (which == 1 && t.type == OPSCOPE_JSON_ARR_BEGIN) {
            s->in_events = 1;
            if (parse_events(s)) return -1;
        } else if (which == 2 && t.type == OPSCOPE_JSON_ARR_BEGIN) {
            in->is_kineto = 1;
            for (;;) {
                if (next(s, &t)) return -1;
                if (t.type == OPSCOPE_JSON_ARR_END) break;
                if (t.type == OPSCOPE_JSON_OBJ_BEGIN) {
                    if (parse_device(s)) return -1;
                } else if (skip(s, &t)) {
                    return -1;
                }
            }
        } else if (which == 5 && t.type == OPSCOPE_JSON_OBJ_BEGIN) {
            in->is_kineto = 1;
            for (;;) {
                if (next(s, &t)) return -1;
                if (t.type == OPSCOPE_JSON_OBJ_END) break;
                int k = KEY(&t, "rank") ? 1 : KEY(&t, "world_size") ? 2 : KEY(&t, "backend") ? 3 : 0;
                if (next(s, &t)) return -1;
                if (t.type == OPSCOPE_JSON_OBJ_BEGIN || t.type == OPSCOPE_JSON_ARR_BEGIN) {
                    if (skip(s, &t)) return -1;
                } else if (k == 1) {
                    in->rank = int_of(&t);
                } else if (k == 2) {
                    in->world_size = int_of(&t);
                } else if (k == 3 && t.type == OPSCOPE_JSON_STRING) {
                    size_t n = t.len < sizeof in->dist_backend - 1 ? t.len : sizeof in->dist_backend - 1;
                    memcpy(in->dist_backend, t.str, n);
                    in->dist_backend[n] = '\0';
                }
            }
        } else if (t.type == OPSCOPE_JSON_OBJ_BEGIN || t.type == OPSCOPE_JSON_ARR_BEGIN) {
            if (skip(s, &t)) return -1;
        } else if (which == 3 && t.type == OPSCOPE_JSON_NUMBER) {
            in->schema_version = (int32_t)int_of(&t);
            in->is_kineto = 1;
        } else if (which == 4 && t.type == OPSCOPE_JSON_STRING) {
            size_t n = t.len < sizeof in->display_time_unit - 1 ? t.len : sizeof in->display_time_unit - 1;
            memcpy(in->display_time_unit, t.str, n);
            in->display_time_unit[n] = '\0';
        }
    }
}

/* A trace cut short (a crash while writing, a copy interrupted) inside its events: what was
 * read stands, as for a ggml profile; STATUS (may be NULL) says where it ended. */
static int kineto_cut_short(kr *s, opscope_read_status *status) {
    if (!s->in_events || !opscope_json_ended_early(s->j)) return 0;
    if (status) {
        memset(status, 0, sizeof *status);
        status->truncated_at = opscope_json_error(s->j)->pos;
        status->records = s->n_emitted;
    }
    return 1;
}

static int finish(kr *s) {
    opscope_kineto_info *in = s->info;
    for (size_t i = 0; i < s->n_stacks; i++) in->n_unclosed_begin += s->stacks[i].n;
    in->n_other += in->n_unclosed_begin; /* never became a slice */
    if (!s->platform_from_props) {
        in->platform = platform_now(s);
        snprintf(in->platform_hint, sizeof in->platform_hint, "%s",
                 s->roc_key ? "roctracer_version" : s->hip_seen ? "hip runtime calls"
                 : s->mtia_seen ? "MTIA process" : s->cupti_key ? "cupti_version"
                 : s->cuda_seen ? "cuda runtime calls" : "no evidence");
    }
    if (!s->sink) return 0;
    /* Re-announce GPU backends whose name the end of the file refined. */
    if (platform_now(s) != s->announced_platform || s->platform_from_props) {
        for (int i = 0; i < s->n_gpu_dev; i++)
            if (emit_gpu_backend(s, s->gpu_dev[i]))
                return kr_fail(s, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader");
    }
    if (s->sink->on_meta) {
        opscope_meta m = {.profiler = in->is_kineto ? "kineto" : "chrome", .version = in->schema_version};
        if (s->sink->on_meta(s->sink->ud, &m))
            return kr_fail(s, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader");
    }
    if (s->sink->on_end && s->sink->on_end(s->sink->ud))
        return kr_fail(s, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader");
    return 0;
}

int opscope_kineto_read_json(opscope_json_t *j, opscope_format format, const opscope_sink *sink,
                             opscope_kineto_collector *an, opscope_error *err) {
    return opscope_kineto_read_json_status(j, format, sink, an, NULL, err);
}

int opscope_kineto_read_json_status(opscope_json_t *j, opscope_format format, const opscope_sink *sink,
                                    opscope_kineto_collector *an, opscope_read_status *status,
                                    opscope_error *err) {
    return opscope_kineto_read_json_filtered(j, format, sink, an, NULL, 0, status, err);
}

int opscope_kineto_read_json_filtered(opscope_json_t *j, opscope_format format, const opscope_sink *sink,
                                      opscope_kineto_collector *an, opscope_kineto_filter_t *filter, int scan,
                                      opscope_read_status *status, opscope_error *err) {
    kr s;
    memset(&s, 0, sizeof s);
    s.filter = filter;
    s.filter_scan = filter && scan == 1;
    s.filter_check = filter && scan == 2;
    s.j = j;
    s.sink = sink;
    s.an = an;
    s.want_links = an && an->want_links;
    s.want_dims = an && an->want_dims;
    s.last_id[0] = s.last_id[1] = UINT32_MAX;
    s.err = err;
    s.chrome = format == OPSCOPE_FORMAT_CHROME;
    s.info = an ? an->info : &s.own_info;
    if (!an) {
        s.own_info.rank = s.own_info.world_size = -1;
        s.names = opscope_strtab_new();
        s.own_names = 1;
    } else {
        s.names = an->names;
    }
    opscope_record_init(&s.rec);
    s.last_thr = -1;
    s.announced_platform = OPSCOPE_KINETO_PLATFORM_UNKNOWN;
    int rc = -1;
    if (!s.names || opscope_hindex_init(&s.thr_index, 64) || opscope_hindex_init(&s.pid_index, 16)) {
        kr_fail(&s, OPSCOPE_ERROR_NOMEM, "out of memory");
        goto out;
    }
    opscope_json_token t;
    if (next(&s, &t)) goto out;
    if (t.type == OPSCOPE_JSON_OBJ_BEGIN) {
        if (parse_top_object(&s)) goto out;
    } else if (t.type == OPSCOPE_JSON_ARR_BEGIN) {
        s.in_events = 1;
        if (parse_events(&s)) goto out;
    } else {
        opscope_json_fail(j, OPSCOPE_ERROR_SCHEMA,
                          "a trace is an object with \"traceEvents\" or an array of events", t.pos);
        kr_fail(&s, OPSCOPE_OK, NULL);
        goto out;
    }
    if (next(&s, &t)) goto out;
    if (t.type != OPSCOPE_JSON_EOF) {
        kr_fail(&s, OPSCOPE_ERROR_SYNTAX, "unexpected data after the trace");
        goto out;
    }
    rc = finish(&s);
out:
    if (rc && kineto_cut_short(&s, status)) rc = finish(&s);
    else if (!rc && status) memset(status, 0, sizeof *status);
    opscope_strbuf_free(&s.name);
    opscope_strbuf_free(&s.cat);
    opscope_strbuf_free(&s.aname);
    opscope_strbuf_free(&s.dims);
    free(s.ctr.v);
    free(s.catcache);
    free(s.thr.v);
    opscope_hindex_free(&s.thr_index);
    free(s.pids.v);
    opscope_hindex_free(&s.pid_index);
    for (size_t i = 0; i < s.n_stacks; i++) free(s.stacks[i].v);
    free(s.stacks);
    if (s.own_names) opscope_strtab_free(s.names);
    return rc;
}
