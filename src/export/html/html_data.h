/*
 * html_data.h - lays out buffered viewer data and writes the HTML file (internal, used by
 * html.c). Records are sorted per lane by start, placed greedily into non-overlapping rows
 * (a row that had to take overlapping records is flagged), and written as base64 varint
 * columns in a JSON block: see docs/viewer.md for the format.
 * Thread safety: none; reads DATA, writes only the output file.
 */
#ifndef OPSCOPE_HTML_DATA_H
#define OPSCOPE_HTML_DATA_H

#include "opscope.h"
#include "analyze/kineto/critical_path.h"
#include "analyze/ggml/roofline.h"
#include "export/html/html_cpu.h"
#include "export/html/html_graphs.h"
#include "export/html/html_threads.h"
#include "model/strtab.h"
#include "util/out.h"

/* Everything about a call except its time; equal calls share one id. Compared as bytes:
 * zero the whole struct (padding included) before filling it. */
typedef struct opscope_html_sig {
    uint32_t name, sub_op, extra, tensor, shape, category; /* string ids, UINT32_MAX = none */
    uint32_t kernel;                                       /* device kernels (string id) */
    int32_t backend, node, n_fused;                        /* node -1 = unknown */
    int32_t n_kernels;                                     /* dispatches and transfers, 0 = none */
    uint32_t type;                                         /* 0 OP, 1 COPY */
    uint64_t bytes, flops;
    uint64_t traffic;   /* memory traffic + 1 (opscope_record_traffic), 0 = unknown */
    uint32_t traffic_upper; /* 1: the traffic is an upper bound */
} opscope_html_sig;

/* One timeline lane: a backend's ops or copies on one split/stream. */
typedef struct opscope_html_lane {
    int32_t backend, split;
    uint32_t is_copy;
} opscope_html_lane;

/* Sampled device timing per op (name and sub-op, as the viewer's op table): the computes
 * device-timed, those they stand for (weights) and the estimated total (docs/capture.md). */
typedef struct opscope_html_sampled {
    uint32_t name, sub_op; /* string ids, UINT32_MAX = none */
    uint64_t timed, computes, est_ns;
    int64_t graph_;        /* internal: the compute counted last */
    int32_t split_;
} opscope_html_sampled;

typedef struct opscope_html_data {
    const char *out_path, *source_name;
    const opscope_strtab_t *strings;
    size_t n;                    /* records */
    const uint64_t *start, *dur; /* ns */
    const uint32_t *sig, *lane;  /* ids into sigs, lanes */
    uint64_t seen, stride;       /* records offered, and keep-every-k-th */
    const opscope_html_sig *sigs;
    size_t n_sigs;
    const opscope_html_lane *lanes;
    size_t n_lanes;
    const opscope_backend *backends;
    size_t n_backends;
    const char *profiler;
    int32_t version;
    uint64_t total_records, dropped_records;
    const char *ended;        /* how the program ended when the capture did not see it, or NULL */
    const opscope_peak *peak; /* measured peaks for the roofline chart, or NULL */
    opscope_html_cpu_t *cpu;  /* a trace's CPU side, or NULL */
    const opscope_html_graphs_t *graphs; /* the graph computes (finished), or NULL */
    const opscope_cpath_t *cpath; /* its critical path, or NULL */
    const opscope_html_threads_t *threads; /* CPU nodes' per-thread times, or NULL */
    const opscope_html_sampled *sampled; /* every record's, before any stride */
    size_t n_sampled;
    const struct opscope_run_request *reqs; /* a llama.cpp run's requests (html_requests.h) */
    size_t n_reqs;
    const opscope_capture_info *win; /* its windows and marks (html_windows.h), or NULL */
    uint64_t last_ns;                /* the last record's end: an open window's, without a write */
} opscope_html_data;

/* Writes DATA->out_path (temp file + rename). Returns 0, or -1 with ERR filled. */
int opscope_html_write(const opscope_html_data *data, opscope_error *err);

/* The viewer page's shared pieces for template marker NAME (NAME_LEN bytes): its stylesheet
 * (CSS), its CSP and its one script (JS), as every viewer page (one profile's, a job's) has
 * them. Returns 0 when written, 1 when NAME is none of them. */
int opscope_html_viewer_asset(opscope_out_t *w, const char *name, size_t name_len);

/* Writes the page to W, which the caller commits or aborts. Returns 0, or -1 with ERR
 * filled (DATA->out_path names the file in it). */
int opscope_html_write_page(opscope_out_t *w, const opscope_html_data *data, opscope_error *err);

/* Writes only the data object (no template) to W. Returns 0, or -1 with ERR filled. */
int opscope_html_write_data(opscope_out_t *w, const opscope_html_data *data, opscope_error *err);

#endif /* OPSCOPE_HTML_DATA_H */
