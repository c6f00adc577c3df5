/*
 * cupti_rec.c - CUPTI activity records by version (see cupti_rec.h).
 *
 * The offsets come from NVIDIA's public CUPTI reference: every kernel record version since
 * CUpti_ActivityKernel5 (CUDA 11.0) keeps the same prefix up to graphId, so CUDA 12's
 * CUpti_ActivityKernel9 and CUDA 13.0's CUpti_ActivityKernel10 read alike; memcpy records
 * (CUpti_ActivityMemcpy5/6) and memset records (CUpti_ActivityMemset4) likewise. What a later
 * version changes is unknown until checked (tests/cupti_abi against NVIDIA's headers, in
 * `make test`), so only these versions are accepted: CUDA 13.1's CUpti_ActivityKernel11 is
 * refused until its headers are checked.
 */
#include "capture/gpu/cupti_rec.h"

#include "capture/gpu/cupti_abi.h"

#include <stdio.h>
#include <string.h>

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* kernel: kind 0, start 16, end 24, streamId 48, correlationId 92, name 104, graphNodeId 144,
 *         graphId 156
 * memcpy: kind 0, copyKind 4, bytes 8, start 16, end 24, streamId 40, correlationId 44,
 *         graphNodeId 64
 * memset: kind 0, bytes 8, start 16, end 24, streamId 40, correlationId 44, graphNodeId 64
 * The sizes are lower bounds (the fields read lie inside them). */
static const opscope_cupti_layout layouts[] = {
    /* cuptiGetVersion() 19..28: CUDA 12.0 to 12.9 Update 1 (CUPTI API versions v19-v28) */
    {19, 28, "CUDA 12.x (CUpti_ActivityKernel9)", 16, 24, 48, 92, 104, 144, 156, 160, 4, 8, 16, 24, 40, 44, 64, 72,
     8, 16, 24, 40, 44, 64, 72},
    /* from CUDA 13.0 the version reads xxyyzz: 13.0.x */
    {130000, 130099, "CUDA 13.0 (CUpti_ActivityKernel10)", 16, 24, 48, 92, 104, 144, 156, 160, 4, 8, 16, 24, 40, 44,
     64, 72, 8, 16, 24, 40, 44, 64, 72},
};

const opscope_cupti_layout *opscope_cupti_layout_for(uint32_t version) {
    for (int i = 0; i < N_OF(layouts); i++) {
        if (version >= layouts[i].ver_lo && version <= layouts[i].ver_hi) {
            return &layouts[i];
        }
    }
    return NULL;
}

void opscope_cupti_version_name(uint32_t version, char *out, size_t size) {
    /* the API versions of CUDA 12 (NVIDIA's cupti_version.h lists them); from 13.0 it reads xxyyzz */
    static const char *const cuda12[] = {"12.0", "12.2", "12.3", "12.4", "12.5", "12.6", NULL, "12.8", "12.9",
                                         "12.9 Update 1"};
    if (size == 0) {
        return;
    }
    if (version >= 130000) {
        unsigned update = version % 100;
        char up[32] = "";
        if (update) {
            snprintf(up, sizeof up, " Update %u", update);
        }
        snprintf(out, size, "CUDA %u.%u%s (CUPTI API version %u)", version / 10000, version / 100 % 100, up, version);
    } else if (version >= 19 && version <= 28 && cuda12[version - 19]) {
        snprintf(out, size, "CUDA %s (CUPTI API version %u)", cuda12[version - 19], version);
    } else {
        snprintf(out, size, "CUPTI API version %u", version);
    }
}

bool opscope_cupti_timestamp_callback_ok(uint32_t version) {
    return version < 24 || version >= 130100;
}

bool opscope_cupti_rec_read(const opscope_cupti_layout *l, const void *r, opscope_cupti_rec *out) {
    memset(out, 0, sizeof *out);
    switch (opscope_cupti_u32_at(r, 0)) {
    case OPSCOPE_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case OPSCOPE_CUPTI_ACTIVITY_KIND_KERNEL: {
        out->kind = OPSCOPE_CUPTI_REC_KERNEL;
        out->start = opscope_cupti_u64_at(r, l->k_start);
        out->end = opscope_cupti_u64_at(r, l->k_end);
        out->stream = opscope_cupti_u32_at(r, l->k_stream);
        out->corr = opscope_cupti_u32_at(r, l->k_corr);
        out->graph_node = opscope_cupti_u64_at(r, l->k_graph_node);
        out->name = opscope_cupti_ptr_at(r, l->k_name);
        return true;
    }
    case OPSCOPE_CUPTI_ACTIVITY_KIND_MEMCPY:
        out->kind = OPSCOPE_CUPTI_REC_MEMCPY;
        out->copy_kind = *((const uint8_t *)r + l->c_kind);
        out->bytes = opscope_cupti_u64_at(r, l->c_bytes);
        out->start = opscope_cupti_u64_at(r, l->c_start);
        out->end = opscope_cupti_u64_at(r, l->c_end);
        out->stream = opscope_cupti_u32_at(r, l->c_stream);
        out->corr = opscope_cupti_u32_at(r, l->c_corr);
        out->graph_node = opscope_cupti_u64_at(r, l->c_graph_node);
        return true;
    case OPSCOPE_CUPTI_ACTIVITY_KIND_MEMSET:
        out->kind = OPSCOPE_CUPTI_REC_MEMSET;
        out->bytes = opscope_cupti_u64_at(r, l->s_bytes);
        out->start = opscope_cupti_u64_at(r, l->s_start);
        out->end = opscope_cupti_u64_at(r, l->s_end);
        out->stream = opscope_cupti_u32_at(r, l->s_stream);
        out->corr = opscope_cupti_u32_at(r, l->s_corr);
        out->graph_node = opscope_cupti_u64_at(r, l->s_graph_node);
        return true;
    default:
        return false;
    }
}
