/* Unit tests: kernel category rules, and reader/analysis behaviour on small inline traces. */
#include "read/kernel_rules.h"
#include "analyze/kineto/kineto.h"
#include "analyze/session/session.h"
#include "read/readers.h"
#include "read/json.h"
#include "read/kineto_read.h"
#include "export/kineto/kineto_report.h"
#include "util/out.h"
#include "model/strtab.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static const char *cat(const char *name) {
    return opscope_kernel_category_name(opscope_kernel_classify(name, strlen(name)));
}

static int test_rules(void) {
    ASSERT_EQ_STR(cat("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long)"), "communication");
    ASSERT_EQ_STR(cat("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>"), "gemm");
    ASSERT_EQ_STR(cat("Cijk_Alik_Bljk_HHS_BH_MT128x128x32"), "gemm");
    ASSERT_EQ_STR(cat("nvjet_tst_128x64_64x8_1x1_v_bz_TNT"), "gemm");
    ASSERT_EQ_STR(cat("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128>>"), "attention_prefill");
    ASSERT_EQ_STR(cat("void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128>>"), "attention_decode");
    ASSERT_EQ_STR(cat("void vllm::paged_attention_v2_kernel<__nv_bfloat16>"), "attention_decode");
    ASSERT_EQ_STR(cat("fused_moe_kernel"), "moe_gemm");
    ASSERT_EQ_STR(cat("void vllm::moe::moe_align_block_size_kernel<int>"), "moe_routing");
    ASSERT_EQ_STR(cat("void vllm::moe::topkGatingSoftmax<8, 128>"), "moe_routing");
    ASSERT_EQ_STR(cat("void vllm::rms_norm_kernel<c10::BFloat16>"), "norm");
    ASSERT_EQ_STR(cat("void cudnn::bn_fw_tr_1C11_singleread<float, 512>"), "norm");
    ASSERT_EQ_STR(cat("void at::native::elementwise_kernel<128, 4, direct_copy_kernel_cuda>"), "memory");
    ASSERT_EQ_STR(cat("void vllm::act_and_mul_kernel<silu_kernel>"), "elementwise");
    ASSERT_EQ_STR(cat("void at::native::vectorized_elementwise_kernel<4, CUDAFunctor_add<float>>"), "elementwise");
    ASSERT_EQ_STR(cat("void at::native::reduce_kernel<512, 1, ReduceOp<float>>"), "reduce");
    ASSERT_EQ_STR(cat("void (anonymous namespace)::softmax_warp_forward<float>"), "reduce");
    ASSERT_EQ_STR(cat("void convert_fp8_kernel"), "other"); /* "conv" alone must not mean GEMM */
    ASSERT_EQ_STR(cat("some_custom_kernel"), "other");
    ASSERT_GT_U64(opscope_kernel_rule_count(), 50);
    return 0;
}

typedef struct col {
    int n, copies;
    opscope_record r[16];
    char names[16][64];
    char sub[16][8];
    int backends;
    char bname[64];
    int ended;
} col;

static int on_rec(void *ud, const opscope_record *r) {
    col *c = ud;
    if (c->n < 16) {
        c->r[c->n] = *r;
        snprintf(c->names[c->n], sizeof c->names[0], "%s", r->name);
        snprintf(c->sub[c->n], sizeof c->sub[0], "%s", r->sub_op ? r->sub_op : "");
    }
    c->n++;
    c->copies += r->type == OPSCOPE_RECORD_COPY;
    return 0;
}

static int on_be(void *ud, const opscope_backend *b) {
    col *c = ud;
    c->backends++;
    snprintf(c->bname, sizeof c->bname, "%s|%s", b->name, b->device);
    return 0;
}

static int on_end(void *ud) {
    ((col *)ud)->ended = 1;
    return 0;
}

/* Through the generic reader, as `opscope report` reads (the collector is its option). */
static int read_str(const char *json, opscope_format fmt, col *c, opscope_kineto_t *an, opscope_error *err) {
    memset(c, 0, sizeof *c);
    opscope_sink s = {c, NULL, on_be, on_rec, on_end};
    opscope_read_options o = {0};
    o.kineto = opscope_kineto_collector_of(an);
    return opscope_read_buffer_opts(json, strlen(json), "t.json", fmt, &s, &o, err);
}

static int test_quirks(void) {
    /* ts as float with 4 decimals, string tid, old categories, memcpy direction, devprops last */
    const char *t =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"gemm_k\",\"pid\":0,\"tid\":7,\"ts\":1.0005,\"dur\":2.5,"
        "\"args\":{\"correlation\":9,\"grid\":[1,2,3]}},"
        "{\"ph\":\"X\",\"cat\":\"Memcpy\",\"name\":\"Memcpy DtoH (Device -> Pageable)\",\"pid\":0,\"tid\":7,"
        "\"ts\":10,\"dur\":1,\"args\":{\"bytes\":4096}},"
        "{\"ph\":\"B\",\"cat\":\"kernel\",\"name\":\"be_k\",\"pid\":0,\"tid\":\"s9\",\"ts\":20},"
        "{\"ph\":\"E\",\"pid\":0,\"tid\":\"s9\",\"ts\":23.5},"
        "{\"ph\":\"E\",\"pid\":0,\"tid\":\"s9\",\"ts\":24}"
        "],\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H100\",\"warpSize\":32,\"computeMajor\":9}],"
        "\"displayTimeUnit\":\"ns\"}";
    col c;
    opscope_error err;
    opscope_strtab_t *names = opscope_strtab_new();
    opscope_kineto_t *an = opscope_kineto_new(names);
    ASSERT_EQ_INT(read_str(t, OPSCOPE_FORMAT_KINETO, &c, an, &err), 0);
    ASSERT_EQ_INT(c.n, 3);
    ASSERT_EQ_INT(c.ended, 1);
    ASSERT_EQ_U64(c.r[0].start_ns, 1001); /* 1.0005 us: half away from zero */
    ASSERT_EQ_U64(c.r[0].duration_ns, 2500);
    ASSERT_EQ_STR(c.r[0].category, "gemm");
    ASSERT_EQ_INT(c.r[1].type, OPSCOPE_RECORD_COPY);
    ASSERT_EQ_STR(c.sub[1], "DtoH");
    ASSERT_EQ_U64(c.r[1].bytes, 4096);
    ASSERT_EQ_STR(c.names[2], "be_k");
    ASSERT_EQ_U64(c.r[2].duration_ns, 3500);
    ASSERT_CONTAINS(c.bname, "CUDA0|NVIDIA H100"); /* re-announced once the properties came */
    const opscope_kineto_info *in = opscope_kineto_get_info(an);
    ASSERT_EQ_INT(in->platform, OPSCOPE_KINETO_PLATFORM_NVIDIA);
    ASSERT_EQ_U64(in->n_unmatched_end, 1);
    ASSERT_EQ_U64(in->n_old_categories, 2);
    ASSERT_EQ_STR(in->display_time_unit, "ns");
    opscope_kineto_free(an);
    opscope_strtab_free(names);
    return 0;
}

/* Appends to a growing buffer (test helper). */
static void cat_to(char **buf, size_t *len, const char *s) {
    size_t n = strlen(s);
    *buf = realloc(*buf, *len + n + 1);
    memcpy(*buf + *len, s, n + 1);
    *len += n;
}

static int test_analysis(void) {
    /* One CUDA-graph-like launch with 80 kernels (attention + GEMM) under correlation 5 inside
     * a vLLM prefill annotation; python frames but no cpu_op around a second launch; a gap. */
    char *b = NULL;
    size_t len = 0;
    char ev[512];
    cat_to(&b, &len, "[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"execute_context_1(512)_generation_0(0)\","
                     "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100}");
    cat_to(&b, &len, ",{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"model.py(10): forward\",\"pid\":1,\"tid\":1,\"ts\":150,\"dur\":50}");
    cat_to(&b, &len, ",{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"run.py(1): main\",\"pid\":1,\"tid\":1,\"ts\":140,\"dur\":100}");
    cat_to(&b, &len, ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,\"args\":{\"correlation\":5}}");
    cat_to(&b, &len, ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":160,\"dur\":5,\"args\":{\"correlation\":6}}");
    for (int i = 0; i < 80; i++) {
        snprintf(ev, sizeof ev, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":1,"
                 "\"args\":{\"correlation\":5}}", i % 2 ? "flash_fwd_kernel" : "sm90_gemm", 1000 + 2 * i);
        cat_to(&b, &len, ev);
    }
    cat_to(&b, &len, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"tail\",\"pid\":0,\"tid\":7,\"ts\":5000,\"dur\":10,\"args\":{\"correlation\":6}}");
    cat_to(&b, &len, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"orphan\",\"pid\":0,\"tid\":7,\"ts\":6000,\"dur\":10}]");
    col c;
    opscope_error err;
    opscope_strtab_t *names = opscope_strtab_new();
    opscope_kineto_t *an = opscope_kineto_new(names);
    ASSERT_EQ_INT(read_str(b, OPSCOPE_FORMAT_KINETO, &c, an, &err), 0);
    ASSERT_EQ_INT(opscope_kineto_finish(an), 0);
    const opscope_kineto_results *r = opscope_kineto_get_results(an);
    ASSERT_EQ_U64(r->kernels, 82);
    ASSERT_EQ_U64(r->link_runtime, 81);
    ASSERT_EQ_U64(r->link_cpu, 0);
    ASSERT_EQ_U64(r->link_python, 1);
    ASSERT_EQ_U64(r->link_none, 81);
    ASSERT_EQ_INT(r->n_top_python, 1);
    ASSERT_EQ_STR(opscope_strtab_get(names, r->top_python[0].name_id), "model.py(10): forward");
    ASSERT_EQ_U64(r->phase[OPSCOPE_KINETO_PHASE_PREFILL].kernels, 80);
    ASSERT_EQ_U64(r->phase[OPSCOPE_KINETO_PHASE_NONE].kernels, 2);
    ASSERT_EQ_U64(r->n_layers, 1);
    ASSERT_EQ_INT(r->layer_method, 1);
    ASSERT_EQ_U64(r->layer_kernels, 80);
    ASSERT_EQ_INT(r->n_streams, 1);
    ASSERT_EQ_U64(r->streams[0].busy_ns, 80000 + 20000);
    ASSERT_EQ_U64(r->streams[0].last_ns - r->streams[0].first_ns, 5010000);
    ASSERT_EQ_INT(r->n_gaps >= 2, 1);
    ASSERT_EQ_U64(r->gaps[0].len_ns, 5000000 - 1159000); /* after the last graph kernel */
    ASSERT_EQ_U64(r->gaps[1].len_ns, 990000);
    opscope_kineto_free(an);
    opscope_strtab_free(names);
    free(b);
    return 0;
}

static int test_errors(void) {
    col c;
    opscope_error err;
    memset(&err, 0, sizeof err);
    /* cut short inside the events: read up to the last complete one, the byte in the status */
    const char *cut = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,"
                      "\"ts\":1,\"dur\":2},{\"ph\":\"X\",\"ts\":1";
    opscope_read_status st;
    memset(&c, 0, sizeof c);
    opscope_sink cs = {&c, NULL, on_be, on_rec, on_end};
    opscope_read_options o = {0};
    o.status = &st;
    ASSERT_EQ_INT(opscope_read_buffer_opts(cut, strlen(cut), "t.json", OPSCOPE_FORMAT_KINETO, &cs, &o, &err), 0);
    ASSERT_EQ_U64(st.truncated_at, strlen(cut));
    ASSERT_EQ_U64(st.records, 1);
    ASSERT_EQ_INT(c.n, 1);
    ASSERT_EQ_INT(c.ended, 1);
    /* malformed (not cut short) stays an error */
    ASSERT_EQ_INT(read_str("{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1}}", OPSCOPE_FORMAT_KINETO, &c, NULL, &err), -1);
    ASSERT_EQ_INT(err.code, OPSCOPE_ERROR_SYNTAX);
    ASSERT_EQ_STR(err.file, "t.json");
    ASSERT_EQ_INT(read_str("{\"traceEvents\":[{\"ph\":\"X\",\"ts\":true}]}", OPSCOPE_FORMAT_KINETO, &c, NULL, &err), -1);
    ASSERT_EQ_INT(err.code, OPSCOPE_ERROR_RANGE);
    ASSERT_EQ_U64(err.pos, 31); /* the first byte of `true` */
    ASSERT_EQ_INT(read_str("42", OPSCOPE_FORMAT_KINETO, &c, NULL, &err), -1);
    ASSERT_EQ_INT(err.code, OPSCOPE_ERROR_SCHEMA);
    ASSERT_EQ_INT(c.ended, 0);
    /* generic Chrome: unknown categories become records only in Chrome mode */
    const char *g = "[{\"ph\":\"X\",\"cat\":\"gfx\",\"name\":\"draw\",\"pid\":\"gpu\",\"tid\":1,\"ts\":1,\"dur\":2}]";
    ASSERT_EQ_INT(read_str(g, OPSCOPE_FORMAT_KINETO, &c, NULL, &err), 0);
    ASSERT_EQ_INT(c.n, 0);
    ASSERT_EQ_INT(read_str(g, OPSCOPE_FORMAT_CHROME, &c, NULL, &err), 0);
    ASSERT_EQ_INT(c.n, 1);
    ASSERT_EQ_STR(c.r[0].category ? "set" : "null", "set");
    ASSERT_EQ_U64(c.r[0].duration_ns, 2000);
    return 0;
}

/* Eager launches: layers found from the repeating attention-anchored pattern. */
static int test_layers_eager(void) {
    char *b = NULL;
    size_t len = 0;
    char ev[256];
    const char *pat[] = {"rms_norm_kernel", "flash_fwd_kernel", "sm90_gemm", "act_and_mul_kernel", "sm90_gemm"};
    cat_to(&b, &len, "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"embed_gather\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":1}");
    int ts = 10;
    for (int layer = 0; layer < 3; layer++)
        for (int i = 0; i < 5; i++, ts += 10) {
            snprintf(ev, sizeof ev, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,"
                     "\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":%d}}", pat[i], ts, ts);
            cat_to(&b, &len, ev);
        }
    cat_to(&b, &len, "]");
    col c;
    opscope_error err;
    opscope_strtab_t *names = opscope_strtab_new();
    opscope_kineto_t *an = opscope_kineto_new(names);
    ASSERT_EQ_INT(read_str(b, OPSCOPE_FORMAT_KINETO, &c, an, &err), 0);
    ASSERT_EQ_INT(opscope_kineto_finish(an), 0);
    const opscope_kineto_results *r = opscope_kineto_get_results(an);
    ASSERT_EQ_INT(r->layer_method, 2);
    ASSERT_EQ_U64(r->n_layers, 3);
    /* layers 1-2: attention..next norm = 5 kernels; the last runs to the stream's end: 4 */
    ASSERT_EQ_U64(r->layer_kernels, 5 + 5 + 4);
    ASSERT_EQ_U64(r->layer_ns, (5 + 5 + 4) * 2000);
    opscope_kineto_free(an);
    opscope_strtab_free(names);
    free(b);
    return 0;
}

/* The generic reader (format detection + dispatch) fills the collector of a session passed as
 * its option, and only that read's: a read without the option leaves it alone. */
static int test_session(void) {
    const char *t =
        "{\"schemaVersion\":1,\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,"
        "\"args\":{\"External id\":3}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":2,"
        "\"dur\":1,\"args\":{\"correlation\":7,\"External id\":3}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ampere_sgemm_64x64_nn\",\"pid\":0,\"tid\":7,\"ts\":5,"
        "\"dur\":4,\"args\":{\"correlation\":7,\"External id\":3}}]}";
    col c;
    memset(&c, 0, sizeof c);
    opscope_sink s = {&c, NULL, on_be, on_rec, on_end};
    opscope_error err;
    opscope_session_opts so = {.kineto = true};
    opscope_session_t *ks = opscope_session_new(&so);
    ASSERT_NOT_NULL(ks);
    opscope_read_options o = {0};
    opscope_session_read_options(ks, &o);
    ASSERT_NOT_NULL(o.kineto);
    ASSERT_EQ_INT(opscope_read_buffer_opts(t, strlen(t), "s.json", OPSCOPE_FORMAT_AUTO, &s, &o, &err), 0);
    ASSERT_EQ_INT(c.n, 1);
    /* a second read without the option (a thread-local collector would take this one too) */
    ASSERT_EQ_INT(opscope_read_buffer(t, strlen(t), "s2.json", OPSCOPE_FORMAT_AUTO, &s, &err), 0);
    ASSERT_EQ_INT(c.n, 2);
    ASSERT_EQ_INT(opscope_session_finish(ks, &err), 0);
    ASSERT_NOT_NULL(opscope_session_kineto(ks));
    ASSERT_EQ_U64(o.kineto->info->n_kernels, 1);
    const char *path = "kineto_section.txt";
    opscope_out_t *w = opscope_out_open(path, &err);
    ASSERT_NOT_NULL(w);
    opscope_kineto_report_write(w, opscope_session_kineto(ks));
    ASSERT_EQ_INT(opscope_out_commit(w, &err), 0);
    opscope_session_free(ks);
    FILE *f = fopen(path, "rb");
    ASSERT_NOT_NULL(f);
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    ASSERT_CONTAINS(buf, "Kineto trace");
    ASSERT_CONTAINS(buf, "aten::mm");
    ASSERT_CONTAINS(buf, "1  100.0%  (1 enclosing the launch");
    return 0;
}

/* TEXT in microseconds as ns by this test's own rule: the integer part and 3 decimals, the
 * 4th rounding half up, the rest dropped; 0 when beyond 2^61 ns (the reader's limit). */
static int want_ns(const char *text, int64_t *out) {
    int neg = *text == '-';
    const char *p = text + neg;
    unsigned __int128 v = 0;
    for (; *p >= '0' && *p <= '9'; p++) v = v * 10 + (unsigned)(*p - '0');
    int frac[4] = {0, 0, 0, 0};
    if (*p == '.')
        for (int k = 0; *++p >= '0' && *p <= '9';)
            if (k < 4) frac[k++] = *p - '0';
    v = v * 1000 + (unsigned)(frac[0] * 100 + frac[1] * 10 + frac[2]) + (frac[3] >= 5);
    if (v > (unsigned __int128)1 << 61) return 0;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 1;
}

/* "ts" and "dur" numbers as ns: the token the parser gives (its digits kept for plain
 * decimals) and the same number's text alone give this test's own figure, on random
 * decimals of 1 to 8 fraction digits and the edges of the limit and the rounding. */
static int test_us_to_ns(void) {
    static const char *edges[] = {"0.0005", "0.0004", "-0.0005", "12.3456789", "2305843009213693.952",
                                  "2305843009213693.953", "-2305843009213693.952", "0.1", "1700000000123.45",
                                  "9007199254740.992", "9999999999999999.9", "-0.0", "1.99999999"};
    size_t nedge = sizeof edges / sizeof edges[0];
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (size_t k = 0; k < nedge + 20000; k++) {
        char num[48];
        if (k < nedge) {
            snprintf(num, sizeof num, "%s", edges[k]);
        } else {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            unsigned fd = 1 + (unsigned)(x >> 40) % 8;
            unsigned long long ip = (x >> 9) % 10000000000000ull, fr = (x >> 20) % 100000000ull;
            unsigned long long p[14] = {1};
            for (int e = 1; e < 14; e++) p[e] = p[e - 1] * 10;
            snprintf(num, sizeof num, "%s%llu.%0*llu", (x >> 63) ? "-" : "", ip % p[(x >> 3) % 10 + 4],
                     (int)fd, fr % p[fd]);
        }
        char doc[64];
        snprintf(doc, sizeof doc, "[%s]", num);
        opscope_json_t *j = opscope_json_new(NULL, NULL, doc, strlen(doc), "n");
        opscope_json_token t;
        ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_ARR_BEGIN);
        ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_NUMBER);
        int64_t want = 0, got = 0, got_text = 0;
        int ok = want_ns(num, &want);
        int rc = opscope_kineto_us_to_ns(&t, &got);
        opscope_json_token text = t; /* the same number without the kept digits */
        text.dec = -1;
        int rc_text = opscope_kineto_us_to_ns(&text, &got_text);
        if (rc != (ok ? 0 : -1) || rc_text != rc || (ok && (got != want || got_text != want))) {
            fprintf(stderr, "  %s: %d %lld, from the text %d %lld, want %d %lld\n", num, rc, (long long)got,
                    rc_text, (long long)got_text, ok ? 0 : -1, (long long)want);
            ASSERT_TRUE(0);
        }
        opscope_json_free(j);
    }
    return 0;
}

TEST_MAIN(TEST(test_rules), TEST(test_us_to_ns), TEST(test_quirks), TEST(test_analysis), TEST(test_errors),
          TEST(test_session), TEST(test_layers_eager))
