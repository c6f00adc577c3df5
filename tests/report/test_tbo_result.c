/* test_tbo_result.c - result lines of `test-backend-ops --output sql`: a line printed by
 * Debian forky's test-backend-ops (perf --test-file on an opscope export), the same with its
 * columns in another order, an unsupported test, and lines that are not results. */
#include "read/tbo_result.h"
#include "test.h"

/* printed by forky's test-backend-ops perf --test-file ... -b CPU --output sql */
static const char REAL[] =
    "INSERT INTO test_backend_ops (test_time, build_commit, backend_name, op_name, op_params, "
    "test_mode, supported, passed, error_message, time_us, flops, bandwidth_gb_s, memory_kb, "
    "n_runs, device_description, backend_reg_name) VALUES ('2026-11-23T17:54:19Z', 'unknown', "
    "'CPU', 'MUL_MAT', 'name=Vcur-0,type=f32,ne=[128,1,1,1],op_params=[],sources=f32[256,128,1,"
    "1],f32[256,1,1,1]', 'perf', '1', '1', '', '7.427569', '0.000000', '16.627354', '129', "
    "'139264', '', '');";

static int test_real_line(void) {
    char line[sizeof REAL];
    memcpy(line, REAL, sizeof REAL);
    opscope_tbo_result r;
    ASSERT_EQ_INT(opscope_tbo_parse_sql_line(line, &r), 0);
    ASSERT_EQ_STR(r.backend, "CPU");
    ASSERT_EQ_STR(r.op, "MUL_MAT");
    ASSERT_EQ_STR(r.mode, "perf");
    ASSERT_EQ_STR(r.error, "");
    ASSERT_EQ_STR(r.params, "name=Vcur-0,type=f32,ne=[128,1,1,1],op_params=[],sources=f32[256,"
                            "128,1,1],f32[256,1,1,1]");
    ASSERT_TRUE(r.supported);
    ASSERT_TRUE(r.passed);
    ASSERT_NEAR(r.time_us, 7.427569, 1e-9);
    ASSERT_EQ_INT(r.n_runs, 139264);
    char name[64];
    ASSERT_TRUE(opscope_tbo_var(r.params, "name", name, sizeof name));
    ASSERT_EQ_STR(name, "Vcur-0");
    ASSERT_TRUE(opscope_tbo_var(r.params, "type", name, sizeof name));
    ASSERT_EQ_STR(name, "f32");
    ASSERT_TRUE(!opscope_tbo_var(r.params, "missing", name, sizeof name));
    return 0;
}

static int test_other_order_and_unsupported(void) {
    char line[] = "INSERT INTO test_backend_ops (n_runs, op_name, supported, time_us, "
                  "error_message, backend_name, op_params) VALUES ('0', 'SWIGLU', '0', "
                  "'0.000000', 'not supported', 'Vulkan0', 'name=L3_ffn_swiglu-0,type=f32');";
    opscope_tbo_result r;
    ASSERT_EQ_INT(opscope_tbo_parse_sql_line(line, &r), 0);
    ASSERT_EQ_STR(r.op, "SWIGLU");
    ASSERT_EQ_STR(r.backend, "Vulkan0");
    ASSERT_EQ_STR(r.error, "not supported");
    ASSERT_TRUE(!r.supported);
    ASSERT_EQ_INT(r.n_runs, 0);
    char name[64];
    ASSERT_TRUE(opscope_tbo_var(r.params, "name", name, sizeof name));
    ASSERT_EQ_STR(name, "L3_ffn_swiglu-0");
    return 0;
}

static int test_not_results(void) {
    opscope_tbo_result r;
    char a[] = "CREATE TABLE IF NOT EXISTS test_backend_ops (";
    char b[] = "  test_time TEXT,";
    char c[] = "failed to allocate tensors";
    char d[] = "INSERT INTO test_backend_ops (op_name, supported) VALUES ('ADD', '1'"; /* cut */
    char e[] = "INSERT INTO test_backend_ops (op_name) VALUES ('ADD');"; /* no supported */
    ASSERT_EQ_INT(opscope_tbo_parse_sql_line(a, &r), -1);
    ASSERT_EQ_INT(opscope_tbo_parse_sql_line(b, &r), -1);
    ASSERT_EQ_INT(opscope_tbo_parse_sql_line(c, &r), -1);
    ASSERT_EQ_INT(opscope_tbo_parse_sql_line(d, &r), -1);
    ASSERT_EQ_INT(opscope_tbo_parse_sql_line(e, &r), -1);
    return 0;
}

TEST_MAIN(TEST(test_real_line), TEST(test_other_order_and_unsupported), TEST(test_not_results))
