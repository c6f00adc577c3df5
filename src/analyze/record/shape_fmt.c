/* shape_fmt.c - shape and unit text for reports. */
#include "analyze/record/shape_fmt.h"
#include "model/record.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <string.h>

/* Dimensions shown: those > 0 (v2 files pad with 0), without trailing 1s past the first
 * (ggml fills unused dims with 1): [4096, 4096, 1, 1] -> [4096, 4096]. */
static int shown_dims(const int64_t ne[OPSCOPE_MAX_DIMS]) {
    int n = OPSCOPE_MAX_DIMS;
    while (n > 1 && (ne[n - 1] <= 1)) n--;
    return n;
}

static void sb_ne(opscope_strbuf *b, const int64_t ne[OPSCOPE_MAX_DIMS]) {
    int any = 0;
    int nd = shown_dims(ne);
    for (int d = 0; d < nd; d++) {
        if (ne[d] <= 0) continue;
        opscope_strbuf_add_str(b, any ? ", " : "[");
        opscope_strbuf_add_i64(b, ne[d]);
        any = 1;
    }
    if (any) opscope_strbuf_add_char(b, ']');
}

static int has_dims(const int64_t ne[OPSCOPE_MAX_DIMS]) {
    for (int d = 0; d < OPSCOPE_MAX_DIMS; d++)
        if (ne[d] > 0) return 1;
    return 0;
}

/* The sources of SH that have dimensions: "[4096, 32] x [4096]", or with LABELS (and their
 * types) "src0 [4096, 32] q4_0, src1 [4096] f32". Returns whether any was written. */
static int sb_sources(opscope_strbuf *b, const opscope_shape *sh, int labels) {
    int first = 1;
    for (int i = 0; i < sh->n_src; i++) {
        if (!has_dims(sh->ne_src[i])) continue;
        if (labels) {
            opscope_strbuf_add_str(b, first ? "src" : ", src");
            opscope_strbuf_add_i64(b, i);
            opscope_strbuf_add_char(b, ' ');
        } else if (!first) {
            opscope_strbuf_add_str(b, " x ");
        }
        sb_ne(b, sh->ne_src[i]);
        if (labels && sh->type_src[i] >= 0) {
            opscope_strbuf_add_char(b, ' ');
            opscope_strbuf_add_str(b, opscope_ggml_type_name(sh->type_src[i]));
        }
        first = 0;
    }
    return !first;
}

size_t opscope_fmt_ne(char *buf, size_t size, const int64_t ne[OPSCOPE_MAX_DIMS]) {
    opscope_strbuf b; /* bounded: the text is ASCII, so the cuts fall at the byte */
    opscope_strbuf_fixed(&b, buf, size);
    sb_ne(&b, ne);
    return b.len; /* the length stored */
}

size_t opscope_fmt_src_shapes(char *buf, size_t size, const opscope_shape *sh) {
    opscope_strbuf b;
    opscope_strbuf_fixed(&b, buf, size);
    sb_sources(&b, sh, 0);
    return b.len;
}

size_t opscope_fmt_sources(char *buf, size_t size, const opscope_shape *sh) {
    opscope_strbuf b;
    opscope_strbuf_fixed(&b, buf, size);
    int any = sb_sources(&b, sh, 1);
    if (sh->has_out && has_dims(sh->ne)) {
        opscope_strbuf_add_str(&b, any ? " -> " : "-> ");
        sb_ne(&b, sh->ne);
        if (sh->out_type >= 0) {
            opscope_strbuf_add_char(&b, ' ');
            opscope_strbuf_add_str(&b, opscope_ggml_type_name(sh->out_type));
        }
    }
    return b.len;
}

void opscope_shape_of_record(opscope_shape *sh, const opscope_record *rec) {
    int n = opscope_record_n_src(rec);
    memset(sh, 0, sizeof *sh);
    sh->n_src = n;
    memcpy(sh->ne_src, rec->ne_src, (size_t)n * sizeof rec->ne_src[0]);
    for (int i = 0; i < OPSCOPE_MAX_SRC; i++) sh->type_src[i] = i < n ? rec->type_src[i] : -1;
    sh->has_out = (rec->has & OPSCOPE_HAS_OUT) != 0;
    sh->out_type = sh->has_out ? rec->out_type : -1;
    if (sh->has_out) memcpy(sh->ne, rec->ne, sizeof sh->ne);
}

size_t opscope_fmt_bandwidth(char *buf, size_t size, uint64_t bytes, uint64_t ns) {
    if (size) buf[0] = '\0';
    if (!bytes || !ns) return 0;
    double gbs = (double)bytes / (double)ns; /* bytes per ns == GB/s */
    int n;
    if (gbs >= 1000.0)
        n = snprintf(buf, size, "%.2f TB/s", gbs / 1000.0);
    else if (gbs >= 0.01)
        n = snprintf(buf, size, "%.2f GB/s", gbs);
    else
        n = snprintf(buf, size, "%.2f MB/s", gbs * 1000.0);
    return n < 0 ? 0 : (size_t)n;
}

size_t opscope_fmt_bytes(char *buf, size_t size, uint64_t bytes) {
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1000.0 && u < 6) {
        v /= 1000.0;
        u++;
    }
    int n = u ? snprintf(buf, size, "%.1f %s", v, unit[u])
              : snprintf(buf, size, "%llu B", (unsigned long long)bytes);
    return n < 0 ? 0 : (size_t)n;
}
