/*
 * cupti_rec.h - CUPTI activity records read by version (internal; pure: no CUDA, no global
 * state, unit-tested on the host with records built as NVIDIA documents them).
 *
 * cuptiGetVersion() picks a layout: the byte offsets of the fields the source reads in the
 * kernel, memcpy and memset records that version of CUPTI writes. Versions nobody checked are
 * refused (NULL): the source then disables itself with one warning.
 */
#ifndef OPSCOPE_CUPTI_REC_H
#define OPSCOPE_CUPTI_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The field of a CUPTI struct at byte offset OFF of BASE (records and callback data are read
 * at offsets, never through a struct; unaligned reads are safe). Thread safety: reentrant. */
static inline uint64_t opscope_cupti_u64_at(const void *base, size_t off) {
    uint64_t v;
    memcpy(&v, (const char *)base + off, sizeof v);
    return v;
}

static inline uint32_t opscope_cupti_u32_at(const void *base, size_t off) {
    uint32_t v;
    memcpy(&v, (const char *)base + off, sizeof v);
    return v;
}

static inline void *opscope_cupti_ptr_at(const void *base, size_t off) {
    void *p;
    memcpy(&p, (const char *)base + off, sizeof p);
    return p;
}

typedef struct opscope_cupti_layout {
    uint32_t ver_lo, ver_hi; /* cuptiGetVersion() range, inclusive */
    const char *what;        /* "CUDA 12.x (CUpti_ActivityKernel9)" */
    /* kernel record (CONCURRENT_KERNEL) */
    uint16_t k_start, k_end, k_stream, k_corr, k_name, k_graph_node, k_graph_id, k_size;
    /* memcpy record */
    uint16_t c_kind, c_bytes, c_start, c_end, c_stream, c_corr, c_graph_node, c_size;
    /* memset record */
    uint16_t s_bytes, s_start, s_end, s_stream, s_corr, s_graph_node, s_size;
} opscope_cupti_layout;

/* The layout for VERSION, or NULL when it was never checked. Thread safety: reentrant. */
const opscope_cupti_layout *opscope_cupti_layout_for(uint32_t version);

/* VERSION (a cuptiGetVersion() answer) as people know it, into OUT (always terminated):
 * "CUDA 12.4 (CUPTI API version 22)", "CUDA 13.1 (CUPTI API version 130100)",
 * "CUPTI API version 25" when the toolkit is unknown. Thread safety: reentrant. */
void opscope_cupti_version_name(uint32_t version, char *out, size_t size);

/* Whether the kernel records of VERSION may be timed through
 * cuptiActivityRegisterTimestampCallback. False from CUDA 12.6 (API version 24: its updates
 * share it, and Update 2 brought the bug) to 13.0: kernel timestamps come back zero with the
 * callback (fixed in 13.1, NVIDIA's release notes). Thread safety: reentrant. */
bool opscope_cupti_timestamp_callback_ok(uint32_t version);

typedef enum opscope_cupti_rec_kind {
    OPSCOPE_CUPTI_REC_OTHER = 0,
    OPSCOPE_CUPTI_REC_KERNEL,
    OPSCOPE_CUPTI_REC_MEMCPY,
    OPSCOPE_CUPTI_REC_MEMSET,
} opscope_cupti_rec_kind;

/* What the source needs of one record. */
typedef struct opscope_cupti_rec {
    opscope_cupti_rec_kind kind;
    uint64_t start, end;   /* CUPTI's clock (ns) */
    uint64_t bytes;        /* MEMCPY/MEMSET */
    uint64_t graph_node;   /* 0 unless replayed from a CUDA graph */
    uint32_t corr;         /* correlation id of the API call that launched it */
    uint32_t stream;
    uint8_t copy_kind;     /* CUpti_ActivityMemcpyKind (1 HtoD, 2 DtoH, 8 DtoD, ...) */
    const char *name;      /* KERNEL: the mangled name, owned by CUPTI (valid for the process) */
} opscope_cupti_rec;

/* Reads record R (a CUpti_Activity *) by its kind field. False for kinds the source does not
 * read (then OUT->kind is OTHER). Thread safety: reentrant. */
bool opscope_cupti_rec_read(const opscope_cupti_layout *l, const void *r, opscope_cupti_rec *out);

#endif
