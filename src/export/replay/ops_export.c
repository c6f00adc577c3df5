/* ops_export.c - unique graph ops of a profile as test-backend-ops --test-file lines. */
#include "export/replay/ops_export.h"
#include "export/fmt/notes.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include "analyze/record/shape_fmt.h"
#include "analyze/ggml/stats.h"
#include "model/record.h"
#include "model/strtab.h"
#include "util/sort.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *opscope_ops_skip_reason_text(opscope_ops_skip_reason r) {
    switch (r) {
    case OPSCOPE_OPS_OK: return "";
    case OPSCOPE_OPS_SKIP_COPY: return "a copy between backends, not a graph op";
    case OPSCOPE_OPS_SKIP_SPLIT: return "a graph split timed as a whole: no op is described";
    case OPSCOPE_OPS_SKIP_UNKNOWN_OP:
        return "not an op of ggml 0.27's enum ggml_op (a device kernel without a graph node)";
    case OPSCOPE_OPS_SKIP_VIEW: return "a view op: ggml computes nothing for it";
    case OPSCOPE_OPS_SKIP_CUSTOM:
        return "a custom op: its function pointer is not in the profile";
    case OPSCOPE_OPS_SKIP_NO_OUT:
        return "no output type and shape in the profile (version-2 layout?)";
    case OPSCOPE_OPS_SKIP_NO_PARAMS: return "no op params in the profile (version-2 layout?)";
    case OPSCOPE_OPS_SKIP_NO_SRC_TYPES: return "sources without ggml types in the profile";
    case OPSCOPE_OPS_SKIP_BAD_TYPE: return "a type number ggml 0.27 does not have";
    case OPSCOPE_OPS_SKIP_BAD_SHAPE: return "a negative dimension or stride";
    case OPSCOPE_OPS_SKIP_SUB_OP:
        return "its op params name no known unary/GLU function, or another one than sub_op";
    case OPSCOPE_OPS_SKIP_COUNT_: break;
    }
    return "?";
}

void opscope_ops_name_token(const char *name, char *buf) {
    size_t n = 0;
    if (name)
        for (; name[n] && n < 63; n++) {
            unsigned char c = (unsigned char)name[n];
            buf[n] = (c <= ' ' || c == 0x7f || c == '\'' || c == '"') ? '_' : (char)c;
        }
    if (n == 0) buf[n++] = '-';
    buf[n] = '\0';
}

static bool type_known(int32_t t) { return t >= 0 && opscope_ggml_type_bytes(t, 1) > 0; }

/* Appends " V" (no space before the first number); the buffer is sized for the worst case
 * (OPSCOPE_OPS_LINE_MAX). */
static void put_i64(opscope_strbuf *b, int64_t v) {
    if (b->len) opscope_strbuf_add_char(b, ' ');
    opscope_strbuf_add_i64(b, v);
}

opscope_ops_skip_reason opscope_ops_format_line(const opscope_record *rec, char *buf, size_t size,
                                                unsigned *notes) {
    if (size) buf[0] = '\0';
    if (notes) *notes = 0;
    if (rec->type == OPSCOPE_RECORD_COPY) return OPSCOPE_OPS_SKIP_COPY;
    if (!strcmp(rec->name, "GRAPH_SPLIT")) return OPSCOPE_OPS_SKIP_SPLIT;
    int op = opscope_ggml_op_value(rec->name);
    if (op < 0) return OPSCOPE_OPS_SKIP_UNKNOWN_OP;
    const char *n = rec->name;
    if (opscope_ggml_op_is_view(op)) return OPSCOPE_OPS_SKIP_VIEW;
    if (op == OPSCOPE_GGML_OP_MAP_CUSTOM1 || op == OPSCOPE_GGML_OP_MAP_CUSTOM2 ||
        op == OPSCOPE_GGML_OP_MAP_CUSTOM3 || op == OPSCOPE_GGML_OP_CUSTOM)
        return OPSCOPE_OPS_SKIP_CUSTOM;
    if (!(rec->has & OPSCOPE_HAS_OUT)) return OPSCOPE_OPS_SKIP_NO_OUT;
    if (!(rec->has & OPSCOPE_HAS_OP_PARAMS)) return OPSCOPE_OPS_SKIP_NO_PARAMS;
    int n_src = opscope_record_n_src(rec);
    if (n_src && !(rec->has & OPSCOPE_HAS_SRC_TYPES)) return OPSCOPE_OPS_SKIP_NO_SRC_TYPES;
    if (!type_known(rec->out_type)) return OPSCOPE_OPS_SKIP_BAD_TYPE;
    for (int s = 0; s < n_src; s++)
        if (!type_known(rec->type_src[s])) return OPSCOPE_OPS_SKIP_BAD_TYPE;
    for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) {
        if (rec->ne[d] < 0) return OPSCOPE_OPS_SKIP_BAD_SHAPE;
        for (int s = 0; s < n_src; s++)
            if (rec->ne_src[s][d] < 0 || rec->nb_src[s][d] > (uint64_t)INT64_MAX)
                return OPSCOPE_OPS_SKIP_BAD_SHAPE;
    }
    if (opscope_ggml_op_has_sub_op(op)) {
        /* ggml keeps the function in op_params[0]; the record's sub-op (name or value) agrees */
        const char *fn = opscope_sub_op_name(n, rec->op_params[0]);
        if (!fn || (rec->sub_op && strcmp(rec->sub_op, fn)) ||
            ((rec->has & OPSCOPE_HAS_SUB_OP) && rec->sub_op_value != rec->op_params[0]))
            return OPSCOPE_OPS_SKIP_SUB_OP;
    }

    opscope_strbuf b;
    opscope_strbuf_fixed(&b, buf, size);
    put_i64(&b, op);
    put_i64(&b, rec->out_type);
    for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) put_i64(&b, rec->ne[d]);
    put_i64(&b, OPSCOPE_MAX_OP_PARAMS);
    for (int i = 0; i < OPSCOPE_MAX_OP_PARAMS; i++) put_i64(&b, rec->op_params[i]);
    put_i64(&b, n_src);
    bool strides = (rec->has & OPSCOPE_HAS_STRIDES) != 0;
    for (int s = 0; s < n_src; s++) {
        int32_t t = rec->type_src[s];
        put_i64(&b, t);
        for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) put_i64(&b, rec->ne_src[s][d]);
        /* contiguous: a block, a row of blocks, then whole rows and planes */
        uint64_t nb[OPSCOPE_MAX_DIMS], dense[OPSCOPE_MAX_DIMS];
        dense[0] = opscope_ggml_type_bytes(t, 1);
        dense[1] = opscope_ggml_type_bytes(t, (uint64_t)rec->ne_src[s][0]);
        dense[2] = dense[1] * (uint64_t)rec->ne_src[s][1];
        dense[3] = dense[2] * (uint64_t)rec->ne_src[s][2];
        if (!strides) {
            memcpy(nb, dense, sizeof nb);
            if (notes) *notes |= OPSCOPE_OPS_NOTE_NO_STRIDES;
        } else if ((t == 26 || t == 27) && memcmp(rec->nb_src[s], dense, sizeof dense)) {
            memcpy(nb, dense, sizeof nb); /* I32 / I64 index view: see OPSCOPE_OPS_NOTE_* */
            if (notes) *notes |= OPSCOPE_OPS_NOTE_INDEX_STRIDES;
        } else {
            memcpy(nb, rec->nb_src[s], sizeof nb);
        }
        for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) put_i64(&b, (int64_t)nb[d]);
    }
    return OPSCOPE_OPS_OK;
}

/* ------------------------------------------------------------------------------------------ */

/* The numbers of a line, for upstream's ordering (std::tie of op, type, ne, op_params,
 * sources; a source compares by type, ne, nb). */
typedef struct line_key {
    int32_t op, type, n_src;
    int64_t ne[OPSCOPE_MAX_DIMS];
    int32_t params[OPSCOPE_MAX_OP_PARAMS];
    int32_t src_type[OPSCOPE_MAX_SRC];
    int64_t src_ne[OPSCOPE_MAX_SRC][OPSCOPE_MAX_DIMS];
    uint64_t src_nb[OPSCOPE_MAX_SRC][OPSCOPE_MAX_DIMS];
} line_key;

typedef struct entry {
    opscope_ops_line line; /* uses points into the array below once finished */
    line_key key;
    opscope_ops_use *uses;
    size_t n_uses, cap_uses;
} entry;

typedef struct skip_entry {
    opscope_ops_skip s;
} skip_entry;

typedef struct backend_name {
    int32_t id;
    const char *name;
} backend_name;

struct opscope_ops_export {
    opscope_strtab_t *lines; /* line text -> entry index (dense ids) */
    opscope_strtab_t *skips; /* "reason\tWHAT" -> skip index */
    opscope_strtab_t *strs;  /* every other string */
    entry *e;
    size_t n_e, cap_e;
    skip_entry *sk;
    size_t n_sk, cap_sk;
    backend_name *be;
    size_t n_be, cap_be;
    size_t *order; /* sorted entry indices after finish */
    uint64_t n_records, n_exported, n_fused;
    bool from_trace, finished;
    char buf[OPSCOPE_OPS_LINE_MAX];
};

static const char *intern(opscope_ops_export_t *x, const char *s) {
    return s ? opscope_strtab_intern(x->strs, s, strlen(s), NULL) : NULL;
}

opscope_ops_export_t *opscope_ops_export_new(void) {
    opscope_ops_export_t *x = calloc(1, sizeof *x);
    if (!x) return NULL;
    x->lines = opscope_strtab_new();
    x->skips = opscope_strtab_new();
    x->strs = opscope_strtab_new();
    if (!x->lines || !x->skips || !x->strs) {
        opscope_ops_export_free(x);
        return NULL;
    }
    return x;
}

void opscope_ops_export_free(opscope_ops_export_t *x) {
    if (!x) return;
    for (size_t i = 0; i < x->n_e; i++) {
        for (size_t u = 0; u < x->e[i].n_uses; u++) free(x->e[i].uses[u].hist);
        free(x->e[i].uses);
    }
    free(x->e);
    free(x->sk);
    free(x->be);
    free(x->order);
    opscope_strtab_free(x->lines);
    opscope_strtab_free(x->skips);
    opscope_strtab_free(x->strs);
    free(x);
}

static const char *backend_of(const opscope_ops_export_t *x, int32_t id) {
    for (size_t i = 0; i < x->n_be; i++)
        if (x->be[i].id == id) return x->be[i].name;
    return "?";
}

static int on_backend(void *ud, const opscope_backend *b) {
    opscope_ops_export_t *x = ud;
    const char *name = intern(x, b->name && b->name[0] ? b->name : "?");
    if (!name) return 1;
    for (size_t i = 0; i < x->n_be; i++)
        if (x->be[i].id == b->id) {
            x->be[i].name = name;
            return 0;
        }
    if (opscope_vec_reserve((void **)&x->be, &x->cap_be, x->n_be + 1, sizeof *x->be, 16)) return 1;
    x->be[x->n_be].id = b->id;
    x->be[x->n_be].name = name;
    x->n_be++;
    return 0;
}

static int on_meta(void *ud, const opscope_meta *m) {
    opscope_ops_export_t *x = ud;
    if (m->profiler && (!strcmp(m->profiler, "kineto") || !strcmp(m->profiler, "chrome")))
        x->from_trace = true;
    return 0;
}

static void fill_key(line_key *k, const opscope_record *r, int op, const char *text) {
    memset(k, 0, sizeof *k);
    k->op = op;
    k->type = r->out_type;
    memcpy(k->ne, r->ne, sizeof k->ne);
    memcpy(k->params, r->op_params, sizeof k->params);
    /* the sources as written (strides possibly guessed): read them back from the text */
    const char *p = text;
    int skip = 2 + OPSCOPE_MAX_DIMS + 1 + OPSCOPE_MAX_OP_PARAMS;
    for (int i = 0; i < skip; i++) {
        p = strchr(p, ' ');
        p = p ? p + 1 : "";
    }
    char *end;
    k->n_src = (int32_t)strtol(p, &end, 10);
    p = end;
    for (int s = 0; s < k->n_src && s < OPSCOPE_MAX_SRC; s++) {
        k->src_type[s] = (int32_t)strtol(p, &end, 10);
        p = end;
        for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) {
            k->src_ne[s][d] = strtoll(p, &end, 10);
            p = end;
        }
        for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) {
            k->src_nb[s][d] = strtoull(p, &end, 10);
            p = end;
        }
    }
}

/* Per-use duration histogram: bucket 8*octave + the 3 bits below the leading one. */
#define HIST_BUCKETS (64 * 8)

static unsigned hist_bucket(uint64_t ns) {
    if (ns < 8) return (unsigned)ns;
    unsigned oct = 63u - (unsigned)__builtin_clzll(ns);
    return oct * 8 + (unsigned)((ns >> (oct - 3)) & 7);
}

static uint64_t hist_value(unsigned b) {
    if (b < 8) return b;
    unsigned oct = b / 8, sub = b % 8;
    /* the middle of the bucket: (8 + sub + 0.5) * 2^(oct-3) */
    return (uint64_t)((16.0 + 2.0 * sub + 1.0) * (double)(1ull << (oct - 3)) / 2.0);
}

static uint64_t hist_median(const uint32_t *h, uint64_t count) {
    uint64_t half = (count + 1) / 2, seen = 0;
    for (unsigned b = 0; b < HIST_BUCKETS; b++) {
        seen += h[b];
        if (seen >= half) return hist_value(b);
    }
    return 0;
}

static int add_use(opscope_ops_export_t *x, entry *e, const opscope_record *r) {
    const char *fused = (r->n_fused > 1 || r->extra) ? r->extra : NULL;
    if (r->n_fused > 1 && !fused) fused = "fused";
    opscope_ops_use *u = NULL;
    for (size_t i = 0; i < e->n_uses; i++) {
        opscope_ops_use *v = &e->uses[i];
        if (v->backend_id == r->backend_id &&
            ((!v->fused && !fused) || (v->fused && fused && !strcmp(v->fused, fused)))) {
            u = v;
            break;
        }
    }
    if (!u) {
        if (opscope_vec_reserve((void **)&e->uses, &e->cap_uses, e->n_uses + 1, sizeof *e->uses, 16)) return 1;
        u = &e->uses[e->n_uses++];
        memset(u, 0, sizeof *u);
        u->backend_id = r->backend_id; /* named at finish: backends may come after records */
        u->fused = fused ? intern(x, fused) : NULL;
        if (fused && !u->fused) return 1;
        u->min_ns = UINT64_MAX;
        u->hist = calloc(HIST_BUCKETS, sizeof *u->hist);
        if (!u->hist) return 1;
    }
    u->hist[hist_bucket(r->duration_ns)]++;
    u->count++;
    u->total_ns += r->duration_ns;
    if (r->duration_ns < u->min_ns) u->min_ns = r->duration_ns;
    if (r->duration_ns > u->max_ns) u->max_ns = r->duration_ns;
    return 0;
}

static int add_skip(opscope_ops_export_t *x, const opscope_record *r, opscope_ops_skip_reason why) {
    char what[1024];
    size_t n;
    if (r->type == OPSCOPE_RECORD_COPY) {
        n = (size_t)snprintf(what, sizeof what, "COPY %s", r->name);
    } else {
        n = opscope_op_display(what, sizeof what, r->type, r->name, opscope_record_sub_op(r, NULL),
                               NULL);
        if (n >= sizeof what) n = sizeof what - 1;
        if (why != OPSCOPE_OPS_SKIP_SPLIT && why != OPSCOPE_OPS_SKIP_UNKNOWN_OP) {
            opscope_shape sh;
            opscope_shape_of_record(&sh, r);
            char shape[768];
            opscope_fmt_sources(shape, sizeof shape, &sh);
            if (shape[0]) n += (size_t)snprintf(what + n, sizeof what - n, " %s", shape);
        }
    }
    if (n >= sizeof what) n = sizeof what - 1;
    char key[1100];
    int kn = snprintf(key, sizeof key, "%d\t%.*s", (int)why, (int)n, what);
    if (kn < 0) return 1;
    if ((size_t)kn >= sizeof key) kn = (int)sizeof key - 1;
    uint32_t id;
    if (!opscope_strtab_intern(x->skips, key, (size_t)kn, &id)) return 1;
    if (id == x->n_sk) {
        if (opscope_vec_reserve((void **)&x->sk, &x->cap_sk, x->n_sk + 1, sizeof *x->sk, 16)) return 1;
        skip_entry *s = &x->sk[x->n_sk++];
        memset(s, 0, sizeof *s);
        s->s.reason = why;
        s->s.what = opscope_strtab_intern(x->strs, what, n, NULL);
        if (!s->s.what) return 1;
    }
    x->sk[id].s.count++;
    x->sk[id].s.total_ns += r->duration_ns;
    return 0;
}

static int on_record(void *ud, const opscope_record *r) {
    opscope_ops_export_t *x = ud;
    if (r->type == OPSCOPE_RECORD_OP) x->n_records++;
    unsigned notes = 0;
    opscope_ops_skip_reason why = opscope_ops_format_line(r, x->buf, sizeof x->buf, &notes);
    if (why != OPSCOPE_OPS_OK) return add_skip(x, r, why);
    x->n_exported++;
    size_t len = strlen(x->buf);
    uint32_t id;
    const char *text = opscope_strtab_intern(x->lines, x->buf, len, &id);
    if (!text) return 1;
    if (id == x->n_e) {
        if (opscope_vec_reserve((void **)&x->e, &x->cap_e, x->n_e + 1, sizeof *x->e, 16)) return 1;
        entry *e = &x->e[x->n_e++];
        memset(e, 0, sizeof *e);
        char tok[64];
        opscope_ops_name_token(r->tensor_name, tok);
        opscope_shape sh;
        opscope_shape_of_record(&sh, r);
        char shape[768];
        opscope_fmt_sources(shape, sizeof shape, &sh);
        e->line.text = text;
        e->line.name = intern(x, tok);
        e->line.op = intern(x, r->name);
        e->line.sub_op = intern(x, opscope_sub_op_name(r->name, r->op_params[0]));
        e->line.sub_op_value = e->line.sub_op ? r->op_params[0] : -1;
        e->line.shape = intern(x, shape);
        e->line.op_value = opscope_ggml_op_value(r->name);
        if (!e->line.name || !e->line.op || !e->line.shape) return 1;
        fill_key(&e->key, r, e->line.op_value, text);
    }
    entry *e = &x->e[id];
    e->line.notes |= notes;
    if (r->n_fused > 1 || r->extra) x->n_fused++;
    return add_use(x, e, r);
}

opscope_sink opscope_ops_export_sink(opscope_ops_export_t *x) {
    return opscope_record_sink(x, on_meta, on_backend, on_record);
}

#define CMP(a, b)                                                                              \
    do {                                                                                       \
        if ((a) != (b)) return (a) < (b) ? -1 : 1;                                             \
    } while (0)

static int key_cmp(const line_key *a, const line_key *b) {
    CMP((uint32_t)a->op, (uint32_t)b->op);
    CMP((uint32_t)a->type, (uint32_t)b->type);
    for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) CMP(a->ne[d], b->ne[d]);
    for (int i = 0; i < OPSCOPE_MAX_OP_PARAMS; i++) CMP(a->params[i], b->params[i]);
    int n = a->n_src < b->n_src ? a->n_src : b->n_src;
    for (int s = 0; s < n; s++) {
        CMP((uint32_t)a->src_type[s], (uint32_t)b->src_type[s]);
        for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) CMP(a->src_ne[s][d], b->src_ne[s][d]);
        for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) CMP(a->src_nb[s][d], b->src_nb[s][d]);
    }
    CMP(a->n_src, b->n_src);
    return 0;
}

static int order_cmp(const void *pa, const void *pb, void *ud) {
    const opscope_ops_export_t *x = ud;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int c = key_cmp(&x->e[a].key, &x->e[b].key);
    return c ? c : (a < b ? -1 : a > b);
}

static int use_cmp(const void *pa, const void *pb) {
    const opscope_ops_use *a = pa, *b = pb;
    if (a->total_ns != b->total_ns) return a->total_ns > b->total_ns ? -1 : 1;
    return a->backend_id < b->backend_id ? -1 : a->backend_id > b->backend_id;
}

static int skip_cmp(const void *pa, const void *pb) {
    const skip_entry *a = pa, *b = pb;
    if (a->s.reason != b->s.reason) return a->s.reason < b->s.reason ? -1 : 1;
    return strcmp(a->s.what, b->s.what);
}

int opscope_ops_export_finish(opscope_ops_export_t *x, opscope_error *err) {
    if (x->from_trace) {
        if (err) {
            memset(err, 0, sizeof *err);
            err->code = OPSCOPE_ERROR_FORMAT;
            err->msg = "a Kineto or Chrome trace holds GPU kernels and CPU calls, not ggml graph "
                       "ops: there is no ggml op, output, types or op params to rebuild; export "
                       "ops from a ggml profile (opscope record)";
        }
        return -1;
    }
    free(x->order);
    x->order = malloc((x->n_e ? x->n_e : 1) * sizeof *x->order);
    if (!x->order) {
        if (err) {
            memset(err, 0, sizeof *err);
            err->code = OPSCOPE_ERROR_NOMEM;
            err->msg = "out of memory";
        }
        return -1;
    }
    for (size_t i = 0; i < x->n_e; i++) {
        x->order[i] = i;
        entry *e = &x->e[i];
        for (size_t u = 0; u < e->n_uses; u++) {
            e->uses[u].backend = backend_of(x, e->uses[u].backend_id);
            opscope_ops_use *v = &e->uses[u];
            v->median_ns = hist_median(v->hist, v->count);
            if (v->median_ns < v->min_ns) v->median_ns = v->min_ns; /* a bucket's middle */
            if (v->median_ns > v->max_ns) v->median_ns = v->max_ns;
        }
        opscope_sort(e->uses, e->n_uses, sizeof *e->uses, use_cmp);
        e->line.uses = e->uses;
        e->line.n_uses = e->n_uses;
    }
    opscope_sort_r(x->order, x->n_e, sizeof *x->order, order_cmp, x);
    opscope_sort(x->sk, x->n_sk, sizeof *x->sk, skip_cmp);
    x->finished = true;
    return 0;
}

size_t opscope_ops_export_n_lines(const opscope_ops_export_t *x) { return x->n_e; }

const opscope_ops_line *opscope_ops_export_line(const opscope_ops_export_t *x, size_t i) {
    if (i >= x->n_e) return NULL;
    return &x->e[x->finished ? x->order[i] : i].line;
}

size_t opscope_ops_export_n_skipped(const opscope_ops_export_t *x) { return x->n_sk; }

const opscope_ops_skip *opscope_ops_export_skipped(const opscope_ops_export_t *x, size_t i) {
    return i < x->n_sk ? &x->sk[i].s : NULL;
}

uint64_t opscope_ops_export_records(const opscope_ops_export_t *x) { return x->n_records; }
uint64_t opscope_ops_export_records_exported(const opscope_ops_export_t *x) {
    return x->n_exported;
}

void opscope_ops_export_write(const opscope_ops_export_t *x, opscope_out_t *w) {
    for (size_t i = 0; i < x->n_e; i++) {
        const opscope_ops_line *l = opscope_ops_export_line(x, i);
        opscope_out_str(w, l->text);
        opscope_out_char(w, ' ');
        opscope_out_str(w, l->name);
        opscope_out_char(w, '\n');
    }
}

/* TSV cells carry no tab or newline. */
static void tsv_str(opscope_out_t *w, const char *s) {
    if (!s) return;
    for (; *s; s++) opscope_out_char(w, (*s == '\t' || *s == '\n' || *s == '\r') ? ' ' : *s);
}

void opscope_ops_export_write_tsv(const opscope_ops_export_t *x, opscope_out_t *w) {
    opscope_out_str(w, "line\top\tsub_op\tname\tbackend\tfused\tcount\ttotal_ns\tavg_ns\tmin_ns\t"
                       "max_ns\tmedian_ns\tshape\tnote\n");
    for (size_t i = 0; i < x->n_e; i++) {
        const opscope_ops_line *l = opscope_ops_export_line(x, i);
        for (size_t u = 0; u < l->n_uses; u++) {
            const opscope_ops_use *s = &l->uses[u];
            opscope_out_printf(w, "%zu\t", i + 1);
            tsv_str(w, l->op);
            opscope_out_char(w, '\t');
            tsv_str(w, l->sub_op);
            opscope_out_char(w, '\t');
            tsv_str(w, l->name);
            opscope_out_char(w, '\t');
            tsv_str(w, s->backend);
            opscope_out_char(w, '\t');
            tsv_str(w, s->fused);
            opscope_out_printf(w, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
                                  "\t%" PRIu64 "\t",
                               s->count, s->total_ns, s->count ? s->total_ns / s->count : 0,
                               s->min_ns, s->max_ns, s->median_ns);
            tsv_str(w, l->shape);
            opscope_out_char(w, '\t');
            if (l->notes & OPSCOPE_OPS_NOTE_NO_STRIDES)
                opscope_out_str(w, "strides not in the profile: written contiguous; ");
            if (l->notes & OPSCOPE_OPS_NOTE_INDEX_STRIDES)
                opscope_out_str(w, "strided index source written contiguous");
            opscope_out_char(w, '\n');
        }
    }
    for (size_t i = 0; i < x->n_sk; i++) {
        const opscope_ops_skip *s = &x->sk[i].s;
        opscope_out_str(w, "-\t");
        tsv_str(w, s->what);
        opscope_out_printf(w, "\t\t\t\t\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t\t\t\t\t", s->count,
                           s->total_ns, s->count ? s->total_ns / s->count : 0);
        opscope_out_str(w, "not exported: ");
        tsv_str(w, opscope_ops_skip_reason_text(s->reason));
        opscope_out_char(w, '\n');
    }
}

/* Fused pointers in address order (each group's name is one interned string). */
static int cmp_ptr(const void *a, const void *b) {
    uintptr_t x = (uintptr_t) * (const char *const *)a, y = (uintptr_t) * (const char *const *)b;
    return x < y ? -1 : x > y;
}

/* The distinct fused groups of X's lines: their names' pointers counted once. */
static size_t n_fused_groups(const opscope_ops_export_t *x) {
    size_t n = 0;
    for (size_t i = 0; i < x->n_e; i++) n += opscope_ops_export_line(x, i)->n_uses;
    const char **all = malloc((n ? n : 1) * sizeof *all);
    if (!all) return 0; /* out of memory: the closing count is left out, never wrong */
    size_t k = 0;
    for (size_t i = 0; i < x->n_e; i++) {
        const opscope_ops_line *l = opscope_ops_export_line(x, i);
        for (size_t u = 0; u < l->n_uses; u++)
            if (l->uses[u].fused) all[k++] = l->uses[u].fused;
    }
    opscope_sort(all, k, sizeof *all, cmp_ptr);
    size_t groups = 0;
    for (size_t i = 0; i < k; i++) groups += i == 0 || all[i] != all[i - 1];
    free(all);
    return groups;
}

/* The notes of each kind that repeat per op (skipped groups, fused groups, strided index
 * sources) capped at OPSCOPE_NOTES_SHOWN each (export/fmt/notes.h), FULL named for the rest. */
void opscope_ops_export_print_notes(const opscope_ops_export_t *x, FILE *f, const char *prefix, const char *full) {
    for (size_t i = 0; i < x->n_sk && i < OPSCOPE_NOTES_SHOWN; i++) {
        const opscope_ops_skip *s = &x->sk[i].s;
        fprintf(f, "%snot exported: %s (%" PRIu64 " record%s): %s\n", prefix, s->what, s->count,
                s->count == 1 ? "" : "s", opscope_ops_skip_reason_text(s->reason));
    }
    opscope_notes_more(f, prefix, x->n_sk, "not exported", full);
    /* fused groups: the line is the group's first op; the other nodes are not described */
    const char *seen[OPSCOPE_NOTES_SHOWN];
    size_t n_seen = 0;
    for (size_t i = 0; i < x->n_e && n_seen < OPSCOPE_NOTES_SHOWN; i++) {
        const opscope_ops_line *l = opscope_ops_export_line(x, i);
        for (size_t u = 0; u < l->n_uses && n_seen < OPSCOPE_NOTES_SHOWN; u++) {
            const char *fz = l->uses[u].fused;
            if (!fz) continue;
            bool dup = false;
            for (size_t k = 0; k < n_seen; k++) dup |= seen[k] == fz;
            if (dup) continue;
            seen[n_seen++] = fz;
            uint64_t cnt = 0;
            for (size_t j = 0; j < x->n_e; j++) {
                const opscope_ops_line *m = opscope_ops_export_line(x, j);
                for (size_t v = 0; v < m->n_uses; v++)
                    if (m->uses[v].fused == fz) cnt += m->uses[v].count;
            }
            fprintf(f, "%snote: %s was fused by the backend (%" PRIu64 " record%s): exported as "
                       "its first op, %s; the other nodes of the group are not in the profile, "
                       "and the captured time covers the whole group\n",
                    prefix, fz, cnt, cnt == 1 ? "" : "s", l->op);
        }
    }
    if (n_seen == OPSCOPE_NOTES_SHOWN)
        opscope_notes_more(f, prefix, n_fused_groups(x), "fused groups exported as their first op", full);
    size_t n_guess = 0, n_index = 0;
    for (size_t i = 0; i < x->n_e; i++) {
        n_guess += (x->e[i].line.notes & OPSCOPE_OPS_NOTE_NO_STRIDES) != 0;
        n_index += (x->e[i].line.notes & OPSCOPE_OPS_NOTE_INDEX_STRIDES) != 0;
    }
    if (n_guess)
        fprintf(f, "%snote: %zu line%s written with contiguous strides: the profile has no "
                   "strides for them\n",
                prefix, n_guess, n_guess == 1 ? "" : "s");
    size_t shown = 0;
    for (size_t i = 0; i < x->n_e && shown < OPSCOPE_NOTES_SHOWN && n_index; i++) {
        const opscope_ops_line *l = opscope_ops_export_line(x, i);
        if (!(l->notes & OPSCOPE_OPS_NOTE_INDEX_STRIDES)) continue;
        shown++;
        fprintf(f, "%snote: line %zu %s (%s): its integer source is a strided view in the "
                   "model, written contiguous: test-backend-ops fills index sources as if "
                   "contiguous, and a strided one would read uninitialised indices\n",
                prefix, i + 1, l->op, l->name);
    }
    opscope_notes_more(f, prefix, n_index, "lines whose strided index source was written contiguous", full);
}
