/*
 * cap_gguf.h - a model file's GGUF header, read by the capture itself (internal): the
 * architecture, name and file type from its key-values, the parameter count from its tensor
 * infos. Bounded: strings, counts, dimensions and the bytes walked are capped, so a damaged
 * or hostile file costs at most a few hundred MiB of sequential reads and no memory beyond a
 * stdio buffer; nothing is written, nothing of the host is touched.
 * Thread safety: reentrant (no global state).
 */
#ifndef OPSCOPE_CAP_GGUF_H
#define OPSCOPE_CAP_GGUF_H

#include <stdint.h>

typedef struct opscope_cap_gguf {
    uint64_t size;       /* the file's size */
    char arch[64];       /* general.architecture, "" unknown */
    char name[128];      /* general.name, "" unknown */
    int32_t file_type;   /* general.file_type, -1 unknown */
    uint64_t n_params;   /* the tensors' elements, summed; 0 unknown */
} opscope_cap_gguf;

/* Reads PATH's header into OUT. Returns 0 (OUT filled as far as the header went), -1 when
 * PATH cannot be opened or is no GGUF file (OUT then has its size at most). */
int opscope_cap_gguf_read(const char *path, opscope_cap_gguf *out);

#endif /* OPSCOPE_CAP_GGUF_H */
