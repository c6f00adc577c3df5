/* test_export.c - Chrome trace, JSON export and text report from an in-memory profile. */
#include "export/chrome/chrome.h"
#include "export/json/json_export.h"
#include "opscope.h"
#include "util/out.h"
#include "analyze/ggml/stats.h"
#include "analyze/session/tee.h"
#include "test.h"
#include "export/console/text.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static opscope_profile_t *sample(void) {
    opscope_profile_t *p = opscope_profile_new();
    opscope_backend b0 = {0, "Vulkan0", "llvmpipe", OPSCOPE_DEVICE_GPU, NULL};
    opscope_backend b1 = {1, "CPU", "AMD EPYC", OPSCOPE_DEVICE_CPU, NULL};
    opscope_profile_add_backend(p, &b0);
    opscope_profile_add_backend(p, &b1);
    opscope_record r;
    opscope_record_init(&r);
    r.name = "MUL_MAT";
    r.backend_id = 0;
    r.start_ns = 1234567;
    r.duration_ns = 1000;
    r.bytes = 8192;
    r.n_src = 2;
    int64_t s0[4] = {4096, 4096, 1, 1}, s1[4] = {4096, 7, 1, 1};
    memcpy(r.ne_src[0], s0, sizeof s0);
    memcpy(r.ne_src[1], s1, sizeof s1);
    r.type_src[0] = 2;
    r.type_src[1] = 0;
    r.has = OPSCOPE_HAS_SRC_TYPES | OPSCOPE_HAS_NODE | OPSCOPE_HAS_GRAPH;
    r.node_index = 17;
    r.graph_id = 3;
    r.tensor_name = "ffn_up-0 \"q\"";
    opscope_profile_add_record(p, &r);
    /* overlaps the first on split 0: must go to a second thread, same ts */
    r.start_ns = 1234999;
    r.duration_ns = 10;
    r.tensor_name = NULL;
    opscope_profile_add_record(p, &r);
    opscope_record c;
    opscope_record_init(&c);
    c.type = OPSCOPE_RECORD_COPY;
    c.name = "copy_H2D";
    c.backend_id = 0;
    c.start_ns = 1234500;
    c.duration_ns = 1;
    c.bytes = 100;
    opscope_profile_add_record(p, &c);
    opscope_record u;
    opscope_record_init(&u);
    u.name = "UNARY";
    u.sub_op = "SILU";
    u.backend_id = 1;
    u.start_ns = 2000000;
    u.duration_ns = 2500;
    opscope_profile_add_record(p, &u);
    return p;
}

static int test_chrome(void) {
    opscope_profile_t *p = sample();
    const char *path = "t_chrome.json";
    unlink(path);
    opscope_error err;
    opscope_out_t *w = opscope_out_open(path, &err);
    ASSERT_NOT_NULL(w);
    opscope_chrome_t *c = opscope_chrome_new(w);
    opscope_sink k = opscope_chrome_sink(c);
    ASSERT_EQ_INT(opscope_profile_replay(p, &k), 0);
    ASSERT_EQ_INT(opscope_chrome_finish(c), 0);
    opscope_chrome_free(c);
    ASSERT_EQ_INT(opscope_out_commit(w, &err), 0);
    char *s = test_slurp(path, NULL);
    ASSERT_NOT_NULL(s);
    ASSERT_CONTAINS(s, "\"ts\":1234.567,\"dur\":1,");
    ASSERT_CONTAINS(s, "\"ts\":1234.999,\"dur\":0.01,");
    ASSERT_CONTAINS(s, "\"tid\":2,\"ts\":1234.999"); /* overlap: second lane */
    ASSERT_CONTAINS(s, "\"cat\":\"copy\",\"name\":\"copy_H2D\"");
    ASSERT_CONTAINS(s, "\"name\":\"UNARY(SILU)\"");
    ASSERT_CONTAINS(s, "\"src0\":\"[4096, 4096] q4_0\",\"src1\":\"[4096, 7] f32\"");
    ASSERT_CONTAINS(s, "\"flops\":234881024");
    ASSERT_CONTAINS(s, "\"tensor\":\"ffn_up-0 \\\"q\\\"\"");
    ASSERT_CONTAINS(s, "\"node\":17");
    ASSERT_CONTAINS(s, "\"graph\":3");
    ASSERT_CONTAINS(s, "\"name\":\"GPU: llvmpipe (Vulkan0)\"");
    ASSERT_CONTAINS(s, "\"name\":\"compute #2\""); /* splits collapsed by default */
    ASSERT_CONTAINS(s, "\"name\":\"copies\"");
    free(s);
    unlink(path);
    opscope_profile_free(p);
    return 0;
}

static int test_json_and_text(void) {
    opscope_profile_t *p = sample();
    opscope_error err;
    opscope_out_t *w = opscope_out_open("t_export.json", &err);
    opscope_out_t *tw = opscope_out_open("t_report.txt", &err);
    opscope_json_export_t *x = opscope_json_export_new(w);
    opscope_stats_opts so = {.top_kernels = 5};
    opscope_stats_t *st = opscope_stats_new(&so);
    opscope_tee tee;
    opscope_tee_init(&tee);
    opscope_tee_add(&tee, opscope_stats_sink(st));
    opscope_tee_add(&tee, opscope_json_export_sink(x));
    opscope_sink k = opscope_tee_sink(&tee);
    ASSERT_EQ_INT(opscope_profile_replay(p, &k), 0);
    ASSERT_EQ_INT(opscope_json_export_finish(x, st), 0);
    opscope_json_export_free(x);
    ASSERT_EQ_INT(opscope_out_commit(w, &err), 0);
    opscope_report_opts ro = {.source = "sample"};
    opscope_text_write(tw, st, &ro);
    ASSERT_EQ_INT(opscope_out_commit(tw, &err), 0);

    char *s = test_slurp("t_export.json", NULL);
    ASSERT_CONTAINS(s, "{\"profiler\":\"ggml\",\"version\":3,");
    ASSERT_CONTAINS(s, "\"backends\":[\n{\"id\":0,\"name\":\"Vulkan0\",\"device\":\"llvmpipe\",\"device_type\":1}");
    ASSERT_CONTAINS(s, "\"name\":\"MUL_MAT\",\"backend_id\":0,\"split_id\":0,\"start_ns\":1234567,\"duration_ns\":1000,\"bytes\":8192,\"extra\":null,\"n_src\":2,\"ne_src\":[[4096,4096,1,1],[4096,7,1,1]],\"type_src\":[2,0]");
    /* the seed v3 layout: GGML_UNARY_OP_SILU is 10 in ggml.h; the name in a field of its own */
    ASSERT_CONTAINS(s, "\"sub_op\":10,\"sub_op_name\":\"SILU\"");
    ASSERT_CONTAINS(s, "\"total_records\":4,\"total_ns\":3511");
    ASSERT_CONTAINS(s, "\"summary\":{\"n_records\":4,\"n_ops\":3,\"n_copies\":1,\"total_ns\":3511");
    free(s);
    s = test_slurp("t_report.txt", NULL);
    ASSERT_CONTAINS(s, "Profiling Summary");
    ASSERT_CONTAINS(s, "Per-Backend Summary");
    ASSERT_CONTAINS(s, "Backend 0: Vulkan0 [llvmpipe, GPU]");
    ASSERT_CONTAINS(s, "src0 [4096, 4096] q4_0, src1 [4096, 7] f32");
    ASSERT_CONTAINS(s, "UNARY(SILU)");
    free(s);
    unlink("t_export.json");
    unlink("t_report.txt");
    opscope_stats_free(st);
    opscope_profile_free(p);
    return 0;
}

/* An export to a device (like --chrome-trace /dev/null) must write through it, not rename a
 * temporary file over the node. Uses a private null device so a regression harms nothing. */
static int test_device_output(void) {
    const char *node = "t_null_device";
    unlink(node);
    if (mknod(node, S_IFCHR | 0666, makedev(1, 3)) != 0) {
        fprintf(stderr, "skipped: mknod needs root\n");
        return 0;
    }
    opscope_error err;
    opscope_out_t *w = opscope_out_open(node, &err);
    ASSERT_NOT_NULL(w);
    opscope_out_str(w, "data");
    ASSERT_EQ_INT(opscope_out_commit(w, &err), 0);
    struct stat st;
    ASSERT_EQ_INT(stat(node, &st), 0);
    ASSERT_TRUE(S_ISCHR(st.st_mode));
    unlink(node);
    return 0;
}

TEST_MAIN(TEST(test_chrome), TEST(test_json_and_text), TEST(test_device_output))
