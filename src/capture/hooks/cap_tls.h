/*
 * cap_tls.h - what the calling thread is doing inside ggml (internal): the compute in
 * progress, its scheduler and graph ids, and whether the capture's own code or a program's
 * callback is running. One definition (cap_tls.c) serves the shared library, the static one
 * and the tests. Thread safety: each thread reads and writes its own copy only.
 */
#ifndef OPSCOPE_CAP_TLS_H
#define OPSCOPE_CAP_TLS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct opscope_cap_tls {
    int depth;        /* >0 inside one of our wrappers */
    int in_user_cb;   /* >0 inside a program's scheduler eval callback */
    bool no_defer;    /* this scheduler compute runs an eval callback */
    int in_sched;     /* inside a scheduler compute */
    int sched_id;     /* its scheduler's id (-1 outside) */
    int64_t graph_id; /* its graph id */
    int split;        /* backend computes so far in it */
} opscope_cap_tls;
/* The calling thread's opscope_cap_tls (a variable, one per thread: ids -1 until set). */
extern _Thread_local opscope_cap_tls opscope_cap_thread;

#endif
