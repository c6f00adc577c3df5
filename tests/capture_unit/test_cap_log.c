/* Tests of the record log (capture/store/cap_log.c writing, read/oplog_read.c reading,
 * util/oplog.c framing): records flushed in several chunks come back merged by start with
 * every field; the buffers' memory stays a window across flushes; a log cut at every byte
 * reads as the chunks wholly before the cut (a chunk written partially is absent); a chunk
 * whose checksum does not hold ends the log there. Expected values come from the records the
 * test made and from the file's framing walked here by hand (16-byte chunk headers). What ran
 * (RUN chunks) comes back as the last one written: the command line against /proc/self/cmdline
 * read here, a llama context noted between flushes, one chunk per change. */
#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_convert.h"
#include "capture/store/cap_decodes.h"
#include "capture/store/cap_drops.h"
#include "capture/store/cap_log.h"
#include "capture/store/cap_run.h"
#include "capture/store/cap_tables.h"
#include "cap_fixture.h"
#include "export/capture/end_patch.h"
#include "read/readers.h"
#include "test.h"
#include "model/oplog_rec.h"
#include "util/oplog.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One OP record on the calling thread's buffer: node NODE of graph GRAPH from T0 to T1. */
static void put_op(int64_t graph, int node, int op, uint64_t t0, uint64_t t1, int64_t rows) {
    opscope_cap_buf_commit(fixture_op(graph, node, op, t0, t1, rows));
}

typedef struct got {
    uint64_t start[64], dur[64];
    int64_t graph[64], rows[64];
    int node[64];
    char name[64][16], tensor[64][16];
    int n, backends;
    uint64_t total_records;
    char end[16];
} got;

static int g_meta(void *ud, const opscope_meta *m) {
    got *g = ud;
    g->total_records = m->total_records;
    snprintf(g->end, sizeof g->end, "%s", m->capture && m->capture->end ? m->capture->end : "");
    return 0;
}
static int g_backend(void *ud, const opscope_backend *b) {
    ((got *)ud)->backends += b->name && strcmp(b->name, "CPU") == 0;
    return 0;
}
static int g_record(void *ud, const opscope_record *r) {
    got *g = ud;
    if (g->n >= 64) return 1;
    int i = g->n++;
    g->start[i] = r->start_ns;
    g->dur[i] = r->duration_ns;
    g->graph[i] = r->graph_id;
    g->node[i] = r->node_index;
    g->rows[i] = r->ne_src[0][1];
    snprintf(g->name[i], 16, "%s", r->name);
    snprintf(g->tensor[i], 16, "%s", r->tensor_name ? r->tensor_name : "");
    return 0;
}

static char g_path[256];

/* Two flushes: the second holds a record that started before the first flush's last ones
 * (a long compute committed late), so the reader must merge, not concatenate. */
static int write_two_flushes(void) {
    opscope_cap_buf_reset_all();
    fixture_names();
    snprintf(g_path, sizeof g_path, "/tmp/opscope-caplog-%ld.log", (long)getpid());
    unlink(g_path);
    opscope_cap_log_start(g_path, 0);
    put_op(7, 0, OP_MUL_MAT, 1000, 1500, 8);
    put_op(7, 1, OP_ADD, 1500, 1600, 8);
    put_op(8, 0, OP_MUL_MAT, 3000, 3400, 8); /* same template as the first, other graph */
    char why[128];
    ASSERT_EQ_INT(opscope_cap_log_flush("checkpoint", NULL, why, sizeof why), 0);
    ASSERT_EQ_U64(opscope_cap_log_records(), 3);
    put_op(9, 2, OP_ADD, 2000, 2100, 16); /* started before the flush's last record */
    put_op(9, 3, OP_MUL_MAT, 4000, 4900, 16);
    ASSERT_EQ_INT(opscope_cap_log_flush("exit", NULL, why, sizeof why), 0);
    ASSERT_EQ_U64(opscope_cap_log_records(), 5);
    return 0;
}

static int test_log_roundtrip_merged_by_start(void) {
    if (write_two_flushes()) return 1;
    got g;
    memset(&g, 0, sizeof g);
    opscope_sink sink = {&g, g_meta, g_backend, g_record, NULL};
    opscope_error err;
    ASSERT_EQ_INT(opscope_read_file(g_path, OPSCOPE_FORMAT_AUTO, &sink, &err), 0);
    ASSERT_EQ_INT(g.n, 5);
    ASSERT_EQ_U64(g.total_records, 5);
    ASSERT_EQ_INT(g.backends, 1);
    ASSERT_EQ_STR(g.end, "exit");
    /* monotonic clock: a tick is a nanosecond, so the starts are the ticks put above */
    const uint64_t want_start[5] = {1000, 1500, 2000, 3000, 4000};
    const uint64_t want_dur[5] = {500, 100, 100, 400, 900};
    const int64_t want_graph[5] = {7, 7, 9, 8, 9};
    const int want_node[5] = {0, 1, 2, 0, 3};
    const char *want_name[5] = {"MUL_MAT", "ADD", "ADD", "MUL_MAT", "MUL_MAT"};
    const int64_t want_rows[5] = {8, 8, 16, 8, 16};
    for (int i = 0; i < 5; i++) {
        ASSERT_EQ_U64(g.start[i], want_start[i]);
        ASSERT_EQ_U64(g.dur[i], want_dur[i]);
        ASSERT_EQ_INT(g.graph[i], want_graph[i]);
        ASSERT_EQ_INT(g.node[i], want_node[i]);
        ASSERT_EQ_STR(g.name[i], want_name[i]);
        ASSERT_EQ_INT(g.rows[i], want_rows[i]);
    }
    ASSERT_EQ_STR(g.tensor[4], "t-3");
    return 0;
}

/* The buffers hold a window: after each flush only the chunks being filled stay mapped. */
static int test_log_memory_stays_a_window(void) {
    opscope_cap_buf_reset_all();
    fixture_names();
    opscope_cap_log_start(g_path, 0);
    uint64_t t = 1000, peak = 0;
    char why[128];
    for (int flush = 0; flush < 12; flush++) {
        for (int i = 0; i < 6000; i++, t += 10) { /* about 2.7 MiB of records per flush */
            put_op(flush, i % 50, OP_ADD, t, t + 5, 4);
        }
        ASSERT_EQ_INT(opscope_cap_log_flush("checkpoint", NULL, why, sizeof why), 0);
        uint64_t b = opscope_cap_buf_bytes();
        peak = b > peak ? b : peak;
    }
    ASSERT_EQ_U64(opscope_cap_log_records(), 72000);
    ASSERT_EQ_U64(opscope_cap_buf_dropped(), 0);
    /* one record chunk being filled (the kept chain is empty here) */
    ASSERT_LE_U64(peak, 1u << 20);
    /* 50 nodes x 1 shape = 50 templates: the log grows by the instances, a few bytes each */
    ASSERT_LE_U64(opscope_cap_log_bytes(), 72000u * 12);
    return 0;
}

/* The chunk boundaries of the file, walked here from the framing's definition: 16-byte file
 * header, then chunks of a 16-byte header whose bytes 8..11 are the payload length (LE). */
static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Chunk ends into ENDS; the ends of the chunks of type 3 (records) into REC (in order). */
static size_t chunk_ends(const unsigned char *d, size_t n, size_t *ends, size_t max, size_t *rec, size_t *n_rec) {
    size_t off = 16, k = 0;
    *n_rec = 0;
    while (off + 16 <= n && k < max) {
        uint32_t type = le32(d + off + 4), len = le32(d + off + 8);
        off += 16 + len;
        ends[k++] = off;
        if (type == 3) rec[(*n_rec)++] = off;
    }
    return k;
}

/* The two-flush log (write_two_flushes) read whole (DATA[0..N), the caller frees it), its K
 * chunks' ends and the ends of its N_REC records chunks. */
typedef struct chunked_log {
    char *data;
    size_t n, k, n_rec, ends[64], rec[8];
} chunked_log;

static int read_two_flushes(chunked_log *l) {
    if (write_two_flushes()) return 1;
    l->n = 0;
    l->data = test_slurp(g_path, &l->n);
    ASSERT_NOT_NULL(l->data);
    l->k = chunk_ends((unsigned char *)l->data, l->n, l->ends, 64, l->rec, &l->n_rec);
    return 0;
}

typedef struct count { uint64_t records, truncated_at; } count;
static int cnt_record(void *ud, const opscope_record *r) {
    (void)r;
    ((count *)ud)->records++;
    return 0;
}
static int cnt_meta(void *ud, const opscope_meta *m) {
    ((count *)ud)->truncated_at = m->truncated_at;
    return 0;
}

static int test_log_cut_at_every_byte(void) {
    chunked_log l;
    if (read_two_flushes(&l)) return 1;
    ASSERT_EQ_U64(l.ends[l.k - 1], l.n);
    ASSERT_EQ_U64(l.n_rec, 2); /* two flushes: 3 records, then 2 */
    for (size_t cut = 0; cut <= l.n; cut++) {
        count c = {0, 0};
        opscope_sink sink = {&c, cnt_meta, NULL, cnt_record, NULL};
        opscope_error err;
        int rc = opscope_read_buffer(l.data, cut, "cut", OPSCOPE_FORMAT_AUTO, &sink, &err);
        if (cut < 16) {
            ASSERT_EQ_INT(rc, -1); /* no file header: not a log, and no JSON either */
            continue;
        }
        ASSERT_EQ_INT(rc, 0);
        /* whole chunks before the cut */
        size_t last_end = 16;
        for (size_t i = 0; i < l.k; i++) {
            if (l.ends[i] <= cut) last_end = l.ends[i];
        }
        uint64_t want = (cut >= l.rec[0] ? 3 : 0) + (cut >= l.rec[1] ? 2 : 0);
        ASSERT_EQ_U64(c.records, want);
        ASSERT_EQ_U64(c.truncated_at, cut == last_end ? 0 : last_end);
    }
    free(l.data);
    return 0;
}

/* A byte changed inside the second records chunk: the log ends before that chunk. */
static int test_log_checksum_mismatch_ends_it(void) {
    chunked_log l;
    if (read_two_flushes(&l)) return 1;
    size_t start = 0; /* the second records chunk's start: the end of the chunk before it */
    for (size_t i = 0; l.ends[i] < l.rec[1]; i++) start = l.ends[i];
    l.data[l.rec[1] - 1] ^= 0x40; /* its last payload byte */
    count c = {0, 0};
    opscope_sink sink = {&c, cnt_meta, NULL, cnt_record, NULL};
    opscope_error err;
    ASSERT_EQ_INT(opscope_read_buffer(l.data, l.n, "flipped", OPSCOPE_FORMAT_AUTO, &sink, &err), 0);
    ASSERT_EQ_U64(c.records, 3);
    ASSERT_EQ_U64(c.truncated_at, start);
    /* a damaged length is caught too (the checksum covers it) */
    l.data[l.rec[1] - 1] ^= 0x40;
    l.data[start + 8] ^= 0x01;
    c.records = 0;
    ASSERT_EQ_INT(opscope_read_buffer(l.data, l.n, "flipped", OPSCOPE_FORMAT_AUTO, &sink, &err), 0);
    ASSERT_EQ_U64(c.records, 3);
    ASSERT_EQ_U64(c.truncated_at, start);
    free(l.data);
    unlink(g_path);
    return 0;
}

/* A killed run's log (its last END says checkpoint, a chunk cut by the death at its end):
 * `opscope record`'s end patch appends how it died after the last whole chunk. */
static int test_log_end_patch(void) {
    opscope_cap_buf_reset_all();
    fixture_names();
    opscope_cap_log_start(g_path, 0);
    put_op(1, 0, OP_ADD, 100, 200, 4);
    char why[128];
    ASSERT_EQ_INT(opscope_cap_log_flush("checkpoint", NULL, why, sizeof why), 0);
    opscope_cap_log_close();
    FILE *f = fopen(g_path, "ab"); /* half a chunk: the death cut a write */
    ASSERT_NOT_NULL(f);
    fwrite("OPCK\3\0\0\0\200\0", 1, 10, f);
    fclose(f);
    ASSERT_EQ_INT(opscope_end_patch(g_path, "killed", "SIGKILL", 999), 0);
    got g;
    memset(&g, 0, sizeof g);
    opscope_sink sink = {&g, g_meta, g_backend, g_record, NULL};
    opscope_read_status st;
    opscope_read_options o = {.status = &st};
    opscope_error err;
    ASSERT_EQ_INT(opscope_read_file_opts(g_path, OPSCOPE_FORMAT_AUTO, &sink, &o, &err), 0);
    ASSERT_EQ_INT(g.n, 1);
    ASSERT_EQ_STR(g.end, "killed");
    ASSERT_EQ_STR(st.end_signal, "SIGKILL");
    ASSERT_EQ_U64(st.died_ns, 999);
    ASSERT_EQ_U64(st.truncated_at, 0); /* the cut chunk is gone */
    /* a second patch finds no checkpoint end: the log is left alone */
    ASSERT_EQ_INT(opscope_end_patch(g_path, "crash", "SIGSEGV", 1), -1);
    unlink(g_path);
    return 0;
}

/* Damage that passes the checksum (a writer's bug, a forged file): every byte of every chunk
 * set to 0x00, 0xff and flipped in its top bit, the chunk's checksum made again. The reader
 * must succeed or fail cleanly (status 0 or -1, an error message), never read outside the
 * file nor deliver more records than the log holds. */
static int test_log_damage_inside_chunks(void) {
    chunked_log l;
    if (read_two_flushes(&l)) return 1;
    unsigned char *copy = malloc(l.n);
    ASSERT_NOT_NULL(copy);
    int failed = 0, ok = 0;
    for (size_t c = 0; c < l.k; c++) {
        size_t start = c ? l.ends[c - 1] : 16;
        for (size_t at = start + 16; at < l.ends[c]; at++) {
            for (int v = 0; v < 3; v++) {
                memcpy(copy, l.data, l.n);
                copy[at] = v == 0 ? 0x00 : v == 1 ? 0xff : (unsigned char)(copy[at] ^ 0x80);
                uint32_t len = (uint32_t)(l.ends[c] - start - 16), type = le32(copy + start + 4);
                opscope_oplog_chunk_head(copy + start, type, copy + start + 16, len);
                count cnt = {0, 0};
                opscope_sink sink = {&cnt, cnt_meta, NULL, cnt_record, NULL};
                opscope_error err;
                int rc = opscope_read_buffer(copy, l.n, "damaged", OPSCOPE_FORMAT_AUTO, &sink, &err);
                ASSERT_TRUE(rc == 0 || rc == -1);
                if (rc == 0) {
                    ok++;
                    ASSERT_LE_U64(cnt.records, 5);
                } else {
                    failed++;
                    ASSERT_NOT_NULL(err.msg);
                }
            }
        }
    }
    ASSERT_GT_INT(failed, 0); /* some damage is caught, some is a plausible log */
    ASSERT_GT_INT(ok, 0);
    free(copy);
    free(l.data);
    return 0;
}

typedef struct dropmeta { opscope_meta m; uint64_t records; } dropmeta;
static int d_meta(void *ud, const opscope_meta *m) {
    ((dropmeta *)ud)->m = *m;
    return 0;
}
static int d_record(void *ud, const opscope_record *r) {
    (void)r;
    ((dropmeta *)ud)->records++;
    return 0;
}

/* OPSCOPE_MAX_MB bounds the log: the flush that would pass the cap and every later one are
 * dropped, counted, with their graphs, and said as the log's cap (not memory). */
static int test_log_cap_drops_and_says_so(void) {
    opscope_cap_buf_reset_all();
    fixture_names();
    opscope_cap_log_start(g_path, 4096);
    opscope_cap_drops_set_cap_mb(7); /* what the profile states as the cap */
    char why[128];
    uint64_t t = 100;
    for (int i = 0; i < 10; i++, t += 10) put_op(1, i, OP_ADD, t, t + 5, 4);
    ASSERT_EQ_INT(opscope_cap_log_flush("checkpoint", NULL, why, sizeof why), 0);
    ASSERT_EQ_U64(opscope_cap_log_records(), 10);
    for (int i = 0; i < 1000; i++, t += 10) put_op(2 + i / 100, i % 100, OP_ADD, t, t + 5, 4); /* graphs 2-11 */
    ASSERT_EQ_INT(opscope_cap_log_flush("checkpoint", NULL, why, sizeof why), 0);
    for (int i = 0; i < 3; i++, t += 10) put_op(12, i, OP_ADD, t, t + 5, 4); /* would fit: dropped too */
    ASSERT_EQ_INT(opscope_cap_log_flush("exit", NULL, why, sizeof why), 0);
    ASSERT_EQ_U64(opscope_cap_log_records(), 10);
    ASSERT_LE_U64(opscope_cap_log_bytes(), 4096);
    ASSERT_EQ_U64(opscope_cap_buf_dropped(), 1003);
    dropmeta dm;
    memset(&dm, 0, sizeof dm);
    opscope_sink sink = {&dm, d_meta, NULL, d_record, NULL};
    opscope_error err;
    ASSERT_EQ_INT(opscope_read_file(g_path, OPSCOPE_FORMAT_AUTO, &sink, &err), 0);
    ASSERT_EQ_U64(dm.records, 10);
    ASSERT_EQ_U64(dm.m.dropped_records, 1003);
    ASSERT_EQ_INT(dm.m.dropped_cause, OPSCOPE_DROP_LOG_CAP);
    ASSERT_EQ_U64(dm.m.dropped_graphs, 11);
    ASSERT_EQ_INT(dm.m.dropped_first_graph, 2);
    ASSERT_EQ_INT(dm.m.dropped_last_graph, 12);
    ASSERT_EQ_U64(dm.m.capture_cap_mb, 7);
    unlink(g_path);
    return 0;
}

typedef struct runseen {
    size_t n_argv, n_contexts;
    char argv0[256];
    uint32_t n_ctx;
} runseen;
static int r_meta(void *ud, const opscope_meta *m) {
    runseen *r = ud;
    const opscope_run_info *run = m->capture ? m->capture->run : NULL;
    if (!run) return 0;
    r->n_argv = run->n_argv;
    snprintf(r->argv0, sizeof r->argv0, "%s", run->n_argv ? run->argv[0] : "");
    r->n_contexts = run->n_contexts;
    r->n_ctx = run->n_contexts ? run->contexts[0].n_ctx : 0;
    return 0;
}

/* The offsets where chunks of TYPE end. */
static size_t ends_of_type(const unsigned char *d, size_t n, uint32_t want, size_t *ends, size_t max) {
    size_t off = 16, k = 0;
    while (off + 16 <= n && k < max) {
        uint32_t type = le32(d + off + 4), len = le32(d + off + 8);
        off += 16 + len;
        if (type == want) ends[k++] = off;
    }
    return k;
}

static int read_run_of(const char *data, size_t n, runseen *r) {
    memset(r, 0, sizeof *r);
    opscope_sink sink = {r, r_meta, NULL, NULL, NULL};
    opscope_error err;
    return opscope_read_buffer(data, n, "run", OPSCOPE_FORMAT_AUTO, &sink, &err);
}

/* What ran reaches the log when it changes, so a killed run's log says it: the command line
 * (this test's, as /proc/self/cmdline has it), then a llama context freed between flushes. */
static int test_log_run_chunk(void) {
    char cmd[4096] = {0}; /* /proc files say size 0: read, not slurped */
    FILE *f = fopen("/proc/self/cmdline", "rb");
    ASSERT_NOT_NULL(f);
    size_t n_cmd = fread(cmd, 1, sizeof cmd - 1, f);
    fclose(f);
    size_t want_argv = 0;
    for (size_t i = 0; i < n_cmd; i++) want_argv += cmd[i] == 0;
    opscope_cap_buf_reset_all();
    fixture_names();
    opscope_cap_log_start(g_path, 0);
    char why[128];
    put_op(1, 0, OP_ADD, 100, 200, 4);
    ASSERT_EQ_INT(opscope_cap_log_flush("checkpoint", NULL, why, sizeof why), 0);
    opscope_cap_run_context_freed((void *)0x10, 512, 64, 32, 2);
    put_op(2, 0, OP_ADD, 300, 400, 4);
    ASSERT_EQ_INT(opscope_cap_log_flush("checkpoint", NULL, why, sizeof why), 0);
    put_op(3, 0, OP_ADD, 500, 600, 4); /* nothing new ran: no RUN chunk */
    ASSERT_EQ_INT(opscope_cap_log_flush("checkpoint", NULL, why, sizeof why), 0);
    size_t n = 0;
    char *data = test_slurp(g_path, &n);
    ASSERT_NOT_NULL(data);
    size_t ends[8];
    ASSERT_EQ_U64(ends_of_type((unsigned char *)data, n, 6, ends, 8), 2);
    runseen r;
    ASSERT_EQ_INT(read_run_of(data, n, &r), 0);
    ASSERT_EQ_U64(r.n_argv, want_argv);
    ASSERT_EQ_STR(r.argv0, cmd);
    ASSERT_EQ_U64(r.n_contexts, 1);
    ASSERT_EQ_INT(r.n_ctx, 512);
    /* the second RUN chunk cut: the first one counts */
    ASSERT_EQ_INT(read_run_of(data, ends[1] - 1, &r), 0);
    ASSERT_EQ_U64(r.n_argv, want_argv);
    ASSERT_EQ_U64(r.n_contexts, 0);
    free(data);
    unlink(g_path);
    return 0;
}

/* A template numbered far past those defined (damage: the writer numbers them densely) is
 * refused, not a table of that many entries made. */
static int test_log_template_id_far_out(void) {
    opscope_oplog_buf pay = {0}, log = {0};
    opscope_record rec;
    opscope_record_init(&rec);
    rec.name = "ADD";
    rec.n_fused = 1;
    ASSERT_EQ_INT(opscope_oplog_put_u(&pay, 0) | opscope_oplog_put_u(&pay, 0) | opscope_oplog_put_u(&pay, 1) |
                      opscope_oplog_put_u(&pay, 100000000) | opscope_oplog_put_tmpl(&pay, &rec),
                  0);
    log.v = malloc(OPSCOPE_OPLOG_HEAD + OPSCOPE_OPLOG_CHUNK_HEAD + pay.n);
    ASSERT_NOT_NULL(log.v);
    opscope_oplog_file_head(log.v);
    opscope_oplog_chunk_head(log.v + OPSCOPE_OPLOG_HEAD, OPSCOPE_OPLOG_RECORDS, pay.v, (uint32_t)pay.n);
    memcpy(log.v + OPSCOPE_OPLOG_HEAD + OPSCOPE_OPLOG_CHUNK_HEAD, pay.v, pay.n);
    opscope_error err;
    size_t n = OPSCOPE_OPLOG_HEAD + OPSCOPE_OPLOG_CHUNK_HEAD + pay.n;
    ASSERT_EQ_INT(opscope_read_buffer(log.v, n, "far", OPSCOPE_FORMAT_AUTO, NULL, &err), -1);
    /* at the template: after three counts (a byte each) and the id (4 bytes: 10^8 < 2^28) */
    ASSERT_EQ_U64(err.pos, OPSCOPE_OPLOG_HEAD + OPSCOPE_OPLOG_CHUNK_HEAD + 3 + 4);
    free(pay.v);
    free(log.v);
    return 0;
}

static int setup(void) {
    opscope_cap_clock_init("monotonic");
    return 0;
}

/* libllama's batches travel in DECODES chunks: each flush takes those noted since the last,
 * and a reader of the log (a run killed before its end) gets every one flushed, with their
 * sequences; a log cut inside the second chunk keeps the first's. */
typedef struct got_dec {
    size_t n;
    uint32_t tokens[8], seq_tokens[8], request[8], wiped[8];
    uint64_t lost;
} got_dec;

static int dec_meta(void *ud, const opscope_meta *m) {
    got_dec *g = ud;
    const opscope_run_info *run = m->capture ? m->capture->run : NULL;
    g->n = run ? run->n_decodes : 0;
    g->lost = run ? run->decodes_lost : 0;
    for (size_t i = 0; i < g->n && i < 8; i++) {
        g->tokens[i] = run->decodes[i].n_tokens;
        g->seq_tokens[i] = run->decodes[i].n_seqs ? run->decodes[i].seqs[0].n_tokens : 0;
        g->request[i] = run->decodes[i].n_seqs ? run->decodes[i].seqs[0].request : 99;
        g->wiped[i] = run->decodes[i].wiped;
    }
    return 0;
}

static int test_log_decodes(void) {
    opscope_cap_buf_reset_all();
    opscope_cap_decodes_reset();
    fixture_names();
    snprintf(g_path, sizeof g_path, "/tmp/opscope-caplog-dec-%ld.log", (long)getpid());
    unlink(g_path);
    opscope_cap_log_start(g_path, 0);
    static const int ctx = 1, mem = 2;
    int32_t seq0 = 0, *seq_ptr[3] = {&seq0, &seq0, &seq0}, n_seq[3] = {1, 1, 1}, pos[3] = {0, 1, 2};
    int8_t out[3] = {0, 0, 1};
    opscope_cap_batch prompt = {.n_tokens = 3, .pos = pos, .n_seq_id = n_seq, .seq_id = seq_ptr, .logits = out};
    opscope_cap_decode_note(&ctx, &mem, &prompt, 100, 200, 0, 1, 0);
    put_op(0, 0, OP_ADD, 110, 190, 3);
    char why[128];
    ASSERT_EQ_INT(opscope_cap_log_flush("checkpoint", NULL, why, sizeof why), 0);
    uint64_t first_end = opscope_cap_log_bytes();
    int32_t pos3 = 3;
    int8_t out1 = 1;
    opscope_cap_batch gen = {.n_tokens = 1, .pos = &pos3, .n_seq_id = n_seq, .seq_id = seq_ptr, .logits = &out1};
    opscope_cap_decode_note(&ctx, &mem, &gen, 300, 400, 1, 2, 0);
    opscope_cap_decode_cleared(&mem, true); /* a wipe: the next call is marked */
    opscope_cap_decode_note(&ctx, &mem, &prompt, 500, 600, 2, 3, 0); /* positions back to 0: a new request */
    put_op(1, 0, OP_ADD, 310, 390, 1);
    ASSERT_EQ_INT(opscope_cap_log_flush("checkpoint", NULL, why, sizeof why), 0);
    got_dec g;
    memset(&g, 0, sizeof g);
    opscope_sink sink = {&g, dec_meta, NULL, NULL, NULL};
    opscope_error err;
    ASSERT_EQ_INT(opscope_read_file(g_path, OPSCOPE_FORMAT_AUTO, &sink, &err), 0);
    ASSERT_EQ_U64(g.n, 3);
    ASSERT_EQ_U64(g.lost, 0);
    const uint32_t want_tokens[3] = {3, 1, 3}, want_request[3] = {0, 0, 1};
    for (int i = 0; i < 3; i++) {
        ASSERT_EQ_INT(g.tokens[i], want_tokens[i]);
        ASSERT_EQ_INT(g.seq_tokens[i], want_tokens[i]);
        ASSERT_EQ_INT(g.request[i], want_request[i]);
        ASSERT_EQ_INT(g.wiped[i], i == 2);
    }
    /* cut inside the second flush: the first call alone */
    ASSERT_EQ_INT(truncate(g_path, (off_t)first_end + 20), 0);
    memset(&g, 0, sizeof g);
    ASSERT_EQ_INT(opscope_read_file(g_path, OPSCOPE_FORMAT_AUTO, &sink, &err), 0);
    ASSERT_EQ_U64(g.n, 1);
    ASSERT_EQ_INT(g.tokens[0], 3);
    opscope_cap_log_close();
    opscope_cap_decodes_reset();
    unlink(g_path);
    return 0;
}

TEST_MAIN(TEST(setup), TEST(test_log_decodes), TEST(test_log_roundtrip_merged_by_start), TEST(test_log_memory_stays_a_window),
          TEST(test_log_cut_at_every_byte), TEST(test_log_checksum_mismatch_ends_it),
          TEST(test_log_end_patch), TEST(test_log_damage_inside_chunks),
          TEST(test_log_cap_drops_and_says_so), TEST(test_log_run_chunk),
          TEST(test_log_template_id_far_out))
