/* mem_timeline.c - torch.profiler's raw memory timeline (see mem_timeline.h). */
#include "read/mem_timeline.h"
#include "read/json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define MEM_MAX_BYTES (1ll << 62) /* no entry or sum past this: the sums never wrap */

const char *opscope_mem_category_name(int i) {
    static const char *const n[OPSCOPE_MEM_CATEGORIES] = {
        "Parameter", "Optimizer state", "Input", "Temporary", "Activation", "Gradient", "Autograd detail", "Unknown"};
    return i >= 0 && i < OPSCOPE_MEM_CATEGORIES ? n[i] : "?";
}

static long gz_read(void *ud, char *buf, size_t cap) {
    int r = gzread((gzFile)ud, buf, cap > (1u << 30) ? (1u << 30) : (unsigned)cap);
    if (r < 0) errno = EIO;
    return r;
}

bool opscope_mem_timeline_is(const char *path) {
    struct stat st; /* a FIFO or a device is never peeked: its bytes would be gone */
    if (!path || !strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode)) return false;
    gzFile f = gzopen(path, "rb");
    if (!f) return false;
    char b[64];
    int n = gzread(f, b, sizeof b);
    gzclose(f);
    int i = 0, brackets = 0;
    for (; i < n; i++) {
        char c = b[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (c == '[' && brackets < 2) { brackets++; continue; }
        return brackets == 2 && (c == '-' || (c >= '0' && c <= '9'));
    }
    return false;
}

/* Where the points go beside the peaks: the caller's function, if any. */
typedef struct points_to {
    opscope_mem_point_fn fn;
    void *ud;
} points_to;

/* The point that ends here (its entries applied): the peaks. */
static void close_point(opscope_mem_timeline *m, const int64_t *cur, int64_t t) {
    int64_t total = 0;
    for (int c = 0; c < OPSCOPE_MEM_CATEGORIES; c++) {
        total += cur[c];
        if (!m->points || cur[c] > m->cat_peak[c]) m->cat_peak[c] = cur[c], m->cat_peak_ns[c] = t;
    }
    if (!m->points || total > m->peak_total) {
        m->peak_total = total;
        m->peak_ns = t;
        memcpy(m->at_peak, cur, sizeof m->at_peak);
    }
    m->points++;
}

static int fail(opscope_json_t *j, const char *msg, uint64_t pos) {
    return opscope_json_fail(j, OPSCOPE_ERROR_SCHEMA, msg, pos);
}

static int fail_range(opscope_json_t *j, const char *msg, uint64_t pos) {
    return opscope_json_fail(j, OPSCOPE_ERROR_RANGE, msg, pos);
}

/* One entry, after its '[': its four integers into V. 0, or -1 (the parser's error set). */
static int entry(opscope_json_t *j, int64_t *v, uint64_t pos) {
    if (opscope_json_int_array(j, v, 4) == 4) return 0;
    opscope_json_token t;
    for (int n = 0;; n++) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
        if (t.type == OPSCOPE_JSON_ARR_END)
            return n == 4 ? 0 : fail(j, "a memory timeline entry is [time, action, bytes, category]: 4 integers", pos);
        if (n >= 4)
            return fail(j, "a memory timeline entry is [time, action, bytes, category]: 4 integers (torch's "
                           ".json export, [times, sizes], is not read: export to a .raw.json.gz path)", t.pos);
        if (t.type != OPSCOPE_JSON_NUMBER || !t.is_int)
            return fail(j, "a memory timeline entry is [time, action, bytes, category]: 4 integers", t.pos);
        v[n] = t.i;
    }
}

/* close_point, and the point handed to TO. 0, or -1 (the parser's error set) when TO stops. */
static int emit_point(opscope_json_t *j, opscope_mem_timeline *m, const int64_t *cur, int64_t t, const points_to *to,
                      uint64_t pos) {
    close_point(m, cur, t);
    if (to->fn && to->fn(to->ud, t, cur)) return opscope_json_fail(j, OPSCOPE_ERROR_NOMEM, "out of memory", pos);
    return 0;
}

/* The entries of the open top-level array into M, each point to TO. 0, or -1. */
static int entries(opscope_json_t *j, opscope_mem_timeline *m, const points_to *to) {
    int64_t cur[OPSCOPE_MEM_CATEGORIES] = {0}, last_t = 0;
    opscope_json_token t;
    for (;;) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
        if (t.type == OPSCOPE_JSON_ARR_END) break;
        if (t.type != OPSCOPE_JSON_ARR_BEGIN) return fail(j, "a memory timeline holds [time, action, bytes, category] entries", t.pos);
        int64_t v[4];
        if (entry(j, v, t.pos)) return -1;
        if (v[0] < -1 || v[0] > MEM_MAX_BYTES) return fail_range(j, "a memory timeline entry's time is below -1 or beyond 2^62 ns", t.pos);
        if (v[3] < 0 || v[3] >= OPSCOPE_MEM_CATEGORIES)
            return fail_range(j, "a memory timeline entry's category is not one of torch's 0..7", t.pos);
        if (v[2] > MEM_MAX_BYTES || v[2] < -MEM_MAX_BYTES || cur[v[3]] + v[2] > MEM_MAX_BYTES || cur[v[3]] + v[2] < -MEM_MAX_BYTES)
            return fail_range(j, "a memory timeline entry's bytes (or its category's sum) are beyond 2^62", t.pos);
        if (m->entries && v[0] != last_t && emit_point(j, m, cur, last_t, to, t.pos)) return -1;
        /* HTA's t_min: the first time that is not -1, then the smallest positive one */
        if (v[0] >= 0 && (m->first_ns < 0 || (v[0] < m->first_ns && v[0] > 0))) m->first_ns = v[0];
        if (v[0] > m->last_ns) m->last_ns = v[0];
        m->preexisting += v[0] < 0;
        m->actions[v[1] >= 1 && v[1] <= 4 ? v[1] : 0]++;
        cur[v[3]] += v[2];
        last_t = v[0];
        m->entries++;
    }
    if (m->entries && emit_point(j, m, cur, last_t, to, t.pos)) return -1;
    memcpy(m->final, cur, sizeof cur);
    /* the pre-existing point at t_min, as HTA plots it */
    if (m->peak_ns < 0) m->peak_ns = m->first_ns;
    for (int c = 0; c < OPSCOPE_MEM_CATEGORIES; c++)
        if (m->cat_peak_ns[c] < 0) m->cat_peak_ns[c] = m->first_ns;
    return 0;
}

static int parse(opscope_json_t *j, opscope_mem_timeline *m, const points_to *to) {
    opscope_json_token t;
    if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
    if (t.type != OPSCOPE_JSON_ARR_BEGIN) return fail(j, "a memory timeline is one JSON array of entries", t.pos);
    if (entries(j, m, to)) return -1;
    if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
    if (t.type != OPSCOPE_JSON_EOF) return fail(j, "something follows the memory timeline's array", t.pos);
    return 0;
}

int opscope_mem_timeline_read(const char *path, opscope_mem_timeline *out, opscope_error *err) {
    return opscope_mem_timeline_read_points(path, out, NULL, NULL, err);
}

int opscope_mem_timeline_read_points(const char *path, opscope_mem_timeline *out, opscope_mem_point_fn fn, void *ud,
                                     opscope_error *err) {
    const points_to to = {fn, ud};
    memset(out, 0, sizeof *out);
    out->first_ns = -1;
    memset(err, 0, sizeof *err);
    gzFile f = !strcmp(path, "-") ? gzdopen(0, "rb") : gzopen(path, "rb");
    if (!f) {
        err->code = OPSCOPE_ERROR_IO;
        err->msg = "cannot open";
        err->errno_value = errno;
        snprintf(err->file, sizeof err->file, "%s", path);
        return -1;
    }
    opscope_json_t *j = opscope_json_new(gz_read, f, NULL, 0, path);
    int rc = -1;
    if (!j) {
        err->code = OPSCOPE_ERROR_NOMEM;
        err->msg = "out of memory";
        snprintf(err->file, sizeof err->file, "%s", path);
    } else if (parse(j, out, &to)) {
        *err = *opscope_json_error(j);
    } else {
        rc = 0;
    }
    opscope_json_free(j);
    gzclose(f);
    return rc;
}
