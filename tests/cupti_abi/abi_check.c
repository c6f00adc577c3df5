/*
 * abi_check.c - opscope's declared CUPTI subset (src/capture/gpu/cupti_abi.h, the record
 * layouts of cupti_rec.c) and the fake libcupti's structs (tests/capture_cupti/
 * fake_cupti_abi.h) checked against NVIDIA's real headers and the loaded libcupti. Built by
 * tests/cupti_abi/run.sh once per header set found (a CUDA toolkit, Debian's libcupti-dev),
 * and by scripts/device/cupti-check.sh on the GPU machine.
 *
 * What is checked, each value printed: every field offset the source or the fake reads and
 * its size, CUpti_Activity.kind at 0, enum sizes, every constant (result codes, domains,
 * callback ids, activity kinds, memcpy kinds, graph node types), the executable graph as
 * first pointer of the graph launch parameters, callback ids below OPSCOPE_CUPTI_MAX_CBID,
 * and each function type: opscope's and NVIDIA's declarations are the ones listed here
 * (compile-time type compatibility), and each return and parameter pair has the same size and
 * class (integer/enum or pointer), so a call through opscope's type is a call of NVIDIA's.
 *
 * Output: one line per check ("ok" or "MISMATCH"), then "abi_check: N checks, M mismatches";
 * exit 1 on any mismatch. -DOPSCOPE_ABI_INJECT shifts one declared offset (the kernel
 * record's correlationId, by 4): run.sh asserts that this build reports exactly that one.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h> /* includes the launch APIs' parameter structs (generated_cuda*_meta.h) */
#include <stddef.h>
#include <stdio.h>

#include "capture/gpu/cupti_abi.h"
#include "capture/gpu/cupti_names.h"
#include "capture/gpu/cupti_rec.h"
#include "fake_cupti_abi.h"

static int n_checks, n_bad;

static void eq(const char *what, long real, long ours) {
    printf("%-8s %-72s real %7ld  opscope %7ld\n", real == ours ? "ok" : "MISMATCH", what, real, ours);
    n_checks++;
    n_bad += real != ours;
}

/* __builtin_classify_type: 1 integer, 3 enum, 4 bool, 5 pointer. Integers, enums and bools are
 * passed alike (the integer class of the SysV ABI). */
static long cls(int c) {
    return c == 3 || c == 4 ? 1 : c;
}
#define CLS(T) cls(__builtin_classify_type((T)0))
#define FSIZE(T, f) ((long)sizeof(((T *)0)->f))

/* the offset of field F of T against OURS; its size against OURS_SIZE */
#define OFF(T, f, ours) eq(#T "." #f " offset", (long)offsetof(T, f), (long)(ours))
#define OFFS(T, f, ours, ours_size)                                                                                    \
    do {                                                                                                               \
        OFF(T, f, ours);                                                                                               \
        eq(#T "." #f " size", FSIZE(T, f), (long)(ours_size));                                                        \
    } while (0)
#define VAL(name, ours) eq(#name, (long)(name), (long)(ours))
#define SIZE(T, ours_size) eq("sizeof " #T, (long)sizeof(T), (long)(ours_size))
/* fake_cupti_abi.h's field FF of FT against NVIDIA's field RF of RT: offset and size */
#define FAKE(FT, ff, RT, rf)                                                                                           \
    do {                                                                                                               \
        eq("fake " #FT "." #ff " offset = " #RT "." #rf, (long)offsetof(RT, rf), (long)offsetof(FT, ff));            \
        eq("fake " #FT "." #ff " size = " #RT "." #rf, FSIZE(RT, rf), FSIZE(FT, ff));                                \
    } while (0)
/* a function type: opscope's expression OE has type OT, NVIDIA's RE has RT (both spelled out
 * below, so neither declaration can change unseen) */
#define SIG(what, oe, OT, re, RT)                                                                                      \
    do {                                                                                                               \
        eq(what ": opscope's type is as listed", __builtin_types_compatible_p(__typeof__(oe), OT), 1);                \
        eq(what ": NVIDIA's type is as listed", __builtin_types_compatible_p(__typeof__(re), RT), 1);                 \
    } while (0)
/* one return value or parameter: NVIDIA's type R, opscope's O */
#define ARG(what, R, O)                                                                                                \
    do {                                                                                                               \
        eq(what " size", (long)sizeof(R), (long)sizeof(O));                                                            \
        eq(what " class", CLS(R), CLS(O));                                                                             \
    } while (0)

#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 kernel_rec; /* CUDA 13.0 */
#else
typedef CUpti_ActivityKernel9 kernel_rec; /* CUDA 12.x */
#endif
#if CUPTI_API_VERSION >= 26
typedef CUpti_ActivityMemcpy6 memcpy_rec; /* CUDA 12.8 on */
#else
typedef CUpti_ActivityMemcpy5 memcpy_rec;
#endif
typedef CUpti_ActivityMemset4 memset_rec;

static void records(const opscope_cupti_layout *l) {
    OFFS(CUpti_Activity, kind, 0, sizeof(uint32_t));
    SIZE(CUpti_ActivityKind, sizeof(uint32_t));
    OFFS(kernel_rec, kind, 0, sizeof(uint32_t));
    OFFS(kernel_rec, start, l->k_start, sizeof(uint64_t));
    OFFS(kernel_rec, end, l->k_end, sizeof(uint64_t));
    OFFS(kernel_rec, streamId, l->k_stream, sizeof(uint32_t));
    OFFS(kernel_rec, correlationId, l->k_corr, sizeof(uint32_t));
    OFFS(kernel_rec, name, l->k_name, sizeof(const char *));
    OFFS(kernel_rec, graphNodeId, l->k_graph_node, sizeof(uint64_t));
    OFFS(kernel_rec, graphId, l->k_graph_id, sizeof(uint32_t));
    eq("sizeof kernel record >= opscope's k_size", sizeof(kernel_rec) >= l->k_size, 1);
    OFFS(memcpy_rec, kind, 0, sizeof(uint32_t));
    OFFS(memcpy_rec, copyKind, l->c_kind, sizeof(uint8_t));
    OFFS(memcpy_rec, bytes, l->c_bytes, sizeof(uint64_t));
    OFFS(memcpy_rec, start, l->c_start, sizeof(uint64_t));
    OFFS(memcpy_rec, end, l->c_end, sizeof(uint64_t));
    OFFS(memcpy_rec, streamId, l->c_stream, sizeof(uint32_t));
    OFFS(memcpy_rec, correlationId, l->c_corr, sizeof(uint32_t));
    OFFS(memcpy_rec, graphNodeId, l->c_graph_node, sizeof(uint64_t));
    eq("sizeof memcpy record >= opscope's c_size", sizeof(memcpy_rec) >= l->c_size, 1);
    OFFS(memset_rec, kind, 0, sizeof(uint32_t));
    OFFS(memset_rec, bytes, l->s_bytes, sizeof(uint64_t));
    OFFS(memset_rec, start, l->s_start, sizeof(uint64_t));
    OFFS(memset_rec, end, l->s_end, sizeof(uint64_t));
    OFFS(memset_rec, streamId, l->s_stream, sizeof(uint32_t));
    OFFS(memset_rec, correlationId, l->s_corr, sizeof(uint32_t));
    OFFS(memset_rec, graphNodeId, l->s_graph_node, sizeof(uint64_t));
    eq("sizeof memset record >= opscope's s_size", sizeof(memset_rec) >= l->s_size, 1);
}

static void callback_data(void) {
    OFFS(CUpti_CallbackData, callbackSite, OPSCOPE_CUPTI_CBDATA_SITE, sizeof(uint32_t));
    OFFS(CUpti_CallbackData, functionName, OPSCOPE_CUPTI_CBDATA_FUNCTION_NAME, sizeof(void *));
    OFFS(CUpti_CallbackData, functionParams, OPSCOPE_CUPTI_CBDATA_FUNCTION_PARAMS, sizeof(void *));
    OFFS(CUpti_CallbackData, correlationId, OPSCOPE_CUPTI_CBDATA_CORRELATION_ID, sizeof(uint32_t));
    OFFS(CUpti_ResourceData, resourceDescriptor, OPSCOPE_CUPTI_RESDATA_DESCRIPTOR, sizeof(void *));
    OFFS(CUpti_GraphData, graph, OPSCOPE_CUPTI_GRAPHDATA_GRAPH, sizeof(void *));
    OFFS(CUpti_GraphData, node, OPSCOPE_CUPTI_GRAPHDATA_NODE, sizeof(void *));
    OFFS(CUpti_GraphData, originalNode, OPSCOPE_CUPTI_GRAPHDATA_ORIGINAL_NODE, sizeof(void *));
    OFFS(CUpti_GraphData, nodeType, OPSCOPE_CUPTI_GRAPHDATA_NODE_TYPE, sizeof(uint32_t));
    OFFS(CUpti_GraphData, graphExec, OPSCOPE_CUPTI_GRAPHDATA_GRAPH_EXEC, sizeof(void *));
    /* the executable graph: the first pointer of every graph launch's parameters */
    OFFS(cudaGraphLaunch_v10000_params, graphExec, OPSCOPE_CUPTI_GRAPH_LAUNCH_EXEC, sizeof(void *));
    OFFS(cudaGraphLaunch_ptsz_v10000_params, graphExec, OPSCOPE_CUPTI_GRAPH_LAUNCH_EXEC, sizeof(void *));
    OFFS(cuGraphLaunch_params, hGraph, OPSCOPE_CUPTI_GRAPH_LAUNCH_EXEC, sizeof(void *));
    OFFS(cuGraphLaunch_ptsz_params, hGraphExec, OPSCOPE_CUPTI_GRAPH_LAUNCH_EXEC, sizeof(void *));
    eq("cudaGraphExec_t is a pointer", CLS(cudaGraphExec_t), 5);
    eq("CUgraphExec is a pointer", CLS(CUgraphExec), 5);
    eq("cudaGraphExec_t is CUgraphExec", __builtin_types_compatible_p(cudaGraphExec_t, CUgraphExec), 1);
}

static void values(void) {
    VAL(CUPTI_SUCCESS, OPSCOPE_CUPTI_SUCCESS);
    VAL(CUPTI_ERROR_MAX_LIMIT_REACHED, OPSCOPE_CUPTI_ERROR_MAX_LIMIT_REACHED);
    VAL(CUPTI_ERROR_NOT_INITIALIZED, OPSCOPE_CUPTI_ERROR_NOT_INITIALIZED);
    VAL(CUPTI_ERROR_NOT_SUPPORTED, OPSCOPE_CUPTI_ERROR_NOT_SUPPORTED);
    VAL(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, OPSCOPE_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS);
    VAL(CUPTI_ERROR_UNKNOWN, OPSCOPE_CUPTI_ERROR_UNKNOWN);
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
    VAL(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, OPSCOPE_CUPTI_MEMCPY_KIND_HTOD);
    VAL(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, OPSCOPE_CUPTI_MEMCPY_KIND_DTOH);
    VAL(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, OPSCOPE_CUPTI_MEMCPY_KIND_DTOD);
    VAL(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, OPSCOPE_CUPTI_MEMCPY_KIND_PTOP);
    VAL(CU_GRAPH_NODE_TYPE_KERNEL, OPSCOPE_CU_GRAPH_NODE_TYPE_KERNEL);
    VAL(CU_GRAPH_NODE_TYPE_MEMCPY, OPSCOPE_CU_GRAPH_NODE_TYPE_MEMCPY);
    VAL(CU_GRAPH_NODE_TYPE_MEMSET, OPSCOPE_CU_GRAPH_NODE_TYPE_MEMSET);
    /* enums the source passes or reads as 32-bit integers */
    SIZE(CUptiResult, sizeof(opscope_cupti_result));
    SIZE(CUpti_CallbackDomain, sizeof(int));
    SIZE(CUpti_CallbackId, sizeof(uint32_t));
    SIZE(CUpti_ApiCallbackSite, sizeof(uint32_t));
    SIZE(CUpti_CallbackIdResource, sizeof(uint32_t));
    SIZE(CUpti_ActivityFlag, sizeof(uint32_t));
    SIZE(CUgraphNodeType, sizeof(uint32_t));
    /* every callback id of the domains the source probes lies below OPSCOPE_CUPTI_MAX_CBID */
    eq("CUPTI_RUNTIME_TRACE_CBID_SIZE <= OPSCOPE_CUPTI_MAX_CBID", CUPTI_RUNTIME_TRACE_CBID_SIZE <= OPSCOPE_CUPTI_MAX_CBID, 1);
    eq("CUPTI_DRIVER_TRACE_CBID_SIZE <= OPSCOPE_CUPTI_MAX_CBID", CUPTI_DRIVER_TRACE_CBID_SIZE <= OPSCOPE_CUPTI_MAX_CBID, 1);
    eq("CUPTI_CBID_RESOURCE_SIZE <= OPSCOPE_CUPTI_MAX_CBID", CUPTI_CBID_RESOURCE_SIZE <= OPSCOPE_CUPTI_MAX_CBID, 1);
    printf("         callback id counts: runtime %d, driver %d, resource %d (probed below %d)\n",
           (int)CUPTI_RUNTIME_TRACE_CBID_SIZE, (int)CUPTI_DRIVER_TRACE_CBID_SIZE, (int)CUPTI_CBID_RESOURCE_SIZE,
           OPSCOPE_CUPTI_MAX_CBID);
}

static void functions(void) {
    const opscope_cupti_api *a = NULL;
    typedef opscope_cupti_result R;
    typedef opscope_cupti_subscriber_t S;
    ARG("CUptiResult return", CUptiResult, R);
    SIG("cuptiGetVersion", a->get_version, R(*)(uint32_t *), &cuptiGetVersion, CUptiResult(*)(uint32_t *));
    SIG("cuptiSubscribe", a->subscribe, R(*)(S *, opscope_cupti_callback_fn, void *), &cuptiSubscribe,
        CUptiResult(*)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *));
    ARG("cuptiSubscribe subscriber", CUpti_SubscriberHandle *, S *);
    ARG("cuptiSubscribe callback", CUpti_CallbackFunc, opscope_cupti_callback_fn);
    SIG("cuptiUnsubscribe", a->unsubscribe, R(*)(S), &cuptiUnsubscribe, CUptiResult(*)(CUpti_SubscriberHandle));
    ARG("cuptiUnsubscribe subscriber", CUpti_SubscriberHandle, S);
    SIG("cuptiEnableCallback", a->enable_callback, R(*)(uint32_t, S, int, uint32_t), &cuptiEnableCallback,
        CUptiResult(*)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId));
    ARG("cuptiEnableCallback subscriber", CUpti_SubscriberHandle, S);
    ARG("cuptiEnableCallback domain", CUpti_CallbackDomain, int);
    ARG("cuptiEnableCallback cbid", CUpti_CallbackId, uint32_t);
    SIG("cuptiGetCallbackName", a->get_callback_name, R(*)(int, uint32_t, const char **), &cuptiGetCallbackName,
        CUptiResult(*)(CUpti_CallbackDomain, uint32_t, const char **));
    ARG("cuptiGetCallbackName domain", CUpti_CallbackDomain, int);
    SIG("cuptiActivityEnable", a->activity_enable, R(*)(int), &cuptiActivityEnable, CUptiResult(*)(CUpti_ActivityKind));
    SIG("cuptiActivityDisable", a->activity_disable, R(*)(int), &cuptiActivityDisable,
        CUptiResult(*)(CUpti_ActivityKind));
    ARG("cuptiActivityEnable/Disable kind", CUpti_ActivityKind, int);
    SIG("cuptiActivityRegisterCallbacks", a->register_callbacks,
        R(*)(opscope_cupti_buffer_requested_fn, opscope_cupti_buffer_completed_fn), &cuptiActivityRegisterCallbacks,
        CUptiResult(*)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc));
    ARG("cuptiActivityRegisterCallbacks requested", CUpti_BuffersCallbackRequestFunc, opscope_cupti_buffer_requested_fn);
    ARG("cuptiActivityRegisterCallbacks completed", CUpti_BuffersCallbackCompleteFunc, opscope_cupti_buffer_completed_fn);
    SIG("cuptiActivityFlushAll", a->flush_all, R(*)(uint32_t), &cuptiActivityFlushAll, CUptiResult(*)(uint32_t));
    SIG("cuptiActivityGetNextRecord", a->get_next_record, R(*)(uint8_t *, size_t, void **), &cuptiActivityGetNextRecord,
        CUptiResult(*)(uint8_t *, size_t, CUpti_Activity **));
    ARG("cuptiActivityGetNextRecord record", CUpti_Activity **, void **);
    SIG("cuptiActivityGetNumDroppedRecords", a->get_num_dropped, R(*)(void *, uint32_t, size_t *),
        &cuptiActivityGetNumDroppedRecords, CUptiResult(*)(CUcontext, uint32_t, size_t *));
    ARG("cuptiActivityGetNumDroppedRecords context", CUcontext, void *);
    SIG("cuptiGetTimestamp", a->get_timestamp, R(*)(uint64_t *), &cuptiGetTimestamp, CUptiResult(*)(uint64_t *));
    SIG("cuptiGetGraphNodeId", a->get_graph_node_id, R(*)(void *, uint64_t *), &cuptiGetGraphNodeId,
        CUptiResult(*)(CUgraphNode, uint64_t *));
    ARG("cuptiGetGraphNodeId node", CUgraphNode, void *);
    SIG("cuptiActivityFlushPeriod", a->flush_period, R(*)(uint32_t), &cuptiActivityFlushPeriod, CUptiResult(*)(uint32_t));
    SIG("cuptiActivityRegisterTimestampCallback", a->register_timestamp, R(*)(opscope_cupti_timestamp_fn),
        &cuptiActivityRegisterTimestampCallback, CUptiResult(*)(CUpti_TimestampCallbackFunc));
    SIG("cuptiGetResultString", a->get_result_string, R(*)(R, const char **), &cuptiGetResultString,
        CUptiResult(*)(CUptiResult, const char **));
    ARG("cuptiGetResultString result", CUptiResult, R);
    /* the callbacks CUPTI calls, as opscope defines them */
    opscope_cupti_callback_fn cb = NULL;
    CUpti_CallbackFunc ncb = NULL;
    SIG("CUpti_CallbackFunc", cb, void (*)(void *, int, uint32_t, const void *), ncb,
        void (*)(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *));
    ARG("CUpti_CallbackFunc domain", CUpti_CallbackDomain, int);
    ARG("CUpti_CallbackFunc cbid", CUpti_CallbackId, uint32_t);
    opscope_cupti_buffer_requested_fn req = NULL;
    CUpti_BuffersCallbackRequestFunc nreq = NULL;
    SIG("CUpti_BuffersCallbackRequestFunc", req, void (*)(uint8_t **, size_t *, size_t *), nreq,
        void (*)(uint8_t **, size_t *, size_t *));
    opscope_cupti_buffer_completed_fn done = NULL;
    CUpti_BuffersCallbackCompleteFunc ndone = NULL;
    SIG("CUpti_BuffersCallbackCompleteFunc", done, void (*)(void *, uint32_t, uint8_t *, size_t, size_t), ndone,
        void (*)(CUcontext, uint32_t, uint8_t *, size_t, size_t));
    ARG("CUpti_BuffersCallbackCompleteFunc context", CUcontext, void *);
    opscope_cupti_timestamp_fn ts = NULL;
    CUpti_TimestampCallbackFunc nts = NULL;
    SIG("CUpti_TimestampCallbackFunc", ts, uint64_t (*)(void), nts, uint64_t (*)(void));
}

/* The fake libcupti (tests/capture_cupti) stands for the real one only if its structs and
 * constants are NVIDIA's. */
static void fake(void) {
    FAKE(cb_data, site, CUpti_CallbackData, callbackSite);
    FAKE(cb_data, function_name, CUpti_CallbackData, functionName);
    FAKE(cb_data, function_params, CUpti_CallbackData, functionParams);
    FAKE(cb_data, correlation_id, CUpti_CallbackData, correlationId);
    FAKE(res_data, descriptor, CUpti_ResourceData, resourceDescriptor);
    FAKE(graph_data, graph, CUpti_GraphData, graph);
    FAKE(graph_data, node, CUpti_GraphData, node);
    FAKE(graph_data, original_node, CUpti_GraphData, originalNode);
    FAKE(graph_data, node_type, CUpti_GraphData, nodeType);
    FAKE(graph_data, graph_exec, CUpti_GraphData, graphExec);
    FAKE(graph_launch_params, exec, cudaGraphLaunch_v10000_params, graphExec);
    FAKE(rec_kernel, kind, kernel_rec, kind);
    FAKE(rec_kernel, start, kernel_rec, start);
    FAKE(rec_kernel, end, kernel_rec, end);
    FAKE(rec_kernel, stream, kernel_rec, streamId);
    FAKE(rec_kernel, correlation_id, kernel_rec, correlationId);
    FAKE(rec_kernel, name, kernel_rec, name);
    FAKE(rec_kernel, graph_node_id, kernel_rec, graphNodeId);
    FAKE(rec_kernel, graph_id, kernel_rec, graphId);
    FAKE(rec_memset, kind, memset_rec, kind);
    FAKE(rec_memset, bytes, memset_rec, bytes);
    FAKE(rec_memset, start, memset_rec, start);
    FAKE(rec_memset, end, memset_rec, end);
    FAKE(rec_memset, stream, memset_rec, streamId);
    FAKE(rec_memset, correlation_id, memset_rec, correlationId);
    FAKE(rec_memset, graph_node_id, memset_rec, graphNodeId);
    eq("fake sizeof rec_kernel >= the kernel record", sizeof(rec_kernel) >= sizeof(kernel_rec), 1);
    eq("fake sizeof rec_memset >= the memset record", sizeof(rec_memset) >= sizeof(memset_rec), 1);
    VAL(CUPTI_ERROR_INVALID_PARAMETER, ERR_INVALID_PARAMETER);
    VAL(CUPTI_ERROR_MAX_LIMIT_REACHED, ERR_MAX_LIMIT_REACHED);
    VAL(CUPTI_ERROR_NOT_INITIALIZED, ERR_NOT_INITIALIZED);
    VAL(CUPTI_ERROR_NOT_SUPPORTED, ERR_NOT_SUPPORTED);
    VAL(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, ERR_MULTIPLE_SUBSCRIBERS);
    VAL(CUPTI_ERROR_UNKNOWN, ERR_UNKNOWN);
    VAL(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, CBID_GRAPHNODE_CREATED);
    VAL(CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED, CBID_GRAPHEXEC_CREATED);
    VAL(CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED, CBID_GRAPHNODE_CLONED);
    VAL(CU_GRAPH_NODE_TYPE_KERNEL, NODE_KERNEL);
    VAL(CU_GRAPH_NODE_TYPE_MEMSET, NODE_MEMSET);
    VAL(CUPTI_ACTIVITY_KIND_KERNEL, KIND_KERNEL);
    VAL(CUPTI_ACTIVITY_KIND_MEMSET, KIND_MEMSET);
    VAL(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, KIND_CONC_KERNEL);
    VAL(CUPTI_CB_DOMAIN_DRIVER_API, DOM_DRIVER);
    VAL(CUPTI_CB_DOMAIN_RUNTIME_API, DOM_RUNTIME);
    VAL(CUPTI_CB_DOMAIN_RESOURCE, DOM_RESOURCE);
}

/* The launch APIs the source finds by name, as this libcupti names them (no GPU needed). */
static void names(void) {
    const char *name = NULL;
    VAL(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &name), 0);
    printf("         runtime cudaLaunchKernel is named \"%s\"\n", name ? name : "(null)");
    VAL(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, &name), 0);
    printf("         runtime cudaGraphLaunch is named \"%s\"\n", name ? name : "(null)");
    int roles[8] = {0};
    for (uint32_t cbid = 1; cbid < OPSCOPE_CUPTI_MAX_CBID; cbid++) {
        for (int d = CUPTI_CB_DOMAIN_DRIVER_API; d <= CUPTI_CB_DOMAIN_RUNTIME_API; d++) {
            name = NULL;
            if (cuptiGetCallbackName((CUpti_CallbackDomain)d, cbid, &name) == CUPTI_SUCCESS && name) {
                roles[opscope_cupti_api_role(name)]++;
            }
        }
    }
    printf("         launch APIs found by name: %d kernel, %d copy, %d fill, %d graph\n", roles[OPSCOPE_CUPTI_ROLE_KERNEL],
           roles[OPSCOPE_CUPTI_ROLE_COPY], roles[OPSCOPE_CUPTI_ROLE_FILL], roles[OPSCOPE_CUPTI_ROLE_GRAPH]);
    eq("kernel launch APIs found by name >= 2", roles[OPSCOPE_CUPTI_ROLE_KERNEL] >= 2, 1);
    eq("graph launch APIs found by name >= 2", roles[OPSCOPE_CUPTI_ROLE_GRAPH] >= 2, 1);
}

int main(void) {
    uint32_t version = 0;
    CUptiResult rc = cuptiGetVersion(&version);
    printf("CUPTI_API_VERSION (headers) %d, cuptiGetVersion() %u (rc %d)\n", (int)CUPTI_API_VERSION, version, (int)rc);
    eq("cuptiGetVersion() == CUPTI_API_VERSION", (long)version, (long)CUPTI_API_VERSION);
    const opscope_cupti_layout *known = opscope_cupti_layout_for(CUPTI_API_VERSION);
    eq("opscope has a layout for this version", known != NULL, 1);
    if (!known) {
        printf("abi_check: no opscope layout for CUPTI %d: add one to src/capture/gpu/cupti_rec.c\n",
               (int)CUPTI_API_VERSION);
        return 1;
    }
    opscope_cupti_layout l = *known;
#ifdef OPSCOPE_ABI_INJECT
    l.k_corr += 4; /* a wrong declared offset: the check must catch it */
    printf("INJECTED: kernel correlationId declared at %u\n", l.k_corr);
#endif
    char vname[96];
    opscope_cupti_version_name(version, vname, sizeof vname);
    printf("opscope layout: %s; running %s\n", l.what, vname);
    records(&l);
    callback_data();
    values();
    functions();
    fake();
    names();
    printf("abi_check: %d checks, %d mismatches (CUPTI API version %d)\n", n_checks, n_bad, (int)CUPTI_API_VERSION);
    return n_bad ? 1 : 0;
}
