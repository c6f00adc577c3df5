/* job_html.c - a job's viewer page: one data block per rank and the job's summary (job_html.h).
 * Every string reaches the page through the JSON writer, which escapes < > &, so no data can
 * close a <script> element; the script runs under a CSP that admits only its own hash. */
#include "export/job/job_html.h"

#include "export/html/html_data.h"
#include "export/html/html_template.h"

#include <inttypes.h>

typedef struct job_page {
    opscope_job_html_data_fn data;
    void *ctx;
} job_page;

static int fill(opscope_out_t *w, const char *name, size_t len, void *ctx, opscope_error *err) {
    const job_page *pg = ctx;
    if (opscope_html_viewer_asset(w, name, len) == 0) {
        return 0;
    } else if (opscope_html_marker_is(name, len, "DATA")) {
        return pg->data(w, pg->ctx, err) ? -1 : 0;
    } else {
        return 1;
    }
    return 0;
}

int opscope_job_html_write(opscope_out_t *w, opscope_job_html_data_fn data, void *ctx, opscope_error *err) {
    job_page pg = {data, ctx};
    return opscope_html_template_write(w, opscope_viewer_html, opscope_viewer_html_len, fill, &pg, err);
}

int opscope_job_html_rank_data(opscope_out_t *w, opscope_html_sink_t *h, opscope_error *err) {
    return opscope_html_sink_write_data(h, w, err) ? -1 : 0;
}

int opscope_job_html_copy_block(opscope_out_t *w, int64_t rank, FILE *f) {
    char buf[1 << 16];
    size_t n;
    opscope_out_printf(w, "\n<script type=\"application/json\" class=\"opscope-rank\" data-rank=\"%" PRId64 "\">",
                       rank);
    rewind(f);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) opscope_out_write(w, buf, n);
    int rc = ferror(f) ? -1 : 0;
    fclose(f);
    opscope_out_str(w, "</script>");
    return rc;
}

void opscope_job_html_job(opscope_out_t *w, const opscope_job *job, const opscope_job_read_info *ri) {
    opscope_out_str(w, "\n<script type=\"application/json\" id=\"opscope-job\">");
    opscope_job_report_json(w, job, ri);
    opscope_out_str(w, "</script>");
}
