/* roofline.c - the peak file (write, read, cache path) and roofline positions. */
#include "analyze/ggml/roofline.h"
#include "read/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PEAK_MAX_FILE (1u << 20)

static void copy_str(char *dst, size_t size, const opscope_json_token *t) {
    size_t n = t->len < size - 1 ? t->len : size - 1;
    memcpy(dst, t->str, n);
    dst[n] = '\0';
}

static int fail_io(opscope_error *err, const char *path, int e, const char *msg) {
    if (err) {
        memset(err, 0, sizeof *err);
        err->code = OPSCOPE_ERROR_IO;
        err->msg = msg;
        err->errno_value = e;
        snprintf(err->file, sizeof err->file, "%s", path);
    }
    return -1;
}

/* The number of member KEY in section SEC, or NULL when not a peak field. */
static double *field(opscope_peak *p, const char *sec, const char *key) {
    if (!strcmp(sec, "memory")) {
        if (!strcmp(key, "all_gbps")) return &p->mem_gbps_all;
        if (!strcmp(key, "one_gbps")) return &p->mem_gbps_one;
    } else if (!strcmp(sec, "cache")) {
        if (!strcmp(key, "all_gbps")) return &p->cache_gbps_all;
        if (!strcmp(key, "one_gbps")) return &p->cache_gbps_one;
    } else if (!strcmp(sec, "flops")) {
        if (!strcmp(key, "all_gflops")) return &p->gflops_all;
        if (!strcmp(key, "one_gflops")) return &p->gflops_one;
    }
    return NULL;
}

static int parse(opscope_json_t *j, opscope_peak *p) {
    opscope_json_token k, v;
    if (opscope_json_next(j, &v) != OPSCOPE_JSON_OBJ_BEGIN)
        return v.type == OPSCOPE_JSON_ERROR
                   ? -1
                   : opscope_json_fail(j, OPSCOPE_ERROR_SCHEMA, "a peak file is a JSON object",
                                       v.pos);
    bool format_ok = false;
    for (;;) {
        opscope_json_tok t = opscope_json_next_member(j, &k, &v);
        if (t == OPSCOPE_JSON_ERROR) return -1;
        if (t == OPSCOPE_JSON_OBJ_END) break;
        char key[32];
        copy_str(key, sizeof key, &k);
        if (v.type == OPSCOPE_JSON_STRING) {
            if (!strcmp(key, "format")) {
                if (strcmp(v.str, OPSCOPE_PEAK_FORMAT))
                    return opscope_json_fail(j, OPSCOPE_ERROR_SCHEMA,
                                             "not an opscope peak file (format)", v.pos);
                format_ok = true;
            } else if (!strcmp(key, "cpu")) {
                copy_str(p->cpu, sizeof p->cpu, &v);
            } else if (!strcmp(key, "host")) {
                copy_str(p->host, sizeof p->host, &v);
            } else if (!strcmp(key, "isa")) {
                copy_str(p->isa, sizeof p->isa, &v);
            }
        } else if (v.type == OPSCOPE_JSON_NUMBER) {
            if (!strcmp(key, "threads")) p->n_threads = v.is_int ? (int32_t)v.i : 0;
            if (!strcmp(key, "measured_unix") && v.is_int && v.i > 0)
                p->measured_unix = (uint64_t)v.i;
        } else if (v.type == OPSCOPE_JSON_OBJ_BEGIN) {
            for (;;) {
                opscope_json_token k2, v2;
                t = opscope_json_next_member(j, &k2, &v2);
                if (t == OPSCOPE_JSON_ERROR) return -1;
                if (t == OPSCOPE_JSON_OBJ_END) break;
                double *d = field(p, key, k2.str);
                if (d && v2.type == OPSCOPE_JSON_NUMBER) {
                    if (!(v2.d >= 0) || v2.d > 1e9)
                        return opscope_json_fail(j, OPSCOPE_ERROR_RANGE,
                                                 "peak figure out of range", v2.pos);
                    *d = v2.d;
                } else if (!strcmp(k2.str, "working_set_bytes") && v2.is_int && v2.i > 0) {
                    if (!strcmp(key, "memory")) p->mem_bytes = (uint64_t)v2.i;
                    if (!strcmp(key, "cache")) p->cache_bytes = (uint64_t)v2.i;
                } else if (opscope_json_skip(j, &v2)) {
                    return -1;
                }
            }
        } else if (opscope_json_skip(j, &v)) {
            return -1;
        }
    }
    if (opscope_json_next(j, &v) != OPSCOPE_JSON_EOF) return -1;
    if (!format_ok)
        return opscope_json_fail(j, OPSCOPE_ERROR_SCHEMA,
                                 "not an opscope peak file (no \"format\": \"" OPSCOPE_PEAK_FORMAT "\")", 0);
    if (!(p->mem_gbps_all > 0) || !(p->gflops_all > 0))
        return opscope_json_fail(j, OPSCOPE_ERROR_SCHEMA,
                                 "peak file lacks memory.all_gbps or flops.all_gflops", 0);
    return 0;
}

int opscope_peak_read(const char *path, opscope_peak *p, opscope_error *err) {
    memset(p, 0, sizeof *p);
    FILE *f = fopen(path, "rb");
    if (!f) return fail_io(err, path, errno, "cannot open peak file");
    char *buf = malloc(PEAK_MAX_FILE);
    if (!buf) {
        fclose(f);
        return fail_io(err, path, ENOMEM, "out of memory");
    }
    size_t n = fread(buf, 1, PEAK_MAX_FILE, f);
    int rerr = ferror(f);
    fclose(f);
    if (rerr) {
        free(buf);
        return fail_io(err, path, EIO, "cannot read peak file");
    }
    opscope_json_t *j = opscope_json_new(NULL, NULL, buf, n, path);
    if (!j) {
        free(buf);
        return fail_io(err, path, ENOMEM, "out of memory");
    }
    int rc = parse(j, p);
    if (rc && err) *err = *opscope_json_error(j);
    opscope_json_free(j);
    free(buf);
    if (rc) memset(p, 0, sizeof *p);
    return rc;
}

const char *opscope_peak_cache_path(char *buf, size_t size) {
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char host[64] = "localhost";
    FILE *f = fopen("/proc/sys/kernel/hostname", "r");
    if (f) {
        if (fgets(host, sizeof host, f)) host[strcspn(host, "\n")] = '\0';
        fclose(f);
    }
    for (char *c = host; *c; c++)
        if (*c == '/' || *c == ' ') *c = '_';
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, size, "%s/opscope/peak-%s.json", xdg, host);
    else if (home && home[0])
        n = snprintf(buf, size, "%s/.cache/opscope/peak-%s.json", home, host);
    else
        return NULL;
    return n > 0 && (size_t)n < size ? buf : NULL;
}

bool opscope_roofline_applies(const opscope_backend_stats *b) {
    if (!b || !b->described) return false;
    if (b->device_type == OPSCOPE_DEVICE_CPU) return true;
    /* lavapipe is Vulkan on the CPU: the CPU's roofline is its own */
    return strstr(b->device, "llvmpipe") || strstr(b->device, "lavapipe");
}

opscope_bound opscope_roofline_of(const opscope_peak *p, const opscope_op_stats *g,
                                  const opscope_backend_stats *b, opscope_roof *r) {
    memset(r, 0, sizeof *r);
    if (!g->total_ns || g->type != OPSCOPE_RECORD_OP) return OPSCOPE_BOUND_UNKNOWN;
    r->gflops = (double)g->flops / (double)g->total_ns;
    r->gbps = (double)g->traffic_bytes / (double)g->total_ns;
    if (!g->traffic_bytes) return OPSCOPE_BOUND_UNKNOWN;
    r->intensity = (double)g->flops / (double)g->traffic_bytes;
    if (!p || !opscope_roofline_applies(b) || !(p->mem_gbps_all > 0) || !(p->gflops_all > 0))
        return OPSCOPE_BOUND_UNKNOWN;
    double bw = p->mem_gbps_all;
    /* Above the memory peak the data came from cache: judge it against the cache roof. */
    if (r->gbps > bw && p->cache_gbps_all > bw) {
        bw = p->cache_gbps_all;
        r->cache = true;
    }
    double mem_roof = r->intensity * bw;
    r->roof_gflops = mem_roof < p->gflops_all ? mem_roof : p->gflops_all;
    if (mem_roof < p->gflops_all) {
        r->bound = OPSCOPE_BOUND_MEMORY;
        r->pct = 100.0 * r->gbps / bw;
    } else {
        r->bound = OPSCOPE_BOUND_COMPUTE;
        r->cache = false;
        r->pct = 100.0 * r->gflops / p->gflops_all;
    }
    return r->bound;
}

const char *opscope_bound_name(const opscope_roof *r) {
    switch (r->bound) {
    case OPSCOPE_BOUND_MEMORY: return r->cache ? "memory (cache)" : "memory";
    case OPSCOPE_BOUND_COMPUTE: return "compute";
    default: return "";
    }
}
