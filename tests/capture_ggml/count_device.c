/*
 * count_device.c - preloaded after the capture library: counts the calls of
 * ggml_backend_get_device that reach it (the capture's own, which it finds after itself with
 * RTLD_NEXT, and the program's) and writes the count to $COUNT_DEVICE_OUT at exit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_long g_calls;

void *ggml_backend_get_device(void *backend);
void *ggml_backend_get_device(void *backend) {
    static void *(*real)(void *);
    if (!real) {
        *(void **)&real = dlsym(RTLD_NEXT, "ggml_backend_get_device");
    }
    atomic_fetch_add(&g_calls, 1);
    return real ? real(backend) : NULL;
}

__attribute__((destructor)) static void report(void) {
    const char *out = getenv("COUNT_DEVICE_OUT");
    FILE *f = out ? fopen(out, "w") : NULL;
    if (f) {
        fprintf(f, "%ld\n", atomic_load(&g_calls));
        fclose(f);
    }
}
