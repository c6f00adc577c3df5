/*
 * cap_cupti.c - the CUPTI source: per-op device timing of ggml-cuda through NVIDIA's CUPTI,
 * a GPU source (capture/gpu/gpu_source.h) inside the capture library itself.
 *
 * Started by the first compute of a CUDA backend (cap_ggml.c), before it runs. Opt-in (OPSCOPE_CUPTI=1) until the device check (scripts/device/cupti-check.sh)
 * has passed on a real GPU; OPSCOPE_CUPTI=0 keeps it off without a word. No link-time CUDA:
 * libcupti is dlopen'ed (OPSCOPE_CUPTI_LIB, beside the program's libcudart, CUDA's usual
 * places), its version must be one whose record layout was checked (cupti_rec.c: CUDA 12.0
 * to 13.0; 13.1's CUpti_ActivityKernel11 is refused, naming the version), and a refused
 * subscription leaves it off, saying why from the error (another subscriber such as nsys or
 * ncu, no CUDA driver in the process, CUPTI not initialised, unknown) with CUPTI's own
 * cuptiGetResultString. Each of these says one line, and the CUDA splits stay host-timed.
 *
 * Callbacks on the launch APIs (runtime and driver, picked by name through
 * cuptiGetCallbackName) give each launch its scope and places (cupti_track.c); resource
 * callbacks follow CUDA graphs from stream capture to instantiation. Records come from the
 * Activity API (CONCURRENT_KERNEL, MEMCPY, MEMSET) in buffers CUPTI completes on its own
 * thread, flushed every 100 ms, before the last scheduler's export and at exit; they are put
 * on CLOCK_MONOTONIC by cupti_clock.c (a timestamp callback where the version's is trusted,
 * else an offset measured against cuptiGetTimestamp, re-measured per buffer and the fallback
 * of a record the callback missed; one with a zero timestamp stays untimed)
 * and delivered to cap_gpu.c, which maps them to graph nodes with the
 * "cuda" rules. Records CUPTI drops are counted as lost device items.
 * Thread safety: callbacks run on the program's threads and CUPTI's; state is the tracker's
 * (one mutex) and a few atomics.
 */
#include "capture/gpu/cap_cupti.h"

#include "capture/store/cap_clock.h"
#include "capture/gpu/cap_gpu.h"
#include "capture/gpu/cupti_abi.h"
#include "capture/gpu/cupti_clock.h"
#include "capture/gpu/cupti_names.h"
#include "capture/gpu/cupti_rec.h"
#include "capture/gpu/cupti_track.h"
#include "capture/gpu/gpu_source.h"
#include "capture/life/cap_env.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(OPSCOPE_CUPTI_SCOPE_UNTIMED == OPSCOPE_GPU_SCOPE_UNTIMED, "the tracker's untimed scope is the ABI's");

#define MAX_CBID OPSCOPE_CUPTI_MAX_CBID /* callback ids probed per API domain */
#define BUF_SIZE (1u << 20)    /* one activity buffer */
#define MAX_BUFS 32            /* buffers CUPTI may hold at once: past it, it drops (counted) */
#define FLUSH_MS 100
#define N_NAMES 4096           /* demangled kernel names kept (by CUPTI's name pointer) */

const opscope_gpu_host *opscope_gpu_attach(const opscope_gpu_source *src);

static opscope_cupti_api g_api;
static opscope_cupti_subscriber_t g_sub;
static const opscope_cupti_layout *g_layout;
static opscope_cupti_track_t *g_track;
static const opscope_gpu_host *g_host;
static opscope_cupti_demangle_fn g_demangle;
static uint8_t g_role[2][MAX_CBID]; /* [domain - 1][cbid]: opscope_cupti_role */
static opscope_cupti_clock g_clock;  /* CUPTI's timestamps to CLOCK_MONOTONIC */
static bool g_callback;              /* the timestamp callback is registered */
static _Atomic int g_bufs;
static _Atomic bool g_live;

static _Thread_local uint32_t t_depth, t_outer_corr;
static _Thread_local uint64_t t_outer_scope;
static _Thread_local bool t_node_created, t_capturing;

/* ---- finding and loading libcupti ---- */

static int find_cudart(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "libcudart.so")) {
        snprintf(data, 4096, "%s", info->dlpi_name);
        return 1;
    }
    return 0;
}

static void *open_at(const char *dir, const char *rel) {
    char p[4600];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return access(p, R_OK) == 0 ? dlopen(p, RTLD_NOW | RTLD_LOCAL) : NULL;
}

/* OPSCOPE_CUPTI_LIB, else beside the program's libcudart (a toolkit's lib64, or pip's
 * nvidia/cuda_runtime next to nvidia/cuda_cupti), else the toolkit's places and the loader's
 * search path. */
static void *open_cupti(void) {
    const char *env = getenv("OPSCOPE_CUPTI_LIB");
    if (env && *env) {
        void *own = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (own) {
            return own;
        }
        const char *err = dlerror();
        char why[400];
        snprintf(why, sizeof why, "cannot be loaded (%s)", err ? err : "dlopen failed");
        opscope_cap_env_warn("OPSCOPE_CUPTI_LIB", env, why, "the libcupti found where the default looks");
    }
    static const char *const names[] = {"libcupti.so", "libcupti.so.13", "libcupti.so.12"};
    char dir[4096] = "";
    dl_iterate_phdr(find_cudart, dir);
    char *slash = strrchr(dir, '/');
    void *h = NULL;
    if (slash) {
        *slash = '\0';
        for (int i = 0; i < 3 && !h; i++) {
            char rel[128];
            h = open_at(dir, names[i]);
            snprintf(rel, sizeof rel, "../extras/CUPTI/lib64/%s", names[i]);
            h = h ? h : open_at(dir, rel);
            snprintf(rel, sizeof rel, "../../cuda_cupti/lib/%s", names[i]);
            h = h ? h : open_at(dir, rel);
        }
    }
    for (int i = 0; i < 3 && !h; i++) {
        h = open_at("/usr/local/cuda/extras/CUPTI/lib64", names[i]);
        h = h ? h : open_at("/usr/local/cuda/lib64", names[i]);
        h = h ? h : dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    }
    return h;
}

#define SYM(field, name) (*(void **)&g_api.field = dlsym(h, name))

static bool resolve(void *h) {
    bool ok = SYM(get_version, "cuptiGetVersion") && SYM(subscribe, "cuptiSubscribe") &&
              SYM(unsubscribe, "cuptiUnsubscribe") && SYM(enable_callback, "cuptiEnableCallback") &&
              SYM(get_callback_name, "cuptiGetCallbackName") && SYM(activity_enable, "cuptiActivityEnable") &&
              SYM(activity_disable, "cuptiActivityDisable") &&
              SYM(register_callbacks, "cuptiActivityRegisterCallbacks") &&
              SYM(flush_all, "cuptiActivityFlushAll") && SYM(get_next_record, "cuptiActivityGetNextRecord") &&
              SYM(get_num_dropped, "cuptiActivityGetNumDroppedRecords") &&
              SYM(get_timestamp, "cuptiGetTimestamp") && SYM(get_graph_node_id, "cuptiGetGraphNodeId");
    SYM(flush_period, "cuptiActivityFlushPeriod");
    SYM(register_timestamp, "cuptiActivityRegisterTimestampCallback");
    SYM(get_result_string, "cuptiGetResultString");
    return ok;
}

/* ---- clocks ---- */

static uint64_t mono_ns(void) {
    return opscope_cap_mono_ns();
}

/* The offset from CUPTI's clock to CLOCK_MONOTONIC: the tightest of a few bracketed reads.
 * False when cuptiGetTimestamp fails. */
static bool calibrate(int64_t *off) {
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t a = mono_ns(), c = 0, b;
        if (g_api.get_timestamp(&c) != OPSCOPE_CUPTI_SUCCESS) {
            return false;
        }
        b = mono_ns();
        if (b - a < best) {
            best = b - a;
            *off = (int64_t)(a + (b - a) / 2) - (int64_t)c;
        }
    }
    return true;
}

/* ---- callbacks ---- */

static uint64_t node_id(void *node) {
    uint64_t id = 0;
    return node && g_api.get_graph_node_id(node, &id) == OPSCOPE_CUPTI_SUCCESS ? id : 0;
}

static void on_resource(uint32_t cbid, const void *cbdata) {
    const void *gd = opscope_cupti_ptr_at(cbdata, OPSCOPE_CUPTI_RESDATA_DESCRIPTOR);
    if (!gd) {
        return;
    }
    switch (cbid) {
    case OPSCOPE_CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
        t_node_created = true; /* inside a launch call: it was captured, not launched */
        opscope_cupti_track_node_created(g_track, opscope_cupti_ptr_at(gd, OPSCOPE_CUPTI_GRAPHDATA_GRAPH),
                                         node_id(opscope_cupti_ptr_at(gd, OPSCOPE_CUPTI_GRAPHDATA_NODE)),
                                         opscope_cupti_u32_at(gd, OPSCOPE_CUPTI_GRAPHDATA_NODE_TYPE));
        break;
    case OPSCOPE_CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
        opscope_cupti_track_node_cloned(g_track, opscope_cupti_ptr_at(gd, OPSCOPE_CUPTI_GRAPHDATA_GRAPH),
                                        node_id(opscope_cupti_ptr_at(gd, OPSCOPE_CUPTI_GRAPHDATA_NODE)),
                                        node_id(opscope_cupti_ptr_at(gd, OPSCOPE_CUPTI_GRAPHDATA_ORIGINAL_NODE)),
                                        opscope_cupti_u32_at(gd, OPSCOPE_CUPTI_GRAPHDATA_NODE_TYPE));
        break;
    case OPSCOPE_CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED:
        opscope_cupti_track_exec_created(g_track, opscope_cupti_ptr_at(gd, OPSCOPE_CUPTI_GRAPHDATA_GRAPH_EXEC),
                                         opscope_cupti_ptr_at(gd, OPSCOPE_CUPTI_GRAPHDATA_GRAPH));
        break;
    default:
        break;
    }
}

/* A launch API's enter and exit. Only the outermost launch call of a thread takes places (the
 * runtime's call runs the driver's inside it: the same work, perhaps another correlation id). */
static void on_api(int domain, uint32_t cbid, const void *cbdata) {
    opscope_cupti_role role = cbid < MAX_CBID ? (opscope_cupti_role)g_role[domain - 1][cbid] : OPSCOPE_CUPTI_ROLE_NONE;
    if (role == OPSCOPE_CUPTI_ROLE_NONE) {
        return;
    }
    uint32_t corr = opscope_cupti_u32_at(cbdata, OPSCOPE_CUPTI_CBDATA_CORRELATION_ID);
    bool enter = opscope_cupti_u32_at(cbdata, OPSCOPE_CUPTI_CBDATA_SITE) == OPSCOPE_CUPTI_API_ENTER;
    if (role == OPSCOPE_CUPTI_ROLE_CAPTURE_BEGIN || role == OPSCOPE_CUPTI_ROLE_CAPTURE_END) {
        /* this thread's launches between the two are captured into a graph, not run */
        if (role == OPSCOPE_CUPTI_ROLE_CAPTURE_BEGIN ? !enter : enter) {
            t_capturing = role == OPSCOPE_CUPTI_ROLE_CAPTURE_BEGIN;
        }
        return;
    }
    if (enter) {
        if (t_depth++ == 0) {
            const void *params = opscope_cupti_ptr_at(cbdata, OPSCOPE_CUPTI_CBDATA_FUNCTION_PARAMS);
            const void *exec = role == OPSCOPE_CUPTI_ROLE_GRAPH && params
                                   ? opscope_cupti_ptr_at(params, OPSCOPE_CUPTI_GRAPH_LAUNCH_EXEC)
                                   : NULL;
            t_outer_corr = corr;
            t_outer_scope = t_capturing ? 0 : g_host->scope();
            t_node_created = false;
            opscope_cupti_track_launch(g_track, t_outer_scope, corr, role, exec);
        } else if (t_outer_scope) {
            opscope_cupti_track_alias(g_track, t_outer_corr, corr);
        }
        return;
    }
    if (t_depth > 0 && --t_depth == 0 && t_outer_scope && t_node_created) {
        opscope_cupti_track_unlaunch(g_track, t_outer_corr);
    }
}

static void on_callback(void *ud, int domain, uint32_t cbid, const void *cbdata) {
    (void)ud;
    if (!cbdata || !atomic_load_explicit(&g_live, memory_order_relaxed)) {
        return;
    }
    if (domain == OPSCOPE_CUPTI_DOMAIN_RESOURCE) {
        on_resource(cbid, cbdata);
    } else if (domain == OPSCOPE_CUPTI_DOMAIN_DRIVER_API || domain == OPSCOPE_CUPTI_DOMAIN_RUNTIME_API) {
        on_api(domain, cbid, cbdata);
    }
}

/* ---- activity buffers ---- */

static void buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *max_records = 0;
    *buffer = NULL;
    *size = 0;
    if (atomic_fetch_add(&g_bufs, 1) >= MAX_BUFS) {
        atomic_fetch_sub(&g_bufs, 1);
        return; /* CUPTI drops records meanwhile, and counts them */
    }
    uint8_t *b = aligned_alloc(8, BUF_SIZE);
    if (!b) {
        atomic_fetch_sub(&g_bufs, 1);
        return;
    }
    *buffer = b;
    *size = BUF_SIZE;
}

/* CUPTI's name pointer to the record's kernel name, demangled once. */
static const char *kernel_name(const char *mangled) {
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static struct { const char *key, *name; } tab[N_NAMES];
    static int used;
    if (!mangled) {
        return "?";
    }
    size_t h = ((uintptr_t)mangled >> 4) % N_NAMES;
    const char *out = mangled;
    pthread_mutex_lock(&mu);
    for (size_t k = 0; k < N_NAMES; k++) {
        size_t i = (h + k) % N_NAMES;
        if (tab[i].key == mangled) {
            out = tab[i].name;
            break;
        }
        if (!tab[i].key) {
            if (used < N_NAMES / 2) {
                char buf[512];
                opscope_cupti_kernel_name(mangled, g_demangle, buf, sizeof buf);
                char *s = strdup(buf);
                if (s) {
                    tab[i].key = mangled;
                    tab[i].name = s;
                    used++;
                    out = s;
                }
            }
            break;
        }
    }
    pthread_mutex_unlock(&mu);
    return out;
}

static const char *copy_name(uint8_t kind) {
    switch (kind) {
    case OPSCOPE_CUPTI_MEMCPY_KIND_HTOD: return "memcpy HtoD";
    case OPSCOPE_CUPTI_MEMCPY_KIND_DTOH: return "memcpy DtoH";
    case OPSCOPE_CUPTI_MEMCPY_KIND_DTOD: return "memcpy DtoD";
    case OPSCOPE_CUPTI_MEMCPY_KIND_PTOP: return "memcpy PtoP";
    default: return "memcpy";
    }
}

/* Items of one scope, delivered together. */
typedef struct batch {
    uint64_t scope;
    size_t n;
    opscope_gpu_item it[128];
} batch;

static void batch_flush(batch *b) {
    if (b->n) {
        g_host->deliver(b->scope, b->it, b->n);
        b->n = 0;
    }
}

static void batch_add(batch *b, uint64_t scope, const opscope_gpu_item *it) {
    if (b->n && (b->scope != scope || b->n == sizeof b->it / sizeof b->it[0])) {
        batch_flush(b);
    }
    b->scope = scope;
    b->it[b->n++] = *it;
}

static void take_record(batch *b, const opscope_cupti_rec *r, uint64_t now) {
    uint64_t scope;
    uint32_t seq;
    opscope_cupti_track_place(g_track, r->corr, r->graph_node, &scope, &seq);
    if (scope == OPSCOPE_GPU_SCOPE_UNTIMED) {
        return; /* a compute the capture did not sample: CUPTI reports it anyway, we drop it */
    }
    opscope_gpu_item it = {0};
    if (!opscope_cupti_clock_map(&g_clock, r->start, r->end, now, &it.t0, &it.t1)) {
        it.flags = OPSCOPE_GPU_F_DROPPED; /* in its place, untimed */
    }
    it.bytes = r->bytes;
    it.seq = seq;
    it.queue = (uint16_t)r->stream;
    if (r->kind == OPSCOPE_CUPTI_REC_KERNEL) {
        it.kind = OPSCOPE_GPU_ITEM_DISPATCH;
        it.name = kernel_name(r->name);
    } else if (r->kind == OPSCOPE_CUPTI_REC_MEMCPY) {
        it.kind = OPSCOPE_GPU_ITEM_COPY;
        it.name = copy_name(r->copy_kind);
    } else {
        it.kind = OPSCOPE_GPU_ITEM_FILL;
        it.name = "memset";
    }
    batch_add(b, scope, &it);
}

static void buffer_completed(void *ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
    (void)size;
    if (atomic_load(&g_live) && buffer && valid) {
        int64_t off;
        if (!g_callback && calibrate(&off)) {
            opscope_cupti_clock_calibrated(&g_clock, off); /* CUPTI's clock is CLOCK_REALTIME: it may step */
        }
        uint64_t now = mono_ns();
        batch b = {0};
        void *rec = NULL;
        while (g_api.get_next_record(buffer, valid, &rec) == OPSCOPE_CUPTI_SUCCESS) {
            opscope_cupti_rec r;
            if (opscope_cupti_rec_read(g_layout, rec, &r)) {
                take_record(&b, &r, now);
            }
        }
        batch_flush(&b);
        size_t dropped = 0;
        if (g_api.get_num_dropped(ctx, stream, &dropped) == OPSCOPE_CUPTI_SUCCESS && dropped) {
            g_host->lost(dropped);
        }
    }
    if (buffer) {
        free(buffer);
        atomic_fetch_sub(&g_bufs, 1);
    }
}

/* ---- the source's side of gpu_source.h ---- */

static uint64_t src_end_scope(uint64_t scope) {
    return g_track ? opscope_cupti_track_end_scope(g_track, scope) : 0;
}

/* Before an export (the last scheduler freed, exit): every record CUPTI holds is handed in,
 * so a compute still short of records lost them (counted as CUPTI's drops). */
static void src_poll(void) {
    if (atomic_load(&g_live)) {
        g_api.flush_all(OPSCOPE_CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        opscope_cap_gpu_settle();
    }
}

static const opscope_gpu_source g_source = {OPSCOPE_GPU_ABI, "cuda", src_end_scope, src_poll};

static void *flusher(void *arg) {
    (void)arg;
    while (atomic_load(&g_live)) {
        usleep(FLUSH_MS * 1000);
        g_api.flush_all(0);
    }
    return NULL;
}

/* Runs before the capture's own export at exit (registered later). */
static void at_exit_flush(void) {
    src_poll();
}

/* ---- start ---- */

/* Enables the launch callbacks of DOMAIN, found by name. False when none was found. */
static bool enable_launches(int domain) {
    int found = 0;
    for (uint32_t cbid = 1; cbid < MAX_CBID; cbid++) {
        const char *name = NULL;
        if (g_api.get_callback_name(domain, cbid, &name) != OPSCOPE_CUPTI_SUCCESS || !name) {
            continue;
        }
        opscope_cupti_role role = opscope_cupti_api_role(name);
        if (role != OPSCOPE_CUPTI_ROLE_NONE &&
            g_api.enable_callback(1, g_sub, domain, cbid) == OPSCOPE_CUPTI_SUCCESS) {
            g_role[domain - 1][cbid] = (uint8_t)role;
            found++;
        }
    }
    return found > 0;
}

/* The clock: the timestamp callback where VERSION's is trusted, the offset measured before it
 * either way (the fallback of a record stamped with CUPTI's own clock all the same). */
static void start_clock(uint32_t version) {
    int64_t off = 0;
    calibrate(&off);
    g_callback = opscope_cupti_timestamp_callback_ok(version) && g_api.register_timestamp &&
                 g_api.register_timestamp(mono_ns) == OPSCOPE_CUPTI_SUCCESS;
    opscope_cupti_clock_init(&g_clock, mono_ns(), off, g_callback);
}

static bool enable_all(uint32_t version) {
    static const uint32_t res[] = {OPSCOPE_CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED,
                                   OPSCOPE_CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED,
                                   OPSCOPE_CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED};
    /* both domains asked, whatever the first answers (so no || between the calls) */
    bool runtime = enable_launches(OPSCOPE_CUPTI_DOMAIN_RUNTIME_API);
    bool driver = enable_launches(OPSCOPE_CUPTI_DOMAIN_DRIVER_API);
    bool ok = runtime || driver;
    for (int i = 0; i < 3 && ok; i++) {
        ok = g_api.enable_callback(1, g_sub, OPSCOPE_CUPTI_DOMAIN_RESOURCE, res[i]) == OPSCOPE_CUPTI_SUCCESS;
    }
    ok = ok && g_api.register_callbacks(buffer_requested, buffer_completed) == OPSCOPE_CUPTI_SUCCESS;
    if (ok) {
        start_clock(version);
    }
    ok = ok && g_api.activity_enable(OPSCOPE_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == OPSCOPE_CUPTI_SUCCESS &&
         g_api.activity_enable(OPSCOPE_CUPTI_ACTIVITY_KIND_MEMCPY) == OPSCOPE_CUPTI_SUCCESS &&
         g_api.activity_enable(OPSCOPE_CUPTI_ACTIVITY_KIND_MEMSET) == OPSCOPE_CUPTI_SUCCESS;
    return ok;
}

static void stop(void) {
    atomic_store(&g_live, false);
    g_api.activity_disable(OPSCOPE_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    g_api.activity_disable(OPSCOPE_CUPTI_ACTIVITY_KIND_MEMCPY);
    g_api.activity_disable(OPSCOPE_CUPTI_ACTIVITY_KIND_MEMSET);
    g_api.unsubscribe(g_sub);
}

/* Why cuptiSubscribe answered RC, in MSG: CUPTI's own words (cuptiGetResultString) and what
 * they mean here. */
static const char *refused(opscope_cupti_result rc, char *msg, size_t size) {
    const char *str = NULL;
    if (!g_api.get_result_string || g_api.get_result_string(rc, &str) != OPSCOPE_CUPTI_SUCCESS || !str) {
        str = "no result string";
    }
    /* a CUDA program has the driver loaded by its first compute; without it CUPTI answers 15
     * (CUDA 12.4) or 999 (13.0) */
    void *drv = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    const char *why = rc == OPSCOPE_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS ? "another subscriber holds CUPTI (nsys, ncu or another tool)"
                      : !drv                                          ? "no CUDA driver in this process"
                      : rc == OPSCOPE_CUPTI_ERROR_NOT_INITIALIZED     ? "CUPTI is not initialised"
                                                                      : "cause unknown";
    if (drv) {
        dlclose(drv);
    }
    snprintf(msg, size, "CUPTI refused the subscription (error %d, \"%s\": %s)", rc, str, why);
    return msg;
}

/* Returns the warning to print, NULL when the source runs. */
static const char *start(char *msg, size_t size) {
    void *h = open_cupti();
    if (!h) {
        return "libcupti not found (set OPSCOPE_CUPTI_LIB)";
    }
    uint32_t version = 0;
    if (!resolve(h) || g_api.get_version(&version) != OPSCOPE_CUPTI_SUCCESS) {
        return "libcupti lacks the functions the source uses";
    }
    g_layout = opscope_cupti_layout_for(version);
    if (!g_layout) {
        char name[96];
        opscope_cupti_version_name(version, name, sizeof name);
        snprintf(msg, size, "the CUPTI of %s was never checked against NVIDIA's headers (%s)", name,
                 version >= 130100 ? "its kernel records are CUpti_ActivityKernel11 or later" : "records unreadable");
        return msg;
    }
    g_track = opscope_cupti_track_new();
    g_demangle = (opscope_cupti_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!g_track) {
        return "out of memory";
    }
    opscope_cupti_result rc = g_api.subscribe(&g_sub, on_callback, NULL);
    if (rc != OPSCOPE_CUPTI_SUCCESS) {
        return refused(rc, msg, size);
    }
    g_host = opscope_gpu_attach(&g_source);
    if (!g_host) {
        g_api.unsubscribe(g_sub);
        return "another GPU source is attached, or the capture is not recording";
    }
    atomic_store(&g_live, true);
    if (!enable_all(version)) {
        stop();
        return "CUPTI refused its callbacks or activity kinds";
    }
    if (!g_api.flush_period || g_api.flush_period(FLUSH_MS) != OPSCOPE_CUPTI_SUCCESS) {
        pthread_t th;
        if (pthread_create(&th, NULL, flusher, NULL) == 0) {
            pthread_detach(th);
        }
    }
    atexit(at_exit_flush);
    return NULL;
}

void opscope_cap_cupti_start(const char *backend) {
    /* every compute comes here: one relaxed load once it was tried */
    static atomic_bool tried;
    static atomic_flag once = ATOMIC_FLAG_INIT;
    if (atomic_load_explicit(&tried, memory_order_relaxed) || strncmp(backend, "CUDA", 4) != 0 ||
        atomic_flag_test_and_set(&once)) {
        return;
    }
    atomic_store_explicit(&tried, true, memory_order_relaxed);
    /* unset: off, said (opt-in); 0: off, silently; a bad value: off, said as such */
    const char *env = getenv("OPSCOPE_CUPTI");
    if (!env || !*env) {
        fprintf(stderr, "opscope: %s: per-op CUDA timing through CUPTI is opt-in until checked on a GPU "
                        "(OPSCOPE_CUPTI=1); its splits are timed on the host\n", backend);
        return;
    }
    if (!opscope_cap_env_flag("OPSCOPE_CUPTI", false)) {
        return;
    }
    char msg[320];
    const char *why = start(msg, sizeof msg);
    if (why) {
        fprintf(stderr, "opscope: %s: no per-op CUDA timing: %s; its splits are timed on the host\n", backend, why);
    }
}

bool opscope_cap_cupti_running(void) {
    return atomic_load(&g_live);
}
