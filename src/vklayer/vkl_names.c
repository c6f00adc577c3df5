/*
 * vkl_names.c - pipeline names, scope counters and the connection to the capture.
 *
 * Names: the program names its pipelines with vkSetDebugUtilsObjectNameEXT (ggml-vulkan does
 * with GGML_VK_DEBUG_MARKERS=1); an unnamed pipeline is "pipeline 0x<handle>". Names are
 * interned and never freed, so items can point at them for the life of the process; the table
 * is bounded (a program that names more pipelines than that gets handle names).
 */
#include "vklayer/vkl.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_SLOTS 16384 /* pipelines, a power of two */
#define SCOPE_SLOTS 4096 /* scopes open at once, a power of two */

typedef struct name_slot {
    uint64_t pipe; /* 0: empty */
    const char *name;
} name_slot;

static name_slot g_names[NAME_SLOTS];
static int g_n_names;

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

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

static name_slot *find(uint64_t pipe, bool add) {
    for (uint64_t i = mix(pipe), n = 0; n < NAME_SLOTS; i++, n++) {
        name_slot *s = &g_names[i & (NAME_SLOTS - 1)];
        if (s->pipe == pipe) {
            return s;
        }
        if (s->pipe == 0) {
            if (!add || g_n_names >= NAME_SLOTS * 3 / 4) {
                return NULL;
            }
            s->pipe = pipe;
            g_n_names++;
            return s;
        }
    }
    return NULL;
}

const char *vkl_pipeline_name(VkPipeline p) {
    uint64_t h = (uint64_t)(uintptr_t)p;
    name_slot *s = find(h, true);
    if (s && s->name) {
        return s->name;
    }
    char buf[40];
    snprintf(buf, sizeof buf, "pipeline 0x%" PRIx64, h);
    const char *n = intern(buf);
    if (s) {
        s->name = n;
    }
    return n ? n : "pipeline";
}

void vkl_pipeline_set_name(VkPipeline p, const char *name) {
    name_slot *s = find((uint64_t)(uintptr_t)p, true);
    if (s && name && *name) {
        s->name = intern(name);
    }
}

void vkl_pipeline_forget(VkPipeline p) {
    /* a later pipeline may get the same handle: it must not inherit the name (the slot
     * stays taken, as open addressing needs) */
    name_slot *s = find((uint64_t)(uintptr_t)p, false);
    if (s) {
        s->name = NULL;
    }
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

const char *vkl_label_intern(const char *text) {
    if (!text || strncmp(text, "submit ", 7) == 0) {
        return NULL;
    }
    size_t l = strlen(text);
    if (l == 0 || dispatch_label(text, l)) {
        return NULL;
    }
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < l; i++) {
        h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
    }
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

typedef struct scope_slot {
    uint64_t scope; /* 0 empty, ~0 deleted */
    uint32_t count;
} scope_slot;

static scope_slot g_scopes[SCOPE_SLOTS];

static scope_slot *scope_find(uint64_t scope, bool add) {
    scope_slot *tomb = NULL;
    for (uint64_t i = mix(scope), n = 0; n < SCOPE_SLOTS; i++, n++) {
        scope_slot *s = &g_scopes[i & (SCOPE_SLOTS - 1)];
        if (s->scope == scope) {
            return s;
        }
        if (s->scope == ~(uint64_t)0 && !tomb) {
            tomb = s;
        } else if (s->scope == 0) {
            if (!add) {
                return NULL;
            }
            s = tomb ? tomb : s;
            s->scope = scope;
            s->count = 0;
            return s;
        }
    }
    if (add && tomb) {
        tomb->scope = scope;
        tomb->count = 0;
        return tomb;
    }
    return NULL;
}

uint32_t vkl_scope_take(uint64_t scope) {
    if (scope == 0) {
        return 0;
    }
    scope_slot *s = scope_find(scope, true);
    return s ? s->count++ : UINT32_MAX;
}

uint64_t vkl_scope_end(uint64_t scope) {
    scope_slot *s = scope ? scope_find(scope, false) : NULL;
    if (!s) {
        return 0;
    }
    uint64_t n = s->count;
    s->scope = ~(uint64_t)0;
    return n;
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
