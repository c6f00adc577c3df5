/* html_data.c - lane/row layout and the HTML file: template + JSON data block. */
#include "export/html/html_data.h"
#include "export/html/html_cpath.h"
#include "export/html/html_requests.h"
#include "export/html/html_windows.h"
#include "export/sections/sections.h"
#include "analyze/record/kernel_name.h"
#include "export/fmt/json_fmt.h"

#include "export/html/html_template.h"
#include "export/html/html_varint.h"
#include "util/out.h"
#include "util/sort.h"
#include "util/strbuf.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HTML_MAX_ROWS_PER_LANE 64

typedef struct rec_key {
    uint64_t start, dur;
    uint32_t lane, idx;
} rec_key;

static int cmp_key(const void *a, const void *b) {
    const rec_key *x = a, *y = b;
    if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->dur != y->dur) return x->dur > y->dur ? -1 : 1; /* enclosing calls first */
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Lanes in display order: by backend id, ops before copies, then split. */
static const opscope_html_lane *g_lanes_for_sort; /* qsort has no context argument */
static int cmp_lane(const void *a, const void *b) {
    const opscope_html_lane *x = &g_lanes_for_sort[*(const uint32_t *)a];
    const opscope_html_lane *y = &g_lanes_for_sort[*(const uint32_t *)b];
    if (x->backend != y->backend) return x->backend < y->backend ? -1 : 1;
    if (x->is_copy != y->is_copy) return x->is_copy < y->is_copy ? -1 : 1;
    return x->split < y->split ? -1 : x->split > y->split;
}

/* ---------------------------------------------------------------------------------------- */

static void set_err(opscope_error *err, opscope_error_code code, const char *msg) {
    if (!err) return;
    memset(err, 0, sizeof *err);
    err->code = code;
    err->msg = msg;
}

/* The encoded page data: columns and row layout (see docs/viewer.md). */
#define HTML_N_COLS 16

typedef struct html_enc {
    opscope_strbuf cols[HTML_N_COLS]; /* growable byte buffers */
    opscope_strbuf recs[3];
    uint32_t *lane_order, *row_count, *lane_rows;
    unsigned char *row_overlap;
    uint64_t t0;
} html_enc;

static const char *const k_col_names[HTML_N_COLS] = {
    "name", "sub_op", "extra", "tensor", "shape", "category", "type",
    "backend", "node", "fused", "bytes", "flops", "kernel", "n_kernels", "traffic", "tupper"};

static void enc_free(html_enc *e) {
    for (int c = 0; c < HTML_N_COLS; c++) opscope_strbuf_free(&e->cols[c]);
    for (int c = 0; c < 3; c++) opscope_strbuf_free(&e->recs[c]);
    free(e->lane_order);
    free(e->row_count);
    free(e->lane_rows);
    free(e->row_overlap);
}

static void out_data(opscope_out_t *w, const opscope_html_data *d, const html_enc *e);

/* Emits the template up to and including its markers, calling back for each part. */
static void out_template(opscope_out_t *w, const opscope_html_data *d, const html_enc *e);

/* Lays out and encodes D into E (freed by enc_free on success and failure). */
static int html_encode(const opscope_html_data *d, html_enc *enc, opscope_error *err) {
    int rc = -1;
    rec_key *keys = NULL;
    uint32_t *row_of = NULL, *order = NULL, *row_count = NULL, *lane_rows = NULL;
    uint32_t *lane_order = NULL, *lane_rank = NULL, *row_pos = NULL;
    unsigned char *row_overlap = NULL;
    enum { N_COLS = HTML_N_COLS };
    memset(enc, 0, sizeof *enc);
    opscope_strbuf *cols = enc->cols, *recs = enc->recs;
    size_t n = d->n, nl = d->n_lanes;
    lane_order = malloc((nl + 1) * sizeof *lane_order);
    lane_rank = malloc((nl + 1) * sizeof *lane_rank);
    lane_rows = calloc(nl + 1, sizeof *lane_rows);
    keys = malloc((n + 1) * sizeof *keys);
    row_of = malloc((n + 1) * sizeof *row_of);
    size_t max_rows = nl * HTML_MAX_ROWS_PER_LANE + 1;
    row_count = calloc(max_rows, sizeof *row_count);
    row_overlap = calloc(max_rows, 1);
    row_pos = malloc(max_rows * sizeof *row_pos);
    order = malloc((n + 1) * sizeof *order);
    if (!lane_order || !lane_rank || !lane_rows || !keys || !row_of || !row_count ||
        !row_overlap || !row_pos || !order) {
        set_err(err, OPSCOPE_ERROR_NOMEM, "out of memory while laying out the HTML viewer");
        goto done;
    }

    for (uint32_t i = 0; i < nl; i++) lane_order[i] = i;
    g_lanes_for_sort = d->lanes;
    opscope_sort(lane_order, nl, sizeof *lane_order, cmp_lane);
    for (uint32_t i = 0; i < nl; i++) lane_rank[lane_order[i]] = i;

    uint64_t t0 = n ? UINT64_MAX : 0;
    for (size_t i = 0; i < n; i++) {
        keys[i] = (rec_key){d->start[i], d->dur[i], lane_rank[d->lane[i]], (uint32_t)i};
        if (d->start[i] < t0) t0 = d->start[i];
    }
    /* no records (a CPU-only trace): times count from the CPU side's first slice, so the
     * page spans the trace, not the clock's origin */
    int64_t cpu_first;
    if (!n && opscope_html_cpu_first(d->cpu, &cpu_first) && cpu_first > 0) t0 = (uint64_t)cpu_first;
    opscope_sort(keys, n, sizeof *keys, cmp_key);

    /* Greedy rows: the first row free at the record's start; past the cap, the row that
     * frees earliest, flagged as overlapping (the viewer then searches it differently). */
    uint32_t n_rows = 0;
    for (size_t i = 0; i < n;) {
        uint32_t lane = keys[i].lane, base = n_rows, nr = 0;
        uint64_t row_end[HTML_MAX_ROWS_PER_LANE];
        for (; i < n && keys[i].lane == lane; i++) {
            uint64_t s = keys[i].start, e = s + keys[i].dur;
            if (e < s) e = UINT64_MAX;
            uint32_t r = 0;
            while (r < nr && row_end[r] > s) r++;
            if (r == nr) {
                if (nr < HTML_MAX_ROWS_PER_LANE) {
                    row_end[nr++] = 0;
                } else {
                    r = 0;
                    for (uint32_t k = 1; k < nr; k++)
                        if (row_end[k] < row_end[r]) r = k;
                    row_overlap[base + r] = 1;
                }
            }
            if (e > row_end[r]) row_end[r] = e;
            row_of[i] = base + r;
            row_count[base + r]++;
        }
        lane_rows[lane] = nr;
        n_rows += nr;
    }
    /* Counting sort by row keeps start order inside each row. */
    uint32_t acc = 0;
    for (uint32_t r = 0; r < n_rows; r++) {
        row_pos[r] = acc;
        acc += row_count[r];
    }
    for (size_t i = 0; i < n; i++) order[row_pos[row_of[i]]++] = (uint32_t)i;

    /* Per-record columns: signature, start delta within its row, duration. */
    uint32_t cur_row = UINT32_MAX;
    uint64_t prev = t0;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = order[k];
        const rec_key *key = &keys[i];
        if (row_of[i] != cur_row) {
            cur_row = row_of[i];
            prev = t0;
        }
        opscope_html_vb_u64(&recs[0], d->sig[key->idx]);
        opscope_html_vb_u64(&recs[1], key->start - prev);
        opscope_html_vb_u64(&recs[2], key->dur);
        prev = key->start;
    }
    for (size_t s = 0; s < d->n_sigs; s++) {
        const opscope_html_sig *g = &d->sigs[s];
        opscope_html_vb_id(&cols[0], g->name);
        opscope_html_vb_id(&cols[1], g->sub_op);
        opscope_html_vb_id(&cols[2], g->extra);
        opscope_html_vb_id(&cols[3], g->tensor);
        opscope_html_vb_id(&cols[4], g->shape);
        opscope_html_vb_id(&cols[5], g->category);
        opscope_html_vb_u64(&cols[6], g->type);
        opscope_html_vb_zz(&cols[7], g->backend);
        opscope_html_vb_zz(&cols[8], g->node);
        opscope_html_vb_zz(&cols[9], g->n_fused);
        opscope_html_vb_u64(&cols[10], g->bytes);
        opscope_html_vb_u64(&cols[11], g->flops);
        opscope_html_vb_id(&cols[12], g->kernel);
        opscope_html_vb_zz(&cols[13], g->n_kernels);
        opscope_html_vb_u64(&cols[14], g->traffic);
        opscope_html_vb_u64(&cols[15], g->traffic_upper);
    }
    for (int c = 0; c < N_COLS; c++)
        if (cols[c].failed) goto nomem;
    for (int c = 0; c < 3; c++)
        if (recs[c].failed) goto nomem;

    enc->lane_order = lane_order;
    enc->row_count = row_count;
    enc->lane_rows = lane_rows;
    enc->row_overlap = row_overlap;
    enc->t0 = t0;
    lane_order = row_count = lane_rows = NULL;
    row_overlap = NULL;
    rc = 0;
    goto done;
nomem:
    set_err(err, OPSCOPE_ERROR_NOMEM, "out of memory while encoding the HTML viewer");
done:
    free(keys);
    free(row_of);
    free(order);
    free(row_count);
    free(row_overlap);
    free(row_pos);
    free(lane_rows);
    free(lane_order);
    free(lane_rank);
    if (rc) enc_free(enc);
    return rc;
}

/* The page of D and E into W. Returns 0, or -1 with ERR filled when W failed. */
static int write_encoded(opscope_out_t *w, const opscope_html_data *d, const html_enc *e, opscope_error *err) {
    out_template(w, d, e);
    if (!opscope_out_failed(w)) return 0;
    set_err(err, OPSCOPE_ERROR_IO, "write failed");
    if (err) snprintf(err->file, sizeof err->file, "%s", d->out_path);
    return -1;
}

int opscope_html_write(const opscope_html_data *d, opscope_error *err) {
    html_enc e;
    if (html_encode(d, &e, err)) return -1;
    int rc = -1;
    opscope_out_t *w = opscope_out_open(d->out_path, err);
    if (w && write_encoded(w, d, &e, err)) opscope_out_abort(w);
    else if (w) rc = opscope_out_commit(w, err);
    enc_free(&e);
    return rc;
}

int opscope_html_write_page(opscope_out_t *w, const opscope_html_data *d, opscope_error *err) {
    html_enc e;
    if (html_encode(d, &e, err)) return -1;
    int rc = write_encoded(w, d, &e, err);
    enc_free(&e);
    return rc;
}

int opscope_html_write_data(opscope_out_t *w, const opscope_html_data *d, opscope_error *err) {
    html_enc e;
    if (html_encode(d, &e, err)) return -1;
    out_data(w, d, &e);
    enc_free(&e);
    return 0;
}

/* ---------------------------------------------------------------------------------------- */

/* The "short" member: short forms of long kernel names (analyze/record/kernel_name.h) for the
 * legend, keyed by the names' ids in the signatures; the full name stays in the strings. */
static void short_names_json(opscope_jw *j, const opscope_html_data *d) {
    uint32_t ns = opscope_strtab_count(d->strings);
    opscope_jw_obj(j, "short");
    uint8_t *done = calloc((size_t)ns + 2, 1);
    for (size_t k = 0; done && k < d->n_sigs; k++) {
        uint32_t id = d->sigs[k].name; /* the signatures' ids are this plus one */
        if (id >= ns || done[id]) continue;
        done[id] = 1;
        const char *name = opscope_strtab_get(d->strings, id);
        char buf[256], key[16];
        size_t n = opscope_kernel_name_short(buf, sizeof buf, name);
        if (n >= sizeof buf || !strcmp(buf, name)) continue; /* unchanged, or still too long */
        snprintf(key, sizeof key, "%u", (unsigned)id + 1);
        opscope_jw_str(j, key, buf);
    }
    free(done);
    opscope_jw_end_obj(j);
}

/* The "lanes" member: each lane's backend, copy flag, split and rows (records, overlap). */
static void lanes_json(opscope_jw *j, const opscope_html_data *d, const html_enc *e) {
    uint32_t row = 0;
    opscope_jw_arr(j, "lanes");
    for (size_t k = 0; k < d->n_lanes; k++) {
        const opscope_html_lane *l = &d->lanes[e->lane_order[k]];
        opscope_jw_item_obj(j);
        opscope_jw_i64(j, "backend", l->backend);
        opscope_jw_u64(j, "copy", l->is_copy);
        opscope_jw_i64(j, "split", l->split);
        opscope_jw_arr(j, "rows");
        for (uint32_t r = 0; r < e->lane_rows[k]; r++) opscope_jw_item_u64(j, e->row_count[row + r]);
        opscope_jw_end_arr(j);
        opscope_jw_arr(j, "overlap");
        for (uint32_t r = 0; r < e->lane_rows[k]; r++) opscope_jw_item_u64(j, e->row_overlap[row + r]);
        opscope_jw_end_arr(j);
        opscope_jw_end_obj(j);
        row += e->lane_rows[k];
    }
    opscope_jw_end_arr(j);
}

static void out_data(opscope_out_t *w, const opscope_html_data *d, const html_enc *e) {
    char t0[24];
    snprintf(t0, sizeof t0, "%" PRIu64, e->t0); /* a string: ns since an arbitrary origin exceed 2^53 */
    opscope_jw j = opscope_jw_object(w);
    opscope_jw_str(&j, "format", "opscope-viewer");
    opscope_jw_i64(&j, "v", 1);
    opscope_jw_str(&j, "source", d->source_name);
    opscope_jw_str(&j, "profiler", d->profiler);
    opscope_jw_i64(&j, "version", d->version);
    const opscope_jw_u64_kv records[] = {{"seen", d->seen}, {"kept", d->n}, {"stride", d->stride},
                                         {"total_records", d->total_records}, {"dropped", d->dropped_records}};
    opscope_jw_u64s(&j, records, sizeof records / sizeof *records);
    if (d->ended) opscope_jw_str(&j, "ended", d->ended);
    opscope_jw_str(&j, "t0", t0);
    opscope_jw_arr(&j, "strings");
    for (uint32_t i = 0, ns = opscope_strtab_count(d->strings); i < ns; i++)
        opscope_jw_item_str(&j, opscope_strtab_get(d->strings, i));
    opscope_jw_end_arr(&j);
    short_names_json(&j, d);
    opscope_jw_arr(&j, "backends");
    for (size_t i = 0; i < d->n_backends; i++) {
        const opscope_backend *b = &d->backends[i];
        opscope_jw_item(&j);
        opscope_json_write_backend_in(w, b->id, b->name, b->device, (int)b->device_type, b->process);
    }
    opscope_jw_end_arr(&j);
    opscope_jw_arr(&j, "sampled");
    for (size_t i = 0; i < d->n_sampled; i++) {
        const opscope_html_sampled *x = &d->sampled[i];
        opscope_jw_item_obj(&j);
        opscope_jw_str(&j, "name", x->name == UINT32_MAX ? "" : opscope_strtab_get(d->strings, x->name));
        opscope_jw_str(&j, "sub", x->sub_op == UINT32_MAX ? "" : opscope_strtab_get(d->strings, x->sub_op));
        opscope_jw_u64(&j, "timed", x->timed);
        opscope_jw_u64(&j, "computes", x->computes);
        opscope_jw_u64(&j, "est_ns", x->est_ns);
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
    if (d->peak) {
        opscope_jw_key(&j, "peak");
        opscope_peak_write_json(w, d->peak);
    }
    lanes_json(&j, d, e);
    opscope_jw_obj(&j, "sigs");
    opscope_jw_u64(&j, "n", d->n_sigs);
    for (size_t c = 0; c < HTML_N_COLS; c++) {
        opscope_jw_key(&j, k_col_names[c]);
        opscope_html_out_base64(w, &e->cols[c]);
    }
    opscope_jw_end_obj(&j);
    static const char *const recs[] = {"sig", "start", "dur"};
    opscope_jw_obj(&j, "recs");
    for (int c = 0; c < 3; c++) {
        opscope_jw_key(&j, recs[c]);
        opscope_html_out_base64(w, &e->recs[c]);
    }
    opscope_jw_end_obj(&j);
    opscope_html_cpu_write(w, d->cpu, e->t0);
    opscope_html_graphs_write(w, d->graphs, e->t0);
    opscope_html_requests_write(w, d->reqs, d->n_reqs, e->t0);
    opscope_html_windows_write(w, d->win, e->t0, d->last_ns);
    opscope_html_cpath_write(w, d->cpath, e->t0);
    (void)opscope_html_threads_write(w, d->threads, e->t0); /* out of memory: a page without thread lanes */
    opscope_jw_end_obj(&j);
}

int opscope_html_viewer_asset(opscope_out_t *w, const char *name, size_t len) {
    if (opscope_html_marker_is(name, len, "CSS")) {
        opscope_out_str(w, "<style>\n");
        opscope_out_write(w, opscope_viewer_css, opscope_viewer_css_len);
        opscope_out_str(w, "</style>");
    } else if (opscope_html_marker_is(name, len, "CSP")) {
        opscope_html_write_csp(w, opscope_viewer_js_sha256);
    } else if (opscope_html_marker_is(name, len, "JS")) {
        opscope_html_write_script(w, opscope_viewer_js, opscope_viewer_js_len);
    } else {
        return 1;
    }
    return 0;
}

typedef struct viewer_page {
    const opscope_html_data *d;
    const html_enc *e;
} viewer_page;

static int fill(opscope_out_t *w, const char *name, size_t len, void *ctx, opscope_error *err) {
    (void)err;
    const viewer_page *pg = ctx;
    if (opscope_html_viewer_asset(w, name, len) == 0) {
        return 0;
    } else if (opscope_html_marker_is(name, len, "DATA")) {
        /* JSON, not script: the browser never runs it; json_str escapes '<' so the
         * element cannot be closed by data. */
        opscope_out_str(w, "<script type=\"application/json\" id=\"opscope-data\">");
        out_data(w, pg->d, pg->e);
        opscope_out_str(w, "</script>");
    } else {
        return 1;
    }
    return 0;
}

static void out_template(opscope_out_t *w, const opscope_html_data *d, const html_enc *e) {
    viewer_page pg = {d, e};
    opscope_html_template_write(w, opscope_viewer_html, opscope_viewer_html_len, fill, &pg, NULL);
}
