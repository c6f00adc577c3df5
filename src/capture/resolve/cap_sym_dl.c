/*
 * cap_sym_dl.c - opscope_cap_sym for the shared library: the definition after ours (the real
 * function behind an interposed one), else libggml-base's when it is loaded.
 */
#include "capture/resolve/cap_sym.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>

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

bool opscope_cap_sym_interposed(const char *name) {
    void *first = dlsym(RTLD_DEFAULT, name);
    Dl_info theirs, ours;
    return first && dladdr(first, &theirs) && dladdr((void *)opscope_cap_sym_interposed, &ours) &&
           theirs.dli_fbase == ours.dli_fbase;
}

typedef struct find {
    const char *name;
    const void *ours, *also;
    void *found;
} find;

static int find_in(struct dl_phdr_info *info, size_t size, void *ud) {
    (void)size;
    find *f = ud;
    if (!info->dlpi_name || !info->dlpi_name[0]) {
        return 0;
    }
    void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h) {
        return 0;
    }
    void *p = dlsym(h, f->name);
    dlclose(h);
    if (p && p != f->ours && p != f->also) {
        f->found = p;
        return 1;
    }
    return 0;
}

void *opscope_cap_sym_loaded(const char *name, const void *ours) {
    return opscope_cap_sym_loaded_except(name, ours, NULL);
}

void *opscope_cap_sym_loaded_except(const char *name, const void *ours, const void *also) {
    find f = {name, ours, also, NULL};
    dl_iterate_phdr(find_in, &f);
    return f.found;
}
