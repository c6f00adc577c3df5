/* chrome_lanes.c - per-track lane assignment without moving events in time. */
#include "export/chrome_lanes.h"
#include "util/hash.h"

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
    /* hash index over tracks (open addressing, index + 1) */
    uint32_t *slots;
    size_t mask;
};

static uint64_t key_hash(int32_t b, int32_t s, int32_t k) {
    uint64_t h = ((uint64_t)(uint32_t)b << 32 | (uint32_t)s) ^ ((uint64_t)(uint32_t)k << 17);
    return opscope_mix64(h);
}

opscope_lanes_t *opscope_lanes_new(void) {
    opscope_lanes_t *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->mask = 63;
    l->slots = calloc(l->mask + 1, sizeof *l->slots);
    if (!l->slots) {
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
    free(l->slots);
    free(l);
}

static int rehash(opscope_lanes_t *l) {
    size_t ncap = (l->mask + 1) * 2;
    uint32_t *ns = calloc(ncap, sizeof *ns);
    if (!ns) return -1;
    for (size_t i = 0; i < l->n_tracks; i++) {
        const track *t = &l->tracks[i];
        size_t j = key_hash(t->backend_id, t->split_id, t->kind) & (ncap - 1);
        while (ns[j]) j = (j + 1) & (ncap - 1);
        ns[j] = (uint32_t)(i + 1);
    }
    free(l->slots);
    l->slots = ns;
    l->mask = ncap - 1;
    return 0;
}

static track *find_track(opscope_lanes_t *l, int32_t b, int32_t s, int32_t k) {
    if (l->last) {
        track *t = &l->tracks[l->last - 1];
        if (t->backend_id == b && t->split_id == s && t->kind == k) return t;
    }
    size_t j = key_hash(b, s, k) & l->mask;
    while (l->slots[j]) {
        track *t = &l->tracks[l->slots[j] - 1];
        if (t->backend_id == b && t->split_id == s && t->kind == k) {
            l->last = l->slots[j];
            return t;
        }
        j = (j + 1) & l->mask;
    }
    if ((l->n_tracks + 1) * 2 > l->mask + 1) {
        if (rehash(l)) return NULL;
        j = key_hash(b, s, k) & l->mask;
        while (l->slots[j]) j = (j + 1) & l->mask;
    }
    if (l->n_tracks == l->cap_tracks) {
        size_t nc = l->cap_tracks ? l->cap_tracks * 2 : 16;
        track *nt = realloc(l->tracks, nc * sizeof *nt);
        if (!nt) return NULL;
        l->tracks = nt;
        l->cap_tracks = nc;
    }
    track *t = &l->tracks[l->n_tracks];
    memset(t, 0, sizeof *t);
    t->backend_id = b;
    t->split_id = s;
    t->kind = k;
    l->slots[j] = (uint32_t)(++l->n_tracks);
    l->last = l->n_tracks;
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
    if (l->n_infos == l->cap_infos) {
        size_t nc = l->cap_infos ? l->cap_infos * 2 : 16;
        opscope_lane_info *ni = realloc(l->infos, nc * sizeof *ni);
        if (!ni) return 0;
        l->infos = ni;
        l->cap_infos = nc;
    }
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
