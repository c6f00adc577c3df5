/*
 * The backend table's publication (cap_devices.c, cap_tables.c), built with ThreadSanitizer:
 * while one thread meets a backend for the first time (opscope_cap_backend_of, as a compute
 * does), another finds the entry as soon as it is published and reads what a compute reads
 * (the abort-callback setter, the device). A published entry must be complete: the setter
 * must never be seen NULL, and TSan must report no race. ggml is faked: the registry lookup
 * of the setter takes a while, which is when an entry published too early shows its holes.
 */
#include "capture/resolve/cap_devices.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/store/cap_tables.h"
#include "test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

opscope_cap_ggml_fns opscope_cap_ggml; /* cap_resolve.c's table, filled with the fakes below */

static int g_dev, g_reg;
static char g_backends[8];
static char g_bufs[8];

static void fake_set_abort(ggml_backend_t b, opscope_cap_abort_cb cb, void *data) {
    (void)b;
    (void)cb;
    (void)data;
}

static const char *f_backend_name(ggml_backend_t b) { (void)b; return "CPU"; }
static atomic_int g_get_device_calls;
static ggml_backend_dev_t f_get_device(ggml_backend_t b) {
    (void)b;
    atomic_fetch_add(&g_get_device_calls, 1);
    return (ggml_backend_dev_t)&g_dev;
}
static const char *f_dev_name(ggml_backend_dev_t d) { (void)d; return "CPU"; }
static const char *f_dev_description(ggml_backend_dev_t d) { (void)d; return "fake CPU"; }
static enum ggml_backend_dev_type f_dev_type(ggml_backend_dev_t d) { (void)d; return GGML_BACKEND_DEVICE_TYPE_CPU; }
static ggml_backend_reg_t f_dev_backend_reg(ggml_backend_dev_t d) { (void)d; return (ggml_backend_reg_t)&g_reg; }
static void *f_reg_get_proc_address(ggml_backend_reg_t r, const char *name) {
    (void)r;
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return strcmp(name, "ggml_backend_set_abort_callback") == 0 ? (void *)fake_set_abort : NULL;
}
static ggml_backend_buffer_type_t f_buffer_get_type(ggml_backend_buffer_t b) { return (ggml_backend_buffer_type_t)b; }
static ggml_backend_dev_t f_buft_get_device(ggml_backend_buffer_type_t t) {
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return (ggml_backend_dev_t)((char *)t + 1); /* one fake device per fake buffer */
}
static bool f_buffer_is_host(ggml_backend_buffer_t b) { (void)b; return false; }

typedef struct reader {
    const void *key;        /* the entry's key: the backend, or the device of a buffer */
    const void *set_abort;  /* what the entry must hold */
    const void *dev;
    int bad;
} reader;

static atomic_int g_go;

static void *read_entry(void *arg) {
    reader *r = arg;
    while (!atomic_load(&g_go)) {
    }
    int i;
    while ((i = opscope_cap_backend_find(r->key, r->dev)) < 0) {
    }
    const opscope_cap_backend *b = opscope_cap_backend_at(i);
    if (b->set_abort != r->set_abort || b->dev != r->dev) {
        r->bad = 1;
    }
    return NULL;
}

typedef struct adder {
    void *key;
    bool buffer;
} adder;

static void *add_entry(void *arg) {
    adder *a = arg;
    while (!atomic_load(&g_go)) {
    }
    if (a->buffer) {
        opscope_cap_backend_of_buffer((ggml_backend_buffer_t)a->key);
    } else {
        opscope_cap_backend_of((ggml_backend_t)a->key);
    }
    return NULL;
}

static int race(void *key, bool buffer) {
    const void *dev = buffer ? (const void *)((char *)key + 1) : (const void *)&g_dev;
    reader r = {buffer ? dev : key, buffer ? NULL : (const void *)fake_set_abort, dev, 0};
    adder a = {key, buffer};
    pthread_t tr, ta;
    atomic_store(&g_go, 0);
    pthread_create(&tr, NULL, read_entry, &r);
    pthread_create(&ta, NULL, add_entry, &a);
    atomic_store(&g_go, 1);
    pthread_join(ta, NULL);
    pthread_join(tr, NULL);
    ASSERT_EQ_INT(r.bad, 0);
    return 0;
}

static int test_backend_entry_complete_when_found(void) {
    for (int k = 0; k < 4; k++) {
        if (race(&g_backends[k], false)) return 1;
    }
    return 0;
}

static int test_device_entry_complete_when_found(void) {
    for (int k = 0; k < 4; k += 2) {
        if (race(&g_bufs[k], true)) return 1;
    }
    return 0;
}

/* Once the program's frees are seen, a compute's lookup is by address alone (no call into
 * ggml); a freed backend's address then gets a new entry. Runs after the races: tracking
 * is process-wide. */
static int test_lookup_by_address_when_frees_tracked(void) {
    ggml_backend_t key = (ggml_backend_t)&g_backends[6];
    int before = atomic_load(&g_get_device_calls);
    int i = opscope_cap_backend_of(key);
    ASSERT_GE_INT(i, 0);
    ASSERT_EQ_INT(opscope_cap_backend_of(key), i);
    ASSERT_EQ_INT(atomic_load(&g_get_device_calls), before + 2); /* untracked: asked each time */
    opscope_cap_backend_track_frees();
    ASSERT_EQ_INT(opscope_cap_backend_of(key), i);
    ASSERT_EQ_INT(opscope_cap_backend_of(key), i);
    ASSERT_EQ_INT(atomic_load(&g_get_device_calls), before + 2);
    opscope_cap_backend_freed(key);
    int j = opscope_cap_backend_of(key);
    ASSERT_GT_INT(j, i);
    ASSERT_EQ_INT(atomic_load(&g_get_device_calls), before + 3);
    ASSERT_TRUE(opscope_cap_backend_at(j)->set_abort == (void *)fake_set_abort);
    ASSERT_EQ_INT(opscope_cap_backend_of(key), j);
    ASSERT_EQ_INT(atomic_load(&g_get_device_calls), before + 3);
    return 0;
}

static int setup(void) {
    opscope_cap_ggml.backend_name = f_backend_name;
    opscope_cap_ggml.backend_get_device = f_get_device;
    opscope_cap_ggml.dev_name = f_dev_name;
    opscope_cap_ggml.dev_description = f_dev_description;
    opscope_cap_ggml.dev_type = f_dev_type;
    opscope_cap_ggml.dev_backend_reg = f_dev_backend_reg;
    opscope_cap_ggml.reg_get_proc_address = f_reg_get_proc_address;
    opscope_cap_ggml.buffer_get_type = f_buffer_get_type;
    opscope_cap_ggml.buft_get_device = f_buft_get_device;
    opscope_cap_ggml.buffer_is_host = f_buffer_is_host;
    return 0;
}

TEST_MAIN(TEST(setup), TEST(test_backend_entry_complete_when_found),
          TEST(test_device_entry_complete_when_found),
          TEST(test_lookup_by_address_when_frees_tracked))
