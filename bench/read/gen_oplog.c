/*
 * gen_oplog.c - writes a synthetic record log (docs/formats.md, "The record log") of N_RECORDS
 * records (default 2000000) to stdout: a META and 3 BACKEND chunks, then RECORDS chunks of
 * 4096 records as THREADS (default 8) capture threads would flush them, each thread's times
 * increasing and the threads overlapping in time, so the reader's merge by start interleaves
 * many chunks. ~40 templates (ops with llama-like shapes), every one defined in the first
 * chunk. Deterministic (fixed seed).
 *   opscope_bench_read_gen_oplog [N_RECORDS [THREADS]] > profile.opslog
 */
#include "model/oplog_rec.h"
#include "util/oplog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PER_CHUNK 4096
#define N_TMPL 40

static uint64_t rng = 88172645463325252ull;
static uint32_t next_u32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

static int put_chunk(uint32_t type, const opscope_oplog_buf *p) {
    unsigned char head[OPSCOPE_OPLOG_CHUNK_HEAD];
    opscope_oplog_chunk_head(head, type, p->v, (uint32_t)p->n);
    return fwrite(head, 1, sizeof head, stdout) != sizeof head || fwrite(p->v, 1, p->n, stdout) != p->n ? -1 : 0;
}

static void make_tmpl(opscope_record *r, int k) {
    static const char *ops[] = {"MUL_MAT", "ADD", "MUL", "RMS_NORM", "ROPE", "SOFT_MAX", "CPY", "CONT",
                                "GET_ROWS", "FLASH_ATTN_EXT", "SCALE", "SET_ROWS", "GLU", "UNARY"};
    static const int64_t dims[] = {4096, 11008, 32, 128, 1, 512, 2048, 7, 14336, 8};
    opscope_record_init(r);
    r->name = ops[k % (int)(sizeof ops / sizeof ops[0])];
    r->backend_id = k % 3;
    r->split_id = k % 4;
    r->node_index = k;
    r->thread_id = k % 8;
    r->has = OPSCOPE_HAS_OUT | OPSCOPE_HAS_SRC_TYPES;
    r->out_type = 0;
    r->n_src = 2;
    for (int s = 0; s < 2; s++) {
        r->type_src[s] = s ? 0 : 1;
        r->ne_src[s][0] = dims[(k + s) % 10];
        r->ne_src[s][1] = dims[(k * 3 + s) % 10];
        r->ne_src[s][2] = r->ne_src[s][3] = 1;
    }
    for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) r->ne[d] = r->ne_src[0][d];
    r->bytes = (uint64_t)(r->ne_src[0][0] * r->ne_src[0][1] * 4);
}

int main(int argc, char **argv) {
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
    int threads = argc > 2 ? atoi(argv[2]) : 8;
    if (threads < 1 || threads > 64) threads = 8;
    unsigned char fh[OPSCOPE_OPLOG_HEAD];
    opscope_oplog_file_head(fh);
    fwrite(fh, 1, sizeof fh, stdout);
    opscope_oplog_buf b = {0};
    int e = opscope_oplog_put_str(&b, "bench") | opscope_oplog_put_str(&b, "gen_oplog") |
            opscope_oplog_put_str(&b, "monotonic") | opscope_oplog_put_str(&b, "0") | opscope_oplog_put_i(&b, 1) |
            opscope_oplog_put_u(&b, 0) | opscope_oplog_put_i(&b, 0) | opscope_oplog_put_u(&b, 1000000) |
            opscope_oplog_put_u(&b, 0);
    if (e || put_chunk(OPSCOPE_OPLOG_META, &b)) return 1;
    static const char *const be[] = {"CUDA0", "BLAS", "CPU"};
    for (int i = 0; i < 3; i++) {
        b.n = 0;
        if (opscope_oplog_put_u(&b, (uint64_t)i) | opscope_oplog_put_str(&b, be[i]) |
                opscope_oplog_put_str(&b, "dev") | opscope_oplog_put_u(&b, (uint64_t)(i == 0 ? 1 : 0)) ||
            put_chunk(OPSCOPE_OPLOG_BACKEND, &b))
            return 1;
    }
    uint64_t t[64], flushed = 0;
    for (int i = 0; i < threads; i++) t[i] = 1000000 + (uint64_t)i * 777;
    opscope_oplog_buf inst = {0};
    while (flushed < n) {
        /* the thread furthest behind flushes next: chunks come in about the order of time */
        int th = 0;
        for (int i = 1; i < threads; i++)
            if (t[i] < t[th]) th = i;
        uint64_t k = n - flushed < PER_CHUNK ? n - flushed : PER_CHUNK, total = 0;
        opscope_oplog_state st = {0};
        inst.n = 0;
        for (uint64_t i = 0; i < k; i++) {
            uint64_t dur = 500 + next_u32() % 20000;
            opscope_oplog_inst in = {.tmpl = next_u32() % N_TMPL, .key = t[th], .key_end = t[th] + dur};
            in.start_ns = in.host_start_ns = in.key;
            in.duration_ns = dur;
            in.host_end_ns = in.key_end;
            if (opscope_oplog_put_inst(&inst, &st, &in, false)) return 1;
            t[th] += dur + next_u32() % 3000;
            total += dur;
        }
        b.n = 0;
        int first = flushed == 0;
        e = opscope_oplog_put_u(&b, k) | opscope_oplog_put_u(&b, total) | opscope_oplog_put_u(&b, first ? N_TMPL : 0);
        for (int j = 0; first && j < N_TMPL; j++) {
            opscope_record r;
            make_tmpl(&r, j);
            e |= opscope_oplog_put_u(&b, (uint64_t)j) | opscope_oplog_put_tmpl(&b, &r);
        }
        if (e || opscope_vec_reserve((void **)&b.v, &b.cap, b.n + inst.n, 1, 4096)) return 1;
        memcpy(b.v + b.n, inst.v, inst.n);
        b.n += inst.n;
        if (put_chunk(OPSCOPE_OPLOG_RECORDS, &b)) return 1;
        flushed += k;
    }
    free(b.v);
    free(inst.v);
    return fflush(stdout) ? 1 : 0;
}
