/* profile.c - in-memory profile: backends, records, meta; strings interned. */
#include "opscope.h"
#include "model/strtab.h"
#include "model/oplog_win.h"
#include "model/run_info.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

struct opscope_profile {
    opscope_strtab_t *strings;
    opscope_record *records;
    size_t n_records, cap_records;
    opscope_backend *backends;
    size_t n_backends, cap_backends;
    opscope_meta meta;
    opscope_capture_info capture; /* meta.capture points here when set */
    opscope_run_t *run;           /* capture.run's copy */
    void *win;                    /* capture's windows and marks, copied */
};

opscope_profile_t *opscope_profile_new(void) {
    opscope_profile_t *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->strings = opscope_strtab_new();
    if (!p->strings) {
        free(p);
        return NULL;
    }
    p->meta.profiler = "";
    return p;
}

void opscope_profile_free(opscope_profile_t *p) {
    if (!p) return;
    opscope_strtab_free(p->strings);
    opscope_run_free(p->run);
    free(p->win);
    free(p->records);
    free(p->backends);
    free(p);
}

/* NULL stays NULL; anything else is interned. Sets *FAILED on allocation failure. */
static const char *intern(opscope_profile_t *p, const char *s, int *failed) {
    return opscope_strtab_dup(p->strings, s, failed);
}

int opscope_profile_add_backend(opscope_profile_t *p, const opscope_backend *b) {
    int failed = 0;
    opscope_backend copy = *b;
    copy.name = intern(p, b->name ? b->name : "", &failed);
    copy.device = intern(p, b->device ? b->device : "", &failed);
    copy.process = intern(p, b->process, &failed);
    if (failed) return -1;
    for (size_t i = 0; i < p->n_backends; i++) {
        if (p->backends[i].id == b->id) {
            p->backends[i] = copy;
            return 0;
        }
    }
    if (opscope_vec_reserve((void **)&p->backends, &p->cap_backends, p->n_backends + 1, sizeof *p->backends, 8))
        return -1;
    p->backends[p->n_backends++] = copy;
    return 0;
}

int opscope_profile_add_record(opscope_profile_t *p, const opscope_record *rec) {
    if (opscope_vec_reserve((void **)&p->records, &p->cap_records, p->n_records + 1, sizeof *p->records, 1024))
        return -1;
    int failed = 0;
    opscope_record copy = *rec;
    copy.name = intern(p, rec->name ? rec->name : "", &failed);
    copy.sub_op = intern(p, rec->sub_op, &failed);
    copy.extra = intern(p, rec->extra, &failed);
    copy.tensor_name = intern(p, rec->tensor_name, &failed);
    copy.category = intern(p, rec->category, &failed);
    copy.kernel = intern(p, rec->kernel, &failed);
    copy.threads = NULL; /* borrowed from the reader: not kept */
    copy.thread_cpus = NULL;
    copy.n_threads = 0;
    copy.has &= ~(uint32_t)OPSCOPE_HAS_THREADS;
    if (failed) return -1;
    p->records[p->n_records++] = copy;
    return 0;
}

int opscope_profile_set_meta(opscope_profile_t *p, const opscope_meta *meta) {
    int failed = 0;
    opscope_meta copy = *meta;
    copy.profiler = intern(p, meta->profiler ? meta->profiler : "", &failed);
    if (meta->capture) {
        opscope_capture_info c = *meta->capture;
        c.host = intern(p, c.host, &failed);
        c.program = intern(p, c.program, &failed);
        c.clock = intern(p, c.clock, &failed);
        c.boot_id = intern(p, c.boot_id, &failed);
        c.end = intern(p, c.end, &failed);
        c.end_signal = intern(p, c.end_signal, &failed);
        opscope_run_free(p->run);
        p->run = opscope_run_copy(c.run, &failed);
        c.run = opscope_run_view(p->run);
        free(p->win);
        p->win = opscope_capture_win_copy(&c, &c, &failed);
        p->capture = c;
        copy.capture = &p->capture;
    }
    if (failed) return -1;
    p->meta = copy;
    return 0;
}

size_t opscope_profile_n_records(const opscope_profile_t *p) { return p->n_records; }
size_t opscope_profile_n_backends(const opscope_profile_t *p) { return p->n_backends; }

const opscope_record *opscope_profile_record(const opscope_profile_t *p, size_t i) {
    return i < p->n_records ? &p->records[i] : NULL;
}

const opscope_backend *opscope_profile_backend(const opscope_profile_t *p, size_t i) {
    return i < p->n_backends ? &p->backends[i] : NULL;
}

const opscope_meta *opscope_profile_meta(const opscope_profile_t *p) { return &p->meta; }

void opscope_profile_clear(opscope_profile_t *p) { p->n_records = 0; }

static int sink_meta(void *ud, const opscope_meta *m) { return opscope_profile_set_meta(ud, m); }
static int sink_backend(void *ud, const opscope_backend *b) {
    return opscope_profile_add_backend(ud, b);
}
static int sink_record(void *ud, const opscope_record *r) {
    return opscope_profile_add_record(ud, r);
}

opscope_sink opscope_profile_sink(opscope_profile_t *p) {
    opscope_sink s = {p, sink_meta, sink_backend, sink_record, NULL};
    return s;
}

int opscope_profile_replay(const opscope_profile_t *p, const opscope_sink *sink) {
    if (sink->on_meta && sink->on_meta(sink->ud, &p->meta)) return -1;
    for (size_t i = 0; i < p->n_backends; i++)
        if (sink->on_backend && sink->on_backend(sink->ud, &p->backends[i])) return -1;
    for (size_t i = 0; i < p->n_records; i++)
        if (sink->on_record && sink->on_record(sink->ud, &p->records[i])) return -1;
    if (sink->on_end && sink->on_end(sink->ud)) return -1;
    return 0;
}
