/*
 * cap_sym.h - where the capture's ggml functions come from (internal).
 *
 * cap_resolve.c fills the table opscope_cap_ggml by name through opscope_cap_sym, which is defined once per
 * library flavour:
 *   cap_sym_dl.c      libopscope-ggml.so: dlsym (the definition after ours, for the functions
 *                     the library interposes; else libggml-base's)
 *   cap_static_sym.c  libopscope-ggml-static.a: link-time addresses (__real_X for the calls
 *                     the program's link wraps with -Wl,--wrap=X, X itself for the others)
 * Thread safety: pure lookups.
 */
#ifndef OPSCOPE_CAP_SYM_H
#define OPSCOPE_CAP_SYM_H

#include <stdbool.h>

/* The function named NAME (a ggml function name), or NULL when this ggml lacks it. */
void *opscope_cap_sym(const char *name);

/* Whether the program's calls to NAME reach our definition of it: in the shared library, the
 * process's first definition is ours; in the static one, the link wrapped NAME. */
bool opscope_cap_sym_interposed(const char *name);

/* Shared library only: NAME as defined by any loaded object other than the one defining it
 * at OURS (our interposing definition); NULL when none. For symbols of libraries loaded in a
 * local scope (the BLAS backend's libblas, ggml-cpu's libgomp), out of RTLD_NEXT's reach. */
void *opscope_cap_sym_loaded(const char *name, const void *ours);
/* The same, skipping the definition at ALSO too (NULL: none): an interposer of NAME loaded
 * ahead of ours that calls on into ours. */
void *opscope_cap_sym_loaded_except(const char *name, const void *ours, const void *also);

#endif
