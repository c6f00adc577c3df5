/*
 * backend_names.h - owned copies of a backend's strings (internal), for the sinks that keep
 * the backends a reader describes (opscope_backend's strings live only as long as the call).
 * Thread safety: none (one owner per copy).
 */
#ifndef OPSCOPE_BACKEND_NAMES_H
#define OPSCOPE_BACKEND_NAMES_H

#include "opscope.h"

/* NAME and DEVICE are "" when the backend has none, PROCESS NULL; each is the owner's (free
 * with opscope_backend_names_free). A zeroed struct holds nothing. */
typedef struct opscope_backend_names {
    char *name, *device, *process;
} opscope_backend_names;

/* Replaces N's strings with copies of B's. Returns 0, or -1 when out of memory (N then holds
 * what could be copied, NULL for the rest, and still frees with opscope_backend_names_free). */
int opscope_backend_names_set(opscope_backend_names *n, const opscope_backend *b);

/* Frees N's strings (N itself is the caller's); NULL does nothing. */
void opscope_backend_names_free(opscope_backend_names *n);

#endif /* OPSCOPE_BACKEND_NAMES_H */
