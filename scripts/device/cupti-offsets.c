/*
 * cupti-offsets.c - checks opscope's declared CUPTI subset (src/capture/gpu/cupti_abi.h and the
 * record layouts of cupti_rec.c) against NVIDIA's real headers and the loaded libcupti. Built
 * and run by scripts/device/cupti-check.sh on a machine with the CUDA toolkit; never part of
 * opscope's build (it needs NVIDIA's headers, which the repository does not hold).
 *
 * Prints one line per checked value ("ok" or "MISMATCH") and exits 1 on any mismatch, or when
 * the running CUPTI's version has no layout: no figure of the device check is trusted then.
 */
#include <cupti.h>
#include <stddef.h>
#include <stdio.h>

#include "capture/gpu/cupti_abi.h"
#include "capture/gpu/cupti_names.h"
#include "capture/gpu/cupti_rec.h"

static int bad;

static void eq(const char *what, long real, long ours) {
    printf("%-8s %-58s real %6ld  opscope %6ld\n", real == ours ? "ok" : "MISMATCH", what, real, ours);
    bad |= real != ours;
}

#define OFF(T, f, ours) eq(#T "." #f, (long)offsetof(T, f), (long)(ours))
#define VAL(name, ours) eq(#name, (long)(name), (long)(ours))

#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 kernel_rec; /* CUDA 13.0 */
#else
typedef CUpti_ActivityKernel9 kernel_rec;  /* CUDA 12.x */
#endif
#if CUPTI_API_VERSION >= 26
typedef CUpti_ActivityMemcpy6 memcpy_rec;  /* CUDA 12.8 on */
#else
typedef CUpti_ActivityMemcpy5 memcpy_rec;
#endif
typedef CUpti_ActivityMemset4 memset_rec;

int main(void) {
    uint32_t version = 0;
    if (cuptiGetVersion(&version) != CUPTI_SUCCESS) {
        printf("MISMATCH cuptiGetVersion failed\n");
        return 1;
    }
    printf("CUPTI_API_VERSION (headers) %d, cuptiGetVersion() %u\n", (int)CUPTI_API_VERSION, version);
    eq("cuptiGetVersion() == CUPTI_API_VERSION", (long)version, (long)CUPTI_API_VERSION);
    const opscope_cupti_layout *l = opscope_cupti_layout_for(version);
    if (!l) {
        printf("MISMATCH no opscope layout for CUPTI %u: add one to src/capture/gpu/cupti_rec.c\n", version);
        return 1;
    }
    printf("opscope layout: %s\n", l->what);
    OFF(kernel_rec, start, l->k_start);
    OFF(kernel_rec, end, l->k_end);
    OFF(kernel_rec, streamId, l->k_stream);
    OFF(kernel_rec, correlationId, l->k_corr);
    OFF(kernel_rec, name, l->k_name);
    OFF(kernel_rec, graphNodeId, l->k_graph_node);
    OFF(kernel_rec, graphId, l->k_graph_id);
    eq("sizeof kernel record >= opscope's k_size", sizeof(kernel_rec) >= l->k_size, 1);
    OFF(memcpy_rec, copyKind, l->c_kind);
    OFF(memcpy_rec, bytes, l->c_bytes);
    OFF(memcpy_rec, start, l->c_start);
    OFF(memcpy_rec, end, l->c_end);
    OFF(memcpy_rec, streamId, l->c_stream);
    OFF(memcpy_rec, correlationId, l->c_corr);
    OFF(memcpy_rec, graphNodeId, l->c_graph_node);
    OFF(memset_rec, bytes, l->s_bytes);
    OFF(memset_rec, start, l->s_start);
    OFF(memset_rec, end, l->s_end);
    OFF(memset_rec, streamId, l->s_stream);
    OFF(memset_rec, correlationId, l->s_corr);
    OFF(memset_rec, graphNodeId, l->s_graph_node);
    OFF(CUpti_CallbackData, callbackSite, OPSCOPE_CUPTI_CBDATA_SITE);
    OFF(CUpti_CallbackData, functionName, OPSCOPE_CUPTI_CBDATA_FUNCTION_NAME);
    OFF(CUpti_CallbackData, functionParams, OPSCOPE_CUPTI_CBDATA_FUNCTION_PARAMS);
    OFF(CUpti_CallbackData, correlationId, OPSCOPE_CUPTI_CBDATA_CORRELATION_ID);
    OFF(CUpti_ResourceData, resourceDescriptor, OPSCOPE_CUPTI_RESDATA_DESCRIPTOR);
    OFF(CUpti_GraphData, graph, OPSCOPE_CUPTI_GRAPHDATA_GRAPH);
    OFF(CUpti_GraphData, node, OPSCOPE_CUPTI_GRAPHDATA_NODE);
    OFF(CUpti_GraphData, originalNode, OPSCOPE_CUPTI_GRAPHDATA_ORIGINAL_NODE);
    OFF(CUpti_GraphData, nodeType, OPSCOPE_CUPTI_GRAPHDATA_NODE_TYPE);
    OFF(CUpti_GraphData, graphExec, OPSCOPE_CUPTI_GRAPHDATA_GRAPH_EXEC);
    eq("sizeof CUpti_GraphData.nodeType", (long)sizeof(((CUpti_GraphData *)0)->nodeType), 4);
    VAL(CUPTI_SUCCESS, OPSCOPE_CUPTI_SUCCESS);
    VAL(CUPTI_ERROR_MAX_LIMIT_REACHED, OPSCOPE_CUPTI_ERROR_MAX_LIMIT_REACHED);
    VAL(CUPTI_CB_DOMAIN_DRIVER_API, OPSCOPE_CUPTI_DOMAIN_DRIVER_API);
    VAL(CUPTI_CB_DOMAIN_RUNTIME_API, OPSCOPE_CUPTI_DOMAIN_RUNTIME_API);
    VAL(CUPTI_CB_DOMAIN_RESOURCE, OPSCOPE_CUPTI_DOMAIN_RESOURCE);
    VAL(CUPTI_API_ENTER, OPSCOPE_CUPTI_API_ENTER);
    VAL(CUPTI_API_EXIT, OPSCOPE_CUPTI_API_EXIT);
    VAL(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, OPSCOPE_CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED);
    VAL(CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED, OPSCOPE_CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED);
    VAL(CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED, OPSCOPE_CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED);
    VAL(CUPTI_ACTIVITY_KIND_MEMCPY, OPSCOPE_CUPTI_ACTIVITY_KIND_MEMCPY);
    VAL(CUPTI_ACTIVITY_KIND_MEMSET, OPSCOPE_CUPTI_ACTIVITY_KIND_MEMSET);
    VAL(CUPTI_ACTIVITY_KIND_KERNEL, OPSCOPE_CUPTI_ACTIVITY_KIND_KERNEL);
    VAL(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, OPSCOPE_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    VAL(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED, OPSCOPE_CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    VAL(CU_GRAPH_NODE_TYPE_KERNEL, OPSCOPE_CU_GRAPH_NODE_TYPE_KERNEL);
    VAL(CU_GRAPH_NODE_TYPE_MEMCPY, OPSCOPE_CU_GRAPH_NODE_TYPE_MEMCPY);
    VAL(CU_GRAPH_NODE_TYPE_MEMSET, OPSCOPE_CU_GRAPH_NODE_TYPE_MEMSET);
    /* the launch APIs the source finds by name, as this CUPTI names them */
    const char *name = NULL;
    VAL(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &name), 0);
    printf("         runtime cudaLaunchKernel is named \"%s\"\n", name ? name : "(null)");
    VAL(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, &name), 0);
    printf("         runtime cudaGraphLaunch is named \"%s\"\n", name ? name : "(null)");
    int roles[8] = {0};
    for (uint32_t cbid = 1; cbid < 2048; cbid++) {
        for (int d = CUPTI_CB_DOMAIN_DRIVER_API; d <= CUPTI_CB_DOMAIN_RUNTIME_API; d++) {
            if (cuptiGetCallbackName((CUpti_CallbackDomain)d, cbid, &name) == CUPTI_SUCCESS && name) {
                roles[opscope_cupti_api_role(name)]++;
            }
        }
    }
    printf("         launch APIs found by name: %d kernel, %d copy, %d fill, %d graph\n", roles[1], roles[2], roles[3],
           roles[4]);
    eq("kernel and graph launch APIs found by name", roles[OPSCOPE_CUPTI_ROLE_KERNEL] >= 2 && roles[OPSCOPE_CUPTI_ROLE_GRAPH] >= 2, 1);
    printf("%s\n", bad ? "cupti-offsets: MISMATCH: fix src/capture/gpu/cupti_abi.h / cupti_rec.c before trusting any figure"
                       : "cupti-offsets: every offset and value checked equals NVIDIA's headers");
    return bad;
}
