/*
 * cap_sym_dl.c - opscope_cap_sym for the shared library: the definition after ours (the real
 * function behind an interposed one), else libggml-base's when it is loaded.
 */
#include "cap_sym.h"

#include <dlfcn.h>

void *opscope_cap_sym(const char *name) {
    void *p = dlsym(RTLD_NEXT, name);
    if (!p) {
        void *h = dlopen("libggml-base.so.0", RTLD_NOW | RTLD_NOLOAD);
        if (!h) {
            h = dlopen("libggml-base.so", RTLD_NOW | RTLD_NOLOAD);
        }
        if (h) {
            p = dlsym(h, name);
            dlclose(h);
        }
    }
    return p;
}
