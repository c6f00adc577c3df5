/*
 * traffic.c - memory traffic per record (bytes read and written; the TRAFFIC column of
 * model/ggml_ops.def names each op's rule).
 *
 * The rules are in docs/metrics.md ("Traffic"): each source as the op touches it, each byte
 * once, plus the output written. Nothing is guessed: a record without ggml types or shapes
 * has an unknown traffic.
 */
#include "model/op_cost.h"
#include "model/ggml_vocab.h"
#include "opscope.h"

#include <stdbool.h>
#include <string.h>

static uint64_t mul_sat(uint64_t a, uint64_t b) {
    if (a == 0 || b == 0) return 0;
    if (a > UINT64_MAX / b) return UINT64_MAX;
    return a * b;
}

static uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

static uint64_t dim1(int64_t v) { return v > 0 ? (uint64_t)v : 1; }

static bool src_present(const opscope_record *r, int i) {
    return i < r->n_src && i < OPSCOPE_MAX_SRC && r->ne_src[i][0] > 0;
}

static int32_t src_type(const opscope_record *r, int i) {
    return (r->has & OPSCOPE_HAS_SRC_TYPES) ? r->type_src[i] : -1;
}

/* Rows (dims 1..3) of source I; a dim whose stride is 0 is a broadcast and counts once. */
static uint64_t src_rows(const opscope_record *r, int i) {
    uint64_t n = 1;
    for (int d = 1; d < OPSCOPE_MAX_DIMS; d++) {
        bool bcast = (r->has & OPSCOPE_HAS_STRIDES) && r->nb_src[i][d] == 0;
        if (!bcast) n = mul_sat(n, dim1(r->ne_src[i][d]));
    }
    return n;
}

static uint64_t src_elems(const opscope_record *r, int i) {
    return mul_sat((uint64_t)r->ne_src[i][0], src_rows(r, i));
}

/* Bytes of ROWS rows of source I's row layout (its type, its ne[0]); false when unknown. */
static bool src_row_bytes(const opscope_record *r, int i, uint64_t rows, uint64_t *out) {
    uint64_t row = opscope_ggml_type_bytes(src_type(r, i), (uint64_t)r->ne_src[i][0]);
    if (!row) return false;
    *out = mul_sat(row, rows);
    return true;
}

/* Source I read whole (its viewed elements). */
static bool src_bytes(const opscope_record *r, int i, uint64_t *out) {
    return src_row_bytes(r, i, src_rows(r, i), out);
}

/* Sources FROM..TO-1 read whole; absent ones count 0. */
static bool sum_src_range(const opscope_record *r, int from, int to, uint64_t *acc) {
    for (int i = from; i < to && i < r->n_src && i < OPSCOPE_MAX_SRC; i++) {
        if (!src_present(r, i)) continue;
        uint64_t b;
        if (!src_bytes(r, i, &b)) return false;
        *acc = add_sat(*acc, b);
    }
    return true;
}

/* Sources FROM.. read whole. */
static bool sum_srcs(const opscope_record *r, int from, uint64_t *acc) {
    return sum_src_range(r, from, OPSCOPE_MAX_SRC, acc);
}

/* The output written: the recorded output shape and type, else the record's bytes (the
 * output size; a fused record's is its last node's). */
static bool out_bytes(const opscope_record *r, uint64_t *out) {
    if (r->n_fused <= 1 && (r->has & OPSCOPE_HAS_OUT) && r->out_type >= 0 && r->ne[0] > 0) {
        uint64_t n = (uint64_t)r->ne[0];
        for (int d = 1; d < OPSCOPE_MAX_DIMS; d++) n = mul_sat(n, dim1(r->ne[d]));
        uint64_t b = opscope_ggml_type_bytes(r->out_type, n);
        if (b) {
            *out = b;
            return true;
        }
    }
    if (r->bytes) {
        *out = r->bytes;
        return true;
    }
    return false;
}

/* GET_ROWS: src0 [ne0, rows, ...] table, src1 ids: only the selected rows are read (at most
 * the table: a row selected twice is read from cache). */
static bool traffic_get_rows(const opscope_record *r, opscope_traffic *t) {
    if (!src_present(r, 0) || !src_present(r, 1)) return false;
    uint64_t sel = src_elems(r, 1), rows = src_rows(r, 0), b0, rest = 0;
    if (!src_row_bytes(r, 0, sel < rows ? sel : rows, &b0) || !sum_srcs(r, 1, &rest)) return false;
    t->read_bytes = add_sat(b0, rest);
    return out_bytes(r, &t->write_bytes);
}

/* SET_ROWS: src0 [ne0, n, ...] rows to write, src1 ids; writes n rows of the destination's
 * type, not the destination (a whole KV cache), which ggml also lists as src2: not read. */
static bool traffic_set_rows(const opscope_record *r, opscope_traffic *t) {
    if (!src_present(r, 0)) return false;
    if (!sum_src_range(r, 0, 2, &t->read_bytes)) return false;
    if (r->n_fused > 1) return out_bytes(r, &t->write_bytes); /* the capture's rows written */
    if (!(r->has & OPSCOPE_HAS_OUT) || r->out_type < 0) return false;
    uint64_t row = opscope_ggml_type_bytes(r->out_type, (uint64_t)r->ne_src[0][0]);
    if (!row) return false;
    t->write_bytes = mul_sat(row, src_rows(r, 0));
    return true;
}

/* MUL_MAT_ID: src0 experts [K, M, n_expert], src1 [K, n_used or 1, n_tokens], src2 ids
 * [n_used, n_tokens]. The ids' values are not recorded: the experts read are at most
 * min(n_expert, n_used * n_tokens), and at least n_used. */
static bool traffic_mul_mat_id(const opscope_record *r, opscope_traffic *t) {
    if (!src_present(r, 0) || !src_present(r, 1)) return false;
    uint64_t n_expert = dim1(r->ne_src[0][2]), used, tokens;
    if (src_present(r, 2)) {
        used = (uint64_t)r->ne_src[2][0];
        tokens = dim1(r->ne_src[2][1]);
    } else {
        used = dim1(r->ne_src[1][1]);
        tokens = dim1(r->ne_src[1][2]);
    }
    uint64_t reach = mul_sat(used, tokens);
    uint64_t touched = reach < n_expert ? reach : n_expert;
    uint64_t b0, rest = 0;
    /* one expert: M rows of K (ne[3] of a 4-D expert tensor counts as more rows) */
    uint64_t rows = mul_sat(dim1(r->ne_src[0][1]), dim1(r->ne_src[0][3]));
    if (!src_row_bytes(r, 0, mul_sat(rows, touched), &b0) || !sum_srcs(r, 1, &rest)) return false;
    t->read_bytes = add_sat(b0, rest);
    if (touched > used) t->flags |= OPSCOPE_TRAFFIC_UPPER_BOUND;
    return out_bytes(r, &t->write_bytes);
}

uint64_t opscope_op_traffic(const opscope_record *rec, int op, opscope_traffic *out) {
    memset(out, 0, sizeof *out);
    if (!rec || !rec->name) return 0;
    bool ok;
    if (rec->type == OPSCOPE_RECORD_COPY) {
        /* a transfer: its size, once */
        out->write_bytes = rec->bytes;
        ok = rec->bytes > 0;
    } else {
        switch (opscope_ggml_op_traffic(op)) {
        case OPSCOPE_GGML_TRAFFIC_VIEW: ok = true; break; /* no data moves */
        case OPSCOPE_GGML_TRAFFIC_GET_ROWS: ok = traffic_get_rows(rec, out); break;
        case OPSCOPE_GGML_TRAFFIC_SET_ROWS: ok = traffic_set_rows(rec, out); break;
        case OPSCOPE_GGML_TRAFFIC_MUL_MAT_ID: ok = traffic_mul_mat_id(rec, out); break;
        case OPSCOPE_GGML_TRAFFIC_SRCS:
        default:
            ok = rec->n_src > 0 && sum_srcs(rec, 0, &out->read_bytes) &&
                 out_bytes(rec, &out->write_bytes);
        }
    }
    if (!ok) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    out->flags |= OPSCOPE_TRAFFIC_KNOWN;
    return add_sat(out->read_bytes, out->write_bytes);
}

uint64_t opscope_record_traffic(const opscope_record *rec, opscope_traffic *out) {
    return opscope_op_traffic(rec, rec ? opscope_ggml_op_value(rec->name) : -1, out);
}
