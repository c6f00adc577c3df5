/* test_html_sink.c - the HTML viewer sink: safety of the data block, decimation, graph
 * computes, errors. */
#include "export/html/html.h"
#include "model/ggml_vocab.h"
#include "opscope.h"
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static size_t count(const char *hay, const char *needle) {
    size_t c = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++) c++;
    return c;
}

static opscope_record rec(const char *name, uint64_t start, uint64_t dur) {
    opscope_record r;
    opscope_record_init(&r);
    r.name = name;
    r.start_ns = start;
    r.duration_ns = dur;
    return r;
}

static int test_injection_is_data(void) {
    const char *path = "html_sink_inj.html";
    opscope_error err;
    opscope_html_sink_t *h = opscope_html_sink_new(path, "</script><b>x</b>", 0, &err);
    ASSERT_NOT_NULL(h);
    opscope_sink s = opscope_html_sink(h);
    opscope_backend b = {0, "<script>alert(2)</script>", "dev & co", OPSCOPE_DEVICE_CPU, NULL};
    ASSERT_EQ_INT(s.on_backend(s.ud, &b), 0);
    opscope_record r = rec("</script><img src=x onerror=alert(1)>", 100, 10);
    r.tensor_name = "<!-- <script>";
    ASSERT_EQ_INT(s.on_record(s.ud, &r), 0);
    ASSERT_EQ_INT(opscope_html_sink_finish(h, &err), 0);
    size_t n;
    char *html = test_slurp(path, &n);
    ASSERT_NOT_NULL(html);
    /* Exactly two script elements end: the JSON data block and the viewer code. */
    ASSERT_EQ_INT(count(html, "</script"), 2);
    ASSERT_EQ_INT(count(html, "<script"), 2);
    ASSERT_EQ_INT(count(html, "<img"), 0);
    ASSERT_EQ_INT(count(html, "<!-- <script>"), 0);
    ASSERT_CONTAINS(html, "\\u003c/script\\u003e\\u003cimg src=x onerror=alert(1)\\u003e");
    ASSERT_CONTAINS(html, "dev \\u0026 co");
    ASSERT_EQ_INT(count(html, "<!--OPSCOPE_"), 0);
    ASSERT_CONTAINS(html, "<script type=\"application/json\" id=\"opscope-data\">{");
    free(html);
    unlink(path);
    return 0;
}

static int test_decimation(void) {
    opscope_error err;
    opscope_html_sink_t *h = opscope_html_sink_new("html_sink_dec.html", NULL, 100, &err);
    ASSERT_NOT_NULL(h);
    opscope_sink s = opscope_html_sink(h);
    for (int i = 0; i < 1000; i++) {
        opscope_record r = rec(i % 2 ? "A" : "B", (uint64_t)i * 10, 5);
        ASSERT_EQ_INT(s.on_record(s.ud, &r), 0);
    }
    /* 1000 records into 100 slots: stride 16 keeps indices 0, 16, ... 992 = 63 records. */
    ASSERT_EQ_U64(opscope_html_sink_seen(h), 1000);
    ASSERT_EQ_U64(opscope_html_sink_kept(h), 63);
    ASSERT_EQ_INT(opscope_html_sink_finish(h, &err), 0);
    char *html = test_slurp("html_sink_dec.html", NULL);
    ASSERT_NOT_NULL(html);
    ASSERT_CONTAINS(html, "\"seen\":1000,\"kept\":63,\"stride\":16");
    free(html);
    unlink("html_sink_dec.html");
    return 0;
}

/* The graph computes of the data: every record counted, those the stride drops too, so each
 * compute keeps its whole span and the phase of its matrix product. 4 graphs of 50 records
 * (start 10 i, 5 ns each): graph 0's first record a MUL_MAT of 7 rows (prefill), graphs 1
 * and 2's of 1 row (decode: records 50 and 100, which stride 8 drops), graph 3 none. */
static int test_graphs(void) {
    opscope_error err;
    opscope_html_sink_t *h = opscope_html_sink_new("html_sink_graphs.html", NULL, 40, &err);
    ASSERT_NOT_NULL(h);
    opscope_sink s = opscope_html_sink(h);
    for (int i = 0; i < 200; i++) {
        bool mm = i % 50 == 0 && i < 150;
        opscope_record r = rec(mm ? opscope_ggml_op_name(OPSCOPE_GGML_OP_MUL_MAT) : "A", (uint64_t)i * 10, 5);
        r.graph_id = i / 50;
        r.has |= OPSCOPE_HAS_GRAPH;
        if (mm) {
            r.n_src = 2;
            r.ne_src[1][0] = 64;
            r.ne_src[1][1] = i == 0 ? 7 : 1;
        }
        ASSERT_EQ_INT(s.on_record(s.ud, &r), 0);
    }
    ASSERT_EQ_U64(opscope_html_sink_kept(h), 25); /* stride 8 */
    ASSERT_EQ_INT(opscope_html_sink_finish(h, &err), 0);
    char *html = test_slurp("html_sink_graphs.html", NULL);
    ASSERT_NOT_NULL(html);
    char *g = strstr(html, ",\"graphs\":");
    ASSERT_NOT_NULL(g);
    char *end = strchr(g, '}');
    ASSERT_NOT_NULL(end);
    end[1] = 0;
    ASSERT_EQ_STR(g, ",\"graphs\":{\"phases\":[\"none\",\"prefill\",\"decode\"],\"id\":[0,1,2,3],"
                     "\"start\":[0,500,1000,1500],\"dur\":[495,495,495,495],\"phase\":[1,2,2,0],\"batch\":[7,1,1,0]}");
    free(html);
    unlink("html_sink_graphs.html");
    return 0;
}

static int test_empty_profile(void) {
    opscope_error err;
    opscope_html_sink_t *h = opscope_html_sink_new("html_sink_empty.html", "empty", 0, &err);
    ASSERT_NOT_NULL(h);
    ASSERT_EQ_INT(opscope_html_sink_finish(h, &err), 0);
    char *html = test_slurp("html_sink_empty.html", NULL);
    ASSERT_NOT_NULL(html);
    ASSERT_CONTAINS(html, "\"kept\":0");
    ASSERT_CONTAINS(html, "\"lanes\":[]");
    ASSERT_EQ_INT(count(html, "\"graphs\""), 0); /* no graph ids: no graphs member */
    free(html);
    unlink("html_sink_empty.html");
    return 0;
}

static int test_unwritable_leaves_nothing(void) {
    opscope_error err;
    memset(&err, 0, sizeof err);
    opscope_html_sink_t *h = opscope_html_sink_new("no-such-dir/x.html", NULL, 0, &err);
    ASSERT_NOT_NULL(h);
    opscope_sink s = opscope_html_sink(h);
    opscope_record r = rec("A", 1, 1);
    ASSERT_EQ_INT(s.on_record(s.ud, &r), 0);
    ASSERT_EQ_INT(opscope_html_sink_finish(h, &err), -1);
    ASSERT_EQ_INT(err.code, OPSCOPE_ERROR_IO);
    struct stat st;
    ASSERT_EQ_INT(stat("no-such-dir", &st), -1);
    return 0;
}

TEST_MAIN(TEST(test_injection_is_data), TEST(test_decimation), TEST(test_graphs), TEST(test_empty_profile),
          TEST(test_unwritable_leaves_nothing))
