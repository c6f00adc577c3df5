/*
 * vkl_state.c - the layer's one state (g_vkl: instances, devices, batches), the device of a
 * dispatchable handle and the clock every part of the layer reads (vkl.h).
 */
#include "vklayer/vkl.h"

#include <time.h>

vkl_state g_vkl = {.mu = PTHREAD_MUTEX_INITIALIZER};

uint64_t vkl_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

vkl_device *vkl_device_of(const void *h) {
    void *k = vkl_key(h);
    for (vkl_device *d = __atomic_load_n(&g_vkl.devices, __ATOMIC_ACQUIRE); d; d = d->next) {
        if (d->key == k) {
            return d;
        }
    }
    return NULL;
}
