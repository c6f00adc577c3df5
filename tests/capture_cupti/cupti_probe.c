/*
 * cupti_probe.c - asks a real libcupti directly what it answers without a GPU (not part of
 * opscope): cuptiGetVersion, cuptiSubscribe's result and cuptiGetResultString's text for it,
 * and whether libcuda.so.1 is loaded. tests/capture_cupti/real-in-root.sh takes the expected
 * warning from these answers, independently of the capture library.
 *
 *   cupti_probe LIBCUPTI   prints "version V", "subscribe RC", "string S", "driver 0|1"
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

typedef void (*cb_fn)(void *, int, uint32_t, const void *);

static void on_cb(void *ud, int domain, uint32_t cbid, const void *data) {
    (void)ud, (void)domain, (void)cbid, (void)data;
}

int main(int argc, char **argv) {
    void *h = argc == 2 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!h) {
        fprintf(stderr, "usage: cupti_probe LIBCUPTI (%s)\n", dlerror());
        return 2;
    }
    int (*get_version)(uint32_t *);
    int (*subscribe)(void **, cb_fn, void *);
    int (*result_string)(int, const char **);
    *(void **)&get_version = dlsym(h, "cuptiGetVersion");
    *(void **)&subscribe = dlsym(h, "cuptiSubscribe");
    *(void **)&result_string = dlsym(h, "cuptiGetResultString");
    if (!get_version || !subscribe || !result_string) {
        fprintf(stderr, "%s lacks cuptiGetVersion, cuptiSubscribe or cuptiGetResultString\n", argv[1]);
        return 2;
    }
    uint32_t v = 0;
    void *sub = NULL;
    const char *str = NULL;
    int vrc = get_version(&v);
    int rc = subscribe(&sub, on_cb, NULL);
    int src = result_string(rc, &str);
    printf("version %u (rc %d)\nsubscribe %d\nstring %s\n", v, vrc, rc, src == 0 && str ? str : "no result string");
    printf("driver %d\n", dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD) != NULL);
    return 0;
}
