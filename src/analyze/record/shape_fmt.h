/*
 * shape_fmt.h - text of tensor shapes and types, shared by the reports and exporters
 * (internal). Buffers are always NUL-terminated (truncated if too small); each function
 * returns the length written. Thread safety: pure functions.
 */
#ifndef OPSCOPE_SHAPE_FMT_H
#define OPSCOPE_SHAPE_FMT_H

#include "opscope.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Shapes and types of one call (the representative of a group). */
typedef struct opscope_shape {
    int32_t n_src;
    int32_t out_type;   /* -1 unknown */
    bool has_out;
    int64_t ne[OPSCOPE_MAX_DIMS];
    int64_t ne_src[OPSCOPE_MAX_SRC][OPSCOPE_MAX_DIMS];
    int32_t type_src[OPSCOPE_MAX_SRC];
} opscope_shape;

/* "[4096, 4096]": the dimensions > 0 of NE (the seed tool's style) without trailing 1s
 * after the first; "" when none. */
size_t opscope_fmt_ne(char *buf, size_t size, const int64_t ne[OPSCOPE_MAX_DIMS]);

/* Every present source: "[4096, 4096] x [4096, 7]" (sources without dims are skipped). */
size_t opscope_fmt_src_shapes(char *buf, size_t size, const opscope_shape *sh);

/* Sources with types and the output: "src0 [4096, 4096] q4_0, src1 [4096, 7] f32 ->
 * [4096, 7] f32". Types are left out when unknown. */
size_t opscope_fmt_sources(char *buf, size_t size, const opscope_shape *sh);

/* The shape part of a record (sources, types, output). */
void opscope_shape_of_record(opscope_shape *sh, const opscope_record *rec);

/* Human units for reports: "12.30 GB/s" / "1.20 TB/s" of BYTES over NS; "" when either is 0. */
size_t opscope_fmt_bandwidth(char *buf, size_t size, uint64_t bytes, uint64_t ns);
/* "123.4 MB" style decimal size. */
size_t opscope_fmt_bytes(char *buf, size_t size, uint64_t bytes);

#endif /* OPSCOPE_SHAPE_FMT_H */
