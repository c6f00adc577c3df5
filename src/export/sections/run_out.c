/* run_out.c - what ran, the slow setups and a llama-bench run's tests (see sections.h). */
#include "export/sections/sections.h"
#include "analyze/ggml/run_tests.h"
#include "export/fmt/json_fmt.h"

#include <stdlib.h>
#include <string.h>

/* llama.cpp's llama_ftype names (general.file_type) for the common ones. */
static const char *ftype_name(int32_t t) {
    switch (t) {
    case 0: return "F32";
    case 1: return "F16";
    case 2: return "Q4_0";
    case 3: return "Q4_1";
    case 7: return "Q8_0";
    case 8: return "Q5_0";
    case 9: return "Q5_1";
    case 10: return "Q2_K";
    case 12: return "Q3_K_M";
    case 14: return "Q4_K_S";
    case 15: return "Q4_K_M";
    case 16: return "Q5_K_S";
    case 17: return "Q5_K_M";
    case 18: return "Q6_K";
    case 32: return "BF16";
    default: return NULL;
    }
}

static const char *base_name(const char *p) {
    const char *b = p ? strrchr(p, '/') : NULL;
    return b ? b + 1 : p ? p : "?";
}

static void write_params(opscope_out_t *w, uint64_t n) {
    if (n >= 1000000000u) opscope_out_printf(w, "%.2f B params", (double)n / 1e9);
    else if (n >= 1000000u) opscope_out_printf(w, "%.2f M params", (double)n / 1e6);
    else opscope_out_printf(w, "%llu params", (unsigned long long)n);
}

static void write_model(opscope_out_t *w, const opscope_run_model *m) {
    opscope_out_printf(w, "%s:", m->path ? m->path : "?");
    if (m->architecture) opscope_out_printf(w, " %s,", m->architecture);
    if (m->n_params) {
        opscope_out_char(w, ' ');
        write_params(w, m->n_params);
        opscope_out_char(w, ',');
    }
    const char *ft = ftype_name(m->file_type);
    if (ft) opscope_out_printf(w, " %s,", ft);
    else if (m->file_type >= 0) opscope_out_printf(w, " file type %d,", (int)m->file_type);
    opscope_out_printf(w, " %.1f MiB\n", (double)m->size_bytes / (1024.0 * 1024.0));
}

static void write_note_text(opscope_out_t *w, const opscope_run_note *n, const opscope_run_info *run) {
    if (n->kind == OPSCOPE_RUN_NOTE_REFERENCE_BLAS) {
        opscope_out_str(w, " Slow setup:    the BLAS library is netlib's reference BLAS (1 thread, unoptimised)");
        if (n->ns)
            opscope_out_printf(w, ": MUL_MAT on BLAS ran at %.2f GFLOP/s, %.1f%% of op time",
                               (double)n->flops / (double)n->ns, 100.0 * n->share);
        else
            opscope_out_str(w, " (no MUL_MAT ran on the BLAS backend here)");
        opscope_out_printf(w, "; OpenBLAS or BLIS is many times faster (%s)\n",
                           run->blas_path ? run->blas_path : "libblas.so.3");
    } else if (n->kind == OPSCOPE_RUN_NOTE_BELOW_PEAK) {
        opscope_out_printf(w, " Slow setup:    %s on backend %d (%.1f%% of op time) runs at %.1f%% of its roofline "
                              "(%.2f GFLOP/s of %.2f attainable, %s-bound)\n",
                           n->group->display, (int)n->group->backend_id, 100.0 * n->share, n->roof.pct,
                           n->roof.gflops, n->roof.roof_gflops, opscope_bound_name(&n->roof));
    } else if (n->kind == OPSCOPE_RUN_NOTE_FEW_THREADS) {
        opscope_out_printf(w, " Slow setup:    a llama context ran %u CPU threads on %u CPUs online\n",
                           n->threads, n->cores);
    }
}

void opscope_run_write_head(opscope_out_t *w, const opscope_stats_t *s, const opscope_peak *peak) {
    const opscope_run_info *run = opscope_stats_run(s);
    static const opscope_run_info none;
    opscope_run_note notes[4];
    size_t nn = opscope_run_notes(s, peak, notes, 4);
    if (!run) {
        for (size_t i = 0; i < nn; i++) write_note_text(w, &notes[i], &none);
        return;
    }
    if (run->n_argv) {
        opscope_out_str(w, " Command:      ");
        size_t len = 0;
        for (size_t i = 0; i < run->n_argv && len < 400; i++) {
            opscope_out_printf(w, " %s", run->argv[i]);
            len += strlen(run->argv[i]) + 1;
        }
        opscope_out_str(w, len >= 400 ? " ...\n" : "\n");
    }
    for (size_t i = 0; i < run->n_models; i++) {
        opscope_out_str(w, i ? "                " : " Model:         ");
        write_model(w, &run->models[i]);
    }
    if (run->blas) {
        opscope_out_printf(w, " BLAS:          %s%s", run->blas,
                           !strcmp(run->blas, "reference") ? " (netlib)" : "");
        if (run->blas_path) opscope_out_printf(w, ", %s", run->blas_path);
        if (run->blas_threads > 0)
            opscope_out_printf(w, ", %d thread%s", (int)run->blas_threads, run->blas_threads == 1 ? "" : "s");
        opscope_out_char(w, '\n');
    }
    for (size_t i = 0; i < nn; i++) write_note_text(w, &notes[i], run);
}

/* "CPU,BLAS": the names of T's backends, each once. */
static void backend_names(const opscope_stats_t *s, const opscope_run_test *t, char *buf, size_t size) {
    buf[0] = 0;
    size_t len = 0;
    for (size_t i = 0; i < opscope_stats_n_backends(s); i++) {
        const opscope_backend_stats *b = opscope_stats_backend(s, i);
        int bit = b->backend_id < 0 ? 63 : b->backend_id > 63 ? 63 : b->backend_id;
        const char *name = b->name && b->name[0] ? b->name : "?";
        if (!((t->backend_mask >> bit) & 1u)) continue;
        char probe[72];
        snprintf(probe, sizeof probe, ",%s,", name);
        char have[300];
        snprintf(have, sizeof have, ",%s,", buf);
        if (strstr(have, probe)) continue;
        int n = snprintf(buf + len, size - len, "%s%s", len ? "," : "", name);
        if (n < 0 || (size_t)n >= size - len) break;
        len += (size_t)n;
    }
}

/* "pp16", "tg16", "pp16+tg16": llama-bench's test name. */
static void test_name(const opscope_run_test *t, char *buf, size_t size) {
    if (t->n_prompt && t->n_gen)
        snprintf(buf, size, "pp%lld+tg%lld", (long long)t->n_prompt, (long long)t->n_gen);
    else if (t->n_prompt) snprintf(buf, size, "pp%lld", (long long)t->n_prompt);
    else snprintf(buf, size, "tg%lld", (long long)t->n_gen);
}

int opscope_run_write_tests_text(opscope_out_t *w, const opscope_stats_t *s, const opscope_graphs_t *g) {
    opscope_run_test *tests;
    size_t n;
    if (opscope_run_tests(opscope_stats_run(s), g, &tests, &n)) return -1;
    if (!n) return 0;
    opscope_out_str(w, "\n --- Tests (one llama context each; t/s: mean over repetitions, as llama-bench's avg_ts) ---\n");
    opscope_out_str(w, " model                            test          n_batch threads backend    reps                   t/s  warm-up ms  top ops (share of the test's op time)\n");
    for (size_t i = 0; i < n; i++) {
        const opscope_run_test *t = &tests[i];
        char name[48], be[64];
        test_name(t, name, sizeof name);
        backend_names(s, t, be, sizeof be);
        opscope_out_printf(w, " %-32.32s %-13s %7u %7u %-10.10s %4zu %10.2f ± %-9.2f %10.2f  ",
                           base_name(t->model), name, t->n_batch, t->n_threads, be, t->n_reps,
                           t->avg_ts, t->stddev_ts, (double)t->warmup_op_ns / 1e6);
        opscope_run_test_op ops[3];
        size_t k = opscope_run_test_top_ops(s, t, ops, 3);
        for (size_t j = 0; j < k; j++)
            opscope_out_printf(w, "%s%s %.1f%%", j ? ", " : "", ops[j].display, 100.0 * ops[j].share);
        opscope_out_char(w, '\n');
    }
    if (opscope_run_tests_share_backends(tests, n))
        opscope_out_str(w, " (tests share backends: their top ops mix those tests' work)\n");
    opscope_out_str(w, " (warm-up: the op time of the graphs before the first repetition, left out of t/s)\n");
    free(tests);
    return 0;
}

static void write_test_json(opscope_jw *j, const opscope_stats_t *s, const opscope_run_test *t) {
    char be[64];
    backend_names(s, t, be, sizeof be);
    opscope_jw_item_obj(j);
    opscope_jw_str(j, "model", t->model);
    const char *const ik[] = {"n_prompt", "n_gen"};
    const int64_t iv[] = {t->n_prompt, t->n_gen};
    for (int k = 0; k < 2; k++) opscope_jw_i64(j, ik[k], iv[k]);
    const char *const uk[] = {"n_batch", "n_ubatch", "n_threads", "reps", "avg_ns", "graphs",
                              "op_ns", "warmup_graphs", "warmup_op_ns"};
    const uint64_t uv[] = {t->n_batch, t->n_ubatch, t->n_threads, t->n_reps, t->avg_ns, t->graphs,
                           t->op_ns, t->warmup_graphs, t->warmup_op_ns};
    for (size_t k = 0; k < sizeof uv / sizeof *uv; k++) opscope_jw_u64(j, uk[k], uv[k]);
    opscope_jw_str(j, "backend", be);
    opscope_jw_g17(j, "avg_ts", t->avg_ts);
    opscope_jw_g17(j, "stddev_ts", t->stddev_ts);
    opscope_jw_arr(j, "top_ops");
    opscope_run_test_op ops[5];
    size_t k = opscope_run_test_top_ops(s, t, ops, 5);
    for (size_t i = 0; i < k; i++) {
        opscope_jw_item_obj(j);
        opscope_jw_str(j, "name", ops[i].display);
        opscope_jw_u64(j, "total_ns", ops[i].total_ns);
        opscope_jw_g17(j, "share", ops[i].share);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
    opscope_jw_end_obj(j);
}

static void write_note_json(opscope_jw *j, const opscope_run_note *x) {
    opscope_jw_item_obj(j);
    if (x->kind == OPSCOPE_RUN_NOTE_REFERENCE_BLAS) {
        opscope_jw_str(j, "kind", "reference_blas");
        opscope_jw_u64(j, "mul_mat_flops", x->flops);
        opscope_jw_u64(j, "mul_mat_ns", x->ns);
        opscope_jw_g17(j, "share", x->share);
    } else if (x->kind == OPSCOPE_RUN_NOTE_BELOW_PEAK) {
        opscope_jw_str(j, "kind", "below_peak");
        opscope_jw_str(j, "op", x->group->display);
        opscope_jw_i64(j, "backend_id", x->group->backend_id);
        opscope_jw_g17(j, "share", x->share);
        opscope_jw_g17(j, "roofline_pct", x->roof.pct);
        opscope_jw_g17(j, "gflops", x->roof.gflops);
        opscope_jw_g17(j, "roof_gflops", x->roof.roof_gflops);
        opscope_jw_str(j, "bound", opscope_bound_name(&x->roof));
    } else {
        opscope_jw_str(j, "kind", "few_threads");
        opscope_jw_u64(j, "threads", x->threads);
        opscope_jw_u64(j, "cores", x->cores);
    }
    opscope_jw_end_obj(j);
}

int opscope_run_write_json(opscope_out_t *w, const opscope_stats_t *s, const opscope_graphs_t *g,
                           const opscope_peak *peak) {
    opscope_run_test *tests;
    size_t n;
    if (opscope_run_tests(opscope_stats_run(s), g, &tests, &n)) return -1;
    opscope_jw j = opscope_jw_resume(w);
    if (n) {
        opscope_jw_nl(&j);
        opscope_jw_arr(&j, "tests");
        for (size_t i = 0; i < n; i++) {
            if (i) opscope_jw_nl(&j);
            write_test_json(&j, s, &tests[i]);
        }
        opscope_jw_end_arr(&j);
    }
    free(tests);
    opscope_run_note notes[4];
    size_t nn = opscope_run_notes(s, peak, notes, 4);
    if (!nn) return 0;
    opscope_jw_nl(&j);
    opscope_jw_arr(&j, "notes");
    for (size_t i = 0; i < nn; i++) write_note_json(&j, &notes[i]);
    opscope_jw_end_arr(&j);
    return 0;
}
