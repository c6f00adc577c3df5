/*
 * test_critical_path - analyze/kineto/critical_path.c on hand-made events whose path and breakdown
 * are worked out by hand (in the comments): a launch, a kernel and a device sync; kernels
 * queued on a stream; a cudaStreamWaitEvent between streams; a kernel queued behind work
 * launched before the window.
 */
#include "analyze/kineto/critical_path.h"
#include "test.h"

typedef struct ev { char kind; const char *name; int64_t a, b, corr, dev, stream, wait_stream, wait_corr; } ev;

/* kind: 'o' CPU op, 'r' runtime call, 'k' kernel, 's' cuda_sync; a, b: start, end */
static int run(const ev *v, size_t n, int64_t ws, int64_t we, opscope_critical_path *out) {
    opscope_strtab_t *names = opscope_strtab_new();
    opscope_cpath_t *c = opscope_cpath_new(NULL);
    if (!names || !c) return -1;
    opscope_kineto_collector *coll = opscope_cpath_collector(c);
    coll->names = names;
    for (size_t i = 0; i < n; i++) {
        opscope_kineto_event e = {0};
        uint32_t id = UINT32_MAX;
        opscope_strtab_intern(names, v[i].name, strlen(v[i].name), &id);
        e.kind = v[i].kind == 'o' ? OPSCOPE_KINETO_CPU_OP : v[i].kind == 'r' ? OPSCOPE_KINETO_RUNTIME
                 : v[i].kind == 'k' ? OPSCOPE_KINETO_KERNEL : OPSCOPE_KINETO_SYNC;
        e.name_id = id;
        e.kcat = OPSCOPE_KCAT_GEMM;
        e.start_ns = v[i].a;
        e.dur_ns = v[i].b - v[i].a;
        e.corr = v[i].corr;
        e.device = v[i].dev;
        e.stream = v[i].stream;
        e.wait_stream = v[i].wait_stream;
        e.wait_corr = v[i].wait_corr;
        e.ext = -1;
        e.dims_id = UINT32_MAX;
        if (coll->add(coll->ud, &e)) return -1;
    }
    int rc = opscope_critical_path_compute(c, ws, we, out, NULL, NULL);
    opscope_cpath_free(c);
    opscope_strtab_free(names);
    return rc;
}

static uint64_t parts(const opscope_critical_path *p) {
    return p->cpu_ns + p->launch_ns + p->kernel_ns + p->comm_ns + p->queue_ns + p->wait_ns + p->idle_ns;
}

/* A [0,100] launches a kernel [50,150] (call [10,20]), then cudaDeviceSynchronize [100,160].
 * GPU path: 0->10 CPU 10, launch 10->50 40, kernel 100, sync edge 150->160 wait 10 (weight
 * 150) beats A's own chain (weight 100); then 40 idle to the window's end (200). */
static int test_launch_sync(void) {
    const ev v[] = {
        {'o', "A", 0, 100, -1, 0, 0, -1, -1},
        {'r', "cudaLaunchKernel", 10, 20, 1, 0, 0, -1, -1},
        {'k', "k", 50, 150, 1, 0, 7, -1, -1},
        {'r', "cudaDeviceSynchronize", 100, 160, 2, 0, 0, -1, -1},
        {'s', "Context Sync", 100, 160, 2, 0, -1, -1, -1},
    };
    opscope_critical_path p;
    ASSERT_EQ_INT(run(v, sizeof v / sizeof v[0], 0, 200, &p), 0);
    ASSERT_EQ_U64(p.length_ns, 200);
    ASSERT_EQ_U64(p.cpu_ns, 10);
    ASSERT_EQ_U64(p.launch_ns, 40);
    ASSERT_EQ_U64(p.kernel_ns, 100);
    ASSERT_EQ_U64(p.wait_ns, 10);
    ASSERT_EQ_U64(p.idle_ns, 40);
    ASSERT_EQ_U64(parts(&p), p.length_ns);
    return 0;
}

/* B [0,40] launches k1 [30,60] (call [10,20]) and k2 [62,70] (call [25,35]) on one stream:
 * k2 waits for k1 (queued at its launch): kernel-kernel 60->62. Path: CPU 10, launch 20,
 * kernels 38, queue 2 (weight 70 against B's 40); idle 70->100. */
static int test_queue(void) {
    const ev v[] = {
        {'o', "B", 0, 40, -1, 0, 0, -1, -1},
        {'r', "cudaLaunchKernel", 10, 20, 1, 0, 0, -1, -1},
        {'r', "cudaLaunchKernel", 25, 35, 2, 0, 0, -1, -1},
        {'k', "k1", 30, 60, 1, 0, 7, -1, -1},
        {'k', "k2", 62, 70, 2, 0, 7, -1, -1},
    };
    opscope_critical_path p;
    ASSERT_EQ_INT(run(v, sizeof v / sizeof v[0], 0, 100, &p), 0);
    ASSERT_EQ_U64(p.cpu_ns, 10);
    ASSERT_EQ_U64(p.launch_ns, 20);
    ASSERT_EQ_U64(p.kernel_ns, 38);
    ASSERT_EQ_U64(p.queue_ns, 2);
    ASSERT_EQ_U64(p.idle_ns, 30);
    ASSERT_EQ_U64(parts(&p), 100);
    return 0;
}

/* C [100,150]: launch ka (call [102,104]) on stream 7 [120,180], cudaEventRecord [110,112],
 * cudaStreamWaitEvent [114,116] for stream 8, launch kb (call [118,120]) on stream 8
 * [181,190]. kb waits for ka (sync edge 180->181). Path: CPU 2, launch 18, ka 60, wait 1,
 * kb 9 (weight 89 against C's 50); idle 190->300. With K0 (launched at 50, before the
 * window, running [60,119]) on stream 7, ka was queued at its launch: no launch edge, the
 * zero-weight one counts as wait (18). */
static int test_wait_event(int queued) {
    const ev v[] = {
        {'o', "C", 100, 150, -1, 0, 0, -1, -1},
        {'r', "cudaLaunchKernel", 102, 104, 11, 0, 0, -1, -1},
        {'k', "ka", 120, 180, 11, 0, 7, -1, -1},
        {'r', "cudaEventRecord", 110, 112, 12, 0, 0, -1, -1},
        {'r', "cudaStreamWaitEvent", 114, 116, 13, 0, 0, -1, -1},
        {'s', "Stream Wait Event", 114, 116, 13, 0, 8, 7, 12},
        {'r', "cudaLaunchKernel", 118, 120, 14, 0, 0, -1, -1},
        {'k', "kb", 181, 190, 14, 0, 8, -1, -1},
        {'r', "cudaLaunchKernel", 50, 52, 20, 0, 0, -1, -1},
        {'k', "k0", 60, 119, 20, 0, 7, -1, -1},
    };
    opscope_critical_path p;
    ASSERT_EQ_INT(run(v, sizeof v / sizeof v[0] - (queued ? 0 : 2), 100, 300, &p), 0);
    ASSERT_EQ_U64(p.length_ns, 200);
    ASSERT_EQ_U64(p.cpu_ns, 2);
    ASSERT_EQ_U64(p.launch_ns, queued ? 0 : 18);
    ASSERT_EQ_U64(p.kernel_ns, 69);
    ASSERT_EQ_U64(p.wait_ns, queued ? 19 : 1);
    ASSERT_EQ_U64(p.idle_ns, 110);
    ASSERT_EQ_U64(parts(&p), 200);
    return 0;
}

static int test_wait_event_free(void) { return test_wait_event(0); }
static int test_wait_event_queued(void) { return test_wait_event(1); }

TEST_MAIN(TEST(test_launch_sync), TEST(test_queue), TEST(test_wait_event_free), TEST(test_wait_event_queued))
