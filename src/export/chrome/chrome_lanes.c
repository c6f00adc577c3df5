/* chrome_lanes.c - per-track lane assignment without moving events in time. */
#include "export/chrome/chrome_lanes.h"
#include "util/hash.h"
#include "util/hindex.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

typedef struct lane {
    uint64_t end;
    uint32_t tid;
} lane;

typedef struct track {
    int32_t backend_id, split_id, kind;
    lane *lanes;
    uint32_t n_lanes, cap_lanes;
} track;

struct opscope_lanes {
    track *tracks;
    size_t n_tracks, cap_tracks;
    size_t last; /* index of the last track used + 1 (0 = none): records come in runs */
    opscope_lane_info *infos;
    size_t n_infos, cap_infos;
    opscope_hindex index; /* (backend, split, kind) -> track */
};

typedef struct track_key {
    int32_t b, s, k;
} track_key;

static uint64_t key_hash(int32_t b, int32_t s, int32_t k) {
    uint64_t h = ((uint64_t)(uint32_t)b << 32 | (uint32_t)s) ^ ((uint64_t)(uint32_t)k << 17);
    return opscope_mix64(h);
}

static bool track_eq(const void *ctx, uint32_t id, const void *key) {
    const track *t = &((const opscope_lanes_t *)ctx)->tracks[id];
    const track_key *q = key;
    return t->backend_id == q->b && t->split_id == q->s && t->kind == q->k;
}

opscope_lanes_t *opscope_lanes_new(void) {
    opscope_lanes_t *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    if (opscope_hindex_init(&l->index, 32)) {
        free(l);
        return NULL;
    }
    return l;
}

void opscope_lanes_free(opscope_lanes_t *l) {
    if (!l) return;
    for (size_t i = 0; i < l->n_tracks; i++) free(l->tracks[i].lanes);
    free(l->tracks);
    free(l->infos);
    opscope_hindex_free(&l->index);
    free(l);
}

static track *find_track(opscope_lanes_t *l, int32_t b, int32_t s, int32_t k) {
    if (l->last) {
        track *t = &l->tracks[l->last - 1];
        if (t->backend_id == b && t->split_id == s && t->kind == k) return t;
    }
    track_key key = {b, s, k};
    uint64_t h = key_hash(b, s, k);
    uint32_t id = opscope_hindex_find(&l->index, h, &key, track_eq, l);
    if (id != OPSCOPE_HINDEX_NONE) {
        l->last = (size_t)id + 1;
        return &l->tracks[id];
    }
    if (opscope_vec_reserve((void **)&l->tracks, &l->cap_tracks, l->n_tracks + 1, sizeof *l->tracks, 16) ||
        opscope_hindex_add(&l->index, h, (uint32_t)l->n_tracks))
        return NULL;
    track *t = &l->tracks[l->n_tracks];
    memset(t, 0, sizeof *t);
    t->backend_id = b;
    t->split_id = s;
    t->kind = k;
    l->last = ++l->n_tracks;
    return t;
}

uint32_t opscope_lanes_assign(opscope_lanes_t *l, int32_t backend_id, int32_t split_id,
                              int32_t kind, uint64_t start, uint64_t dur) {
    track *t = find_track(l, backend_id, split_id, kind);
    if (!t) return 0;
    uint64_t end = start + dur < start ? UINT64_MAX : start + dur;
    for (uint32_t i = 0; i < t->n_lanes; i++) {
        if (t->lanes[i].end <= start) {
            t->lanes[i].end = end;
            return t->lanes[i].tid;
        }
    }
    if (t->n_lanes == t->cap_lanes) {
        uint32_t nc = t->cap_lanes ? t->cap_lanes * 2 : 2;
        lane *nl = realloc(t->lanes, nc * sizeof *nl);
        if (!nl) return 0;
        t->lanes = nl;
        t->cap_lanes = nc;
    }
    if (opscope_vec_reserve((void **)&l->infos, &l->cap_infos, l->n_infos + 1, sizeof *l->infos, 16))
        return 0;
    uint32_t tid = (uint32_t)(l->n_infos + 1);
    opscope_lane_info *info = &l->infos[l->n_infos++];
    info->backend_id = backend_id;
    info->split_id = split_id;
    info->kind = kind;
    info->lane = t->n_lanes;
    info->tid = tid;
    t->lanes[t->n_lanes].end = end;
    t->lanes[t->n_lanes].tid = tid;
    t->n_lanes++;
    return tid;
}

size_t opscope_lanes_count(const opscope_lanes_t *l) { return l->n_infos; }

const opscope_lane_info *opscope_lanes_get(const opscope_lanes_t *l, size_t i) {
    return i < l->n_infos ? &l->infos[i] : NULL;
}
