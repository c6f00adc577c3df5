/*
 * vkl_done.c - submissions and their completion.
 *
 * vkQueueSubmit moves the timed commands of its command buffers into a batch. A batch is
 * read (vkGetQueryPoolResults without waiting) only once the program itself has seen it done:
 * its fence waited on or found signalled (and with it every earlier batch of the same queue),
 * or its queue or device waited idle. The times go to the capture grouped by scope, outside
 * the layer's lock. Device ticks become host CLOCK_MONOTONIC ns through the last calibration
 * (vkGetCalibratedTimestampsKHR, refreshed every 100 ms while batches complete); without it,
 * each batch's first timestamp is aligned to its submit and the items are flagged.
 */
#include "vklayer/vkl.h"

#include <stdlib.h>
#include <string.h>

#define RECALIBRATE_NS 100000000ull

void vkl_clock_refresh(vkl_device *d, bool force) {
    uint64_t now = vkl_now_ns();
    if (!d->calibrated || (!force && now - d->calibrated_at < RECALIBRATE_NS)) {
        return;
    }
    VkCalibratedTimestampInfoKHR info[2] = {
        {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_KHR, NULL, VK_TIME_DOMAIN_DEVICE_KHR},
        {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_KHR, NULL, d->host_domain},
    };
    uint64_t ts[2], dev_max = 0;
    if (d->GetCalibratedTimestamps(d->handle, 2, info, ts, &dev_max) != VK_SUCCESS) {
        return;
    }
    double dev_ns = (double)(ts[0] & d->mask) * d->period;
    d->offset_ns = (int64_t)ts[1] - (int64_t)dev_ns;
    d->calibrated_at = now;
}

static uint64_t to_host(const vkl_device *d, uint64_t ticks, int64_t offset) {
    double ns = (double)(ticks & d->mask) * d->period;
    int64_t h = (int64_t)ns + offset;
    return h > 0 ? (uint64_t)h : 0;
}

static void batch_free(vkl_batch *b) {
    for (int i = 0; i < b->n_slabs; i++) {
        vkl_slab_unref(b->dev, b->slabs[i]);
    }
    free(b->cmds);
    free(b->slabs);
    free(b);
}

static VkResult submit_common(VkQueue queue, VkFence fence, uint32_t n, const void *submits, bool two,
                              VkResult (*call)(vkl_device *, VkQueue, uint32_t, const void *, VkFence)) {
    vkl_device *d = vkl_device_of(queue);
    if (!d->timing || !g_vkl.host) {
        return call(d, queue, n, submits, fence);
    }
    vkl_batch *b = calloc(1, sizeof *b);
    int cap_cmds = 0, cap_slabs = 0;
    pthread_mutex_lock(&g_vkl.mu);
    for (uint32_t i = 0; b && i < n; i++) {
        if (two) {
            const VkSubmitInfo2 *s = &((const VkSubmitInfo2 *)submits)[i];
            for (uint32_t c = 0; c < s->commandBufferInfoCount; c++) {
                vkl_cb_take(s->pCommandBufferInfos[c].commandBuffer, &b->cmds, &b->n_cmds, &cap_cmds, &b->slabs,
                            &b->n_slabs, &cap_slabs);
            }
        } else {
            const VkSubmitInfo *s = &((const VkSubmitInfo *)submits)[i];
            for (uint32_t c = 0; c < s->commandBufferCount; c++) {
                vkl_cb_take(s->pCommandBuffers[c], &b->cmds, &b->n_cmds, &cap_cmds, &b->slabs, &b->n_slabs,
                            &cap_slabs);
            }
        }
    }
    /* a submit with a fence but nothing timed (ggml's empty "synchronize" submit, an untimed
     * compute's work) still goes in the queue's order while batches wait: its fence tells
     * that everything before it is done */
    if (b && (b->n_cmds || (fence != VK_NULL_HANDLE && g_vkl.batches))) {
        b->dev = d;
        b->queue = queue;
        b->fence = fence;
        b->seq = d->next_batch++;
        b->submit_ns = vkl_now_ns();
        if (!g_vkl.batches_tail) {
            g_vkl.batches_tail = &g_vkl.batches;
        }
        *g_vkl.batches_tail = b;
        g_vkl.batches_tail = &b->next;
        b = NULL;
    }
    pthread_mutex_unlock(&g_vkl.mu);
    if (b) {
        b->dev = d;
        batch_free(b);
    }
    return call(d, queue, n, submits, fence);
}

static VkResult call_submit(vkl_device *d, VkQueue q, uint32_t n, const void *s, VkFence f) {
    return d->QueueSubmit(q, n, (const VkSubmitInfo *)s, f);
}

static VkResult call_submit2(vkl_device *d, VkQueue q, uint32_t n, const void *s, VkFence f) {
    return d->QueueSubmit2(q, n, (const VkSubmitInfo2 *)s, f);
}

static VKAPI_ATTR VkResult VKAPI_CALL vkl_QueueSubmit(VkQueue q, uint32_t n, const VkSubmitInfo *s, VkFence f) {
    return submit_common(q, f, n, s, false, call_submit);
}

static VKAPI_ATTR VkResult VKAPI_CALL vkl_QueueSubmit2(VkQueue q, uint32_t n, const VkSubmitInfo2 *s, VkFence f) {
    return submit_common(q, f, n, s, true, call_submit2);
}

/* Marks done the batches that FENCE (with every earlier batch of its queue), QUEUE or, with
 * ALL, the whole device D have finished. Under g_vkl.mu. */
static void mark_done(vkl_device *d, VkFence fence, VkQueue queue, bool all) {
    for (vkl_batch *b = g_vkl.batches; b; b = b->next) {
        if (b->dev != d || b->done) {
            continue;
        }
        if (all || (queue && b->queue == queue)) {
            b->done = true;
        } else if (fence && b->fence == fence) {
            b->done = true;
            for (vkl_batch *e = g_vkl.batches; e != b; e = e->next) {
                if (e->dev == d && e->queue == b->queue) {
                    e->done = true;
                }
            }
        }
    }
}

typedef struct out_items {
    opscope_gpu_item *v;
    uint64_t *scope;
    size_t n, cap;
} out_items;

static bool out_push(out_items *o, uint64_t scope, const opscope_gpu_item *it) {
    if (o->n == o->cap) {
        size_t nc = o->cap ? o->cap * 2 : 256;
        opscope_gpu_item *nv = realloc(o->v, nc * sizeof *nv);
        if (!nv) return false;
        o->v = nv;
        uint64_t *ns = realloc(o->scope, nc * sizeof *ns);
        if (!ns) return false;
        o->scope = ns;
        o->cap = nc;
    }
    o->v[o->n] = *it;
    o->scope[o->n] = scope;
    o->n++;
    return true;
}

/* Reads batch B's timestamps into O. Under g_vkl.mu. */
static void batch_read(vkl_batch *b, uint64_t now, out_items *o) {
    vkl_device *d = b->dev;
    vkl_clock_refresh(d, false);
    /* one read per slab: [value, availability] pairs */
    uint64_t *res = malloc((size_t)b->n_slabs * VKL_SLAB_Q * 2 * sizeof *res);
    bool *ok = calloc((size_t)b->n_slabs + 1, sizeof *ok);
    for (int i = 0; res && ok && i < b->n_slabs; i++) {
        const vkl_slab *sl = &d->slabs[b->slabs[i]];
        VkResult r = d->GetQueryPoolResults(d->handle, d->pools[sl->pool], (uint32_t)sl->first, VKL_SLAB_Q,
                                            VKL_SLAB_Q * 2 * sizeof *res, res + (size_t)i * VKL_SLAB_Q * 2,
                                            2 * sizeof(uint64_t),
                                            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
        ok[i] = r == VK_SUCCESS || r == VK_NOT_READY;
    }
    int64_t offset = d->offset_ns;
    bool aligned = !d->calibrated;
    uint64_t min_dev = UINT64_MAX;
    size_t first_n = o->n;
    int hint = 0;
    for (int i = 0; i < b->n_cmds; i++) {
        const vkl_cmd *c = &b->cmds[i];
        const uint64_t *v[2] = {NULL, NULL};
        const int slab[2] = {c->slab0, c->slab1}, q[2] = {c->q0, c->q1};
        for (int e = 0; e < 2 && res && ok; e++) {
            /* the batch's slabs, in the order it took them: the hint finds most at once */
            for (int n = 0; n < b->n_slabs; n++) {
                int k = (hint + n) % b->n_slabs;
                if (b->slabs[k] == slab[e]) {
                    hint = k;
                    if (ok[k]) {
                        v[e] = res + (size_t)k * VKL_SLAB_Q * 2 + 2 * q[e];
                    }
                    break;
                }
            }
        }
        opscope_gpu_item it = {0};
        it.name = c->name;
        it.label = c->label;
        it.label_id = c->label_id;
        it.bytes = c->bytes;
        it.seq = c->seq;
        it.batch = (uint32_t)b->seq;
        it.kind = c->kind;
        it.host_done = now;
        if (v[0] && v[1] && v[0][1] && v[1][1]) {
            if (aligned) {
                uint64_t s = (uint64_t)((double)(v[0][0] & d->mask) * d->period);
                if (s < min_dev) min_dev = s;
                it.t0 = v[0][0];
                it.t1 = v[1][0];
                it.flags = OPSCOPE_GPU_F_ALIGNED;
            } else {
                it.t0 = to_host(d, v[0][0], offset);
                it.t1 = to_host(d, v[1][0], offset);
            }
        } else {
            it.flags = OPSCOPE_GPU_F_DROPPED;
        }
        if (c->scope || !(it.flags & OPSCOPE_GPU_F_DROPPED)) {
            out_push(o, c->scope, &it);
        }
    }
    if (aligned && min_dev != UINT64_MAX) {
        /* no calibration: the earliest timestamp of the batch is taken as its submit time */
        int64_t off = (int64_t)b->submit_ns - (int64_t)min_dev;
        for (size_t k = first_n; k < o->n; k++) {
            opscope_gpu_item *it = &o->v[k];
            if (!(it->flags & OPSCOPE_GPU_F_DROPPED)) {
                it->t0 = to_host(d, it->t0, off);
                it->t1 = to_host(d, it->t1, off);
            }
        }
    }
    for (size_t k = first_n; k < o->n; k++) {
        if (o->v[k].t1 < o->v[k].t0) {
            o->v[k].t1 = o->v[k].t0;
        }
    }
    free(res);
    free(ok);
}

static void deliver(out_items *o) {
    const opscope_gpu_host *h = g_vkl.host;
    /* items arrive in batch order; consecutive items of one scope go in one call */
    size_t i = 0;
    while (h && i < o->n) {
        size_t j = i + 1;
        while (j < o->n && o->scope[j] == o->scope[i]) {
            j++;
        }
        h->deliver(o->scope[i], o->v + i, j - i);
        i = j;
    }
    free(o->v);
    free(o->scope);
}

void vkl_done_collect_and_deliver(vkl_device *d, VkQueue q, bool all) {
    out_items o = {0};
    uint64_t now = vkl_now_ns();
    uint64_t lost = 0;
    pthread_mutex_lock(&g_vkl.mu);
    if (d && (all || q)) {
        mark_done(d, VK_NULL_HANDLE, q, all);
    }
    vkl_batch **pp = &g_vkl.batches, *keep_tail = NULL;
    while (*pp) {
        vkl_batch *b = *pp;
        if (b->done) {
            batch_read(b, now, &o);
            *pp = b->next;
            batch_free(b);
        } else {
            keep_tail = b;
            pp = &b->next;
        }
    }
    g_vkl.batches_tail = keep_tail ? &keep_tail->next : &g_vkl.batches;
    lost = g_vkl.lost;
    g_vkl.lost = 0;
    pthread_mutex_unlock(&g_vkl.mu);
    if (lost && g_vkl.host) {
        g_vkl.host->lost(lost);
    }
    deliver(&o);
}

void vkl_done_forget_device(vkl_device *d) {
    vkl_batch **pp = &g_vkl.batches, *keep_tail = NULL;
    while (*pp) {
        vkl_batch *b = *pp;
        if (b->dev == d) {
            *pp = b->next;
            batch_free(b);
        } else {
            keep_tail = b;
            pp = &b->next;
        }
    }
    g_vkl.batches_tail = keep_tail ? &keep_tail->next : &g_vkl.batches;
}

static void fences_done(vkl_device *d, uint32_t n, const VkFence *f) {
    pthread_mutex_lock(&g_vkl.mu);
    for (uint32_t i = 0; i < n; i++) {
        mark_done(d, f[i], VK_NULL_HANDLE, false);
    }
    pthread_mutex_unlock(&g_vkl.mu);
    vkl_done_collect_and_deliver(NULL, VK_NULL_HANDLE, false);
}

static VKAPI_ATTR VkResult VKAPI_CALL vkl_WaitForFences(VkDevice dev, uint32_t n, const VkFence *f, VkBool32 all,
                                                       uint64_t timeout) {
    vkl_device *d = vkl_device_of(dev);
    VkResult r = d->WaitForFences(dev, n, f, all, timeout);
    if (r == VK_SUCCESS && d->timing && g_vkl.batches) {
        if (all || n == 1) {
            fences_done(d, n, f);
        } else {
            for (uint32_t i = 0; i < n; i++) {
                if (d->GetFenceStatus(dev, f[i]) == VK_SUCCESS) {
                    fences_done(d, 1, &f[i]);
                }
            }
        }
    }
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL vkl_GetFenceStatus(VkDevice dev, VkFence f) {
    vkl_device *d = vkl_device_of(dev);
    VkResult r = d->GetFenceStatus(dev, f);
    if (r == VK_SUCCESS && d->timing && g_vkl.batches) {
        fences_done(d, 1, &f);
    }
    return r;
}

/* R, a wait for the idle queue Q (every queue of D when ALL) that D's layer passed down; its
 * finished batches are collected when it succeeded. */
static VkResult idle_waited(vkl_device *d, VkResult r, VkQueue q, bool all) {
    if (r == VK_SUCCESS && d->timing) {
        vkl_done_collect_and_deliver(d, q, all);
    }
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL vkl_QueueWaitIdle(VkQueue q) {
    vkl_device *d = vkl_device_of(q);
    return idle_waited(d, d->QueueWaitIdle(q), q, false);
}

static VKAPI_ATTR VkResult VKAPI_CALL vkl_DeviceWaitIdle(VkDevice dev) {
    vkl_device *d = vkl_device_of(dev);
    return idle_waited(d, d->DeviceWaitIdle(dev), VK_NULL_HANDLE, true);
}

PFN_vkVoidFunction vkl_done_proc(const char *name) {
    if (strcmp(name, "vkQueueSubmit") == 0) return (PFN_vkVoidFunction)vkl_QueueSubmit;
    if (strcmp(name, "vkQueueSubmit2") == 0 || strcmp(name, "vkQueueSubmit2KHR") == 0)
        return (PFN_vkVoidFunction)vkl_QueueSubmit2;
    if (strcmp(name, "vkWaitForFences") == 0) return (PFN_vkVoidFunction)vkl_WaitForFences;
    if (strcmp(name, "vkGetFenceStatus") == 0) return (PFN_vkVoidFunction)vkl_GetFenceStatus;
    if (strcmp(name, "vkQueueWaitIdle") == 0) return (PFN_vkVoidFunction)vkl_QueueWaitIdle;
    if (strcmp(name, "vkDeviceWaitIdle") == 0) return (PFN_vkVoidFunction)vkl_DeviceWaitIdle;
    return NULL;
}
