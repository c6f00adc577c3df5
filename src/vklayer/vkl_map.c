/*
 * vkl_map.c - open-addressed handle tables with backward-shift deletion (vkl_map.h).
 */
#include "vklayer/vkl_map.h"
#include "util/hash.h"

static uint32_t home(const vkl_map *m, uint64_t key) {
    return (uint32_t)opscope_mix64(key) & (m->cap - 1);
}

static uint32_t slot_of(const vkl_map *m, uint64_t key, bool *found) {
    uint32_t i = home(m, key);
    while (m->keys[i] != 0 && m->keys[i] != key) {
        i = (i + 1) & (m->cap - 1);
    }
    *found = m->keys[i] == key;
    return i;
}

uint64_t *vkl_map_get(vkl_map *m, uint64_t key) {
    bool found;
    uint32_t i = key ? slot_of(m, key, &found) : 0;
    return key && found ? &m->vals[i] : 0;
}

uint64_t *vkl_map_put(vkl_map *m, uint64_t key) {
    if (!key) {
        return 0;
    }
    bool found;
    uint32_t i = slot_of(m, key, &found);
    if (!found) {
        if (m->n >= m->max) {
            return 0;
        }
        m->keys[i] = key;
        m->vals[i] = 0;
        m->n++;
    }
    return &m->vals[i];
}

uint64_t vkl_map_del(vkl_map *m, uint64_t key) {
    bool found;
    uint32_t i = key ? slot_of(m, key, &found) : 0;
    if (!key || !found) {
        return 0;
    }
    uint64_t v = m->vals[i];
    uint32_t mask = m->cap - 1;
    /* Shift back every later key of the run whose home does not lie cyclically in (i, j]:
     * its probe passed through i, so it must not find a hole there. */
    for (uint32_t j = (i + 1) & mask; m->keys[j] != 0; j = (j + 1) & mask) {
        uint32_t h = home(m, m->keys[j]);
        bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
        if (!stays) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            i = j;
        }
    }
    m->keys[i] = 0;
    m->vals[i] = 0;
    m->n--;
    return v;
}
