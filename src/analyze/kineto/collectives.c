/*
 * collectives.c - message sizes and bandwidths of a trace's collectives (collectives.h).
 */
#include "analyze/kineto/collectives.h"

#include "util/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct opscope_colls {
    OPSCOPE_VEC(opscope_job_coll) kern; /* timed on kernels */
    OPSCOPE_VEC(opscope_job_coll) cpu;  /* timed on record_param_comms CPU ops */
    OPSCOPE_VEC(opscope_job_coll) span; /* timed on gloo's own annotations, no sizes */
};

opscope_colls_t *opscope_colls_new(void) { return calloc(1, sizeof(opscope_colls_t)); }

void opscope_colls_free(opscope_colls_t *c) {
    if (!c) return;
    free(c->kern.v);
    free(c->cpu.v);
    free(c->span.v);
    free(c);
}

static bool has(const char *s, const char *a, const char *b) { return strstr(s, a) || (b && strstr(s, b)); }

void opscope_colls_type(const char *name, char *out, size_t size) {
    while (*name == '_') name++;
    const char *t = has(name, "allreduce", "all_reduce")           ? "allreduce"
                    : has(name, "allgather", "all_gather")         ? "allgather"
                    : has(name, "reduce_scatter", "reducescatter") ? "reducescatter"
                    : has(name, "alltoall", "all_to_all")          ? "alltoall"
                    : has(name, "broadcast", NULL)                 ? "broadcast"
                    : has(name, "barrier", NULL)                   ? "barrier"
                    : !strncmp(name, "reduce", 6)                  ? "reduce"
                                                                   : name;
    snprintf(out, size, "%s", t);
}

int opscope_colls_dtype_size(const char *d) {
    static const struct { const char *name; int size; } sizes[] = {
        {"Float", 4},        {"Double", 8},       {"Half", 2},         {"BFloat16", 2},
        {"Int", 4},          {"Long", 8},         {"Short", 2},        {"Char", 1},
        {"Byte", 1},         {"Bool", 1},         {"ComplexHalf", 4},  {"ComplexFloat", 8},
        {"ComplexDouble", 16}, {"UInt16", 2},     {"UInt32", 4},       {"UInt64", 8},
        {"QInt8", 1},        {"QUInt8", 1},       {"QInt32", 4},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        if (!strcmp(d, sizes[i].name)) return sizes[i].size;
    return !strncmp(d, "Float8", 6) ? 1 : 0;
}

uint64_t opscope_colls_bus_bytes(const char *type, uint64_t s, int64_t n) {
    if (n <= 1) return !strcmp(type, "allreduce") || !strcmp(type, "allgather") || !strcmp(type, "reducescatter") ||
                               !strcmp(type, "alltoall") ? 0 : s;
    uint64_t num = (uint64_t)n - 1, den = (uint64_t)n;
    if (!strcmp(type, "allreduce")) num *= 2;
    else if (strcmp(type, "allgather") && strcmp(type, "reducescatter") && strcmp(type, "alltoall")) return s;
    /* floor(s * num / den) without overflow */
    return s / den * num + s % den * num / den;
}

double opscope_colls_gbps(uint64_t bytes, int64_t ns) { return ns > 0 ? (double)bytes / (double)ns : 0.0; }

static int row_cmp(const opscope_job_coll *a, const char *type, int64_t bucket) {
    int c = strcmp(a->type, type);
    return c ? c : (a->bucket > bucket) - (a->bucket < bucket);
}

int opscope_colls_merge(opscope_job_coll *v, size_t *n, size_t cap, const opscope_job_coll *row, bool by_bucket) {
    int64_t bucket = by_bucket ? row->bucket : -1;
    size_t i = 0;
    while (i < *n && row_cmp(&v[i], row->type, bucket) < 0) i++;
    if (i == *n || row_cmp(&v[i], row->type, bucket)) {
        if (*n == cap) return -1;
        memmove(&v[i + 1], &v[i], (*n - i) * sizeof *v);
        memset(&v[i], 0, sizeof *v);
        memcpy(v[i].type, row->type, sizeof v[i].type);
        v[i].bucket = bucket;
        (*n)++;
    }
    opscope_job_coll *d = &v[i];
    d->count += row->count;
    d->bytes += row->bytes;
    d->bus_bytes += row->bus_bytes;
    d->time_ns += row->time_ns;
    if (row->group_size > d->group_size) d->group_size = row->group_size;
    return 0;
}

static int64_t bucket_of(uint64_t s) {
    int64_t b = -1;
    while (s) {
        s >>= 1;
        b++;
    }
    return b;
}

int opscope_colls_add(opscope_colls_t *c, const opscope_kineto_event *ev) {
    const opscope_kineto_comm *m = ev->comm;
    if (!m || (ev->kind != OPSCOPE_KINETO_KERNEL && ev->kind != OPSCOPE_KINETO_CPU_OP)) return 0;
    opscope_job_coll row = {.count = 1, .group_size = m->group_size > 0 ? m->group_size : 0};
    opscope_colls_type(m->coll, row.type, sizeof row.type);
    int64_t ne = m->in_nelems > m->out_nelems ? m->in_nelems : m->out_nelems;
    uint64_t s = ne > 0 ? (uint64_t)ne * (uint64_t)opscope_colls_dtype_size(m->dtype) : 0;
    row.bytes = s;
    row.bus_bytes = opscope_colls_bus_bytes(row.type, s, row.group_size);
    row.bucket = bucket_of(s);
    row.time_ns = ev->dur_ns > 0 ? ev->dur_ns : 0;
    bool k = ev->kind == OPSCOPE_KINETO_KERNEL;
    opscope_job_coll **v = k ? &c->kern.v : &c->cpu.v;
    size_t *n = k ? &c->kern.n : &c->cpu.n, *cap = k ? &c->kern.cap : &c->cpu.cap;
    if (opscope_vec_reserve((void **)v, cap, *n + 1, sizeof **v, 8)) return -1;
    return opscope_colls_merge(*v, n, *cap, &row, true);
}

int opscope_colls_add_span(opscope_colls_t *c, const char *name, int64_t dur_ns) {
    opscope_job_coll row = {.count = 1, .bucket = -1, .time_ns = dur_ns > 0 ? dur_ns : 0};
    opscope_colls_type(!strncmp(name, "gloo:", 5) ? name + 5 : name, row.type, sizeof row.type);
    if (opscope_vec_reserve((void **)&c->span.v, &c->span.cap, c->span.n + 1, sizeof *c->span.v, 8)) return -1;
    return opscope_colls_merge(c->span.v, &c->span.n, c->span.cap, &row, true);
}

bool opscope_colls_unsized(const opscope_colls_t *c) { return c && !c->kern.n && !c->cpu.n && c->span.n; }

const opscope_job_coll *opscope_colls_rows(const opscope_colls_t *c, size_t *n, bool *on_kernels) {
    *on_kernels = c && c->kern.n;
    if (opscope_colls_unsized(c)) {
        *n = c->span.n;
        return c->span.v;
    }
    *n = !c ? 0 : *on_kernels ? c->kern.n : c->cpu.n;
    return !c ? NULL : *on_kernels ? c->kern.v : c->cpu.v;
}

int opscope_colls_copy(const opscope_colls_t *c, opscope_job_coll **out, size_t *n, bool *on_kernels, bool *unsized) {
    const opscope_job_coll *v = opscope_colls_rows(c, n, on_kernels);
    *unsized = opscope_colls_unsized(c);
    *out = NULL;
    if (!*n) return 0;
    if (!(*out = malloc(*n * sizeof **out))) return -1;
    memcpy(*out, v, *n * sizeof **out);
    return 0;
}
