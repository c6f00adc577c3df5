/* cap_tables.c - the backend and scheduler tables (see cap_tables.h). */
#include "capture/store/cap_tables.h"

#include "capture/store/cap_clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* table insertions */

/* ---- backends ---- */

static opscope_cap_backend g_backends[OPSCOPE_CAP_MAX_BACKENDS];
static _Atomic int g_n_backends;
static _Atomic bool g_frees_tracked;

/* The newest entry of KEY (backend keys only), or -1. */
static int newest(const void *key) {
    int n = atomic_load_explicit(&g_n_backends, memory_order_acquire);
    for (int i = n - 1; i >= 0; i--) {
        if (g_backends[i].key == key && !g_backends[i].is_device_key) {
            return i;
        }
    }
    return -1;
}

int opscope_cap_backend_find(const void *key, const void *dev) {
    int n = atomic_load_explicit(&g_n_backends, memory_order_acquire);
    for (int i = n - 1; i >= 0; i--) {
        if (g_backends[i].key == key) {
            /* the newest entry of KEY; freed, or another device there, means the address was
             * reused (llama-bench makes a context per test) */
            bool live = !atomic_load_explicit(&g_backends[i].freed, memory_order_acquire);
            return live && g_backends[i].dev == dev ? i : -1;
        }
    }
    return -1;
}

int opscope_cap_backend_find_live(const void *key) {
    int i = newest(key);
    return i >= 0 && !atomic_load_explicit(&g_backends[i].freed, memory_order_acquire) ? i : -1;
}

void opscope_cap_backend_freed(const void *key) {
    pthread_mutex_lock(&g_lock); /* not against a concurrent add of the same entry */
    int i = newest(key);
    if (i >= 0) {
        atomic_store_explicit(&g_backends[i].freed, true, memory_order_release);
    }
    pthread_mutex_unlock(&g_lock);
}

void opscope_cap_backend_track_frees(void) {
    atomic_store_explicit(&g_frees_tracked, true, memory_order_release);
}

bool opscope_cap_backend_frees_tracked(void) {
    return atomic_load_explicit(&g_frees_tracked, memory_order_acquire);
}

int opscope_cap_backend_add(const opscope_cap_backend *proto) {
    int i = opscope_cap_backend_find(proto->key, proto->dev);
    if (i >= 0) {
        return i;
    }
    pthread_mutex_lock(&g_lock);
    i = opscope_cap_backend_find(proto->key, proto->dev);
    if (i < 0) {
        int n = atomic_load(&g_n_backends);
        if (n < OPSCOPE_CAP_MAX_BACKENDS) {
            opscope_cap_backend *b = &g_backends[n];
            b->key = proto->key;
            b->is_device_key = proto->is_device_key;
            snprintf(b->name, sizeof b->name, "%s", proto->name);
            snprintf(b->device, sizeof b->device, "%s", proto->device);
            b->device_type = proto->device_type;
            b->dev = proto->dev;
            b->set_abort = proto->set_abort;
            atomic_store_explicit(&b->freed, false, memory_order_relaxed);
            atomic_store_explicit(&b->user_cb, NULL, memory_order_relaxed);
            atomic_store_explicit(&b->user_data, NULL, memory_order_relaxed);
            /* the release store publishes every field above */
            atomic_store_explicit(&g_n_backends, n + 1, memory_order_release);
            i = n;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return i;
}

int opscope_cap_backend_find_dev(const void *dev) {
    int n = atomic_load_explicit(&g_n_backends, memory_order_acquire);
    for (int i = 0; i < n; i++) {
        if (g_backends[i].dev == dev) {
            return i;
        }
    }
    return -1;
}

opscope_cap_backend *opscope_cap_backend_at(int i) {
    return &g_backends[i];
}

int opscope_cap_backend_count(void) {
    return atomic_load_explicit(&g_n_backends, memory_order_acquire);
}

/* ---- schedulers ---- */

typedef struct sched_entry {
    const void *_Atomic key; /* NULL once freed (the address may be reused by a new one) */
    _Atomic uint64_t reset_tick;
    _Atomic bool disabled;
} sched_entry;

static sched_entry g_scheds[OPSCOPE_CAP_MAX_SCHEDS];
static _Atomic int g_n_scheds;
static int g_live_scheds;

int opscope_cap_sched_find(const void *sched) {
    int n = atomic_load_explicit(&g_n_scheds, memory_order_acquire);
    for (int i = n - 1; i >= 0; i--) {
        if (atomic_load_explicit(&g_scheds[i].key, memory_order_relaxed) == sched) {
            return i;
        }
    }
    return -1;
}

int opscope_cap_sched_id(const void *sched) {
    int i = opscope_cap_sched_find(sched);
    if (i >= 0 || !sched) {
        return i;
    }
    pthread_mutex_lock(&g_lock);
    i = opscope_cap_sched_find(sched);
    if (i < 0) {
        int n = atomic_load(&g_n_scheds);
        if (n < OPSCOPE_CAP_MAX_SCHEDS) {
            atomic_store(&g_scheds[n].key, sched);
            atomic_store(&g_scheds[n].reset_tick, 0);
            atomic_store(&g_scheds[n].disabled, false);
            atomic_store_explicit(&g_n_scheds, n + 1, memory_order_release);
            g_live_scheds++;
            i = n;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return i;
}

bool opscope_cap_sched_freed(const void *sched) {
    pthread_mutex_lock(&g_lock);
    int i = opscope_cap_sched_find(sched);
    if (i >= 0) {
        atomic_store(&g_scheds[i].key, NULL);
        g_live_scheds--;
    }
    bool none = i >= 0 && g_live_scheds == 0;
    pthread_mutex_unlock(&g_lock);
    return none;
}

void opscope_cap_sched_reset(int id) {
    if (id >= 0 && id < OPSCOPE_CAP_MAX_SCHEDS) {
        atomic_store(&g_scheds[id].reset_tick, opscope_cap_now());
    }
}

void opscope_cap_sched_set_enabled(int id, bool on) {
    if (id >= 0 && id < OPSCOPE_CAP_MAX_SCHEDS) {
        atomic_store(&g_scheds[id].disabled, !on);
    }
}

bool opscope_cap_sched_enabled(int id) {
    if (id < 0 || id >= OPSCOPE_CAP_MAX_SCHEDS) {
        return true;
    }
    return !atomic_load_explicit(&g_scheds[id].disabled, memory_order_relaxed);
}

uint64_t opscope_cap_sched_reset_tick(int id) {
    return id >= 0 && id < OPSCOPE_CAP_MAX_SCHEDS ? atomic_load_explicit(&g_scheds[id].reset_tick, memory_order_relaxed)
                                                  : 0;
}
