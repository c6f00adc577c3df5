/* cap_api.c - ggml-profiler.h on top of the capture (see include/ggml-profiler.h). */
#include "capture/hooks/cap_api.h"

#include "capture/life/cap_config.h"
#include "capture/life/cap_life.h"
#include "capture/store/cap_replay.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/store/cap_tables.h"
#include "capture/life/cap_write.h"

#include "ggml-profiler.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* Snapshot of one scheduler's records for get_profiling_records. */
typedef struct snap {
    const void *sched;
    ggml_profile_record *v;
    size_t n, cap;
    char **strs;          /* owned copies of tensor names and fused names */
    size_t n_strs, cap_strs;
    bool oom;
    struct snap *next;
} snap;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static snap *g_snaps;

static void snap_clear(snap *s) {
    for (size_t i = 0; i < s->n_strs; i++) {
        free(s->strs[i]);
    }
    free(s->strs);
    free(s->v);
    s->strs = NULL;
    s->v = NULL;
    s->n = s->cap = s->n_strs = s->cap_strs = 0;
    s->oom = false;
}

static const char *keep(snap *s, const char *str) {
    if (!str) {
        return NULL;
    }
    if (s->n_strs == s->cap_strs) {
        size_t nc = s->cap_strs ? s->cap_strs * 2 : 256;
        char **nv = realloc(s->strs, nc * sizeof *nv);
        if (!nv) {
            s->oom = true;
            return NULL;
        }
        s->strs = nv;
        s->cap_strs = nc;
    }
    char *c = strdup(str);
    if (!c) {
        s->oom = true;
        return NULL;
    }
    s->strs[s->n_strs++] = c;
    return c;
}

static int snap_record(void *ud, const opscope_record *r) {
    snap *s = ud;
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 1024;
        ggml_profile_record *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv) {
            s->oom = true;
            return 1;
        }
        s->v = nv;
        s->cap = nc;
    }
    ggml_profile_record *o = &s->v[s->n++];
    memset(o, 0, sizeof *o);
    o->type = r->type == OPSCOPE_RECORD_COPY ? GGML_PROFILE_EVENT_COPY : GGML_PROFILE_EVENT_OP;
    o->name = r->name;      /* static tables */
    o->sub_op = r->sub_op;  /* static tables */
    o->extra = keep(s, r->extra);
    o->tensor_name = keep(s, r->tensor_name);
    o->backend_id = r->backend_id;
    o->split_id = r->split_id;
    o->graph_id = r->graph_id;
    o->node_index = r->node_index;
    o->n_fused = r->n_fused;
    o->thread_id = r->thread_id;
    o->start_ns = r->start_ns;
    o->duration_ns = r->duration_ns;
    o->bytes = r->bytes;
    o->flops = opscope_record_flops(r); /* derived from the shapes (metrics.md) */
    o->n_src = r->n_src;
    for (int i = 0; i < r->n_src && i < GGML_PROFILE_MAX_SRC; i++) {
        for (int d = 0; d < 4; d++) {
            o->ne_src[i][d] = r->ne_src[i][d];
            o->nb_src[i][d] = (size_t)r->nb_src[i][d];
        }
        o->type_src[i] = r->type_src[i];
    }
    memcpy(o->ne_src0, o->ne_src[0], sizeof o->ne_src0);
    memcpy(o->ne_src1, o->ne_src[1], sizeof o->ne_src1);
    memcpy(o->ne_src2, o->ne_src[2], sizeof o->ne_src2);
    memcpy(o->ne, r->ne, sizeof o->ne);
    o->out_type = r->out_type;
    memcpy(o->op_params, r->op_params, sizeof o->op_params);
    return s->oom ? 1 : 0;
}

static snap *snap_find(const void *sched, bool create) {
    for (snap *s = g_snaps; s; s = s->next) {
        if (s->sched == sched) {
            return s;
        }
    }
    if (!create) {
        return NULL;
    }
    snap *s = calloc(1, sizeof *s);
    if (s) {
        s->sched = sched;
        s->next = g_snaps;
        g_snaps = s;
    }
    return s;
}

void opscope_cap_api_sched_freed(const void *sched) {
    pthread_mutex_lock(&g_lock);
    for (snap **pp = &g_snaps; *pp; pp = &(*pp)->next) {
        if ((*pp)->sched == sched) {
            snap *s = *pp;
            *pp = s->next;
            snap_clear(s);
            free(s);
            break;
        }
    }
    pthread_mutex_unlock(&g_lock);
}

EXPORT void ggml_backend_sched_set_profiling(ggml_backend_sched_t sched, bool enable) {
    if (!sched) {
        return;
    }
    if (!opscope_cap_ggml_ready()) {
        return;
    }
    if (enable) {
        opscope_cap_life_enable_api();
    }
    opscope_cap_sched_set_enabled(opscope_cap_sched_id(sched), enable);
}

EXPORT bool ggml_backend_sched_get_profiling(ggml_backend_sched_t sched) {
    if (!sched || !atomic_load(&opscope_cap_on)) {
        return false;
    }
    int id = opscope_cap_sched_find(sched);
    if (id < 0) {
        return opscope_cap_env_mode;
    }
    return opscope_cap_sched_enabled(id);
}

EXPORT int ggml_backend_sched_get_profiling_records(ggml_backend_sched_t sched,
                                                    const ggml_profile_record **records) {
    if (records) {
        *records = NULL;
    }
    if (!sched || !records) {
        return 0;
    }
    int id = opscope_cap_sched_find(sched);
    if (id < 0) {
        return 0;
    }
    pthread_mutex_lock(&g_lock);
    snap *s = snap_find(sched, true);
    int n = 0;
    if (s) {
        snap_clear(s);
        opscope_sink sink = {s, NULL, NULL, snap_record, NULL};
        opscope_cap_replay(id, &sink);
        if (!s->oom) {
            *records = s->v;
            n = (int)s->n;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return n;
}

static bool write_to(ggml_backend_sched_t sched, opscope_cap_dest dest, const char *path, FILE *fp) {
    if (!sched || (!path && !fp)) {
        return false;
    }
    int id = opscope_cap_sched_find(sched);
    if (id < 0) {
        id = OPSCOPE_CAP_MAX_SCHEDS; /* unknown: an empty profile */
    }
    return opscope_cap_write(dest, path, fp, id) == 0;
}

EXPORT void ggml_backend_sched_print_profiling(ggml_backend_sched_t sched) {
    write_to(sched, OPSCOPE_CAP_DEST_STDOUT, NULL, stdout);
}

EXPORT bool ggml_backend_sched_export_profiling_json(ggml_backend_sched_t sched, const char *path) {
    return write_to(sched, OPSCOPE_CAP_DEST_JSON, path, NULL);
}

EXPORT bool ggml_backend_sched_export_profiling_text(ggml_backend_sched_t sched, const char *path) {
    return write_to(sched, OPSCOPE_CAP_DEST_TEXT, path, NULL);
}

EXPORT bool ggml_backend_sched_write_profiling_json(ggml_backend_sched_t sched, FILE *fp) {
    return write_to(sched, OPSCOPE_CAP_DEST_JSON, NULL, fp);
}

EXPORT bool ggml_backend_sched_write_profiling_text(ggml_backend_sched_t sched, FILE *fp) {
    return write_to(sched, OPSCOPE_CAP_DEST_TEXT, NULL, fp);
}

EXPORT void ggml_backend_sched_reset_profiling(ggml_backend_sched_t sched) {
    if (!sched) {
        return;
    }
    int id = opscope_cap_sched_find(sched);
    if (id >= 0) {
        opscope_cap_sched_reset(id);
    }
    opscope_cap_api_sched_freed(sched);
}
