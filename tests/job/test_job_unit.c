/*
 * test_job_unit.c - the job's pieces on hand-made inputs, expected values worked out by hand:
 * interval arithmetic, ranks from file names, one GPU rank fed through its collector (shares,
 * overlap, idle split, queue, launch delays) and the straggler and its cause.
 */
#include "analyze/kineto/collectives.h"
#include "analyze/job/job.h"
#include "analyze/job/job_iv.h"
#include "analyze/job/job_rank.h"
#include "model/strtab.h"
#include "read/job_summary.h"
#include "test.h"

static int test_iv(void) {
    opscope_job_iv v[] = {{10, 20}, {0, 5}, {15, 30}, {40, 40}, {30, 35}};
    size_t n = opscope_job_iv_merge(v, 5);
    ASSERT_EQ_INT(n, 2); /* [0,5) [10,35): touching ones merge, empty one dropped */
    ASSERT_EQ_INT(v[1].s, 10);
    ASSERT_EQ_INT(v[1].e, 35);
    ASSERT_EQ_INT(opscope_job_iv_len(v, n), 30);
    ASSERT_EQ_INT(opscope_job_iv_len_in(v, n, 3, 12), 4);
    opscope_job_iv b[] = {{4, 11}, {20, 22}, {34, 50}};
    ASSERT_EQ_INT(opscope_job_iv_inter_len(v, n, b, 3), 1 + 1 + 2 + 1);
    ASSERT_EQ_INT(opscope_job_iv_inter_len_in(v, n, b, 3, 0, 21), 1 + 1 + 1);
    opscope_job_iv out[5];
    size_t m = opscope_job_iv_sub(v, n, b, 3, out);
    ASSERT_EQ_INT(m, 3); /* [0,4) [11,20) [22,34) */
    ASSERT_EQ_INT(out[0].e, 4);
    ASSERT_EQ_INT(out[1].s, 11);
    ASSERT_EQ_INT(out[1].e, 20);
    ASSERT_EQ_INT(out[2].s, 22);
    ASSERT_EQ_INT(out[2].e, 34);
    return 0;
}

static int test_rank_names(void) {
    ASSERT_EQ_INT(opscope_job_rank_from_name("rank-3.json"), 3);
    ASSERT_EQ_INT(opscope_job_rank_from_name("d/sampled_rank-1.json.gz"), 1);
    ASSERT_EQ_INT(opscope_job_rank_from_name("host7_RANK_12.pt.trace.json"), 12);
    ASSERT_EQ_INT(opscope_job_rank_from_name("worker7.pt.trace.json"), 7);
    ASSERT_EQ_INT(opscope_job_rank_from_name("rank9/trace.json"), -1);
    return 0;
}

static int feed(opscope_kineto_collector *c, opscope_kineto_kind k, const char *name, int64_t stream,
                int64_t s, int64_t d, int64_t corr) {
    uint32_t id = UINT32_MAX;
    if (name) opscope_strtab_intern(c->names, name, strlen(name), &id);
    opscope_kineto_event ev = {.kind = k, .name_id = id, .kcat = OPSCOPE_KCAT_OTHER, .device = 0,
                               .stream = stream, .start_ns = s, .dur_ns = d, .corr = corr, .ext = -1};
    if (name && strstr(name, "nccl")) ev.kcat = OPSCOPE_KCAT_COMM;
    return c->add(c->ud, &ev);
}

/* compute [0,100) and memcpy [200,250) on stream 7, an NCCL kernel [50,150) on stream 13;
 * their calls start at -20, 40 and 160 and last 5, 3 and 2 ns. */
static int test_gpu_rank(void) {
    opscope_job_rank_t *r = opscope_job_rank_new(NULL);
    ASSERT_NOT_NULL(r);
    opscope_kineto_collector *c = opscope_job_rank_collector(r);
    ASSERT_EQ_INT(feed(c, OPSCOPE_KINETO_RUNTIME, NULL, 0, -20, 5, 1), 0);
    ASSERT_EQ_INT(feed(c, OPSCOPE_KINETO_RUNTIME, NULL, 0, 40, 3, 2), 0);
    ASSERT_EQ_INT(feed(c, OPSCOPE_KINETO_RUNTIME, NULL, 0, 160, 2, 3), 0);
    ASSERT_EQ_INT(feed(c, OPSCOPE_KINETO_ANNOTATION, "ProfilerStep#4", 0, 0, 120, -1), 0);
    ASSERT_EQ_INT(feed(c, OPSCOPE_KINETO_KERNEL, "gemm", 7, 0, 100, 1), 0);
    ASSERT_EQ_INT(feed(c, OPSCOPE_KINETO_KERNEL, "ncclKernel_AllReduce", 13, 50, 100, 2), 0);
    ASSERT_EQ_INT(feed(c, OPSCOPE_KINETO_MEMCPY, "Memcpy HtoD", 7, 200, 50, 3), 0);
    opscope_job_rank_summary s;
    ASSERT_EQ_INT(opscope_job_rank_finish(r, &s), 0);
    opscope_job_rank_free(r);
    ASSERT_TRUE(s.gpu);
    ASSERT_EQ_INT(s.span_ns, 250);
    ASSERT_EQ_INT(s.busy_ns, 200);
    ASSERT_EQ_INT(s.idle_ns, 50);
    ASSERT_EQ_INT(s.compute_ns, 100);
    ASSERT_EQ_INT(s.comm_ns, 100);
    ASSERT_EQ_INT(s.memory_ns, 50);
    ASSERT_EQ_INT(s.overlap_ns, 50);
    ASSERT_EQ_INT(s.n_steps, 1);
    ASSERT_EQ_INT(s.steps[0].num, 4);
    ASSERT_EQ_INT(s.steps[0].busy_ns, 120);
    ASSERT_EQ_INT(s.steps[0].overlap_ns, 50);
    ASSERT_EQ_INT(s.n_streams, 2);
    const opscope_job_stream *st = &s.streams[0];
    ASSERT_EQ_INT(st->stream, 7);
    ASSERT_EQ_INT(st->idle_ns, 100);
    ASSERT_EQ_INT(st->host_wait_ns, 60); /* [100,160): the memcpy not launched yet */
    ASSERT_EQ_INT(st->kernel_wait_ns, 40);
    ASSERT_EQ_INT(st->queue_max, 1);
    ASSERT_EQ_INT(st->queue_at_max_ns, 120 + 90);
    ASSERT_NEAR(st->queue_mean, 210.0 / 270.0, 1e-9);
    ASSERT_EQ_INT(s.launch.launches, 3);
    ASSERT_EQ_INT(s.launch.delay_p50_ns, 20); /* delays 10, 20, 40 */
    ASSERT_EQ_INT(s.launch.delay_max_ns, 40);
    ASSERT_EQ_INT(s.launch.cpu_p50_ns, 3);
    opscope_job_rank_summary_free(&s);
    return 0;
}

static int test_straggler(void) {
    opscope_job_rank_summary s[3];
    memset(s, 0, sizeof s);
    opscope_job_row rows[3];
    int64_t comm[] = {100, 10, 100}, input[] = {0, 80, 0};
    for (int i = 0; i < 3; i++) {
        s[i].rank = 2 - i; /* given out of order */
        s[i].span_ns = 200;
        s[i].compute_ns = 50;
        s[i].comm_ns = comm[i];
        s[i].input_ns = input[i];
        s[i].busy_ns = 50 + comm[i] + input[i];
        rows[i] = (opscope_job_row){.path = "t", .s = &s[i]};
    }
    opscope_job job;
    ASSERT_EQ_INT(opscope_job_analyze(&job, rows, 3), 0);
    ASSERT_EQ_INT(job.rows[0].s->rank, 0);
    ASSERT_EQ_INT(job.median_comm_ns, 100);
    ASSERT_EQ_INT(job.n_stragglers, 1);
    ASSERT_EQ_INT(job.stragglers[0].rank, 1);
    ASSERT_EQ_INT(job.stragglers[0].wait_ns, 90);
    ASSERT_EQ_STR(opscope_job_cause_name(job.stragglers[0].cause), "input");
    ASSERT_EQ_INT(job.stragglers[0].excess_ns, 80);
    ASSERT_EQ_INT(job.rows[job.bound_row].s->rank, 1);
    opscope_job_free(&job);
    /* all alike: nobody is waited for */
    s[1].comm_ns = 100;
    ASSERT_EQ_INT(opscope_job_analyze(&job, rows, 3), 0);
    ASSERT_EQ_INT(job.n_stragglers, 0);
    opscope_job_free(&job);
    return 0;
}

/* data/tiny_summary.json: `report data/tiny_rank.json --job --json` of a trace with a GEMM
 * [1005, 1009) us on stream 7 and an NCCL kernel [1015, 1019) us on stream 8, launched at
 * 1000 and 1010 us inside an annotation "fwd" [999, 1019) us; the NCCL kernel has its
 * collective args (an allreduce of 1024 Float over 8 ranks). */
static int test_summary_read(void) {
    opscope_job_summary_rank *r = NULL;
    size_t n = 0;
    opscope_error err;
    memset(&err, 0, sizeof err);
    ASSERT_EQ_INT(opscope_job_summary_read(OPSCOPE_JOB_DATA "/tiny_summary.json", &r, &n, &err), 0);
    ASSERT_EQ_INT(n, 1);
    const opscope_job_rank_summary *s = &r[0].sum;
    ASSERT_EQ_INT(s->rank, 5);
    ASSERT_EQ_INT(s->world_size, 8);
    ASSERT_EQ_STR(s->backend, "nccl");
    ASSERT_TRUE(s->gpu);
    ASSERT_EQ_INT(s->span_ns, 14000);
    ASSERT_EQ_INT(s->busy_ns, 8000);
    ASSERT_EQ_INT(s->compute_ns, 4000);
    ASSERT_EQ_INT(s->comm_ns, 4000);
    ASSERT_EQ_INT(s->overlap_ns, 0);
    ASSERT_EQ_INT(s->n_steps, 1);
    ASSERT_EQ_INT(s->steps[0].num, 3);
    ASSERT_EQ_INT(s->n_streams, 2);
    ASSERT_EQ_INT(s->launch.launches, 2);
    ASSERT_EQ_INT(s->launch.delay_p50_ns, 5000);
    ASSERT_EQ_INT(s->n_annots, 1);
    ASSERT_EQ_STR(s->annots[0].name, "fwd");
    ASSERT_EQ_INT(s->annots[0].kernels, 2);
    ASSERT_EQ_INT(s->annots[0].gpu_ns, 8000);
    ASSERT_EQ_INT(s->annots[0].cpu_ns, 20000);
    ASSERT_CONTAINS(r[0].trace, "tiny_rank.json");
    /* its NCCL kernel: allreduce of 1024 Float over 8 ranks, 4 us: 4096 bytes, x 2 * 7 / 8 */
    ASSERT_TRUE(r[0].sum.colls_on_kernels);
    ASSERT_EQ_INT(r[0].sum.n_colls, 1);
    ASSERT_EQ_STR(r[0].sum.colls[0].type, "allreduce");
    ASSERT_EQ_INT(r[0].sum.colls[0].bucket, 12);
    ASSERT_EQ_U64(r[0].sum.colls[0].bytes, 4096);
    ASSERT_EQ_U64(r[0].sum.colls[0].bus_bytes, 7168);
    ASSERT_EQ_INT(r[0].sum.colls[0].time_ns, 4000);
    ASSERT_EQ_INT(r[0].sum.colls[0].group_size, 8);
    opscope_job_rank_summary_free(&r[0].sum);
    free(r[0].trace);
    free(r);
    /* not a summary: an error with its position */
    static const char bad[] = "{\"summary\":{\"job\":{\"ranks\":[{\"rank\":\"x\"}]}}}";
    ASSERT_EQ_INT(opscope_job_summary_read_buffer(bad, sizeof bad - 1, "bad", &r, &n, &err), -1);
    ASSERT_EQ_INT(err.code, OPSCOPE_ERROR_SCHEMA);
    ASSERT_EQ_INT(err.pos, 36); /* the "x" */
    ASSERT_TRUE(opscope_job_summary_sniff(bad, sizeof bad - 1));
    static const char badb[] = "{\"summary\":{\"job\":{\"ranks\":[{\"collectives\":[{\"bucket\":64}]}]}}}";
    ASSERT_EQ_INT(opscope_job_summary_read_buffer(badb, sizeof badb - 1, "badb", &r, &n, &err), -1);
    ASSERT_CONTAINS(err.msg, "bucket out of range");
    ASSERT_TRUE(!opscope_job_summary_sniff("{\"summary\":{}", 13));
    return 0;
}

/* NCCL collectives: types, dtype sizes, nccl-tests' bus factors, a trace's rows, a job's skew
 * (expected values worked by hand from PERFORMANCE.md's definitions). */
static int test_colls(void) {
    char t[24];
    static const char *const names[][2] = {{"_allgather_base", "allgather"}, {"all_to_all", "alltoall"},
                                           {"reduce_scatter_tensor_coalesced", "reducescatter"},
                                           {"allreduce_coalesced", "allreduce"}, {"reduce", "reduce"},
                                           {"broadcast", "broadcast"}, {"send", "send"}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        opscope_colls_type(names[i][0], t, sizeof t);
        ASSERT_EQ_STR(t, names[i][1]);
    }
    ASSERT_EQ_INT(opscope_colls_dtype_size("BFloat16"), 2);
    ASSERT_EQ_INT(opscope_colls_dtype_size("Float8_e4m3fn"), 1);
    ASSERT_EQ_INT(opscope_colls_dtype_size("Weird"), 0);
    ASSERT_EQ_U64(opscope_colls_bus_bytes("allreduce", 1000, 4), 1500);   /* 2(n-1)/n */
    ASSERT_EQ_U64(opscope_colls_bus_bytes("allgather", 1000, 4), 750);    /* (n-1)/n */
    ASSERT_EQ_U64(opscope_colls_bus_bytes("reducescatter", 1001, 4), 750); /* rounded down */
    ASSERT_EQ_U64(opscope_colls_bus_bytes("alltoall", 1000, 8), 875);
    ASSERT_EQ_U64(opscope_colls_bus_bytes("broadcast", 1000, 4), 1000);
    ASSERT_EQ_U64(opscope_colls_bus_bytes("allreduce", 1000, 1), 0);      /* nothing crosses */
    /* a trace's rows: the kernels' when any kernel has the args */
    opscope_colls_t *c = opscope_colls_new();
    ASSERT_NOT_NULL(c);
    opscope_kineto_comm m = {.coll = "allreduce", .dtype = "Float", .in_nelems = 1024, .out_nelems = 1024,
                             .group_size = 4};
    opscope_kineto_event ev = {.kind = OPSCOPE_KINETO_CPU_OP, .dur_ns = 50000, .comm = &m};
    ASSERT_EQ_INT(opscope_colls_add(c, &ev), 0);
    ev.kind = OPSCOPE_KINETO_KERNEL;
    ev.dur_ns = 2048;
    ASSERT_EQ_INT(opscope_colls_add(c, &ev), 0);
    ASSERT_EQ_INT(opscope_colls_add(c, &ev), 0);
    size_t n;
    bool on_k;
    const opscope_job_coll *v = opscope_colls_rows(c, &n, &on_k);
    ASSERT_TRUE(on_k);
    ASSERT_EQ_INT(n, 1);
    ASSERT_EQ_INT(v[0].bucket, 12); /* 4096 bytes */
    ASSERT_EQ_U64(v[0].count, 2);
    ASSERT_EQ_U64(v[0].bytes, 8192);
    ASSERT_EQ_U64(v[0].bus_bytes, 12288);
    ASSERT_EQ_INT(v[0].time_ns, 4096);
    ASSERT_NEAR(opscope_colls_gbps(v[0].bus_bytes, v[0].time_ns), 3.0, 1e-12);
    opscope_colls_free(c);
    /* a job: bus bandwidths 6, 3 and 4 GB/s: median 4, skew (6 - 3) / 4 = 75%, slowest rank 1 */
    opscope_job_coll rows[3] = {{.type = "allreduce", .bucket = 21, .count = 2, .bytes = 4000000, .bus_bytes = 6000000,
                                 .time_ns = 1000000},
                                {.type = "allreduce", .bucket = 21, .count = 2, .bytes = 4000000, .bus_bytes = 6000000,
                                 .time_ns = 2000000},
                                {.type = "allreduce", .bucket = 21, .count = 2, .bytes = 4000000, .bus_bytes = 6000000,
                                 .time_ns = 1500000}};
    opscope_job_rank_summary sums[3] = {{.rank = 0, .n_colls = 1, .colls = &rows[0], .colls_on_kernels = true},
                                        {.rank = 1, .n_colls = 1, .colls = &rows[1], .colls_on_kernels = true},
                                        {.rank = 2, .n_colls = 1, .colls = &rows[2], .colls_on_kernels = true}};
    const opscope_job_rank_summary *ps[3] = {&sums[0], &sums[1], &sums[2]};
    opscope_job_colls jc;
    ASSERT_EQ_INT(opscope_job_colls_analyze(&jc, ps, 3), 0);
    ASSERT_EQ_INT(jc.n_types, 1);
    ASSERT_EQ_INT(jc.n_buckets, 1);
    ASSERT_EQ_U64(jc.types[0].tot.count, 6);
    ASSERT_EQ_INT(jc.types[0].tot.time_ns, 4500000);
    ASSERT_NEAR(jc.types[0].busbw_median_gbps, 4.0, 1e-12);
    ASSERT_NEAR(jc.types[0].skew_pct, 75.0, 1e-9);
    ASSERT_EQ_INT(jc.types[0].slowest_rank, 1);
    ASSERT_NEAR(jc.types[0].busbw_gbps, 18.0 / 4.5, 1e-12);
    /* the late rank: the shortest collectives (rank 0, 1 ms); the median rank's 1.5 ms: 0.5 ms of waiting */
    ASSERT_EQ_INT(jc.types[0].late_rank, 0);
    ASSERT_EQ_INT(jc.types[0].median_time_ns, 1500000);
    ASSERT_EQ_INT(jc.types[0].late_wait_ns, 500000);
    ASSERT_TRUE(opscope_job_colls_worst_skew(&jc) == &jc.types[0]);
    opscope_job_colls_free(&jc);
    /* one rank: no one waits, no skew to name */
    ASSERT_EQ_INT(opscope_job_colls_analyze(&jc, ps, 1), 0);
    ASSERT_EQ_INT(jc.types[0].late_wait_ns, 0);
    ASSERT_TRUE(opscope_job_colls_worst_skew(&jc) == NULL);
    opscope_job_colls_free(&jc);
    return 0;
}

/* gloo's collectives: annotations without sizes, timed only; the late rank spends the least time */
static int test_colls_unsized(void) {
    opscope_colls_t *c = opscope_colls_new();
    ASSERT_TRUE(c != NULL);
    ASSERT_EQ_INT(opscope_colls_add_span(c, "gloo:all_reduce", 3000), 0);
    ASSERT_EQ_INT(opscope_colls_add_span(c, "gloo:all_reduce", 5000), 0);
    ASSERT_EQ_INT(opscope_colls_add_span(c, "gloo:broadcast", 700), 0);
    ASSERT_TRUE(opscope_colls_unsized(c));
    size_t n;
    bool on_k;
    const opscope_job_coll *v = opscope_colls_rows(c, &n, &on_k);
    ASSERT_EQ_INT(n, 2);
    ASSERT_EQ_STR(v[0].type, "allreduce");
    ASSERT_EQ_U64(v[0].count, 2);
    ASSERT_EQ_U64(v[0].bytes, 0);
    ASSERT_EQ_INT(v[0].bucket, -1);
    ASSERT_EQ_INT(v[0].time_ns, 8000);
    ASSERT_EQ_STR(v[1].type, "broadcast");
    /* a collective with args outranks the annotations */
    opscope_kineto_comm m = {.coll = "allreduce", .in_nelems = 4, .out_nelems = 4, .dtype = "Float", .group_size = 2};
    opscope_kineto_event ev = {.kind = OPSCOPE_KINETO_CPU_OP, .dur_ns = 100, .comm = &m};
    ASSERT_EQ_INT(opscope_colls_add(c, &ev), 0);
    ASSERT_TRUE(!opscope_colls_unsized(c));
    v = opscope_colls_rows(c, &n, &on_k);
    ASSERT_EQ_INT(n, 1);
    ASSERT_EQ_U64(v[0].bytes, 16);
    opscope_colls_free(c);
    /* a job of times 10, 2 and 6 ms: late rank 1 (2 ms), slowest rank 0, median 6 ms, wait 4 ms,
     * time skew (10 - 2) / 6 = 133.3%; no bandwidth, no buckets */
    opscope_job_coll rows[3] = {{.type = "allreduce", .bucket = -1, .count = 3, .time_ns = 10000000},
                                {.type = "allreduce", .bucket = -1, .count = 3, .time_ns = 2000000},
                                {.type = "allreduce", .bucket = -1, .count = 3, .time_ns = 6000000}};
    opscope_job_rank_summary sums[3] = {{.rank = 0, .n_colls = 1, .colls = &rows[0], .colls_unsized = true},
                                        {.rank = 1, .n_colls = 1, .colls = &rows[1], .colls_unsized = true},
                                        {.rank = 2, .n_colls = 1, .colls = &rows[2], .colls_unsized = true}};
    const opscope_job_rank_summary *ps[3] = {&sums[0], &sums[1], &sums[2]};
    opscope_job_colls jc;
    ASSERT_EQ_INT(opscope_job_colls_analyze(&jc, ps, 3), 0);
    ASSERT_TRUE(jc.unsized);
    ASSERT_EQ_INT(jc.n_types, 1);
    ASSERT_EQ_INT(jc.n_buckets, 0);
    ASSERT_EQ_INT(jc.types[0].late_rank, 1);
    ASSERT_EQ_INT(jc.types[0].slowest_rank, 0);
    ASSERT_EQ_INT(jc.types[0].median_time_ns, 6000000);
    ASSERT_EQ_INT(jc.types[0].late_wait_ns, 4000000);
    ASSERT_EQ_INT(jc.types[0].time_min_ns, 2000000);
    ASSERT_EQ_INT(jc.types[0].time_max_ns, 10000000);
    ASSERT_NEAR(jc.types[0].time_skew_pct, 800.0 / 6.0, 1e-9);
    ASSERT_NEAR(jc.types[0].busbw_max_gbps, 0.0, 0.0);
    opscope_job_colls_free(&jc);
    return 0;
}

TEST_MAIN(TEST(test_iv), TEST(test_rank_names), TEST(test_gpu_rank), TEST(test_straggler),
          TEST(test_summary_read), TEST(test_colls),
          TEST(test_colls_unsized))
