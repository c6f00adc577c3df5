/*
 * fuzz_oplog_tail.c - libFuzzer target for the record log read as it grows (read/oplog_tail.c,
 * opscope top): the input (a log as it is and with its chunk headers made whole, or any other
 * bytes after a log header) is appended to a file in pieces whose sizes come from the input,
 * one poll after each. Every poll must succeed or fail with a message; the records handed on
 * must equal the status's count and, when both reads succeed, the whole log's reader's
 * (read/oplog_read.c). The callbacks touch every string they get.
 */
#define _GNU_SOURCE /* memfd_create */
#include "opscope.h"
#include "read/oplog_tail.h"
#include "read/readers.h"
#include "util/oplog.h"

#include "oplog_reframe.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct counts {
    uint64_t records, bytes;
} counts;

static size_t len0(const char *s) {
    return s ? strlen(s) : 0;
}

static int on_capture(void *ud, const opscope_capture_info *k) {
    ((counts *)ud)->bytes += len0(k->program);
    return 0;
}
static int on_backend(void *ud, const opscope_backend *b) {
    ((counts *)ud)->bytes += len0(b->name) + len0(b->device);
    return 0;
}
static int on_record(void *ud, const opscope_record *r, uint32_t tmpl) {
    counts *c = ud;
    c->records++;
    c->bytes += len0(r->name) + len0(r->sub_op) + len0(r->extra) + len0(r->kernel) + (tmpl & 1);
    if (r->n_src < 0 || r->n_src > OPSCOPE_MAX_SRC) abort();
    return 0;
}
static int on_decode(void *ud, const opscope_run_decode *d) {
    counts *c = ud;
    for (size_t i = 0; i < d->n_seqs; i++) c->bytes += d->seqs[i].n_tokens & 1;
    return 0;
}

static void tail_one(const uint8_t *data, size_t size) {
    int fd = memfd_create("fuzz_oplog_tail", 0);
    if (fd < 0) return;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    opscope_oplog_tail_t *t = opscope_oplog_tail_new(path);
    counts c = {0};
    opscope_oplog_tail_cb cb = {&c, on_capture, on_backend, on_record, on_decode};
    opscope_oplog_tail_status st = {0};
    opscope_error err;
    int rc = 0;
    for (size_t off = 0, i = 0; t && off < size && rc == 0; i++) {
        size_t n = 1 + (size_t)data[(i * 7919) % size] * 13;
        if (n > size - off) n = size - off;
        if (write(fd, data + off, n) != (ssize_t)n) break;
        off += n;
        rc = opscope_oplog_tail_poll(t, &cb, &st, &err);
        if (rc != 0 && (rc != -1 || !err.msg)) abort();
        if (rc == 0 && st.records != c.records) abort();
    }
    opscope_read_status full;
    if (t && rc == 0 && opscope_oplog_read(data, size, "fuzz", NULL, &full, &err) == 0 && full.records != c.records)
        abort();
    opscope_oplog_tail_free(t);
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reframe_each(data, size, tail_one);
    return 0;
}
