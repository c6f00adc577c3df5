/* test_session.c - the session (analyze/session/session.h) over fake outputs: the order of their
 * steps, what a failure of one does to the others, and what each sees of the analyses. */
#include "analyze/session/session.h"
#include "test.h"

#include <string.h>

/* One fake output: what was called on it, in one log shared by all. */
typedef struct fake {
    char id;
    int fail_finish, fail_commit, stop_at; /* stop_at: the record its sink refuses (1-based) */
    uint64_t seen, stats_seen;             /* records; the stats' count at the last one */
    opscope_session_t *s;
    char *log;
    opscope_error why;
} fake;

static void logc(fake *f, char c) {
    size_t n = strlen(f->log);
    f->log[n] = f->id;
    f->log[n + 1] = c;
    f->log[n + 2] = '\0';
}

static int fake_record(void *ud, const opscope_record *r) {
    (void)r;
    fake *f = ud;
    f->seen++;
    f->stats_seen = opscope_stats_totals(opscope_session_stats(f->s))->n_records;
    if (f->stop_at && f->seen == (uint64_t)f->stop_at) {
        f->why.code = OPSCOPE_ERROR_IO;
        f->why.msg = "disk full";
        return -1;
    }
    return 0;
}

static int fake_finish(void *impl, opscope_session_t *s, opscope_error *err) {
    fake *f = impl;
    logc(f, 'f');
    /* the analyses are finished before any output's finish */
    if (opscope_stats_totals(opscope_session_stats(s))->n_records != f->seen) return -1;
    if (f->fail_finish) {
        err->code = OPSCOPE_ERROR_NOMEM;
        err->msg = "finish failed";
        return -1;
    }
    return 0;
}

static int fake_commit(void *impl, opscope_error *err) {
    fake *f = impl;
    logc(f, 'c');
    if (f->fail_commit) {
        err->code = OPSCOPE_ERROR_IO;
        err->msg = "commit failed";
        return -1;
    }
    return 0;
}

static void fake_release(void *impl, bool discard) { logc(impl, discard ? 'd' : 'r'); }

static const opscope_error *fake_stopped(const void *impl) { return &((const fake *)impl)->why; }

static opscope_output fake_output(fake *f) {
    opscope_output o = {.name = "--fake", .impl = f, .finish = fake_finish, .commit = fake_commit,
                        .release = fake_release, .stopped = fake_stopped};
    o.sink.ud = f;
    o.sink.on_record = fake_record;
    return o;
}

/* Three records of one op through SINK. Returns the first non-zero callback result. */
static int feed(const opscope_sink *sink) {
    opscope_backend b = {.id = 0, .name = "CPU"};
    if (sink->on_backend(sink->ud, &b)) return -1;
    for (int i = 0; i < 3; i++) {
        opscope_record r;
        opscope_record_init(&r);
        r.name = "MUL_MAT";
        r.start_ns = (uint64_t)i * 100;
        r.duration_ns = 10;
        if (sink->on_record(sink->ud, &r)) return -1;
    }
    return sink->on_end(sink->ud);
}

static opscope_session_t *with_fakes(fake *f, int n, char *log) {
    opscope_session_opts so = {.graphs = true};
    opscope_session_t *s = opscope_session_new(&so);
    if (!s) return NULL;
    log[0] = '\0';
    for (int i = 0; i < n; i++) {
        f[i].id = (char)('a' + i);
        f[i].s = s;
        f[i].log = log;
        opscope_output o = fake_output(&f[i]);
        if (opscope_session_add(s, &o)) {
            opscope_session_free(s);
            return NULL;
        }
    }
    return s;
}

static int n_done, n_failed;
static void on_done(void *ud, const opscope_output *o, const opscope_error *err) {
    (void)ud;
    (void)o;
    n_done++;
    n_failed += err != NULL;
}

static int test_order(void) {
    fake f[3] = {{0}};
    char log[64];
    opscope_session_t *s = with_fakes(f, 3, log);
    ASSERT_NOT_NULL(s);
    opscope_sink sink = opscope_session_sink(s);
    ASSERT_EQ_INT(feed(&sink), 0);
    /* each output saw every record after the stats had counted it */
    for (int i = 0; i < 3; i++) {
        ASSERT_EQ_U64(f[i].seen, 3);
        ASSERT_EQ_U64(f[i].stats_seen, 3);
    }
    opscope_error err = {0};
    ASSERT_EQ_INT(opscope_session_finish(s, &err), 0);
    ASSERT_NULL(opscope_session_failed(s));
    n_done = n_failed = 0;
    ASSERT_EQ_INT(opscope_session_commit(s, on_done, NULL), 0);
    ASSERT_EQ_INT(n_done, 3);
    ASSERT_EQ_INT(n_failed, 0);
    opscope_session_free(s);
    /* finishes in order, then each commit followed by its release: nothing twice */
    ASSERT_EQ_STR(log, "afbfcfacarbcbrcccr");
    return 0;
}

static int test_finish_fails(void) {
    fake f[3] = {{0}};
    char log[64];
    opscope_session_t *s = with_fakes(f, 3, log);
    ASSERT_NOT_NULL(s);
    f[1].fail_finish = 1;
    opscope_sink sink = opscope_session_sink(s);
    ASSERT_EQ_INT(feed(&sink), 0);
    opscope_error err = {0};
    ASSERT_EQ_INT(opscope_session_finish(s, &err), -1);
    ASSERT_EQ_STR(err.msg, "finish failed");
    ASSERT_TRUE(opscope_session_failed(s) != NULL && opscope_session_failed(s)->impl == &f[1]);
    opscope_session_free(s);
    /* the third never finished; nothing was committed, everything discarded */
    ASSERT_EQ_STR(log, "afbfadbdcd");
    return 0;
}

static int test_commit_fails(void) {
    fake f[3] = {{0}};
    char log[64];
    opscope_session_t *s = with_fakes(f, 3, log);
    ASSERT_NOT_NULL(s);
    f[0].fail_commit = 1;
    opscope_sink sink = opscope_session_sink(s);
    ASSERT_EQ_INT(feed(&sink), 0);
    opscope_error err = {0};
    ASSERT_EQ_INT(opscope_session_finish(s, &err), 0);
    n_done = n_failed = 0;
    ASSERT_EQ_INT(opscope_session_commit(s, on_done, NULL), -1);
    ASSERT_EQ_INT(n_done, 3);
    ASSERT_EQ_INT(n_failed, 1);
    opscope_session_free(s);
    /* the failed one is discarded, the others still committed */
    ASSERT_EQ_STR(log, "afbfcfacadbcbrcccr");
    return 0;
}

static int test_stopped(void) {
    fake f[2] = {{0}};
    char log[64];
    opscope_session_t *s = with_fakes(f, 2, log);
    ASSERT_NOT_NULL(s);
    f[1].stop_at = 2;
    opscope_sink sink = opscope_session_sink(s);
    ASSERT_EQ_INT(feed(&sink), -1);
    ASSERT_EQ_U64(f[0].seen, 2); /* the stream stopped at the refused record */
    opscope_error err = {0};
    opscope_session_stopped(s, &err);
    ASSERT_EQ_STR(err.msg, "disk full");
    opscope_session_free(s);
    ASSERT_EQ_STR(log, "adbd");
    return 0;
}

static int test_full(void) {
    fake f[OPSCOPE_SESSION_MAX + 1];
    memset(f, 0, sizeof f);
    char log[2 * (OPSCOPE_SESSION_MAX + 1) + 1];
    ASSERT_NULL(with_fakes(f, OPSCOPE_SESSION_MAX + 1, log));
    /* the add past the last place discards its output, then the free every other one */
    char want[sizeof log] = {0};
    want[0] = (char)('a' + OPSCOPE_SESSION_MAX);
    want[1] = 'd';
    for (int i = 0; i < OPSCOPE_SESSION_MAX; i++) {
        want[2 + 2 * i] = (char)('a' + i);
        want[3 + 2 * i] = 'd';
    }
    ASSERT_EQ_STR(log, want);
    return 0;
}

static int count_record(void *ud, const opscope_record *r) {
    (void)r;
    ((fake *)ud)->seen++;
    return 0;
}

/* view's session: no stats, the output still sees every record and finishes */
static int test_no_stats(void) {
    opscope_session_opts so = {.no_stats = true};
    opscope_session_t *s = opscope_session_new(&so);
    ASSERT_NOT_NULL(s);
    ASSERT_NULL(opscope_session_stats(s));
    char log[16] = "";
    fake f = {.id = 'a', .log = log};
    opscope_output o = fake_output(&f);
    o.sink.on_record = count_record;
    o.finish = NULL;
    ASSERT_EQ_INT(opscope_session_add(s, &o), 0);
    opscope_sink sink = opscope_session_sink(s);
    ASSERT_EQ_INT(feed(&sink), 0);
    ASSERT_EQ_U64(f.seen, 3);
    opscope_error err = {0};
    ASSERT_EQ_INT(opscope_session_finish(s, &err), 0);
    ASSERT_EQ_INT(opscope_session_commit(s, NULL, NULL), 0);
    opscope_session_free(s);
    ASSERT_EQ_STR(log, "acar");
    return 0;
}

TEST_MAIN(TEST(test_order), TEST(test_finish_fails), TEST(test_commit_fails), TEST(test_stopped),
          TEST(test_full), TEST(test_no_stats))
