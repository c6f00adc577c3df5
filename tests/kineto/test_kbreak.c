/* analyze/kineto/kbreak.c: HTA's kernel types, span and split of the types' overlaps against
 * figures counted by hand (microsecond pieces cut as HTA's integer cast cuts them). */
#include "analyze/kineto/kbreak.h"
#include "test.h"

static int test_types(void) {
    static const struct { const char *name; int type; } cases[] = {
        {"ncclKernel_AllReduce_RING_LL_Sum_float", OPSCOPE_KBREAK_COMMUNICATION},
        {"void at::ncclKernel_x", OPSCOPE_KBREAK_COMMUNICATION},
        {"hipMemcpy", OPSCOPE_KBREAK_COMMUNICATION}, /* HTA tries "hip" first */
        {"Memcpy HtoD (Pageable -> Device)", OPSCOPE_KBREAK_MEMORY},
        {"Memset (Device)", OPSCOPE_KBREAK_MEMORY},
        {"dma_request", OPSCOPE_KBREAK_MEMORY},
        {"Stream Wait Event", OPSCOPE_KBREAK_OTHER},
        {"Context Sync", OPSCOPE_KBREAK_OTHER},
        {"cudaLaunchKernel", OPSCOPE_KBREAK_OTHER},
        {"void gemm_kernel<float>", OPSCOPE_KBREAK_COMPUTATION},
        {NULL, OPSCOPE_KBREAK_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        ASSERT_EQ_INT(opscope_kbreak_type_of(cases[i].name), cases[i].type);
    return 0;
}

static int test_split(void) {
    opscope_kbreak_t *b = opscope_kbreak_new();
    ASSERT_NOT_NULL(b);
    /* computation 0-10.5 us, communication 5-20, memory 8-12 (two touching copies: one
     * merged interval), a sync event 30-31 */
    ASSERT_EQ_INT(opscope_kbreak_add(b, OPSCOPE_KBREAK_COMMUNICATION, 5000, 15000, -1), 0);
    ASSERT_EQ_INT(opscope_kbreak_add(b, OPSCOPE_KBREAK_MEMORY, 10000, 2000, -1), 0);
    ASSERT_EQ_INT(opscope_kbreak_add(b, OPSCOPE_KBREAK_COMPUTATION, 0, 10500, -1), 0);
    ASSERT_EQ_INT(opscope_kbreak_add(b, OPSCOPE_KBREAK_MEMORY, 8000, 2000, -1), 0);
    ASSERT_EQ_INT(opscope_kbreak_add(b, OPSCOPE_KBREAK_OTHER, 30000, 1000, -1), 0);
    ASSERT_EQ_INT(opscope_kbreak_finish(b, 0), 0);
    const opscope_kbreak_results *r = opscope_kbreak_results_of(b);
    ASSERT_EQ_U64(r->events, 5);
    ASSERT_EQ_INT(r->span_ns, 31000);  /* the sync event's end counts */
    ASSERT_EQ_INT(r->busy_ns, 21000);
    ASSERT_EQ_INT(r->compute_ns, 10500);
    /* 0-5 C, 5-8 C+Comm, 8-10.5 C+Comm+M (2.5: 2), 10.5-12 Comm+M (1.5: 1), 12-20 Comm */
    const int64_t with[] = {0, 5, 8, 3, 0, 0, 1, 2};
    /* 0-5 C, 5-10.5 C+Comm (5), 10.5-20 Comm (9) */
    const int64_t without[] = {0, 5, 9, 5, 0, 0, 0, 0};
    for (int m = 0; m < OPSCOPE_KBREAK_MASKS; m++) {
        ASSERT_EQ_INT(r->with_memory_us[m], with[m]);
        ASSERT_EQ_INT(r->without_memory_us[m], without[m]);
    }
    opscope_kbreak_free(b);
    return 0;
}

/* Trace times in ns past a double's 53 bits: the pieces are still whole microseconds. */
static int test_big_times(void) {
    opscope_kbreak_t *b = opscope_kbreak_new();
    ASSERT_NOT_NULL(b);
    const int64_t t0 = 1682725898094377000;
    ASSERT_EQ_INT(opscope_kbreak_add(b, OPSCOPE_KBREAK_COMMUNICATION, t0, 30669000, -1), 0);
    ASSERT_EQ_INT(opscope_kbreak_add(b, OPSCOPE_KBREAK_COMPUTATION, t0 + 1000, 7000, -1), 0);
    ASSERT_EQ_INT(opscope_kbreak_finish(b, 0), 0);
    const opscope_kbreak_results *r = opscope_kbreak_results_of(b);
    ASSERT_EQ_INT(r->with_memory_us[OPSCOPE_KBREAK_COMMUNICATION], 30669 - 7);
    ASSERT_EQ_INT(r->with_memory_us[OPSCOPE_KBREAK_COMPUTATION | OPSCOPE_KBREAK_COMMUNICATION], 7);
    opscope_kbreak_free(b);
    opscope_kbreak_free(NULL);
    return 0;
}

static int keep_even(const void *ud, int64_t corr) {
    (void)ud;
    return corr % 2 == 0;
}

/* The filter keeps the events its predicate keeps: the span and split are theirs. */
static int test_keep(void) {
    opscope_kbreak_t *b = opscope_kbreak_new();
    ASSERT_NOT_NULL(b);
    ASSERT_EQ_INT(opscope_kbreak_add(b, OPSCOPE_KBREAK_COMPUTATION, 0, 4000, 2), 0);
    ASSERT_EQ_INT(opscope_kbreak_add(b, OPSCOPE_KBREAK_COMPUTATION, 1000, 9000, 3), 0);
    ASSERT_EQ_INT(opscope_kbreak_add(b, OPSCOPE_KBREAK_MEMORY, 5000, 1000, 4), 0);
    opscope_kbreak_keep(b, keep_even, NULL);
    ASSERT_EQ_INT(opscope_kbreak_finish(b, 0), 0);
    const opscope_kbreak_results *r = opscope_kbreak_results_of(b);
    ASSERT_EQ_U64(r->events, 2);
    ASSERT_EQ_INT(r->span_ns, 6000);
    ASSERT_EQ_INT(r->busy_ns, 5000);
    ASSERT_EQ_INT(r->with_memory_us[OPSCOPE_KBREAK_COMPUTATION], 4);
    ASSERT_EQ_INT(r->with_memory_us[OPSCOPE_KBREAK_MEMORY], 1);
    opscope_kbreak_free(b);
    return 0;
}

TEST_MAIN(TEST(test_types), TEST(test_split), TEST(test_big_times), TEST(test_keep))
