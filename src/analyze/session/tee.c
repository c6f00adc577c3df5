/* tee.c - fan a record stream out to several sinks. */
#include "analyze/session/tee.h"

#include <string.h>

void opscope_tee_init(opscope_tee *t) { memset(t, 0, sizeof *t); }

int opscope_tee_add(opscope_tee *t, opscope_sink s) { return opscope_tee_add_derived(t, s, NULL); }

int opscope_tee_add_derived(opscope_tee *t, opscope_sink s, opscope_derived_fn on_derived) {
    if (t->n >= OPSCOPE_TEE_MAX) return -1;
    t->derived[t->n] = on_derived;
    t->sinks[t->n++] = s;
    if (on_derived) t->n_derived++;
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
    if (!t->n_derived) {
        for (int i = 0; i < t->n; i++)
            if (t->sinks[i].on_record && t->sinks[i].on_record(t->sinks[i].ud, r)) return -1;
        return 0;
    }
    opscope_derived d;
    opscope_derived_init(&d, r);
    for (int i = 0; i < t->n; i++) {
        if (t->derived[i]) {
            if (t->derived[i](t->sinks[i].ud, r, &d)) return -1;
        } else if (t->sinks[i].on_record && t->sinks[i].on_record(t->sinks[i].ud, r)) {
            return -1;
        }
    }
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
