/*
 * vkl.h - opscope's Vulkan layer (VK_LAYER_OPSCOPE_profiler), internal header.
 *
 * The layer times, on the device, every dispatch and transfer the program records, and hands
 * the times to the capture library (src/capture/gpu/gpu_source.h):
 *   vkl_state.c  the one state (instances, devices, batches), a handle's device, the clock
 *   vkl_entry.c  loader negotiation, instance/device creation, the dispatch tables
 *   vkl_cmd.c    command recording: timestamp queries around each dispatch and transfer
 *   vkl_done.c   submissions, completion (the program's own waits), read-back, clock
 *   vkl_names.c  pipeline names (vkSetDebugUtilsObjectNameEXT) and scopes
 *   vkl_map.c    the handle tables (open addressing without tombstones)
 * Nothing here waits on the device or adds barriers (unless OPSCOPE_VK_SERIALIZE=1 asks for
 * one per node) or submits: queries are written inside the program's own command buffers and
 * read when the program's own fence wait, fence status query or idle wait has shown that the
 * work is done.
 * Thread safety: one mutex (g_vkl.mu) guards every table; the capture is called outside it.
 */
#ifndef OPSCOPE_VKL_H
#define OPSCOPE_VKL_H

#include "capture/gpu/gpu_source.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define VKL_LAYER_NAME "VK_LAYER_OPSCOPE_profiler"
#define VKL_EXPORT __attribute__((visibility("default")))

/* Query slabs: a slab is SLAB_Q consecutive queries of one pool, reset by a command at the
 * start of its use; at most MAX_POOLS pools of POOL_SLABS slabs per device. */
#define VKL_SLAB_Q 64
#define VKL_POOL_SLABS 64
#define VKL_MAX_POOLS 64
#define VKL_MAX_FAMILIES 16
#define VKL_LABEL_DEPTH 8

typedef struct vkl_instance {
    void *key; /* the loader's dispatch key */
    VkInstance handle;
    PFN_vkGetInstanceProcAddr gipa;
    PFN_vkDestroyInstance DestroyInstance;
    PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
    PFN_vkGetPhysicalDeviceProperties GetPhysicalDeviceProperties;
    PFN_vkGetPhysicalDeviceQueueFamilyProperties GetPhysicalDeviceQueueFamilyProperties;
    PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsKHR GetCalibrateableTimeDomains;
    struct vkl_instance *next;
} vkl_instance;

typedef struct vkl_slab {
    int pool;     /* index in the device's pools */
    int first;    /* first query */
    int refs;     /* holders: the command buffer's recording and each batch that reads it */
    int next_free;
} vkl_slab;

typedef struct vkl_device {
    void *key;
    VkDevice handle;
    VkPhysicalDevice phys;
    bool timing;            /* queries work and the capture is listening */
    bool serialize;         /* OPSCOPE_VK_SERIALIZE=1: an item ends behind a barrier */
    bool share_bounds;      /* a CPU device: an item starts at the previous item's end query */
    bool group;             /* OPSCOPE_VK_GROUP=1: nodes with no barrier between them (run
                             * concurrently) share one start and one end */
    VkPipelineStageFlagBits end_stage; /* of end timestamps: bottom, top on a CPU device */
    double period;          /* ns per tick */
    uint64_t mask;          /* timestampValidBits mask of the timed families */
    uint32_t valid_bits[VKL_MAX_FAMILIES];
    bool calibrated;        /* VK_{KHR,EXT}_calibrated_timestamps with a host domain */
    VkTimeDomainKHR host_domain;
    int64_t offset_ns;      /* host ns - device ns, from the last calibration */
    uint64_t calibrated_at; /* host ns of that calibration */
    VkQueryPool pools[VKL_MAX_POOLS];
    int n_pools;
    vkl_slab *slabs;        /* VKL_MAX_POOLS * VKL_POOL_SLABS */
    int free_slab;          /* head of the free list, -1 none */
    uint64_t next_batch;    /* submission counter */

    PFN_vkGetDeviceProcAddr gdpa;
    PFN_vkDestroyDevice DestroyDevice;
    PFN_vkGetDeviceQueue GetDeviceQueue;
    PFN_vkGetDeviceQueue2 GetDeviceQueue2;
    PFN_vkCreateCommandPool CreateCommandPool;
    PFN_vkDestroyCommandPool DestroyCommandPool;
    PFN_vkResetCommandPool ResetCommandPool;
    PFN_vkAllocateCommandBuffers AllocateCommandBuffers;
    PFN_vkFreeCommandBuffers FreeCommandBuffers;
    PFN_vkBeginCommandBuffer BeginCommandBuffer;
    PFN_vkEndCommandBuffer EndCommandBuffer;
    PFN_vkResetCommandBuffer ResetCommandBuffer;
    PFN_vkCmdBindPipeline CmdBindPipeline;
    PFN_vkCmdPushConstants CmdPushConstants;
    PFN_vkCmdBindDescriptorSets CmdBindDescriptorSets;
    PFN_vkCmdDispatch CmdDispatch;
    PFN_vkCmdDispatchBase CmdDispatchBase;
    PFN_vkCmdDispatchIndirect CmdDispatchIndirect;
    PFN_vkCmdCopyBuffer CmdCopyBuffer;
    PFN_vkCmdCopyBuffer2 CmdCopyBuffer2;
    PFN_vkCmdFillBuffer CmdFillBuffer;
    PFN_vkCmdUpdateBuffer CmdUpdateBuffer;
    PFN_vkCmdPipelineBarrier CmdPipelineBarrier;
    PFN_vkCmdPipelineBarrier2 CmdPipelineBarrier2;
    PFN_vkCmdSetEvent CmdSetEvent;
    PFN_vkCmdResetEvent CmdResetEvent;
    PFN_vkCmdWaitEvents CmdWaitEvents;
    PFN_vkCmdSetEvent2 CmdSetEvent2;
    PFN_vkCmdResetEvent2 CmdResetEvent2;
    PFN_vkCmdWaitEvents2 CmdWaitEvents2;
    PFN_vkQueueSubmit QueueSubmit;
    PFN_vkQueueSubmit2 QueueSubmit2;
    PFN_vkWaitForFences WaitForFences;
    PFN_vkGetFenceStatus GetFenceStatus;
    PFN_vkQueueWaitIdle QueueWaitIdle;
    PFN_vkDeviceWaitIdle DeviceWaitIdle;
    PFN_vkDestroyPipeline DestroyPipeline;
    PFN_vkSetDebugUtilsObjectNameEXT SetDebugUtilsObjectNameEXT;
    PFN_vkCmdBeginDebugUtilsLabelEXT CmdBeginDebugUtilsLabelEXT;
    PFN_vkCmdEndDebugUtilsLabelEXT CmdEndDebugUtilsLabelEXT;
    PFN_vkCreateQueryPool CreateQueryPool;
    PFN_vkDestroyQueryPool DestroyQueryPool;
    PFN_vkCmdResetQueryPool CmdResetQueryPool;
    PFN_vkCmdWriteTimestamp CmdWriteTimestamp;
    PFN_vkCmdWriteTimestamp2 CmdWriteTimestamp2;
    PFN_vkGetQueryPoolResults GetQueryPoolResults;
    PFN_vkGetCalibratedTimestampsKHR GetCalibratedTimestamps;
    struct vkl_device *next;
} vkl_device;

/* One timed command as recorded. */
typedef struct vkl_cmd {
    uint64_t scope;
    const char *name;
    const char *label;
    uint32_t label_id;
    uint64_t bytes;
    uint32_t seq;
    uint16_t slab0, slab1; /* indices in the device's slabs of its start and end queries */
    uint8_t q0, q1;        /* the queries within them */
    uint8_t kind;          /* opscope_gpu_item_kind */
} vkl_cmd;

typedef struct vkl_cb {
    VkCommandBuffer handle;
    VkCommandPool pool;
    vkl_device *dev;
    uint32_t family;
    const char *pipeline;   /* compute pipeline bound now (its name) */
    vkl_cmd *cmds;
    int n_cmds, cap_cmds;
    int *slabs;             /* slabs this recording holds a reference to */
    int n_slabs, cap_slabs;
    int cur_slab;           /* -1 none */
    int cur_q;              /* next free query in it */
    int pend_slab;          /* >= 0: a barrier's timestamp that starts the next item */
    int pend_q;
    int open_slab;          /* >= 0: the last item's end query, written when its node label ends */
    int open_q;
    uint32_t open_node;     /* the label id of that item's node */
    bool group_open;        /* group mode: the open item's node is over, its end query waits
                             * for the next barrier (or the recording's end): the next node
                             * recorded before that joins its interval */
    bool submitted;         /* the recording went to a queue at least once */
    struct vkl_cb *pool_next; /* the other command buffers of its pool */
    const char *labels[VKL_LABEL_DEPTH]; /* open labels: node labels, NULL for others */
    uint32_t label_ids[VKL_LABEL_DEPTH]; /* each opening's number */
    bool label_node[VKL_LABEL_DEPTH];    /* that label has ggml's node form */
    int n_labels;
} vkl_cb;

/* One vkQueueSubmit's command buffers, until read. */
typedef struct vkl_batch {
    vkl_device *dev;
    VkQueue queue;
    VkFence fence;
    uint64_t seq;
    uint64_t submit_ns;
    vkl_cmd *cmds;
    int n_cmds;
    int *slabs;
    int n_slabs;
    bool done;
    struct vkl_batch *next;
} vkl_batch;

typedef struct vkl_state {
    pthread_mutex_t mu;
    vkl_instance *instances;
    vkl_device *devices;
    vkl_batch *batches, **batches_tail; /* in submission order */
    const opscope_gpu_host *host;       /* the capture's table, NULL: pass-through */
    bool host_tried;
    uint64_t lost;                      /* items never timed (reported to the capture) */
    uint32_t label_seq;                 /* label openings so far */
} vkl_state;

extern vkl_state g_vkl;

static inline void *vkl_key(const void *dispatchable) {
    return *(void *const *)dispatchable;
}

/* vkl_state.c */
vkl_device *vkl_device_of(const void *dispatchable); /* under g_vkl.mu or not: lock-free read */
uint64_t vkl_now_ns(void);

/* vkl_names.c (under g_vkl.mu; vkl_host: once, at the first use) */
/* Connects to the capture once (dlsym). */
const opscope_gpu_host *vkl_host(void);
const char *vkl_pipeline_name(VkPipeline p);
void vkl_pipeline_set_name(VkPipeline p, const char *name);
void vkl_pipeline_forget(VkPipeline p);
/* A node label the program opened, interned (NULL when it is not one: "submit N" or a
 * dispatch's "pipeline (x,y,z)", or the label table is full). */
const char *vkl_label_intern(const char *text);
/* TEXT (interned, not NULL) has the form of ggml-vulkan's node label, "OP+OP name": the
 * commands inside it are one node's. */
bool vkl_label_is_node(const char *text);
/* The next sequence number of SCOPE (counts recorded items); 0 for scope 0. */
uint32_t vkl_scope_take(uint64_t scope);
/* Forgets SCOPE; returns how many items it recorded. */
uint64_t vkl_scope_end(uint64_t scope);

/* vkl_cmd.c */

PFN_vkVoidFunction vkl_cmd_proc(const char *name);
/* Takes the commands and slab references recorded into H, for its submit (vkl_done.c). */
int vkl_cb_take(VkCommandBuffer h, vkl_cmd **cmds, int *n_cmds, int *cap_cmds, int **slabs, int *n_slabs,
                int *cap_slabs);
void vkl_cb_forget_pool(VkCommandPool pool, bool free_them);
/* Releases a slab reference (under g_vkl.mu). */
void vkl_slab_unref(vkl_device *d, int slab);
/* Items recorded but never submitted (and never to be): handed to the capture as dropped. */
typedef struct vkl_drop {
    opscope_gpu_item *v;
    size_t n, cap;
} vkl_drop;

/* vkl_done.c */
PFN_vkVoidFunction vkl_done_proc(const char *name);
/* Hands the items of every finished batch of D (NULL: all devices) to the capture. */
void vkl_done_collect_and_deliver(vkl_device *d, VkQueue q, bool all);
/* Drop every batch of D without reading (the device goes away). Under g_vkl.mu. */
void vkl_done_forget_device(vkl_device *d);
/* Calibrates D's clock now if it has not been for a while. Under g_vkl.mu. */
void vkl_clock_refresh(vkl_device *d, bool force);

#endif
