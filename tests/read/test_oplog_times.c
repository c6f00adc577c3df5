/*
 * Times beyond any real run in the record log (the capture's streamed profile): refused at the
 * value as in a JSON profile (readers.h: times past 2^62 ns, durations over a year, alone or
 * times their weight, and sums past 2^58 ns), with the file's name and the byte offset of the
 * record or field; the times of real runs read exactly. The logs are built here with the
 * format's own encoders (util/oplog.h, model/oplog_*.h), so the offsets are known from the
 * construction.
 */
#include "model/oplog_dec.h"
#include "model/oplog_rec.h"
#include "model/oplog_run.h"
#include "opscope.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* the bounds as docs/formats.md states them, not the reader's constants */
#define MAX_TIME (1ull << 62)
#define YEAR (36525ull * 864000000000ull) /* 365.25 days */
#define BAD (MAX_TIME + 1)
#define HOUR 3600000000000ull
#define UPTIME (50 * HOUR)       /* CLOCK_MONOTONIC of a machine up two days */
#define NS_AHEAD 1000000000000ull /* a time namespace 1000 s ahead */

/* A log being built: its bytes, and where each chunk's payload began. */
typedef struct tlog {
    opscope_oplog_buf b;
    size_t payload_at[8];
    int n;
} tlog;

static void log_begin(tlog *l) {
    memset(l, 0, sizeof *l);
    unsigned char head[OPSCOPE_OPLOG_HEAD];
    opscope_oplog_file_head(head);
    for (size_t i = 0; i < sizeof head; i++) OPSCOPE_VEC_PUSH(l->b, head[i]);
}

/* Appends a chunk of TYPE holding PAY (consumed). */
static void log_chunk(tlog *l, uint32_t type, opscope_oplog_buf *pay) {
    unsigned char head[OPSCOPE_OPLOG_CHUNK_HEAD];
    opscope_oplog_chunk_head(head, type, pay->v, (uint32_t)pay->n);
    for (size_t i = 0; i < sizeof head; i++) OPSCOPE_VEC_PUSH(l->b, head[i]);
    l->payload_at[l->n++] = l->b.n;
    for (size_t i = 0; i < pay->n; i++) OPSCOPE_VEC_PUSH(l->b, pay->v[i]);
    free(pay->v);
    memset(pay, 0, sizeof *pay);
}

/* META: START_NS and RT (the realtime offset); the offset of the realtime value in *RT_AT. */
static void put_meta(tlog *l, int64_t rt, uint64_t start_ns, size_t *rt_at) {
    opscope_oplog_buf p = {0};
    opscope_oplog_put_str(&p, "box");
    opscope_oplog_put_str(&p, "prog");
    opscope_oplog_put_str(&p, "CLOCK_MONOTONIC");
    opscope_oplog_put_str(&p, "b00t");
    opscope_oplog_put_i(&p, 42);
    opscope_oplog_put_u(&p, 4026531834u);
    size_t at = p.n;
    opscope_oplog_put_i(&p, rt);
    opscope_oplog_put_u(&p, start_ns);
    opscope_oplog_put_u(&p, OPSCOPE_CAPTURE_HAS_PID | OPSCOPE_CAPTURE_HAS_REALTIME | OPSCOPE_CAPTURE_HAS_START);
    if (rt_at) *rt_at = l->b.n + OPSCOPE_OPLOG_CHUNK_HEAD + at;
    log_chunk(l, OPSCOPE_OPLOG_META, &p);
}

/* A RECORDS chunk of N instances of one template (WEIGHT); instance k's offset in AT[k]. */
static void put_records(tlog *l, const opscope_oplog_inst *in, size_t n, uint32_t weight, size_t *at) {
    opscope_oplog_buf p = {0};
    opscope_record t;
    opscope_record_init(&t);
    t.name = "MUL_MAT";
    t.weight = weight;
    if (weight > 1) t.has |= OPSCOPE_HAS_WEIGHT;
    uint64_t total = 0;
    for (size_t k = 0; k < n; k++) total += in[k].duration_ns;
    opscope_oplog_put_u(&p, n);
    opscope_oplog_put_u(&p, total);
    opscope_oplog_put_u(&p, 1);
    opscope_oplog_put_u(&p, 0);
    opscope_oplog_put_tmpl(&p, &t);
    opscope_oplog_state st = {0};
    size_t base = l->b.n + OPSCOPE_OPLOG_CHUNK_HEAD;
    for (size_t k = 0; k < n; k++) {
        if (at) at[k] = base + p.n;
        opscope_oplog_put_inst(&p, &st, &in[k], false);
    }
    log_chunk(l, OPSCOPE_OPLOG_RECORDS, &p);
}

/* A device-timed record (its own start, duration and host times: the instance's ext form). */
static opscope_oplog_inst dev(uint64_t key, uint64_t start, uint64_t dur, uint64_t h0, uint64_t h1) {
    return (opscope_oplog_inst){.key = key, .key_end = h1, .start_ns = start, .duration_ns = dur,
                                .host_start_ns = h0, .host_end_ns = h1};
}

/* A host-timed record: everything follows from the key and its end. */
static opscope_oplog_inst host(uint64_t start, uint64_t dur) {
    return (opscope_oplog_inst){.key = start, .key_end = start + dur, .start_ns = start, .duration_ns = dur,
                                .host_start_ns = start, .host_end_ns = start + dur};
}

static opscope_error g_err;
static uint64_t g_records, g_last_start;

static int count(void *ud, const opscope_record *r) {
    (void)ud;
    g_records++;
    g_last_start = r->start_ns;
    return 0;
}

static int read_log(tlog *l) {
    opscope_sink s = {NULL, NULL, NULL, count, NULL};
    memset(&g_err, 0, sizeof g_err);
    g_records = 0;
    int rc = opscope_read_buffer(l->b.v, l->b.n, "run.oplog", OPSCOPE_FORMAT_AUTO, &s, &g_err);
    free(l->b.v);
    l->b.v = NULL;
    return rc;
}

#define ASSERT_REFUSED(l, msg_part, pos_)                    \
    do {                                                     \
        ASSERT_EQ_INT(read_log(l), -1);                      \
        ASSERT_EQ_INT(g_err.code, OPSCOPE_ERROR_RANGE);      \
        ASSERT_CONTAINS(g_err.msg, msg_part);                \
        ASSERT_EQ_STR(g_err.file, "run.oplog");              \
        ASSERT_EQ_U64(g_err.pos, pos_);                      \
    } while (0)

#define TIME_MSG(field) field " is beyond any real run (more than 2^62 ns"

/* A record's start, host times or order key past 2^62 ns, and a duration over a year: at the
 * record, after the records before it were delivered in order (the chunk is merged first). */
static int test_record_times(void) {
    static const struct {
        const char *msg;
        int host; /* 1: a host-timed record (its start is its key) */
        uint64_t key, start, dur, h0, h1;
    } cases[] = {
        {TIME_MSG("start_ns"), 0, UPTIME, BAD, 5, UPTIME, UPTIME + 5},
        {TIME_MSG("start_ns"), 1, 9223372036854775000ull, 0, 5, 0, 0},
        {TIME_MSG("host_start_ns"), 0, UPTIME, UPTIME, 5, BAD, UPTIME + 5},
        {TIME_MSG("host_end_ns"), 0, UPTIME, UPTIME, 5, UPTIME, BAD},
        {"duration_ns is beyond any real run (more than a year)", 0, UPTIME, UPTIME, YEAR + 1,
         UPTIME, UPTIME + 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tlog l;
        log_begin(&l);
        put_meta(&l, 1795631245480772288ll, UPTIME - HOUR, NULL);
        opscope_oplog_inst in[2] = {host(UPTIME - 10, 3),
                                    cases[i].host ? host(cases[i].key, cases[i].dur)
                                                  : dev(cases[i].key, cases[i].start, cases[i].dur, cases[i].h0,
                                                        cases[i].h1)};
        size_t at[2];
        put_records(&l, in, 2, 1, at);
        ASSERT_REFUSED(&l, cases[i].msg, at[1]);
        ASSERT_EQ_U64(g_records, 1);
    }
    return 0;
}

/* Weighted records as in the JSON reader: a record standing for WEIGHT computes past a year,
 * and records whose durations add up to more than 2^58 ns. */
static int test_weighted_and_total(void) {
    tlog l;
    log_begin(&l);
    opscope_oplog_inst in[1] = {dev(UPTIME, UPTIME, YEAR / 2 + 1, UPTIME, UPTIME + 9)};
    size_t at[1];
    put_records(&l, in, 1, 2, at);
    ASSERT_REFUSED(&l, "duration_ns times weight is beyond any real run (more than a year)", at[0]);
    ASSERT_EQ_U64(g_records, 0);
    /* 10 records of a year less 1 ns: the tenth crosses 2^58 ns (9.13 years); the chunk's
     * stated total too, so it is refused at the chunk */
    log_begin(&l);
    opscope_oplog_inst many[10];
    for (int k = 0; k < 10; k++)
        many[k] = dev(UPTIME + (uint64_t)k, UPTIME + (uint64_t)k, YEAR - 1, UPTIME + (uint64_t)k,
                      UPTIME + (uint64_t)k + 1);
    put_records(&l, many, 10, 1, NULL);
    ASSERT_REFUSED(&l, "add up to more than 2^58 ns", (uint64_t)OPSCOPE_OPLOG_HEAD);
    /* the same times their weights (each standing for 1000 computes of a thousandth): the
     * chunk's total is small, the tenth record crosses */
    log_begin(&l);
    for (int k = 0; k < 10; k++) many[k].duration_ns = (YEAR - 1) / 1000;
    size_t at10[10];
    put_records(&l, many, 10, 1000, at10);
    ASSERT_REFUSED(&l, "add up to more than 2^58 ns", at10[9]);
    ASSERT_EQ_U64(g_records, 9);
    return 0;
}

/* The capture's times: META's start and realtime offset (either sign), END's at_ns and
 * died_ns, a llama context's end and repetitions (RUN, at the chunk), a decode's start and end. */
static int test_capture_times(void) {
    tlog l;
    size_t rt_at;
    log_begin(&l);
    put_meta(&l, -(int64_t)BAD, UPTIME, &rt_at);
    ASSERT_REFUSED(&l, TIME_MSG("capture.realtime_offset_ns"), rt_at);
    log_begin(&l);
    put_meta(&l, (int64_t)BAD, UPTIME, &rt_at);
    ASSERT_REFUSED(&l, TIME_MSG("capture.realtime_offset_ns"), rt_at);
    log_begin(&l);
    put_meta(&l, 5, BAD, &rt_at);
    ASSERT_REFUSED(&l, TIME_MSG("capture.start_ns"), rt_at + 1); /* after the 1-byte offset */

    opscope_oplog_buf p = {0};
    log_begin(&l);
    opscope_oplog_put_str(&p, "exit");
    opscope_oplog_put_str(&p, NULL);
    size_t end_at = l.b.n + OPSCOPE_OPLOG_CHUNK_HEAD + p.n;
    opscope_oplog_put_u(&p, UPTIME);
    size_t died_at = l.b.n + OPSCOPE_OPLOG_CHUNK_HEAD + p.n;
    opscope_oplog_put_u(&p, BAD);
    log_chunk(&l, OPSCOPE_OPLOG_END, &p);
    ASSERT_REFUSED(&l, TIME_MSG("capture.end.died_ns"), died_at);
    ASSERT_GT_U64(died_at, end_at);

    uint64_t reps[2] = {UPTIME, BAD};
    opscope_run_context ctx = {.model = -1, .end_ns = UPTIME + HOUR, .n_reps = 2, .reps_ns = reps};
    opscope_run_info run = {.n_contexts = 1, .contexts = &ctx};
    log_begin(&l);
    opscope_oplog_put_run(&p, &run);
    size_t run_chunk = l.b.n;
    log_chunk(&l, OPSCOPE_OPLOG_RUN, &p);
    ASSERT_REFUSED(&l, TIME_MSG("a llama context's repetition"), run_chunk);
    ctx.end_ns = BAD;
    log_begin(&l);
    opscope_oplog_put_run(&p, &run);
    log_chunk(&l, OPSCOPE_OPLOG_RUN, &p);
    ASSERT_REFUSED(&l, TIME_MSG("a llama context's end_ns"), run_chunk);

    opscope_run_decode d = {.start_ns = UPTIME, .end_ns = BAD, .context = -1};
    log_begin(&l);
    put_meta(&l, 5, UPTIME, NULL);
    opscope_oplog_put_u(&p, 0);
    opscope_oplog_put_u(&p, 1);
    size_t dec_at = l.b.n + OPSCOPE_OPLOG_CHUNK_HEAD + p.n;
    opscope_oplog_put_decode(&p, &d);
    log_chunk(&l, OPSCOPE_OPLOG_DECODES, &p);
    ASSERT_REFUSED(&l, TIME_MSG("a decode's end_ns"), dec_at);
    return 0;
}

/* Real runs read exactly: two days of uptime, the same 1000 s ahead in a time namespace (its
 * realtime offset 1000 s smaller), device and host times, and 2^62 ns itself. */
static int test_real_times_read(void) {
    tlog l;
    log_begin(&l);
    put_meta(&l, 1795631245480772288ll - (int64_t)NS_AHEAD, UPTIME + NS_AHEAD, NULL);
    uint64_t t = UPTIME + NS_AHEAD;
    opscope_oplog_inst in[3] = {host(t, 1000), dev(t + 2000, t + 2100, 700, t + 2000, t + 3000),
                                dev(MAX_TIME - 10, MAX_TIME, 5,
                                    MAX_TIME - 10, MAX_TIME)};
    put_records(&l, in, 3, 1, NULL);
    opscope_oplog_buf p = {0};
    opscope_oplog_put_str(&p, "exit");
    opscope_oplog_put_str(&p, NULL);
    opscope_oplog_put_u(&p, t + HOUR);
    opscope_oplog_put_u(&p, 0);
    log_chunk(&l, OPSCOPE_OPLOG_END, &p);
    ASSERT_EQ_INT(read_log(&l), 0);
    ASSERT_EQ_U64(g_records, 3);
    ASSERT_EQ_U64(g_last_start, MAX_TIME);
    return 0;
}

int main(void) {
    static const test_case cases[] = {TEST(test_record_times), TEST(test_weighted_and_total),
                                      TEST(test_capture_times), TEST(test_real_times_read)};
    return test_run_all(cases, (int)(sizeof cases / sizeof cases[0]));
}
