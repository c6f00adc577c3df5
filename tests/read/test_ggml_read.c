/*
 * Tests of the ggml profile reader and opscope_read_file / opscope_read_buffer: version 2 and
 * 3 fields, the old "ne" key, the seed tool's defaults, backends after records, opscope's
 * additions, type/range errors with exact positions, gzip, stdin (file and pipe), detection,
 * the progress option.
 * Expected values are the literals of the hand-written inputs.
 */
#include "opscope.h"
#include "read/readers.h"
#include "json_stream.h"
#include "test.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

/* A sink that logs the order of callbacks ("B" backend, "R" record, "M" meta, "E" end). */
typedef struct logsink {
    opscope_profile_t *p;
    char order[64];
    int n;
} logsink;

static void log_put(logsink *l, char c) {
    if (l->n < 63) l->order[l->n++] = c;
    l->order[l->n] = 0;
}
static int ls_meta(void *ud, const opscope_meta *m) {
    logsink *l = ud;
    log_put(l, 'M');
    return opscope_profile_set_meta(l->p, m);
}
static int ls_backend(void *ud, const opscope_backend *b) {
    logsink *l = ud;
    log_put(l, 'B');
    return opscope_profile_add_backend(l->p, b);
}
static int ls_record(void *ud, const opscope_record *r) {
    logsink *l = ud;
    log_put(l, 'R');
    return opscope_profile_add_record(l->p, r);
}
static int ls_end(void *ud) {
    log_put(ud, 'E');
    return 0;
}

static opscope_error g_err;
static logsink g_log;

/* Reads DOC into a fresh profile (freed by the next call); returns the reader's result. */
static opscope_profile_t *g_prof;
static int read_doc(const char *doc, opscope_format fmt) {
    opscope_profile_free(g_prof);
    g_prof = opscope_profile_new();
    memset(&g_log, 0, sizeof g_log);
    g_log.p = g_prof;
    opscope_sink s = {&g_log, ls_meta, ls_backend, ls_record, ls_end};
    memset(&g_err, 0, sizeof g_err);
    return opscope_read_buffer(doc, strlen(doc), "p.json", fmt, &s, &g_err);
}

static const char V2[] =
    "{\"profiler\":\"ggml\",\"version\":2,\n"
    " \"backends\":[{\"id\":0,\"name\":\"Vulkan0\",\"device\":\"llvmpipe\",\"device_type\":1},\n"
    "              {\"id\":1,\"name\":\"CPU\",\"device\":\"EPYC\",\"device_type\":0}],\n"
    " \"records\":[\n"
    "  {\"type\":0,\"name\":\"MUL_MAT_ID\",\"backend_id\":0,\"split_id\":2,\"start_ns\":1000,\"duration_ns\":250,"
    "\"bytes\":4096,\"extra\":null,\"ne_src0\":[2688,1856,128,1],\"ne_src1\":[2688,1],\"ne_src2\":[8,1,1,1]},\n"
    "  {\"type\":1,\"name\":\"copy_H2D\",\"backend_id\":1,\"split_id\":0,\"start_ns\":4611686018427387904,"
    "\"duration_ns\":9,\"bytes\":100,\"extra\":\"RMS_NORM+MUL\",\"ne_src0\":[10,1,1,1],\"unknown\":{\"x\":[1,2]}}\n"
    " ],\"total_records\":2,\"total_ns\":259}";

static int test_v2(void) {
    ASSERT_EQ_INT(read_doc(V2, OPSCOPE_FORMAT_AUTO), 0);
    ASSERT_EQ_STR(g_log.order, "BBRRME");
    ASSERT_EQ_INT(opscope_profile_n_records(g_prof), 2);
    const opscope_record *r = opscope_profile_record(g_prof, 0);
    ASSERT_EQ_STR(r->name, "MUL_MAT_ID");
    ASSERT_EQ_INT(r->type, OPSCOPE_RECORD_OP);
    ASSERT_EQ_INT(r->split_id, 2);
    ASSERT_EQ_U64(r->start_ns, 1000);
    ASSERT_EQ_U64(r->duration_ns, 250);
    ASSERT_EQ_U64(r->bytes, 4096);
    ASSERT_NULL(r->extra);
    ASSERT_EQ_INT(r->n_src, 3);
    ASSERT_EQ_INT(r->ne_src[0][2], 128);
    ASSERT_EQ_INT(r->ne_src[1][0], 2688);
    ASSERT_EQ_INT(r->ne_src[1][1], 1);
    ASSERT_EQ_INT(r->ne_src[1][2], 0); /* short arrays padded with 0 */
    ASSERT_EQ_INT(r->ne_src[2][0], 8);
    ASSERT_EQ_INT(r->has & OPSCOPE_HAS_OUT, 0);
    ASSERT_EQ_INT(r->type_src[0], -1);
    r = opscope_profile_record(g_prof, 1);
    ASSERT_EQ_INT(r->type, OPSCOPE_RECORD_COPY);
    ASSERT_EQ_U64(r->start_ns, 1ull << 62); /* the largest time read (readers.h) */
    ASSERT_EQ_STR(r->extra, "RMS_NORM+MUL");
    ASSERT_EQ_INT(r->backend_id, 1);
    const opscope_backend *b = opscope_profile_backend(g_prof, 0);
    ASSERT_EQ_STR(b->name, "Vulkan0");
    ASSERT_EQ_STR(b->device, "llvmpipe");
    ASSERT_EQ_INT(b->device_type, OPSCOPE_DEVICE_GPU);
    const opscope_meta *m = opscope_profile_meta(g_prof);
    ASSERT_EQ_STR(m->profiler, "ggml");
    ASSERT_EQ_INT(m->version, 2);
    ASSERT_EQ_U64(m->total_records, 2);
    ASSERT_EQ_U64(m->total_ns, 259);
    return 0;
}

static int test_old_ne_and_defaults(void) {
    /* old files: "ne" is src0; missing fields take the seed tool's defaults; backends after
     * records; the totals default to the count and the sum of durations */
    const char *doc = "{\"records\":[{\"ne\":[5,6]},{\"name\":\"ADD\",\"duration_ns\":7,\"ne\":[1],\"ne_src0\":[2]},"
                      "{\"name\":null,\"duration_ns\":null}],"
                      "\"backends\":[{\"id\":3}]}";
    ASSERT_EQ_INT(read_doc(doc, OPSCOPE_FORMAT_AUTO), 0);
    ASSERT_EQ_STR(g_log.order, "RRRBME");
    const opscope_record *r = opscope_profile_record(g_prof, 0);
    ASSERT_EQ_STR(r->name, "unknown");
    ASSERT_EQ_INT(r->type, 0);
    ASSERT_EQ_INT(r->backend_id, 0);
    ASSERT_EQ_U64(r->duration_ns, 0);
    ASSERT_EQ_INT(r->ne_src[0][0], 5);
    ASSERT_EQ_INT(r->ne_src[0][1], 6);
    ASSERT_EQ_INT(r->ne_src[0][2], 0);
    ASSERT_EQ_INT(r->n_fused, 1);
    ASSERT_EQ_INT(r->has, 0);
    r = opscope_profile_record(g_prof, 1);
    ASSERT_EQ_INT(r->ne_src[0][0], 2); /* ne_src0 wins over the old key */
    r = opscope_profile_record(g_prof, 2);
    ASSERT_EQ_STR(r->name, "unknown");
    const opscope_backend *b = opscope_profile_backend(g_prof, 0);
    ASSERT_EQ_INT(b->id, 3);
    ASSERT_EQ_STR(b->name, "unknown");
    ASSERT_EQ_STR(b->device, "unknown");
    const opscope_meta *m = opscope_profile_meta(g_prof);
    ASSERT_EQ_INT(m->version, 0);
    ASSERT_EQ_U64(m->total_records, 3);
    ASSERT_EQ_U64(m->total_ns, 7);
    return 0;
}

/* The sampling weight of a device-timed record (docs/formats.md). */
static int test_weight(void) {
    ASSERT_EQ_INT(read_doc("{\"records\":[{\"type\":0,\"name\":\"MUL_MAT\",\"weight\":7},{\"type\":0}]}",
                           OPSCOPE_FORMAT_AUTO), 0);
    const opscope_record *r = opscope_profile_record(g_prof, 0);
    ASSERT_EQ_INT(r->weight, 7);
    ASSERT_TRUE(r->has & OPSCOPE_HAS_WEIGHT);
    ASSERT_TRUE(!(opscope_profile_record(g_prof, 1)->has & OPSCOPE_HAS_WEIGHT));
    return 0;
}

static int test_v3_and_opscope_fields(void) {
    const char *doc =
        "{\"profiler\":\"opscope\",\"version\":3,\"records\":[{\"type\":0,\"name\":\"UNARY\",\"sub_op\":\"SILU\","
        "\"n_src\":2,\"ne_src\":[[4096,7,1,1],[3]],\"nb_src\":[[4,16384,114688,114688],[4,4,4,4]],"
        "\"type_src\":[0,1],\"tensor_name\":\"ffn_silu-3\",\"ne\":[4096,7,1,1],\"out_type\":1,"
        "\"op_params\":[1,-2,4294967295,0],\"graph_id\":12,\"node_index\":40,\"n_fused\":3,\"thread_id\":2,"
        "\"host_start_ns\":5,\"host_end_ns\":9,\"flops\":28672,\"category\":\"eltwise\"}],"
        "\"dropped_records\":4}";
    ASSERT_EQ_INT(read_doc(doc, OPSCOPE_FORMAT_AUTO), 0);
    const opscope_record *r = opscope_profile_record(g_prof, 0);
    ASSERT_EQ_STR(r->sub_op, "SILU");
    ASSERT_EQ_INT(r->n_src, 2);
    ASSERT_EQ_INT(r->ne_src[0][1], 7);
    ASSERT_EQ_INT(r->ne_src[1][0], 3);
    ASSERT_EQ_INT(r->ne_src[1][1], 0);
    ASSERT_EQ_U64(r->nb_src[0][1], 16384);
    ASSERT_EQ_INT(r->type_src[1], 1);
    ASSERT_EQ_INT(r->type_src[2], -1);
    ASSERT_EQ_STR(r->tensor_name, "ffn_silu-3");
    ASSERT_EQ_INT(r->ne[0], 4096); /* version 3: "ne" is the output shape */
    ASSERT_EQ_INT(r->out_type, 1);
    ASSERT_EQ_INT(r->op_params[1], -2);
    ASSERT_EQ_INT(r->op_params[2], -1); /* the 32-bit word 0xFFFFFFFF */
    ASSERT_EQ_INT(r->graph_id, 12);
    ASSERT_EQ_INT(r->node_index, 40);
    ASSERT_EQ_INT(r->n_fused, 3);
    ASSERT_EQ_INT(r->thread_id, 2);
    ASSERT_EQ_U64(r->host_end_ns, 9);
    ASSERT_EQ_U64(r->flops, 28672);
    ASSERT_EQ_STR(r->category, "eltwise");
    ASSERT_EQ_INT(r->weight, 0); /* no weight given: not sampled */
    uint32_t want = OPSCOPE_HAS_GRAPH | OPSCOPE_HAS_NODE | OPSCOPE_HAS_THREAD | OPSCOPE_HAS_HOST_TIME |
                    OPSCOPE_HAS_OUT | OPSCOPE_HAS_OP_PARAMS | OPSCOPE_HAS_FLOPS | OPSCOPE_HAS_STRIDES |
                    OPSCOPE_HAS_SRC_TYPES;
    ASSERT_EQ_INT(r->has, want);
    ASSERT_EQ_U64(opscope_profile_meta(g_prof)->dropped_records, 4);
    ASSERT_EQ_STR(opscope_profile_meta(g_prof)->profiler, "opscope");
    return 0;
}

/* sub_op in the seed's v3 layout (ggml's enum value, -1 none), opscope's (the value and
 * "sub_op_name") and opscope's older files (the name). Values: ggml.h, enum ggml_unary_op
 * (GELU 8, SILU 10) and enum ggml_glu_op (SWIGLU 2, SWIGLU_CLAMP 6). */
static int test_sub_op_forms(void) {
    const char *doc =
        "{\"profiler\":\"kylin profiler\",\"version\":3,\"records\":["
        "{\"sub_op\":10,\"name\":\"UNARY\"},"           /* value before the op's name */
        "{\"name\":\"GLU\",\"sub_op\":6},"
        "{\"name\":\"MUL_MAT\",\"sub_op\":-1},"
        "{\"name\":\"UNARY\",\"sub_op\":\"GELU\"},"      /* opscope's older files */
        "{\"name\":\"UNARY\",\"sub_op\":8,\"sub_op_name\":\"GELU\"},"
        "{\"name\":\"UNARY\",\"sub_op\":99,\"sub_op_name\":\"NEWER_OP\"},"
        "{\"name\":\"UNARY\",\"sub_op\":99},"           /* past the enums opscope knows */
        "{\"name\":\"UNARY\",\"sub_op\":null,\"op_params\":[2]},"
        "{\"type\":1,\"name\":\"copy_H2D\",\"sub_op\":-1,\"sub_op_name\":\"HtoD\"}]}";
    ASSERT_EQ_INT(read_doc(doc, OPSCOPE_FORMAT_AUTO), 0);
    static const struct {
        const char *name; /* NULL: none */
        int32_t value;
        int has;
    } want[] = {{"SILU", 10, 1},      {"SWIGLU_CLAMP", 6, 1}, {NULL, -1, 0},
                {"GELU", 8, 0},       {"GELU", 8, 1},         {"NEWER_OP", 99, 1},
                {NULL, 99, 1},        {"NEG", 2, 0},          {"HtoD", -1, 0}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const opscope_record *r = opscope_profile_record(g_prof, i);
        int32_t v = -7;
        const char *n = opscope_record_sub_op(r, &v);
        if (want[i].name) ASSERT_EQ_STR(n, want[i].name);
        else ASSERT_NULL(n);
        ASSERT_EQ_INT(v, want[i].value);
        ASSERT_EQ_INT(!!(r->has & OPSCOPE_HAS_SUB_OP), want[i].has);
    }
    ASSERT_EQ_STR(opscope_profile_meta(g_prof)->profiler, "kylin profiler");
    ASSERT_EQ_STR(opscope_sub_op_name("GLU", 2), "SWIGLU");
    ASSERT_NULL(opscope_sub_op_name("ADD", 2));
    ASSERT_NULL(opscope_sub_op_name("UNARY", -1));
    ASSERT_NULL(opscope_sub_op_name("UNARY", 22)); /* GGML_UNARY_OP_COUNT */
    ASSERT_EQ_STR(opscope_sub_op_name("UNARY", 21), "TRUNC");
    ASSERT_EQ_INT(opscope_sub_op_value("UNARY", "SILU"), 10);
    ASSERT_EQ_INT(opscope_sub_op_value("GLU", "SILU"), -1);
    ASSERT_EQ_INT(opscope_sub_op_value(NULL, "SILU"), -1);
    return 0;
}

#define ASSERT_READ_ERR(doc, code_, line_, col_, msg_part)                                   \
    do {                                                                                    \
        ASSERT_EQ_INT(read_doc(doc, OPSCOPE_FORMAT_AUTO), -1);                              \
        ASSERT_EQ_INT(g_err.code, code_);                                                   \
        ASSERT_EQ_INT(g_err.line, line_);                                                   \
        ASSERT_EQ_INT(g_err.col, col_);                                                     \
        ASSERT_CONTAINS(g_err.msg, msg_part);                                               \
        ASSERT_EQ_STR(g_err.file, "p.json");                                                \
        ASSERT_TRUE(strchr(g_log.order, 'E') == NULL);                                      \
    } while (0)

/* A whole split's batch and queries, and the sampled-out mark (docs/formats.md). */
static int test_split_batch(void) {
    ASSERT_EQ_INT(read_doc("{\"records\":[{\"name\":\"GRAPH_SPLIT\",\"batch\":12,\"queries\":3,"
                           "\"sampled_out\":true},{\"name\":\"GRAPH_SPLIT\",\"batch\":0,\"sampled_out\":false},"
                           "{\"name\":\"ADD\"}]}",
                           OPSCOPE_FORMAT_AUTO), 0);
    const opscope_record *r = opscope_profile_record(g_prof, 0);
    ASSERT_EQ_INT((int)r->batch, 12);
    ASSERT_EQ_INT((int)r->queries, 3);
    ASSERT_EQ_INT((int)(r->has & (OPSCOPE_HAS_BATCH | OPSCOPE_HAS_SAMPLED_OUT)),
                  (int)(OPSCOPE_HAS_BATCH | OPSCOPE_HAS_SAMPLED_OUT));
    r = opscope_profile_record(g_prof, 1);
    ASSERT_EQ_INT((int)(r->has & (OPSCOPE_HAS_BATCH | OPSCOPE_HAS_SAMPLED_OUT)), (int)OPSCOPE_HAS_BATCH);
    ASSERT_EQ_INT((int)r->queries, 0);
    ASSERT_TRUE(!(opscope_profile_record(g_prof, 2)->has & (OPSCOPE_HAS_BATCH | OPSCOPE_HAS_SAMPLED_OUT)));
    ASSERT_READ_ERR("{\"records\":[{\"batch\":-1}]}", OPSCOPE_ERROR_RANGE, 1, 22, "non-negative");
    ASSERT_READ_ERR("{\"records\":[{\"sampled_out\":1}]}", OPSCOPE_ERROR_SCHEMA, 1, 28, "true or false");
    return 0;
}

static int test_errors(void) {
    ASSERT_READ_ERR("{\"records\":[{\"type\":0,\n  \"duration_ns\":-5}]}", OPSCOPE_ERROR_RANGE, 2, 17,
                    "non-negative");
    ASSERT_READ_ERR("{\"records\":[\n{\"type\":\"0\"}]}", OPSCOPE_ERROR_SCHEMA, 2, 9, "expected an integer");
    ASSERT_READ_ERR("{\"records\":[{\"type\":2}]}", OPSCOPE_ERROR_RANGE, 1, 21, "out of range");
    ASSERT_READ_ERR("{\"records\":[{\"bytes\":18446744073709551616}]}", OPSCOPE_ERROR_RANGE, 1, 22,
                    "out of range");
    ASSERT_READ_ERR("{\"records\":[{\"start_ns\":1e999}]}", OPSCOPE_ERROR_SCHEMA, 1, 25, "expected an integer");
    ASSERT_READ_ERR("{\"records\":[{\"backend_id\":3000000000}]}", OPSCOPE_ERROR_RANGE, 1, 27, "out of range");
    ASSERT_READ_ERR("{\"records\":[{\"ne_src0\":[1,2,3,4,5]}]}", OPSCOPE_ERROR_RANGE, 1, 33, "more than 4");
    ASSERT_READ_ERR("{\"records\":[{\"ne_src\":[[],[],[],[],[],[],[],[],[],[],[]]}]}", OPSCOPE_ERROR_RANGE, 1,
                    54, "more than 10");
    ASSERT_READ_ERR("{\"records\":[{\"n_src\":11}]}", OPSCOPE_ERROR_RANGE, 1, 22, "out of range");
    ASSERT_READ_ERR("{\"records\":[{\"name\":5}]}", OPSCOPE_ERROR_SCHEMA, 1, 21, "expected a string");
    ASSERT_READ_ERR("{\"records\":[{\"sub_op\":true}]}", OPSCOPE_ERROR_SCHEMA, 1, 23,
                    "expected an integer or a string");
    ASSERT_READ_ERR("{\"records\":[{\"sub_op\":2.0}]}", OPSCOPE_ERROR_SCHEMA, 1, 23, "not a fraction");
    ASSERT_READ_ERR("{\"records\":[{\"sub_op\":-2}]}", OPSCOPE_ERROR_RANGE, 1, 23, "out of range");
    ASSERT_READ_ERR("{\"records\":[{\"sub_op_name\":3}]}", OPSCOPE_ERROR_SCHEMA, 1, 28, "expected a string");
    ASSERT_READ_ERR("{\"records\":[{\"weight\":0}]}", OPSCOPE_ERROR_RANGE, 1, 23, "out of range");
    ASSERT_READ_ERR("{\"records\":{}}", OPSCOPE_ERROR_SCHEMA, 1, 12, "\"records\" must be an array");
    ASSERT_READ_ERR("{\"records\":[1]}", OPSCOPE_ERROR_SCHEMA, 1, 13, "\"records\" must be an array");
    ASSERT_READ_ERR("{\"records\":[{\"type\":0,}]}", OPSCOPE_ERROR_SYNTAX, 1, 23, "expected '\"'");
    ASSERT_READ_ERR("", OPSCOPE_ERROR_SYNTAX, 1, 1, "unexpected end of input");
    ASSERT_READ_ERR("\n 42", OPSCOPE_ERROR_SCHEMA, 2, 2, "a ggml profile is a JSON object");
    ASSERT_READ_ERR("{\"records\":[]} x", OPSCOPE_ERROR_SYNTAX, 1, 16, "after the top-level value");
    return 0;
}

/*
 * Times beyond any real run (readers.h: past 2^62 ns) are refused at the value, in every time
 * field, as durations over a year are; the times of real runs read exactly: CLOCK_MONOTONIC of
 * a machine up for days, the same in a time namespace 1000 s ahead, CLOCK_REALTIME's offset
 * now (1.8e18 ns) and 2^62 itself.
 */
static int test_times_beyond_a_run(void) {
    static const char BAD[] = "4611686018427387905"; /* 2^62 + 1: where each case puts it */
    static const struct {
        const char *doc, *field;
    } cases[] = {
        {"{\"records\":[{\"type\":0,\"start_ns\":4611686018427387905,\"duration_ns\":5}]}", "start_ns"},
        {"{\"records\":[{\"start_ns\":9223372036854775000}]}", "start_ns"},
        {"{\"records\":[{\"start_ns\":18446744073709551615}]}", "start_ns"},
        {"{\"records\":[{\"host_start_ns\":4611686018427387905,\"host_end_ns\":1}]}", "host_start_ns"},
        {"{\"records\":[{\"host_start_ns\":1,\"host_end_ns\":4611686018427387905}]}", "host_end_ns"},
        {"{\"capture\":{\"start_ns\":4611686018427387905},\"records\":[]}", "capture.start_ns"},
        {"{\"capture\":{\"realtime_offset_ns\":4611686018427387905},\"records\":[]}", "capture.realtime_offset_ns"},
        {"{\"capture\":{\"realtime_offset_ns\":-4611686018427387905},\"records\":[]}", "capture.realtime_offset_ns"},
        {"{\"capture\":{\"end\":{\"how\":\"exit\",\"at_ns\":4611686018427387905}},\"records\":[]}", "capture.end.at_ns"},
        {"{\"capture\":{\"end\":{\"died_ns\":4611686018427387905}},\"records\":[]}", "capture.end.died_ns"},
        {"{\"capture\":{\"contexts\":[{\"end_ns\":4611686018427387905}]},\"records\":[]}", "end_ns"},
        {"{\"capture\":{\"contexts\":[{\"reps_ns\":[5,4611686018427387905]}]},\"records\":[]}", "reps_ns"},
        {"{\"capture\":{\"decodes\":[{\"start_ns\":4611686018427387905,\"end_ns\":4611686018427387906}]},"
         "\"records\":[]}", "start_ns"},
        {"{\"capture\":{\"decodes\":[{\"start_ns\":1,\"end_ns\":4611686018427387905}]},\"records\":[]}", "end_ns"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *doc = cases[i].doc;
        const char *at = strstr(doc, "-4611686018427387905");
        if (!at) at = strstr(doc, BAD);
        if (!at) at = strstr(doc, "9223372036854775000");
        if (!at) at = strstr(doc, "18446744073709551615");
        ASSERT_NOT_NULL(at);
        char want[160];
        snprintf(want, sizeof want, "%s is beyond any real run (more than 2^62 ns", cases[i].field);
        ASSERT_READ_ERR(doc, OPSCOPE_ERROR_RANGE, 1, (int)(at - doc) + 1, want);
        ASSERT_EQ_U64(g_err.pos, (uint64_t)(at - doc));
        ASSERT_EQ_U64(opscope_profile_n_records(g_prof), 0);
    }
    /* real clocks: days of uptime, +1000 s of a time namespace, realtime's offset, the bound */
    const char *ok = "{\"capture\":{\"start_ns\":432000000000000,\"realtime_offset_ns\":1795631245480772288,"
                     "\"end\":{\"how\":\"exit\",\"at_ns\":433000000000000,\"died_ns\":433000000000001},"
                     "\"contexts\":[{\"end_ns\":433000000000000,\"reps_ns\":[432000000000000]}],"
                     "\"decodes\":[{\"start_ns\":432100000000000,\"end_ns\":432100000500000}]},"
                     "\"records\":[{\"start_ns\":432100000000000,\"duration_ns\":7},"
                     "{\"start_ns\":433100000000000,\"duration_ns\":7,\"host_start_ns\":433100000000000,"
                     "\"host_end_ns\":433100000000007},"
                     "{\"start_ns\":4611686018427387904,\"duration_ns\":31557600000000000}]}";
    ASSERT_EQ_INT(read_doc(ok, OPSCOPE_FORMAT_AUTO), 0);
    ASSERT_EQ_U64(opscope_profile_n_records(g_prof), 3);
    ASSERT_EQ_U64(opscope_profile_record(g_prof, 1)->start_ns, 433100000000000ull);
    ASSERT_EQ_U64(opscope_profile_record(g_prof, 2)->start_ns, 1ull << 62);
    const opscope_capture_info *c = opscope_profile_meta(g_prof)->capture;
    ASSERT_NOT_NULL(c);
    ASSERT_EQ_U64(c->end_ns, 433000000000000ull);
    ASSERT_EQ_INT(c->realtime_offset_ns, 1795631245480772288ll);
    ASSERT_NOT_NULL(c->run);
    ASSERT_EQ_U64(c->run->n_decodes, 1);
    ASSERT_EQ_U64(c->run->contexts[0].reps_ns[0], 432000000000000ull);
    return 0;
}

/* Inputs that are no profile or trace are refused before any record, saying what they look
 * like and what opscope reads, instead of an empty report ("Total records: 0") or a JSON
 * syntax error ("expected a value") that would not tell the user what went wrong. */
static int test_foreign(void) {
    static const struct {
        const char *doc, *looks;
    } cases[] = {
        {"[1,2,3]", "a JSON array of values that are not objects"},
        {"[\"a\"]", "a JSON array of values that are not objects"},
        {"{\"version\":6,\"cmakeMinimumRequired\":{\"major\":3},\"configurePresets\":[]}",
         "a JSON object without the keys of a profile"},
        {"SQLite format 3", "an SQLite database"},
        {"\n<!DOCTYPE html>\n<html><body></body></html>", "an HTML page"},
        {"<html lang=en>", "an HTML page"},
        {"================\n Profiling Summary: t1.json\n", "opscope's own text report"},
        {"opscope diff\n  BASE a.json\n", "opscope's own text report"},
        {"\x7f" "ELF\x02\x01", "an executable"},
        /* llama-bench's outputs and another tool's array of objects */
        {"[\n  {\n    \"build_commit\": \"x\",\n    \"n_prompt\": 16\n  }\n]\n", "llama-bench's results (-o json)"},
        {"{\"build_commit\": \"x\", \"n_prompt\": 16}\n{\"build_commit\": \"x\"}\n", "llama-bench's results (-o jsonl)"},
        {"CREATE TABLE IF NOT EXISTS test (\n  build_commit TEXT\n);\n", "llama-bench's results (-o sql)"},
        {"[{\"id\":1},{\"id\":2}]", "a JSON array of objects that are not trace events"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ASSERT_EQ_INT(read_doc(cases[i].doc, OPSCOPE_FORMAT_AUTO), -1);
        ASSERT_EQ_INT(g_err.code, OPSCOPE_ERROR_FORMAT);
        ASSERT_CONTAINS(g_err.msg, cases[i].looks);
        ASSERT_CONTAINS(g_err.msg, "opscope reads ggml profiles");
        ASSERT_EQ_STR(g_err.file, "p.json");
        ASSERT_EQ_U64(opscope_profile_n_records(g_prof), 0);
    }
    /* what may be a trace or a profile still reaches its reader */
    ASSERT_EQ_INT(read_doc("[]", OPSCOPE_FORMAT_AUTO), 0);
    ASSERT_EQ_INT(read_doc("[{\"ph\":\"X\",\"name\":\"k\",\"ts\":1,\"dur\":2}]", OPSCOPE_FORMAT_AUTO), 0);
    ASSERT_EQ_INT(read_doc("{\"profiler\":\"ggml\",\"version\":2}", OPSCOPE_FORMAT_AUTO), 0);
    return 0;
}

/* A profile cut short inside its top-level object (a crash while it was written) is read up
 * to its last complete record, with the cut's offset in the meta and the read status; what
 * is not a ggml profile, or is malformed before its end, still fails. */
static int test_truncated(void) {
    const char *doc = "{\"backends\":[{\"id\":0,\"name\":\"CPU\"}],\"total_records\":9,\"records\":["
                      "{\"name\":\"ADD\",\"duration_ns\":7},{\"name\":\"MUL\",\"duration_ns\":5},{\"name\":\"SC";
    size_t n = strlen(doc);
    /* cut inside a string, after a comma, after a complete record, inside a number */
    const size_t cuts[] = {n, n - 8, n - 9, n - 29};
    const uint64_t want[] = {2, 2, 2, 1};
    for (size_t c = 0; c < 4; c++) {
        opscope_profile_free(g_prof);
        g_prof = opscope_profile_new();
        memset(&g_log, 0, sizeof g_log);
        g_log.p = g_prof;
        opscope_sink s = {&g_log, ls_meta, ls_backend, ls_record, ls_end};
        opscope_read_status st;
        opscope_read_options ro = {0};
        ro.status = &st;
        ASSERT_EQ_INT(opscope_read_buffer_opts(doc, cuts[c], "t.json", OPSCOPE_FORMAT_AUTO, &s, &ro, &g_err), 0);
        ASSERT_EQ_U64(opscope_profile_n_records(g_prof), want[c]);
        ASSERT_EQ_U64(st.records, want[c]);
        ASSERT_EQ_U64(st.truncated_at, cuts[c]);
        ASSERT_EQ_U64(opscope_profile_meta(g_prof)->truncated_at, cuts[c]);
        /* the header said 9: a cut file's totals are what was read */
        ASSERT_EQ_U64(opscope_profile_meta(g_prof)->total_records, want[c]);
        ASSERT_EQ_U64(opscope_profile_meta(g_prof)->total_ns, want[c] == 2 ? 12 : 7);
        ASSERT_EQ_STR(g_log.order, want[c] == 2 ? "BRRME" : "BRME");
    }
    /* cut short before any complete record: nothing stands */
    ASSERT_READ_ERR("{\"backends\":[],\"records\":[{\"name\":\"A", OPSCOPE_ERROR_SYNTAX, 1, 37,
                    "cut short) before its first complete record");
    ASSERT_READ_ERR("{\"records\":[{\"type\":0},x", OPSCOPE_ERROR_SYNTAX, 1, 24, "expected a value");
    ASSERT_READ_ERR("{\"records\":[{\"name\":5}", OPSCOPE_ERROR_SCHEMA, 1, 21, "expected a string");
    ASSERT_EQ_INT(read_doc("[1,2", OPSCOPE_FORMAT_GGML), -1); /* not a profile: no cut of one */
    ASSERT_READ_ERR("", OPSCOPE_ERROR_SYNTAX, 1, 1, "unexpected end of input");
    /* a complete file says nothing; capture.end is read */
    const char *ended = "{\"records\":[],\"capture\":{\"program\":\"llama-cli\",\"end\":{\"how\":\"killed\","
                        "\"signal\":\"SIGKILL\",\"at_ns\":100,\"died_ns\":2100,\"later\":[1]}}}";
    opscope_read_status st;
    opscope_read_options ro = {0};
    ro.status = &st;
    opscope_sink s = {0};
    ASSERT_EQ_INT(opscope_read_buffer_opts(ended, strlen(ended), "e.json", OPSCOPE_FORMAT_AUTO, &s, &ro, &g_err), 0);
    ASSERT_EQ_U64(st.truncated_at, 0);
    ASSERT_EQ_STR(st.program, "llama-cli");
    ASSERT_EQ_STR(st.end, "killed");
    ASSERT_EQ_STR(st.end_signal, "SIGKILL");
    ASSERT_EQ_U64(st.end_ns, 100);
    ASSERT_EQ_U64(st.died_ns, 2100);
    return 0;
}

static int stop_at_first(void *ud, const opscope_record *r) {
    (void)ud;
    (void)r;
    return 1;
}

static int test_sink_abort(void) {
    opscope_sink s = {NULL, NULL, NULL, stop_at_first, NULL};
    opscope_error e;
    ASSERT_EQ_INT(opscope_read_buffer(V2, strlen(V2), "p.json", OPSCOPE_FORMAT_AUTO, &s, &e), -1);
    ASSERT_EQ_INT(e.code, OPSCOPE_ERROR_ABORTED);
    return 0;
}

static int test_detection(void) {
    int ev = 0;
    const char *k1 = "{\"schemaVersion\":1,\"traceEvents\":[]}";
    ASSERT_EQ_INT(opscope_detect_format(k1, strlen(k1), 1, &ev), OPSCOPE_FORMAT_KINETO);
    const char *k2 = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\"}],\"x\":1}";
    ASSERT_EQ_INT(opscope_detect_format(k2, strlen(k2), 1, &ev), OPSCOPE_FORMAT_KINETO);
    const char *c1 = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"compute\"}],\"displayTimeUnit\":\"ns\"}";
    ASSERT_EQ_INT(opscope_detect_format(c1, strlen(c1), 1, &ev), OPSCOPE_FORMAT_CHROME);
    ASSERT_EQ_INT(ev, 1);
    ASSERT_EQ_INT(opscope_detect_format("[{}]", 4, 1, NULL), OPSCOPE_FORMAT_CHROME);
    const char *g1 = "{\"profiler\":\"ggml\",\"version\":2}";
    ASSERT_EQ_INT(opscope_detect_format(g1, strlen(g1), 1, NULL), OPSCOPE_FORMAT_GGML);
    const char *g2 = "{\"version\":3,\"generator\":\"x\",\"records\":[";
    ASSERT_EQ_INT(opscope_detect_format(g2, strlen(g2), 0, NULL), OPSCOPE_FORMAT_GGML);
    const char *u = "{\"version\":3,\"gen";
    ASSERT_EQ_INT(opscope_detect_format(u, strlen(u), 0, NULL), OPSCOPE_FORMAT_AUTO);
    /* COMPLETE: nothing follows, so it decides: the ggml reader reports what is wrong */
    ASSERT_EQ_INT(opscope_detect_format(u, strlen(u), 1, NULL), OPSCOPE_FORMAT_GGML);
    ASSERT_EQ_INT(opscope_detect_format("42", 2, 0, NULL), OPSCOPE_FORMAT_AUTO);
    ASSERT_EQ_INT(opscope_detect_format("42", 2, 1, NULL), OPSCOPE_FORMAT_GGML);
    ASSERT_EQ_INT(opscope_detect_format("", 0, 1, NULL), OPSCOPE_FORMAT_GGML);
    /* a truncated trace: more may make it Kineto; at its end it is read as a Chrome trace */
    const char *t1 = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"compute\"}";
    ev = 0;
    ASSERT_EQ_INT(opscope_detect_format(t1, strlen(t1), 0, &ev), OPSCOPE_FORMAT_AUTO);
    ASSERT_EQ_INT(ev, 1);
    ev = 0;
    ASSERT_EQ_INT(opscope_detect_format(t1, strlen(t1), 1, &ev), OPSCOPE_FORMAT_CHROME);
    ASSERT_EQ_INT(ev, 1);
    /* events without a Kineto category, then more keys: a later one may still say Kineto */
    const char *t2 = "{\"traceEvents\":[{\"cat\":\"compute\"}],\"schemaVersion\":1}";
    size_t cut = strlen("{\"traceEvents\":[{\"cat\":\"compute\"}],");
    ASSERT_EQ_INT(opscope_detect_format(t2, cut, 0, NULL), OPSCOPE_FORMAT_AUTO);
    ASSERT_EQ_INT(opscope_detect_format(t2, cut, 1, NULL), OPSCOPE_FORMAT_CHROME);
    ASSERT_EQ_INT(opscope_detect_format(t2, strlen(t2), 1, NULL), OPSCOPE_FORMAT_KINETO);
    /* a read of the truncated trace is read up to its last complete event, as a
       ggml profile cut short is; one cut before its events began fails at the end of the input */
    opscope_error te;
    ASSERT_EQ_INT(opscope_read_buffer(t1, strlen(t1), "t.json", OPSCOPE_FORMAT_AUTO, NULL, &te), 0);
    const char *t0 = "{\"schemaVersion\":1,\"traceEvents\"";
    ASSERT_EQ_INT(opscope_read_buffer(t0, strlen(t0), "t.json", OPSCOPE_FORMAT_KINETO, NULL, &te), -1);
    ASSERT_EQ_INT(te.code, OPSCOPE_ERROR_SYNTAX);
    ASSERT_EQ_U64(te.pos, strlen(t0));
    /* a Chrome-looking object reaches the trace reader (it yields its slices as records) */
    ASSERT_EQ_INT(read_doc("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"cat\":\"c\",\"pid\":1,\"tid\":2,\"ts\":1.5,\"dur\":2}]}",
                           OPSCOPE_FORMAT_AUTO), 0);
    ASSERT_EQ_INT(opscope_profile_n_records(g_prof), 1);
    ASSERT_EQ_U64(opscope_profile_record(g_prof, 0)->start_ns, 1500);
    return 0;
}

static int write_file(const char *path, const char *data, int gz) {
    if (gz) {
        gzFile f = gzopen(path, "wb");
        if (!f) return -1;
        int n = gzwrite(f, data, (unsigned)strlen(data));
        gzclose(f);
        return n == (int)strlen(data) ? 0 : -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    fwrite(data, 1, strlen(data), f);
    fclose(f);
    return 0;
}

static int read_path(const char *path) {
    opscope_profile_free(g_prof);
    g_prof = opscope_profile_new();
    opscope_sink s = opscope_profile_sink(g_prof);
    memset(&g_err, 0, sizeof g_err);
    return opscope_read_file(path, OPSCOPE_FORMAT_AUTO, &s, &g_err);
}

static int test_files_gzip_stdin(void) {
    ASSERT_EQ_INT(write_file("v2.json", V2, 0), 0);
    ASSERT_EQ_INT(write_file("v2.json.gz", V2, 1), 0);
    ASSERT_EQ_INT(write_file("v2_gz_named_plain.bin", V2, 1), 0); /* detected by magic bytes */
    ASSERT_EQ_INT(read_path("v2.json"), 0);
    ASSERT_EQ_INT(opscope_profile_n_records(g_prof), 2);
    ASSERT_EQ_INT(read_path("v2.json.gz"), 0);
    ASSERT_EQ_INT(opscope_profile_n_records(g_prof), 2);
    ASSERT_EQ_U64(opscope_profile_record(g_prof, 1)->start_ns, 1ull << 62);
    ASSERT_EQ_INT(read_path("v2_gz_named_plain.bin"), 0);
    ASSERT_EQ_INT(opscope_profile_n_records(g_prof), 2);
    ASSERT_EQ_INT(read_path("does/not/exist.json"), -1);
    ASSERT_EQ_INT(g_err.code, OPSCOPE_ERROR_IO);
    ASSERT_EQ_STR(g_err.file, "does/not/exist.json");
    /* truncated gzip: an error, never a crash */
    ASSERT_EQ_INT(write_file("bad.json.gz", "\x1f\x8b\x08\x00garbage", 0), 0);
    ASSERT_EQ_INT(read_path("bad.json.gz"), -1);

    /* stdin as a pipe, plain and gzip (zlib reads plain input transparently) */
    for (int gz = 0; gz < 2; gz++) {
        const char *src = gz ? "v2.json.gz" : "v2.json";
        FILE *f = fopen(src, "rb");
        ASSERT_NOT_NULL(f);
        char buf[8192];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        int p[2];
        ASSERT_EQ_INT(pipe(p), 0);
        pid_t pid = fork();
        if (pid == 0) {
            close(p[0]);
            ssize_t w = write(p[1], buf, n);
            _exit(w == (ssize_t)n ? 0 : 1);
        }
        close(p[1]);
        int saved = dup(0);
        dup2(p[0], 0);
        close(p[0]);
        int rc = read_path("-");
        dup2(saved, 0);
        close(saved);
        waitpid(pid, NULL, 0);
        ASSERT_EQ_INT(rc, 0);
        ASSERT_EQ_INT(opscope_profile_n_records(g_prof), 2);
        ASSERT_EQ_STR(opscope_profile_record(g_prof, 0)->name, "MUL_MAT_ID");
    }
    return 0;
}

/* The same document read whole and through a file (1 MiB reads) gives the same records, also
 * when records straddle the reader's buffer boundaries. */
static int test_big_stream(void) {
    size_t n = 60000, cap = n * 200 + 256, len = 0;
    char *doc = malloc(cap);
    len += (size_t)sprintf(doc + len, "{\"version\":2,\"records\":[");
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        len += (size_t)sprintf(doc + len, "%s{\"type\":%d,\"name\":\"OP%zu\",\"duration_ns\":%zu,\"ne_src0\":[%zu,2,3,4]}",
                               i ? "," : "", (int)(i % 2), i % 7, i * 3, i);
        sum += i * 3;
    }
    len += (size_t)sprintf(doc + len, "]}");
    FILE *f = fopen("big.json", "wb");
    fwrite(doc, 1, len, f);
    fclose(f);
    /* gzip: inflated on the pipe's thread through its ring of blocks, several times over */
    ASSERT_GT_U64(len, 3u << 20);
    ASSERT_EQ_INT(write_file("big.json.gz", doc, 1), 0);
    free(doc);
    for (int gz = 0; gz < 2; gz++) {
        ASSERT_EQ_INT(read_path(gz ? "big.json.gz" : "big.json"), 0);
        ASSERT_EQ_INT(opscope_profile_n_records(g_prof), n);
        ASSERT_EQ_U64(opscope_profile_meta(g_prof)->total_ns, sum);
        const opscope_record *r = opscope_profile_record(g_prof, 54321);
        ASSERT_EQ_STR(r->name, "OP1"); /* 54321 % 7 == 1 */
        ASSERT_EQ_INT(r->ne_src[0][0], 54321);
        ASSERT_EQ_U64(r->duration_ns, 54321 * 3);
        ASSERT_EQ_INT(r->type, 54321 % 2);
    }
    return 0;
}

static long file_bytes(const char *path, char **out) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *out = malloc((size_t)n);
    if (!*out || fread(*out, 1, (size_t)n, f) != (size_t)n) n = -1;
    fclose(f);
    return n;
}

static int stop_after_1000(void *ud, const opscope_record *r) {
    (void)r;
    return ++*(int *)ud >= 1000;
}

/* A gzip input that goes wrong past the pipe's first blocks: corrupt data fails as a read
 * error, a cut stream keeps the records before the cut, and a reader that stops early leaves
 * (the inflating thread stopped and joined: no hang, nothing leaked under the sanitizers). */
static int test_gzip_past_first_blocks(void) {
    char *z = NULL;
    long n = file_bytes("big.json.gz", &z); /* test_big_stream's */
    ASSERT_TRUE(n > 1000);
    FILE *f = fopen("corrupt.json.gz", "wb");
    ASSERT_NOT_NULL(f);
    fwrite(z, 1, (size_t)n, f);
    fseek(f, n * 3 / 4, SEEK_SET);
    fwrite("\xff\x00\xff\x00\xff\x00\xff\x00", 1, 8, f);
    fclose(f);
    ASSERT_EQ_INT(read_path("corrupt.json.gz"), -1);
    ASSERT_EQ_INT(g_err.code, OPSCOPE_ERROR_IO);
    f = fopen("cut.json.gz", "wb");
    ASSERT_NOT_NULL(f);
    fwrite(z, 1, (size_t)(n / 2), f);
    fclose(f);
    free(z);
    int rc = read_path("cut.json.gz");
    size_t got = opscope_profile_n_records(g_prof);
    ASSERT_TRUE(rc == 0 || (rc == -1 && g_err.code == OPSCOPE_ERROR_IO));
    ASSERT_TRUE(rc == -1 || (got > 1000 && got < 60000));
    int seen = 0;
    opscope_sink s = {&seen, NULL, NULL, stop_after_1000, NULL};
    opscope_error e;
    ASSERT_EQ_INT(opscope_read_file("big.json.gz", OPSCOPE_FORMAT_AUTO, &s, &e), -1);
    ASSERT_EQ_INT(e.code, OPSCOPE_ERROR_ABORTED);
    ASSERT_EQ_INT(seen, 1000);
    return 0;
}

/* The progress option: bytes of the input as stored, never going back, ending at its size
 * (the compressed size for gzip), also for a Kineto trace that yields few records. */
typedef struct prog_log {
    uint64_t last, calls;
    int backwards;
} prog_log;

static void on_prog(void *ud, uint64_t bytes_in) {
    prog_log *l = ud;
    l->backwards |= bytes_in < l->last;
    l->last = bytes_in;
    l->calls++;
}

static int count_meta(void *ud, const opscope_meta *m) {
    (void)m;
    ((uint64_t *)ud)[0]++;
    return 0;
}

static int count_record(void *ud, const opscope_record *r) {
    (void)r;
    ((uint64_t *)ud)[1]++;
    return 0;
}

static long file_size(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static int test_progress_option(void) {
    size_t n = 70000, cap = n * 160 + 256, len = 0;
    char *doc = malloc(cap);
    ASSERT_NOT_NULL(doc);
    len += (size_t)sprintf(doc + len, "{\"schemaVersion\":1,\"traceEvents\":[");
    for (size_t i = 0; i < n; i++) /* CPU ops only: no record at all */
        len += (size_t)sprintf(doc + len, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op%zu\","
                               "\"pid\":1,\"tid\":1,\"ts\":%zu,\"dur\":1}", i ? "," : "", i * 7919 % 100003, i);
    len += (size_t)sprintf(doc + len, "]}");
    ASSERT_GT_U64(len, 5u << 20);
    int wrote = write_file("prog.json", doc, 0) | write_file("prog.json.gz", doc, 1);
    ASSERT_EQ_INT(wrote, 0);
    const char *paths[] = {"prog.json", "prog.json.gz"};
    for (int i = 0; i < 2; i++) {
        prog_log l = {0};
        opscope_read_options o = {0};
        o.on_progress = on_prog;
        o.progress_ud = &l;
        uint64_t counts[2] = {0, 0};
        opscope_sink s = {counts, count_meta, NULL, count_record, NULL};
        opscope_error e;
        ASSERT_EQ_INT(opscope_read_file_opts(paths[i], OPSCOPE_FORMAT_AUTO, &s, &o, &e), 0);
        ASSERT_EQ_U64(counts[0], 1);
        ASSERT_EQ_U64(counts[1], 0);
        ASSERT_EQ_INT(l.backwards, 0);
        ASSERT_EQ_U64(l.last, (uint64_t)file_size(paths[i]));
        ASSERT_GE_U64(l.calls, i ? 1 : 5); /* the plain file in 1 MiB reads */
    }
    prog_log l = {0};
    opscope_read_options o = {0};
    o.on_progress = on_prog;
    o.progress_ud = &l;
    opscope_error e;
    ASSERT_EQ_INT(opscope_read_buffer_opts(doc, len, "m", OPSCOPE_FORMAT_AUTO, NULL, &o, &e), 0);
    ASSERT_EQ_U64(l.last, len);
    ASSERT_EQ_INT(l.backwards, 0);
    free(doc);
    return 0;
}

/* Renders what a sink receives, to compare reads of the same document. */
static int render_record(void *ud, const opscope_record *r) {
    char line[1024];
    int n = snprintf(line, sizeof line, "R %d %s %s %s %s %d %d %llu %llu %llu %d %u %lld %lld %lld %d %d\n",
                     (int)r->type, r->name, r->extra ? r->extra : "-", r->sub_op ? r->sub_op : "-",
                     r->tensor_name ? r->tensor_name : "-", r->backend_id, r->split_id,
                     (unsigned long long)r->start_ns, (unsigned long long)r->duration_ns,
                     (unsigned long long)r->bytes, r->n_src, r->has, (long long)r->ne_src[0][0],
                     (long long)r->ne_src[1][1], (long long)r->ne[0], r->type_src[1], r->op_params[2]);
    strncat(ud, line, 65535 - strlen(ud));
    return n < 0;
}
static int render_backend(void *ud, const opscope_backend *b) {
    char line[512];
    snprintf(line, sizeof line, "B %d %s %s %d\n", b->id, b->name, b->device, (int)b->device_type);
    strncat(ud, line, 65535 - strlen(ud));
    return 0;
}

/* Records split across reads of 1, 2, 3 and 7 bytes come out the same as from memory. */
static int test_chunked_reads(void) {
    const char *v3 = "{\"version\":3,\"records\":[{\"type\":0,\"name\":\"GLU\",\"sub_op\":\"SWIGLU\",\"n_src\":2,"
                     "\"ne_src\":[[11008,7],[11008,7,1,1]],\"type_src\":[0,1],\"tensor_name\":\"ffn_\\u00e9\","
                     "\"ne\":[11008,7,1,1],\"op_params\":[0,1,4294967295],\"start_ns\":123456789012345678}],"
                     "\"backends\":[{\"id\":0,\"name\":\"CPU\",\"device\":\"d\\\"q\",\"device_type\":0}]}";
    const char *docs[] = {V2, v3};
    static char want[65536], got[65536];
    for (int d = 0; d < 2; d++) {
        want[0] = 0;
        opscope_sink s = {want, NULL, render_backend, render_record, NULL};
        opscope_error e;
        ASSERT_EQ_INT(opscope_read_buffer(docs[d], strlen(docs[d]), "m", OPSCOPE_FORMAT_GGML, &s, &e), 0);
        ASSERT_GT_U64(strlen(want), 20);
        static const size_t chunks[] = {1, 2, 3, 7};
        for (size_t c = 0; c < 4; c++) {
            got[0] = 0;
            tj_src src = {(const unsigned char *)docs[d], strlen(docs[d]), 0, chunks[c]};
            opscope_json_t *j = opscope_json_new(tj_read, &src, NULL, 0, "c");
            opscope_sink s2 = {got, NULL, render_backend, render_record, NULL};
            ASSERT_EQ_INT(opscope_ggml_read_json(j, &s2, NULL, &e), 0);
            opscope_json_free(j);
            ASSERT_EQ_STR(got, want);
        }
    }
    return 0;
}

int main(void) {
    static const test_case cases[] = {TEST(test_v2), TEST(test_old_ne_and_defaults),
                                      TEST(test_v3_and_opscope_fields), TEST(test_weight), TEST(test_split_batch), TEST(test_sub_op_forms), TEST(test_errors), TEST(test_times_beyond_a_run), TEST(test_foreign), TEST(test_truncated),
                                      TEST(test_sink_abort), TEST(test_detection),
                                      TEST(test_files_gzip_stdin), TEST(test_big_stream),
                                      TEST(test_gzip_past_first_blocks),
                                      TEST(test_chunked_reads), TEST(test_progress_option)};
    int rc = test_run_all(cases, (int)(sizeof cases / sizeof cases[0]));
    opscope_profile_free(g_prof);
    return rc;
}
