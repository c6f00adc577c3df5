/* test_stats.c - streaming aggregation: groups, representative shapes, top records,
 * inefficiency, copies by direction, per-shape groups, backends. */
#include "opscope.h"
#include "analyze/ggml/stats.h"
#include "analyze/intervals/busy.h"
#include "test.h"

#include <stdlib.h>

/* Bytes of heap in use, from the allocator (not from the code under test). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define STATS_TEST_SANITIZER_HEAP 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STATS_TEST_SANITIZER_HEAP 1
#endif
#ifdef STATS_TEST_SANITIZER_HEAP
/* the sanitizer runtime's (sanitizer/allocator_interface.h, which GCC does not install) */
size_t __sanitizer_get_current_allocated_bytes(void);
static uint64_t heap_in_use(void) { return __sanitizer_get_current_allocated_bytes(); }
#else
#include <malloc.h>
static uint64_t heap_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return (uint64_t)m.uordblks + (uint64_t)m.hblkhd;
}
#endif

static opscope_record rec(opscope_record_type type, const char *name, int32_t backend,
                          uint64_t start, uint64_t dur, uint64_t bytes, int64_t ne00) {
    opscope_record r;
    opscope_record_init(&r);
    r.type = type;
    r.name = name;
    r.backend_id = backend;
    r.start_ns = start;
    r.duration_ns = dur;
    r.bytes = bytes;
    r.n_src = 2;
    r.ne_src[0][0] = ne00;
    r.ne_src[0][1] = 64;
    r.ne_src[0][2] = 1;
    r.ne_src[0][3] = 1;
    r.ne_src[1][0] = ne00;
    r.ne_src[1][1] = 2;
    r.ne_src[1][2] = 1;
    r.ne_src[1][3] = 1;
    return r;
}

static const opscope_op_stats *find(const opscope_stats_t *s, const char *display, int backend,
                                    opscope_record_type type) {
    for (size_t i = 0; i < opscope_stats_n_ops(s); i++) {
        const opscope_op_stats *g = opscope_stats_op(s, i);
        if (!strcmp(g->display, display) && g->backend_id == backend && g->type == type) return g;
    }
    return NULL;
}

static int test_groups(void) {
    opscope_stats_opts o = {.top_kernels = 3};
    opscope_stats_t *s = opscope_stats_new(&o);
    ASSERT_NOT_NULL(s);
    /* MUL_MAT on backend 0: durations 100, 300, 300 (the last 300 has ne00 = 30), 50 */
    opscope_record a = rec(OPSCOPE_RECORD_OP, "MUL_MAT", 0, 1000, 100, 400, 10);
    opscope_record b = rec(OPSCOPE_RECORD_OP, "MUL_MAT", 0, 2000, 300, 400, 20);
    opscope_record c = rec(OPSCOPE_RECORD_OP, "MUL_MAT", 0, 3000, 300, 400, 30);
    opscope_record d = rec(OPSCOPE_RECORD_OP, "MUL_MAT", 0, 4000, 50, 400, 40);
    opscope_record e = rec(OPSCOPE_RECORD_OP, "MUL_MAT", 1, 5000, 1000, 100, 50); /* other backend */
    opscope_record f = rec(OPSCOPE_RECORD_COPY, "copy_H2D", 1, 6000, 20, 2000, 0);
    opscope_record g = rec(OPSCOPE_RECORD_COPY, "copy_H2D", 0, 7000, 30, 1000, 0);
    opscope_record u = rec(OPSCOPE_RECORD_OP, "UNARY", 0, 8000, 10, 0, 5);
    u.sub_op = "SILU";
    opscope_record x = rec(OPSCOPE_RECORD_OP, "ADD", 0, 9000, 10, 80, 5);
    x.extra = "ADD+RMS_NORM";
    opscope_record *all[] = {&a, &b, &c, &d, &e, &f, &g, &u, &x};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) ASSERT_EQ_INT(opscope_stats_add(s, all[i]), 0);
    ASSERT_EQ_INT(opscope_stats_finish(s), 0);

    ASSERT_EQ_U64(opscope_stats_n_ops(s), 6);
    const opscope_op_stats *mm = find(s, "MUL_MAT", 0, OPSCOPE_RECORD_OP);
    ASSERT_NOT_NULL(mm);
    ASSERT_EQ_U64(mm->count, 4);
    ASSERT_EQ_U64(mm->total_ns, 750);
    ASSERT_EQ_U64(mm->min_ns, 50);
    ASSERT_EQ_U64(mm->max_ns, 300);
    ASSERT_EQ_U64(mm->bytes, 1600);
    ASSERT_EQ_INT(mm->shape.ne_src[0][0], 30); /* later of two equally long calls */
    ASSERT_EQ_U64(mm->flops, 2ull * (10 + 20 + 30 + 40) * 64 * 2);
    ASSERT_NOT_NULL(find(s, "UNARY(SILU)", 0, OPSCOPE_RECORD_OP));
    ASSERT_NOT_NULL(find(s, "ADD [fused: ADD+RMS_NORM]", 0, OPSCOPE_RECORD_OP));
    /* sorted by total: backend-1 MUL_MAT (1000) first, then backend-0 MUL_MAT (750) */
    ASSERT_EQ_INT(opscope_stats_op(s, 0)->backend_id, 1);
    ASSERT_EQ_U64(opscope_stats_op(s, 1)->total_ns, 750);

    const opscope_totals *t = opscope_stats_totals(s);
    ASSERT_EQ_U64(t->n_records, 9);
    ASSERT_EQ_U64(t->n_copies, 2);
    ASSERT_EQ_U64(t->total_ns, 100 + 300 + 300 + 50 + 1000 + 20 + 30 + 10 + 10);
    ASSERT_EQ_U64(t->first_start_ns, 1000);
    ASSERT_EQ_U64(t->last_end_ns, 9010);

    /* top 3: 1000 (e), then the two 300s in record order (b before c) */
    ASSERT_EQ_U64(opscope_stats_n_top(s), 3);
    ASSERT_EQ_U64(opscope_stats_top(s, 0)->duration_ns, 1000);
    ASSERT_EQ_U64(opscope_stats_top(s, 1)->start_ns, 2000);
    ASSERT_EQ_U64(opscope_stats_top(s, 2)->start_ns, 3000);

    /* copies merged over backends */
    ASSERT_EQ_U64(opscope_stats_n_copy_dirs(s), 1);
    const opscope_op_stats *cd = opscope_stats_copy_dir(s, 0);
    ASSERT_EQ_U64(cd->count, 2);
    ASSERT_EQ_U64(cd->bytes, 3000);
    ASSERT_EQ_U64(cd->total_ns, 50);
    ASSERT_EQ_INT(cd->backend_id, -1);

    /* inefficiency: OPs with bytes only; highest ns/byte first: MUL_MAT bk1 = 10 ns/B */
    ASSERT_EQ_U64(opscope_stats_n_inefficient(s), 3);
    ASSERT_EQ_INT(opscope_stats_inefficient(s, 0)->backend_id, 1);
    ASSERT_EQ_STR(opscope_stats_inefficient(s, 2)->name, "ADD"); /* 10/80 */

    /* backends */
    ASSERT_EQ_U64(opscope_stats_n_backends(s), 2);
    const opscope_backend_stats *b1 = opscope_stats_backend_by_id(s, 1);
    ASSERT_NOT_NULL(b1);
    ASSERT_EQ_U64(b1->n_ops, 1);
    ASSERT_EQ_U64(b1->n_copies, 1);
    ASSERT_EQ_U64(b1->copy_bytes, 2000);
    opscope_stats_free(s);
    return 0;
}

static int test_by_shape(void) {
    opscope_stats_opts o = {.by_shape = true, .max_shape_groups = 3};
    opscope_stats_t *s = opscope_stats_new(&o);
    for (int i = 0; i < 10; i++) {
        opscope_record r = rec(OPSCOPE_RECORD_OP, "MUL_MAT", 0, (uint64_t)i * 100, 10 + (uint64_t)i, 4, 1 + i % 2);
        ASSERT_EQ_INT(opscope_stats_add(s, &r), 0);
    }
    /* same shape, other source type: its own group */
    opscope_record q = rec(OPSCOPE_RECORD_OP, "MUL_MAT", 0, 5000, 7, 4, 1);
    q.type_src[0] = 2;
    ASSERT_EQ_INT(opscope_stats_add(s, &q), 0);
    /* a fourth distinct shape is over the cap: counted as dropped */
    opscope_record z = rec(OPSCOPE_RECORD_OP, "MUL_MAT", 0, 6000, 7, 4, 99);
    ASSERT_EQ_INT(opscope_stats_add(s, &z), 0);
    ASSERT_EQ_INT(opscope_stats_finish(s), 0);
    ASSERT_EQ_U64(opscope_stats_n_ops(s), 1);
    ASSERT_EQ_U64(opscope_stats_n_shapes(s), 3);
    ASSERT_EQ_U64(opscope_stats_totals(s)->shape_groups_dropped, 1);
    uint64_t n = 0;
    for (size_t i = 0; i < 3; i++) n += opscope_stats_shape(s, i)->count;
    ASSERT_EQ_U64(n, 11);
    /* ne00 = 2 calls: durations 11,13,15,17,19 */
    const opscope_op_stats *top = opscope_stats_shape(s, 0);
    ASSERT_EQ_INT(top->shape.ne_src[0][0], 2);
    ASSERT_EQ_U64(top->total_ns, 11 + 13 + 15 + 17 + 19);
    opscope_stats_free(s);
    return 0;
}

static int test_bounded(void) {
    /* A million records of 60 kinds (20 names x 3 backends), per shape too: memory follows
     * the kinds, not the records. After the first 20,000 records every group, shape group
     * and the top-10 heap exist; the other 980,000 must not grow the heap by more than a
     * few KiB (one byte per record would be 980 KB). */
    opscope_stats_opts o = {.top_kernels = 10, .by_shape = true};
    opscope_stats_t *s = opscope_stats_new(&o);
    ASSERT_NOT_NULL(s);
    static const char *names[20] = {"A", "B", "C", "D", "E", "F", "G", "H", "I", "J",
                                    "K", "L", "M", "N", "O", "P", "Q", "R", "S", "T"};
    uint64_t sum = 0, maxd = 0, heap0 = 0;
    for (uint64_t i = 0; i < 1000000; i++) {
        if (i == 20000) heap0 = heap_in_use();
        uint64_t d = (i * 2654435761u) % 100000;
        opscope_record r = rec(OPSCOPE_RECORD_OP, names[i % 20], (int32_t)(i % 3), i, d, 1,
                               (int64_t)(i % 20) + 1);
        sum += d;
        if (d > maxd) maxd = d;
        ASSERT_EQ_INT(opscope_stats_add(s, &r), 0);
    }
    uint64_t heap1 = heap_in_use();
    ASSERT_GT_U64(heap0, 0);
    ASSERT_LE_U64(heap1 > heap0 ? heap1 - heap0 : 0, 4096);
    ASSERT_EQ_INT(opscope_stats_finish(s), 0);
    ASSERT_EQ_U64(opscope_stats_n_ops(s), 60);
    ASSERT_EQ_U64(opscope_stats_n_shapes(s), 60);
    ASSERT_EQ_U64(opscope_stats_totals(s)->shape_groups_dropped, 0);
    ASSERT_EQ_U64(opscope_stats_totals(s)->total_ns, sum);
    ASSERT_EQ_U64(opscope_stats_top(s, 0)->duration_ns, maxd);
    for (size_t i = 1; i < opscope_stats_n_top(s); i++)
        ASSERT_LE_U64(opscope_stats_top(s, i)->duration_ns, opscope_stats_top(s, i - 1)->duration_ns);
    opscope_stats_free(s);
    return 0;
}

static int test_empty(void) {
    opscope_stats_t *s = opscope_stats_new(NULL);
    ASSERT_EQ_INT(opscope_stats_finish(s), 0);
    ASSERT_EQ_U64(opscope_stats_n_ops(s), 0);
    ASSERT_EQ_U64(opscope_stats_n_top(s), 0);
    ASSERT_EQ_U64(opscope_stats_totals(s)->n_records, 0);
    opscope_stats_free(s);
    return 0;
}

/* Busy time is the union of a backend's op intervals: concurrent kernels count once, and the
 * time they shared is reported as overlap (hand-computed: ops [0,10) [5,12) [20,30) [22,25)
 * on backend 1 give busy 10+2+10 = 22 of 10+7+10+3 = 30 op time, overlap 5+3 = 8; copies and
 * other backends do not count). */
static int test_busy_overlap(void) {
    opscope_stats_t *s = opscope_stats_new(NULL);
    ASSERT_NOT_NULL(s);
    const uint64_t iv[][2] = {{0, 10}, {5, 12}, {20, 30}, {22, 25}};
    for (int i = 0; i < 4; i++) {
        opscope_record r = rec(OPSCOPE_RECORD_OP, "MUL_MAT", 1, iv[i][0], iv[i][1] - iv[i][0], 0, 64);
        ASSERT_EQ_INT(opscope_stats_add(s, &r), 0);
    }
    opscope_record c = rec(OPSCOPE_RECORD_COPY, "copy_H2D", 1, 0, 100, 8, 8);
    ASSERT_EQ_INT(opscope_stats_add(s, &c), 0);
    opscope_record o = rec(OPSCOPE_RECORD_OP, "ADD", 2, 3, 50, 0, 64);
    ASSERT_EQ_INT(opscope_stats_add(s, &o), 0);
    ASSERT_EQ_INT(opscope_stats_finish(s), 0);
    const opscope_backend_stats *b = opscope_stats_backend_by_id(s, 1);
    ASSERT_NOT_NULL(b);
    ASSERT_EQ_U64(b->op_ns, 30);
    ASSERT_EQ_U64(b->busy_ns, 22);
    ASSERT_EQ_U64(b->overlap_ns, 8);
    ASSERT_EQ_U64(b->n_unsorted, 0);
    const opscope_backend_stats *b2 = opscope_stats_backend_by_id(s, 2);
    ASSERT_EQ_U64(b2->busy_ns, 50);
    ASSERT_EQ_U64(b2->overlap_ns, 0);
    opscope_stats_free(s);
    return 0;
}

/* A Kineto trace lists each stream's kernels together, so a backend's records come in start
 * order per stream only. Stream 7: [100,200) [300,400) [1000,1100); then stream 8, earlier:
 * [150,350) [390,420) [500,600) [2000,2050). Union (hand-merged): [100,420) 320 + [500,600)
 * 100 + [1000,1100) 100 + [2000,2050) 50 = 570 of 100+100+100+200+30+100+50 = 680; overlap 110.
 * Many disjoint out-of-order intervals after them check the union stays exact when they
 * are kept and merged in bulk: 5000 of 10 ns, 20 ns apart, from 10000 on, given in reverse. */
static int test_busy_streams(void) {
    opscope_stats_t *s = opscope_stats_new(NULL);
    ASSERT_NOT_NULL(s);
    const uint64_t iv[][2] = {{100, 200}, {300, 400}, {1000, 1100},
                              {150, 350}, {390, 420}, {500, 600}, {2000, 2050}};
    for (int i = 0; i < 7; i++) {
        opscope_record r = rec(OPSCOPE_RECORD_OP, "k", 1, iv[i][0], iv[i][1] - iv[i][0], 0, 64);
        r.split_id = i < 3 ? 7 : 8;
        ASSERT_EQ_INT(opscope_stats_add(s, &r), 0);
    }
    for (int i = 4999; i >= 0; i--) {
        opscope_record r = rec(OPSCOPE_RECORD_OP, "k", 2, 10000 + 20 * (uint64_t)i, 10, 0, 64);
        ASSERT_EQ_INT(opscope_stats_add(s, &r), 0);
    }
    ASSERT_EQ_INT(opscope_stats_finish(s), 0);
    const opscope_backend_stats *b = opscope_stats_backend_by_id(s, 1);
    ASSERT_NOT_NULL(b);
    ASSERT_EQ_U64(b->op_ns, 680);
    ASSERT_EQ_U64(b->busy_ns, 570);
    ASSERT_EQ_U64(b->overlap_ns, 110);
    const opscope_backend_stats *b2 = opscope_stats_backend_by_id(s, 2);
    ASSERT_EQ_U64(b2->busy_ns, 50000);
    ASSERT_EQ_U64(b2->overlap_ns, 0);
    opscope_stats_free(s);
    return 0;
}

/* Sampled device timing: records carry weights (the computes each stands for). Per group, the
 * computes counted once each, and the estimate sum(duration x weight), worked out by hand. */
static int test_sampled(void) {
    opscope_stats_t *s = opscope_stats_new(NULL);
    ASSERT_NOT_NULL(s);
    /* graph 1 (weight 1): MUL_MAT 100 + 200, ADD 50; graph 5 (weight 4): MUL_MAT 110 + 190,
     * ADD 60; a CPU MUL_MAT without weight */
    struct { int64_t g; uint32_t w; const char *n; uint64_t d; int32_t be; } in[] = {
        {1, 1, "MUL_MAT", 100, 0}, {1, 1, "ADD", 50, 0}, {1, 1, "MUL_MAT", 200, 0},
        {5, 4, "MUL_MAT", 110, 0}, {5, 4, "ADD", 60, 0}, {5, 4, "MUL_MAT", 190, 0},
        {6, 0, "MUL_MAT", 1000, 1},
    };
    uint64_t t = 0;
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        opscope_record r = rec(OPSCOPE_RECORD_OP, in[i].n, in[i].be, t, in[i].d, 0, 64);
        t += in[i].d;
        r.graph_id = in[i].g;
        r.has |= OPSCOPE_HAS_GRAPH;
        if (in[i].w) {
            r.weight = in[i].w;
            r.has |= OPSCOPE_HAS_WEIGHT;
        }
        ASSERT_EQ_INT(opscope_stats_add(s, &r), 0);
    }
    ASSERT_EQ_INT(opscope_stats_finish(s), 0);
    const opscope_op_stats *mm = find(s, "MUL_MAT", 0, OPSCOPE_RECORD_OP);
    const opscope_op_stats *add = find(s, "ADD", 0, OPSCOPE_RECORD_OP);
    const opscope_op_stats *cpu = find(s, "MUL_MAT", 1, OPSCOPE_RECORD_OP);
    ASSERT_NOT_NULL(mm);
    ASSERT_NOT_NULL(add);
    ASSERT_NOT_NULL(cpu);
    ASSERT_EQ_U64(mm->timed_computes, 2);
    ASSERT_EQ_U64(mm->sampled_computes, 5);
    ASSERT_EQ_U64(mm->total_ns, 600);
    ASSERT_EQ_U64(mm->est_ns, 300 * 1 + 300 * 4);
    ASSERT_EQ_U64(add->timed_computes, 2);
    ASSERT_EQ_U64(add->sampled_computes, 5);
    ASSERT_EQ_U64(add->est_ns, 50 + 60 * 4);
    ASSERT_EQ_U64(cpu->timed_computes, 0);
    ASSERT_EQ_U64(cpu->est_ns, 0);
    opscope_stats_free(s);
    return 0;
}

/* The busy window: 200000 time-ordered ops of 7 ns, 10 ns apart (a gap after each), sum to
 * 1400000 ns and never hold more than a window of intervals; a late interval inside the
 * sealed part is counted late and left out, one reaching past it adds only that part. In keep
 * mode, the same ops given stream-style (odd ones after all the even ones) stay exact. */
static int test_busy_window(void) {
    opscope_busy b = {0};
    for (uint64_t i = 0; i < 200000; i++) ASSERT_EQ_INT(opscope_busy_add(&b, 10 * i, 10 * i + 7), 0);
    ASSERT_LE_U64(b.cap, OPSCOPE_BUSY_WINDOW);
    ASSERT_EQ_U64(b.n_late, 0);
    ASSERT_EQ_U64(opscope_busy_total(&b), 1400000);
    ASSERT_EQ_INT(opscope_busy_add(&b, 15, 17), 0);
    ASSERT_EQ_U64(b.n_late, 1);
    ASSERT_EQ_U64(opscope_busy_total(&b), 1400000);
    uint64_t w = b.watermark;
    ASSERT_GT_U64(w, 0);
    ASSERT_EQ_INT(opscope_busy_add(&b, w - 1, w + 2), 0); /* [w, w+2) lies in a gap after w */
    ASSERT_EQ_U64(b.n_late, 2);
    ASSERT_EQ_U64(opscope_busy_total(&b), 1400002);
    opscope_busy_free(&b);

    opscope_busy k = {0};
    opscope_busy_keep_all(&k);
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t i = (uint64_t)pass; i < 200000; i += 2) ASSERT_EQ_INT(opscope_busy_add(&k, 10 * i, 10 * i + 7), 0);
    ASSERT_EQ_U64(k.n_late, 0);
    ASSERT_EQ_U64(opscope_busy_total(&k), 1400000);
    opscope_busy_free(&k);
    return 0;
}

/* A trace (meta profiler "kineto") keeps every interval: 100000 + 100000 stream-style ops on
 * one backend, the second stream overlapping the first by 3 ns each: union computed by hand. */
static int test_busy_trace_meta(void) {
    opscope_stats_t *s = opscope_stats_new(NULL);
    ASSERT_NOT_NULL(s);
    opscope_meta m = {.profiler = "kineto"};
    ASSERT_EQ_INT(opscope_stats_set_meta(s, &m), 0);
    for (int stream = 0; stream < 2; stream++)
        for (uint64_t i = 0; i < 100000; i++) {
            opscope_record r = rec(OPSCOPE_RECORD_OP, "k", 1, 20 * i + (uint64_t)stream * 4, 7, 0, 64);
            ASSERT_EQ_INT(opscope_stats_add(s, &r), 0);
        }
    ASSERT_EQ_INT(opscope_stats_finish(s), 0);
    const opscope_backend_stats *b = opscope_stats_backend_by_id(s, 1);
    ASSERT_NOT_NULL(b);
    /* [20i, 20i+7) and [20i+4, 20i+11): union 11 ns each */
    ASSERT_EQ_U64(b->busy_ns, 1100000);
    opscope_stats_free(s);
    return 0;
}

/* One fused-name vocabulary in the report, as in diff: a Vulkan record names its
 * fused group as ggml-vulkan's perf logger does ("RMS_NORM_MUL", "MULTI_ADD"); the report
 * shows it as the CPU backend's records name the same group ("RMS_NORM [fused:
 * RMS_NORM+MUL]", as in real CPU profiles), so both backends' rows read alike. A copy's
 * extra (the call that made it) and a note are left as they are. */
static int test_fused_vocabulary(void) {
    opscope_stats_opts o = {.top_kernels = 3};
    opscope_stats_t *s = opscope_stats_new(&o);
    ASSERT_NOT_NULL(s);
    opscope_record cpu = rec(OPSCOPE_RECORD_OP, "RMS_NORM", 0, 1000, 10, 80, 5);
    cpu.extra = "RMS_NORM+MUL";
    cpu.n_fused = 2;
    opscope_record vk = rec(OPSCOPE_RECORD_OP, "RMS_NORM", 1, 2000, 10, 80, 5);
    vk.extra = "RMS_NORM_MUL";
    vk.n_fused = 2;
    opscope_record madd = rec(OPSCOPE_RECORD_OP, "ADD", 1, 3000, 10, 80, 5);
    madd.extra = "MULTI_ADD";
    madd.n_fused = 3;
    opscope_record note = rec(OPSCOPE_RECORD_OP, "GRAPH_SPLIT", 1, 4000, 10, 80, 5);
    note.extra = "81 nodes, no per-op timing";
    note.n_fused = 81;
    opscope_record *all[] = {&cpu, &vk, &madd, &note};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) ASSERT_EQ_INT(opscope_stats_add(s, all[i]), 0);
    ASSERT_EQ_INT(opscope_stats_finish(s), 0);
    ASSERT_NOT_NULL(find(s, "RMS_NORM [fused: RMS_NORM+MUL]", 0, OPSCOPE_RECORD_OP));
    ASSERT_NOT_NULL(find(s, "RMS_NORM [fused: RMS_NORM+MUL]", 1, OPSCOPE_RECORD_OP));
    ASSERT_NOT_NULL(find(s, "ADD [fused: ADD+ADD+ADD]", 1, OPSCOPE_RECORD_OP));
    ASSERT_NOT_NULL(find(s, "GRAPH_SPLIT [fused: 81 nodes, no per-op timing]", 1, OPSCOPE_RECORD_OP));
    opscope_stats_free(s);
    return 0;
}

TEST_MAIN(TEST(test_sampled), TEST(test_groups), TEST(test_busy_overlap), TEST(test_busy_streams), TEST(test_busy_window), TEST(test_busy_trace_meta), TEST(test_by_shape), TEST(test_bounded), TEST(test_empty),
          TEST(test_fused_vocabulary))
