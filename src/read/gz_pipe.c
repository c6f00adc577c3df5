/* gz_pipe.c - a gzip input inflated on its own thread into a ring of blocks (see gz_pipe.h). */
#include "read/gz_pipe.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Four blocks of 256 KiB: enough for the inflating thread to stay ahead of the parser without
 * holding much (the parser's own buffer and zlib's window are of the same order). */
enum { GZ_PIPE_BLOCKS = 4, GZ_PIPE_BLOCK = 256 * 1024 };

typedef struct gz_block {
    char *data;
    long len;     /* bytes in data; 0: the end of the stream; -1: an error (err) */
    int err;      /* errno of the failed read */
    int64_t at;   /* gzoffset after the block was inflated */
} gz_block;

struct opscope_gz_pipe {
    gzFile gz;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    gz_block ring[GZ_PIPE_BLOCKS];
    size_t head, count; /* the oldest filled block; how many are filled */
    size_t off;         /* bytes of the head block already handed out */
    bool stop;          /* the reader has left: the thread ends */
    char *mem;          /* every block's data, one allocation */
};

/* Inflates one block into B; returns false at the end of the stream or on an error. */
static bool inflate_block(gzFile gz, gz_block *b) {
    int r = gzread(gz, b->data, GZ_PIPE_BLOCK);
    b->at = (int64_t)gzoffset(gz);
    if (r < 0) {
        int e = 0;
        gzerror(gz, &e);
        b->err = e == Z_ERRNO ? errno : EIO;
        b->len = -1;
        return false;
    }
    b->len = r;
    return r > 0;
}

static void *run(void *ud) {
    opscope_gz_pipe_t *p = ud;
    bool more = true;
    while (more) {
        pthread_mutex_lock(&p->mu);
        while (p->count == GZ_PIPE_BLOCKS && !p->stop) pthread_cond_wait(&p->cv, &p->mu);
        bool stop = p->stop;
        gz_block *b = &p->ring[(p->head + p->count) % GZ_PIPE_BLOCKS];
        pthread_mutex_unlock(&p->mu);
        if (stop) break;
        /* the slot is free (not counted) and the reader never touches it: inflate unlocked */
        more = inflate_block(p->gz, b);
        pthread_mutex_lock(&p->mu);
        p->count++;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    return NULL;
}

opscope_gz_pipe_t *opscope_gz_pipe_new(gzFile gz) {
    opscope_gz_pipe_t *p = calloc(1, sizeof *p);
    char *mem = p ? malloc((size_t)GZ_PIPE_BLOCKS * GZ_PIPE_BLOCK) : NULL;
    if (!mem) {
        free(p);
        return NULL;
    }
    p->gz = gz;
    p->mem = mem;
    for (int i = 0; i < GZ_PIPE_BLOCKS; i++) p->ring[i].data = mem + (size_t)i * GZ_PIPE_BLOCK;
    if (pthread_mutex_init(&p->mu, NULL)) goto fail_mu;
    if (pthread_cond_init(&p->cv, NULL)) goto fail_cv;
    if (pthread_create(&p->thread, NULL, run, p)) goto fail_thread;
    return p;
fail_thread:
    pthread_cond_destroy(&p->cv);
fail_cv:
    pthread_mutex_destroy(&p->mu);
fail_mu:
    free(mem);
    free(p);
    return NULL;
}

long opscope_gz_pipe_read(opscope_gz_pipe_t *p, char *buf, size_t cap, int64_t *at) {
    pthread_mutex_lock(&p->mu);
    while (!p->count) pthread_cond_wait(&p->cv, &p->mu);
    gz_block *b = &p->ring[p->head];
    pthread_mutex_unlock(&p->mu);
    /* the head block is the reader's until it is released below */
    long got = b->len;
    if (got < 0) errno = b->err;
    if (got <= 0) return got; /* the end or the error stays at the head: said again if asked */
    size_t n = (size_t)got - p->off;
    if (n > cap) n = cap;
    memcpy(buf, b->data + p->off, n);
    p->off += n;
    if (at) *at = b->at;
    if (p->off == (size_t)got) {
        p->off = 0;
        pthread_mutex_lock(&p->mu);
        p->head = (p->head + 1) % GZ_PIPE_BLOCKS;
        p->count--;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    return (long)n;
}

void opscope_gz_pipe_free(opscope_gz_pipe_t *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    gzclose(p->gz);
    free(p->mem);
    free(p);
}
