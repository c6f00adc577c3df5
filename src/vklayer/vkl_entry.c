/*
 * vkl_entry.c - the layer's entry points: loader negotiation, instance and device creation
 * (the calibrated-timestamps extension is enabled where the device has it), and the
 * GetProcAddr functions that hand out the layer's functions.
 */
#include "vklayer/vkl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static vkl_instance *instance_of(const void *h) {
    void *k = vkl_key(h);
    for (vkl_instance *i = g_vkl.instances; i; i = i->next) {
        if (i->key == k) {
            return i;
        }
    }
    return NULL;
}

/* The loader's link info in the pNext chain NEXT of a create info: the struct of sType TYPE
 * (the instance's or the device's) whose function is VK_LAYER_LINK_INFO. Both layer create
 * infos begin alike (sType, pNext, function), so either is read as the instance's. */
static void *link_info(const void *next, VkStructureType type) {
    for (const VkBaseInStructure *p = next; p; p = p->pNext) {
        const VkLayerInstanceCreateInfo *l = (const VkLayerInstanceCreateInfo *)p;
        if (p->sType == type && l->function == VK_LAYER_LINK_INFO) {
            return (void *)l;
        }
    }
    return NULL;
}

/* The layer's OPSCOPE_VK_* flags, read once for the process: 1, 0, or -1 unset or empty (the
 * default). Another value is said once, through the capture's warning (stderr where no capture
 * listens), and the default used, as the capture's own settings are (capture/life/cap_env.h,
 * which this layer cannot link: docs/capture.md has the one table of them). */
typedef struct vkl_flags {
    int serialize, group, share_bounds;
} vkl_flags;
static vkl_flags g_flags;
static pthread_once_t g_flags_once = PTHREAD_ONCE_INIT;

static int env_flag(const char *name, const char *def_what) {
    const char *v = getenv(name);
    if (!v || !*v) {
        return -1;
    }
    if ((v[0] == '0' || v[0] == '1') && !v[1]) {
        return v[0] == '1';
    }
    char msg[400];
    int n = snprintf(msg, sizeof msg, "%s=%.256s is not 0 or 1; using %s", name, v, def_what);
    for (int i = 0; i < n && msg[i]; i++) {
        msg[i] = (unsigned char)msg[i] < 0x20 ? '?' : msg[i]; /* one line, whatever the value holds */
    }
    const opscope_gpu_host *host = vkl_host();
    if (host) {
        host->warn(msg);
    } else {
        fprintf(stderr, "opscope: %s\n", msg);
    }
    return -1;
}

static void read_flags(void) {
    g_flags.serialize = env_flag("OPSCOPE_VK_SERIALIZE", "0");
    g_flags.group = env_flag("OPSCOPE_VK_GROUP", "0");
    g_flags.share_bounds = env_flag("OPSCOPE_VK_SHARE_BOUNDS", "the device's default (1 on a CPU device, else 0)");
}

static VKAPI_ATTR VkResult VKAPI_CALL vkl_CreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *a,
                                                        VkInstance *out) {
    VkLayerInstanceCreateInfo *chain = link_info(ci->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
    if (!chain || !chain->u.pLayerInfo) {
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    PFN_vkGetInstanceProcAddr gipa = chain->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    if (!create) {
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    chain->u.pLayerInfo = chain->u.pLayerInfo->pNext;
    VkResult r = create(ci, a, out);
    if (r != VK_SUCCESS) {
        return r;
    }
    vkl_instance *in = calloc(1, sizeof *in);
    if (!in) {
        return r; /* the program goes on; this instance is passed through untimed */
    }
    in->key = vkl_key(*out);
    in->handle = *out;
    in->gipa = gipa;
#define IFN(name) in->name = (PFN_vk##name)gipa(*out, "vk" #name)
    IFN(DestroyInstance);
    IFN(EnumerateDeviceExtensionProperties);
    IFN(GetPhysicalDeviceProperties);
    IFN(GetPhysicalDeviceQueueFamilyProperties);
#undef IFN
    in->GetCalibrateableTimeDomains =
        (PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsKHR)gipa(*out, "vkGetPhysicalDeviceCalibrateableTimeDomainsKHR");
    if (!in->GetCalibrateableTimeDomains) {
        in->GetCalibrateableTimeDomains =
            (PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsKHR)gipa(*out, "vkGetPhysicalDeviceCalibrateableTimeDomainsEXT");
    }
    pthread_mutex_lock(&g_vkl.mu);
    in->next = g_vkl.instances;
    g_vkl.instances = in;
    pthread_mutex_unlock(&g_vkl.mu);
    return r;
}

static VKAPI_ATTR void VKAPI_CALL vkl_DestroyInstance(VkInstance inst, const VkAllocationCallbacks *a) {
    pthread_mutex_lock(&g_vkl.mu);
    vkl_instance **pp = &g_vkl.instances, *in = NULL;
    for (; *pp; pp = &(*pp)->next) {
        if ((*pp)->key == vkl_key(inst)) {
            in = *pp;
            *pp = in->next;
            break;
        }
    }
    pthread_mutex_unlock(&g_vkl.mu);
    if (in) {
        in->DestroyInstance(inst, a);
        free(in);
    }
}

/* Which calibrated-timestamps extension the device has ("" none). */
static const char *calibration_ext(vkl_instance *in, VkPhysicalDevice pd) {
    uint32_t n = 0;
    if (!in->EnumerateDeviceExtensionProperties || in->EnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS) {
        return "";
    }
    VkExtensionProperties *e = calloc(n ? n : 1, sizeof *e);
    const char *found = "";
    if (e && in->EnumerateDeviceExtensionProperties(pd, NULL, &n, e) == VK_SUCCESS) {
        for (uint32_t i = 0; i < n; i++) {
            if (strcmp(e[i].extensionName, VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME) == 0) {
                found = VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME;
                break;
            }
            if (strcmp(e[i].extensionName, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME) == 0) {
                found = VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME;
            }
        }
    }
    free(e);
    return found;
}

/* The host clock domain the device can calibrate against (CLOCK_MONOTONIC, the capture's). */
static bool host_domain(vkl_instance *in, VkPhysicalDevice pd) {
    uint32_t n = 0;
    if (!in->GetCalibrateableTimeDomains || in->GetCalibrateableTimeDomains(pd, &n, NULL) != VK_SUCCESS || n == 0) {
        return false;
    }
    VkTimeDomainKHR dom[16];
    if (n > 16) {
        n = 16;
    }
    VkResult r = in->GetCalibrateableTimeDomains(pd, &n, dom);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        return false;
    }
    bool dev = false, mono = false;
    for (uint32_t i = 0; i < n; i++) {
        dev |= dom[i] == VK_TIME_DOMAIN_DEVICE_KHR;
        mono |= dom[i] == VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR;
    }
    return dev && mono;
}

static void load_device_fns(vkl_device *d, PFN_vkGetDeviceProcAddr gdpa, VkDevice dev, const char *calib_ext) {
#define DFN(name) d->name = (PFN_vk##name)gdpa(dev, "vk" #name)
    DFN(DestroyDevice);
    DFN(GetDeviceQueue);
    DFN(GetDeviceQueue2);
    DFN(CreateCommandPool);
    DFN(DestroyCommandPool);
    DFN(ResetCommandPool);
    DFN(AllocateCommandBuffers);
    DFN(FreeCommandBuffers);
    DFN(BeginCommandBuffer);
    DFN(EndCommandBuffer);
    DFN(ResetCommandBuffer);
    DFN(CmdBindPipeline);
    DFN(CmdPushConstants);
    DFN(CmdBindDescriptorSets);
    DFN(CmdDispatch);
    DFN(CmdDispatchBase);
    DFN(CmdDispatchIndirect);
    DFN(CmdCopyBuffer);
    DFN(CmdCopyBuffer2);
    DFN(CmdFillBuffer);
    DFN(CmdUpdateBuffer);
    DFN(CmdPipelineBarrier);
    DFN(CmdPipelineBarrier2);
    DFN(CmdSetEvent);
    DFN(CmdResetEvent);
    DFN(CmdWaitEvents);
    DFN(CmdSetEvent2);
    DFN(CmdResetEvent2);
    DFN(CmdWaitEvents2);
    DFN(QueueSubmit);
    DFN(QueueSubmit2);
    DFN(WaitForFences);
    DFN(GetFenceStatus);
    DFN(QueueWaitIdle);
    DFN(DeviceWaitIdle);
    DFN(DestroyPipeline);
    DFN(SetDebugUtilsObjectNameEXT);
    DFN(CmdBeginDebugUtilsLabelEXT);
    DFN(CmdEndDebugUtilsLabelEXT);
    DFN(CreateQueryPool);
    DFN(DestroyQueryPool);
    DFN(CmdResetQueryPool);
    DFN(CmdWriteTimestamp);
    DFN(CmdWriteTimestamp2);
    DFN(GetQueryPoolResults);
#undef DFN
    /* the core name, else the extension's (a device of Vulkan 1.2 or less) */
#define DFN_KHR(name)                                                                          \
    if (!d->name) d->name = (PFN_vk##name)gdpa(dev, "vk" #name "KHR")
    DFN_KHR(CmdCopyBuffer2);
    DFN_KHR(CmdPipelineBarrier2);
    DFN_KHR(CmdSetEvent2);
    DFN_KHR(CmdResetEvent2);
    DFN_KHR(CmdWaitEvents2);
    DFN_KHR(CmdWriteTimestamp2);
    DFN_KHR(QueueSubmit2);
#undef DFN_KHR
    if (strcmp(calib_ext, VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME) == 0) {
        d->GetCalibratedTimestamps = (PFN_vkGetCalibratedTimestampsKHR)gdpa(dev, "vkGetCalibratedTimestampsKHR");
    } else if (*calib_ext) {
        d->GetCalibratedTimestamps = (PFN_vkGetCalibratedTimestampsKHR)gdpa(dev, "vkGetCalibratedTimestampsEXT");
    }
}

static VKAPI_ATTR VkResult VKAPI_CALL vkl_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                                      const VkAllocationCallbacks *a, VkDevice *out) {
    VkLayerDeviceCreateInfo *chain = link_info(ci->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
    if (!chain || !chain->u.pLayerInfo) {
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    PFN_vkGetInstanceProcAddr gipa = chain->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkGetDeviceProcAddr gdpa = chain->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    pthread_mutex_lock(&g_vkl.mu);
    vkl_instance *in = instance_of(pd);
    pthread_mutex_unlock(&g_vkl.mu);
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(in ? in->handle : VK_NULL_HANDLE, "vkCreateDevice");
    if (!create) {
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    chain->u.pLayerInfo = chain->u.pLayerInfo->pNext;

    /* Timing needs the capture listening; the clock wants the calibration extension, added
     * to the program's list when the device has it and the program did not ask for it. */
    const opscope_gpu_host *host = vkl_host();
    const char *calib = (host && in) ? calibration_ext(in, pd) : "";
    if (*calib && !host_domain(in, pd)) {
        calib = "";
    }
    VkDeviceCreateInfo mine = *ci;
    const char **exts = NULL;
    if (*calib) {
        bool has = false;
        for (uint32_t i = 0; i < ci->enabledExtensionCount; i++) {
            has |= strcmp(ci->ppEnabledExtensionNames[i], calib) == 0;
        }
        if (!has) {
            exts = malloc((ci->enabledExtensionCount + 1) * sizeof *exts);
            if (exts) {
                for (uint32_t i = 0; i < ci->enabledExtensionCount; i++) {
                    exts[i] = ci->ppEnabledExtensionNames[i];
                }
                exts[ci->enabledExtensionCount] = calib;
                mine.enabledExtensionCount = ci->enabledExtensionCount + 1;
                mine.ppEnabledExtensionNames = exts;
            } else {
                calib = "";
            }
        }
    }
    VkResult r = create(pd, &mine, a, out);
    if (r != VK_SUCCESS && exts) {
        /* never fail the program because of us: again exactly as it asked */
        calib = "";
        r = create(pd, ci, a, out);
    }
    free(exts);
    if (r != VK_SUCCESS) {
        return r;
    }
    vkl_device *d = calloc(1, sizeof *d);
    if (!d) {
        return r;
    }
    d->key = vkl_key(*out);
    d->handle = *out;
    d->phys = pd;
    d->gdpa = gdpa;
    d->free_slab = -1;
    pthread_once(&g_flags_once, read_flags);
    d->serialize = g_flags.serialize == 1;
    d->group = g_flags.group == 1 && !d->serialize;
    load_device_fns(d, gdpa, *out, calib);
    if (host && in && d->CmdWriteTimestamp && d->CreateQueryPool && d->CmdResetQueryPool && d->GetQueryPoolResults) {
        VkPhysicalDeviceProperties props;
        in->GetPhysicalDeviceProperties(pd, &props);
        uint32_t nf = 0;
        in->GetPhysicalDeviceQueueFamilyProperties(pd, &nf, NULL);
        VkQueueFamilyProperties fam[VKL_MAX_FAMILIES];
        if (nf > VKL_MAX_FAMILIES) {
            nf = VKL_MAX_FAMILIES;
        }
        in->GetPhysicalDeviceQueueFamilyProperties(pd, &nf, fam);
        uint32_t bits = 0;
        for (uint32_t i = 0; i < nf; i++) {
            d->valid_bits[i] = fam[i].timestampValidBits;
            if (fam[i].timestampValidBits > bits) {
                bits = fam[i].timestampValidBits;
            }
        }
        d->period = props.limits.timestampPeriod;
        /* A CPU device (lavapipe) runs a queue's work in order and pays tens of microseconds
         * per timestamp: the end of one item is the start of the next. Its timestamp is the
         * queue thread's clock when the command runs, whatever the stage, and lavapipe flushes
         * its rasterizer before any timestamp below the top of the pipe (a few percent of the
         * program's speed): end timestamps go at the top there. */
        bool cpu = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
        d->share_bounds = g_flags.share_bounds >= 0 ? g_flags.share_bounds == 1 : cpu;
        d->end_stage = cpu ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
        d->mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
        d->slabs = calloc(VKL_MAX_POOLS * VKL_POOL_SLABS, sizeof *d->slabs);
        d->timing = bits > 0 && d->period > 0 && d->slabs;
        d->calibrated = d->GetCalibratedTimestamps != NULL;
        d->host_domain = VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR;
        if (!d->timing) {
            host->warn("Vulkan device without usable timestamp queries: its splits stay host-timed");
        } else if (!d->calibrated) {
            host->warn("Vulkan device without calibrated timestamps: device times are aligned at submit");
        }
    }
    pthread_mutex_lock(&g_vkl.mu);
    if (d->timing && d->calibrated) {
        vkl_clock_refresh(d, true);
    }
    d->next = g_vkl.devices;
    __atomic_store_n(&g_vkl.devices, d, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_vkl.mu);
    return r;
}

static VKAPI_ATTR void VKAPI_CALL vkl_DestroyDevice(VkDevice dev, const VkAllocationCallbacks *a) {
    vkl_device *d = vkl_device_of(dev);
    if (!d) {
        return;
    }
    /* the program must have waited for all its work before this: read what is left */
    vkl_done_collect_and_deliver(d, VK_NULL_HANDLE, true);
    pthread_mutex_lock(&g_vkl.mu);
    vkl_done_forget_device(d);
    for (int i = 0; i < d->n_pools; i++) {
        d->DestroyQueryPool(dev, d->pools[i], NULL);
    }
    d->n_pools = 0;
    d->timing = false;
    /* the entry stays in the list (a lock-free reader may hold it); only its key goes */
    d->key = NULL;
    pthread_mutex_unlock(&g_vkl.mu);
    d->DestroyDevice(dev, a);
}

/* ---- proc addresses ---- */

static PFN_vkVoidFunction own_instance_proc(const char *name) {
    if (strcmp(name, "vkCreateInstance") == 0) return (PFN_vkVoidFunction)vkl_CreateInstance;
    if (strcmp(name, "vkDestroyInstance") == 0) return (PFN_vkVoidFunction)vkl_DestroyInstance;
    if (strcmp(name, "vkCreateDevice") == 0) return (PFN_vkVoidFunction)vkl_CreateDevice;
    return NULL;
}

static PFN_vkVoidFunction own_device_proc(const char *name) {
    if (strcmp(name, "vkDestroyDevice") == 0) return (PFN_vkVoidFunction)vkl_DestroyDevice;
    PFN_vkVoidFunction f = vkl_cmd_proc(name);
    return f ? f : vkl_done_proc(name);
}

VKL_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkl_GetDeviceProcAddr(VkDevice dev, const char *name);

VKL_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkl_GetDeviceProcAddr(VkDevice dev, const char *name) {
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) {
        return (PFN_vkVoidFunction)vkl_GetDeviceProcAddr;
    }
    vkl_device *d = vkl_device_of(dev);
    if (!d) {
        return NULL;
    }
    PFN_vkVoidFunction next = d->gdpa(dev, name);
    /* ours only where the next layer or driver has the function too */
    PFN_vkVoidFunction own = next ? own_device_proc(name) : NULL;
    return own ? own : next;
}

VKL_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkl_GetInstanceProcAddr(VkInstance inst, const char *name);

VKL_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkl_GetInstanceProcAddr(VkInstance inst, const char *name) {
    if (strcmp(name, "vkGetInstanceProcAddr") == 0) {
        return (PFN_vkVoidFunction)vkl_GetInstanceProcAddr;
    }
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) {
        return (PFN_vkVoidFunction)vkl_GetDeviceProcAddr;
    }
    PFN_vkVoidFunction own = own_instance_proc(name);
    if (own) {
        return own;
    }
    if (!inst) {
        return NULL;
    }
    pthread_mutex_lock(&g_vkl.mu);
    vkl_instance *in = instance_of(inst);
    pthread_mutex_unlock(&g_vkl.mu);
    if (!in) {
        return NULL;
    }
    PFN_vkVoidFunction next = in->gipa(inst, name);
    own = next ? own_device_proc(name) : NULL;
    return own ? own : next;
}

VKL_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v) {
    if (!v || v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) {
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    if (v->loaderLayerInterfaceVersion >= 2) {
        v->pfnGetInstanceProcAddr = vkl_GetInstanceProcAddr;
        v->pfnGetDeviceProcAddr = vkl_GetDeviceProcAddr;
        v->pfnGetPhysicalDeviceProcAddr = NULL;
        v->loaderLayerInterfaceVersion = 2;
    }
    return VK_SUCCESS;
}
