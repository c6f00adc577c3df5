/*
 * vkl_names.c - pipeline names, scope counters and the connection to the capture.
 *
 * Names: the program names its pipelines with vkSetDebugUtilsObjectNameEXT (ggml-vulkan does
 * with GGML_VK_DEBUG_MARKERS=1); an unnamed pipeline is "pipeline 0x<handle>". Names are
 * interned and never freed, so items can point at them for the life of the process; the table
 * is bounded (a program that names more pipelines than that gets handle names).
 */
#include "vklayer/vkl.h"
#include "util/hash.h"
#include "vklayer/vkl_map.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_SLOTS 16384 /* pipelines, a power of two */
#define SCOPE_SLOTS 4096 /* scopes open at once, a power of two */

static uint64_t g_name_keys[NAME_SLOTS], g_name_vals[NAME_SLOTS];
static vkl_map g_names = VKL_MAP_INIT(g_name_keys, g_name_vals, NAME_SLOTS); /* pipeline -> name */

#define INTERN_MAX_BYTES (32u << 20)

/* Interned strings: a list of blocks, never freed, bounded in all. */
static size_t g_interned;
static const char *intern(const char *s) {
    static struct blk {
        struct blk *next;
        size_t used;
        char data[16384];
    } *head;
    size_t l = strlen(s) + 1;
    if (l > sizeof head->data) {
        return NULL;
    }
    if (!head || head->used + l > sizeof head->data) {
        if (g_interned + sizeof *head > INTERN_MAX_BYTES) {
            return NULL;
        }
        g_interned += sizeof *head;
        struct blk *b = malloc(sizeof *b);
        if (!b) {
            return NULL;
        }
        b->next = head;
        b->used = 0;
        head = b;
    }
    char *p = head->data + head->used;
    memcpy(p, s, l);
    head->used += l;
    return p;
}

const char *vkl_pipeline_name(VkPipeline p) {
    uint64_t h = (uint64_t)(uintptr_t)p;
    uint64_t *v = vkl_map_put(&g_names, h);
    if (v && *v) {
        return (const char *)(uintptr_t)*v;
    }
    char buf[40];
    snprintf(buf, sizeof buf, "pipeline 0x%" PRIx64, h);
    const char *n = intern(buf);
    if (v) {
        *v = (uint64_t)(uintptr_t)n;
    }
    return n ? n : "pipeline";
}

void vkl_pipeline_set_name(VkPipeline p, const char *name) {
    uint64_t *v = vkl_map_put(&g_names, (uint64_t)(uintptr_t)p);
    if (v && name && *name) {
        *v = (uint64_t)(uintptr_t)intern(name);
    }
}

void vkl_pipeline_forget(VkPipeline p) {
    /* a later pipeline may get the same handle: it must not inherit the name */
    vkl_map_del(&g_names, (uint64_t)(uintptr_t)p);
}

/* ---- node labels: a small open-addressed table of interned texts ---- */

#define LABEL_SLOTS 65536

static const char *g_labels[LABEL_SLOTS];
static int g_n_labels;

/* Whether TEXT ends in " (X,Y,Z)" with numbers: a dispatch's own label (its workgroups). */
static bool dispatch_label(const char *text, size_t l) {
    if (l < 8 || text[l - 1] != ')') {
        return false;
    }
    int commas = 0;
    size_t i = l - 1;
    while (i > 0) {
        char c = text[--i];
        if (c == '(') {
            return commas == 2 && i > 0 && text[i - 1] == ' ';
        }
        if (c == ',') {
            commas++;
        } else if (c < '0' || c > '9') {
            return false;
        }
    }
    return false;
}

bool vkl_label_is_node(const char *text) {
    /* "OP+OP+... name": upper-case op names joined by '+', a space, the first node's name */
    size_t i = 0;
    for (bool op = false;; i++) {
        char c = text[i];
        if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') {
            op = true;
        } else if (c == '+' && op) {
            op = false;
        } else {
            return c == ' ' && op && text[i + 1] != 0;
        }
    }
}

const char *vkl_label_intern(const char *text) {
    if (!text || strncmp(text, "submit ", 7) == 0) {
        return NULL;
    }
    size_t l = strlen(text);
    if (l == 0 || dispatch_label(text, l)) {
        return NULL;
    }
    uint64_t h = opscope_fnv1a(OPSCOPE_FNV_BASIS, text, l);
    for (uint64_t i = h, n = 0; n < LABEL_SLOTS; i++, n++) {
        const char **s = &g_labels[i & (LABEL_SLOTS - 1)];
        if (!*s) {
            if (g_n_labels >= LABEL_SLOTS / 2) {
                return NULL;
            }
            *s = intern(text);
            if (*s) {
                g_n_labels++;
            }
            return *s;
        }
        if (strcmp(*s, text) == 0) {
            return *s;
        }
    }
    return NULL;
}

/* ---- scopes: how many items each open scope has recorded ---- */

static uint64_t g_scope_keys[SCOPE_SLOTS], g_scope_vals[SCOPE_SLOTS];
static vkl_map g_scopes = VKL_MAP_INIT(g_scope_keys, g_scope_vals, SCOPE_SLOTS); /* scope -> items */

uint32_t vkl_scope_take(uint64_t scope) {
    uint64_t *v = scope ? vkl_map_put(&g_scopes, scope) : NULL;
    if (!scope) {
        return 0;
    }
    return v ? (uint32_t)(*v)++ : UINT32_MAX;
}

uint64_t vkl_scope_end(uint64_t scope) {
    return vkl_map_del(&g_scopes, scope);
}

/* ---- the capture ---- */

static uint64_t src_end_scope(uint64_t scope) {
    pthread_mutex_lock(&g_vkl.mu);
    uint64_t n = vkl_scope_end(scope);
    pthread_mutex_unlock(&g_vkl.mu);
    return n;
}

static void src_poll(void) {
    /* Only batches the program has seen complete are ever read (a query slab is reset by a
     * command, so an unfinished batch could show a slab's previous values). */
}

static const opscope_gpu_source g_source = {OPSCOPE_GPU_ABI, "vulkan", src_end_scope, src_poll};

const opscope_gpu_host *vkl_host(void) {
    /* under the lock, so a second thread never sees "tried" before the answer; attach does
     * not call back into the layer */
    pthread_mutex_lock(&g_vkl.mu);
    if (!g_vkl.host_tried) {
        g_vkl.host_tried = true;
        opscope_gpu_attach_fn attach = (opscope_gpu_attach_fn)dlsym(RTLD_DEFAULT, OPSCOPE_GPU_ATTACH_SYMBOL);
        const opscope_gpu_host *h = attach ? attach(&g_source) : NULL;
        __atomic_store_n(&g_vkl.host, (h && h->abi == OPSCOPE_GPU_ABI) ? h : NULL, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&g_vkl.mu);
    return __atomic_load_n(&g_vkl.host, __ATOMIC_ACQUIRE);
}
