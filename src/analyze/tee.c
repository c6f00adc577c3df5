/* tee.c - fan a record stream out to several sinks. */
#include "analyze/tee.h"

#include <string.h>

void opscope_tee_init(opscope_tee *t) { memset(t, 0, sizeof *t); }

int opscope_tee_add(opscope_tee *t, opscope_sink s) {
    if (t->n >= OPSCOPE_TEE_MAX) return -1;
    t->sinks[t->n++] = s;
    return 0;
}

static int tee_meta(void *ud, const opscope_meta *m) {
    opscope_tee *t = ud;
    for (int i = 0; i < t->n; i++)
        if (t->sinks[i].on_meta && t->sinks[i].on_meta(t->sinks[i].ud, m)) return -1;
    return 0;
}

static int tee_backend(void *ud, const opscope_backend *b) {
    opscope_tee *t = ud;
    for (int i = 0; i < t->n; i++)
        if (t->sinks[i].on_backend && t->sinks[i].on_backend(t->sinks[i].ud, b)) return -1;
    return 0;
}

static int tee_record(void *ud, const opscope_record *r) {
    opscope_tee *t = ud;
    for (int i = 0; i < t->n; i++)
        if (t->sinks[i].on_record && t->sinks[i].on_record(t->sinks[i].ud, r)) return -1;
    return 0;
}

static int tee_end(void *ud) {
    opscope_tee *t = ud;
    for (int i = 0; i < t->n; i++)
        if (t->sinks[i].on_end && t->sinks[i].on_end(t->sinks[i].ud)) return -1;
    return 0;
}

opscope_sink opscope_tee_sink(opscope_tee *t) {
    opscope_sink s = {t, tee_meta, tee_backend, tee_record, tee_end};
    return s;
}
