/* backend_names.c - owned copies of a backend's strings (see backend_names.h). */
#include "model/backend_names.h"

#include <stdlib.h>
#include <string.h>

int opscope_backend_names_set(opscope_backend_names *n, const opscope_backend *b) {
    opscope_backend_names_free(n);
    n->name = strdup(b->name ? b->name : "");
    n->device = strdup(b->device ? b->device : "");
    n->process = b->process ? strdup(b->process) : NULL;
    return !n->name || !n->device || (b->process && !n->process) ? -1 : 0;
}

void opscope_backend_names_free(opscope_backend_names *n) {
    if (!n) return;
    free(n->name);
    free(n->device);
    free(n->process);
}
