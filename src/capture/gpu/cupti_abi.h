/*
 * cupti_abi.h - the subset of NVIDIA's CUPTI ABI the CUPTI source uses, declared here from
 * NVIDIA's public CUPTI API reference (docs.nvidia.com/cupti: the Activity and Callback API
 * pages, CUpti_ActivityKernel10, CUpti_ActivityMemcpy6, CUpti_ActivityMemset4,
 * CUpti_CallbackData, CUpti_ResourceData, CUpti_GraphData). NVIDIA's headers are not used and
 * not copied: nothing here needs CUDA to build.
 *
 * Only what the source reads is declared. Records are read at byte offsets from a layout
 * chosen by cuptiGetVersion() (cupti_rec.c), never through a struct, so an unchecked CUPTI
 * version is refused instead of misread. tests/cupti_abi/abi_check.c checks every offset,
 * size, enum value and function type below against NVIDIA's real headers (the CUDA toolkit's
 * and Debian's libcupti-dev) in `make test`.
 */
#ifndef OPSCOPE_CUPTI_ABI_H
#define OPSCOPE_CUPTI_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef int opscope_cupti_result;             /* CUptiResult */
#define OPSCOPE_CUPTI_SUCCESS 0
#define OPSCOPE_CUPTI_ERROR_MAX_LIMIT_REACHED 12 /* no more records in the buffer */
#define OPSCOPE_CUPTI_ERROR_NOT_INITIALIZED 15   /* e.g. no CUDA driver (CUPTI 12.4) */
#define OPSCOPE_CUPTI_ERROR_NOT_SUPPORTED 27
#define OPSCOPE_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS 39 /* another subscriber (nsys, ncu) holds CUPTI */
#define OPSCOPE_CUPTI_ERROR_UNKNOWN 999          /* e.g. no CUDA driver (CUPTI 13.0) */

/* Callback ids the source probes per API domain: every id of the runtime, driver and resource
 * domains lies below it (the ABI check compares NVIDIA's *_CBID_SIZE). */
#define OPSCOPE_CUPTI_MAX_CBID 2048

typedef struct opscope_cupti_subscriber *opscope_cupti_subscriber_t; /* CUpti_SubscriberHandle */

/* CUpti_CallbackDomain */
enum {
    OPSCOPE_CUPTI_DOMAIN_DRIVER_API = 1,
    OPSCOPE_CUPTI_DOMAIN_RUNTIME_API = 2,
    OPSCOPE_CUPTI_DOMAIN_RESOURCE = 3,
};

/* CUpti_ApiCallbackSite */
enum { OPSCOPE_CUPTI_API_ENTER = 0, OPSCOPE_CUPTI_API_EXIT = 1 };

/* CUpti_CallbackIdResource: the graph events */
enum {
    OPSCOPE_CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED = 13,
    OPSCOPE_CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED = 18,
    OPSCOPE_CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED = 20,
};

/* CUpti_ActivityKind */
enum {
    OPSCOPE_CUPTI_ACTIVITY_KIND_MEMCPY = 1,
    OPSCOPE_CUPTI_ACTIVITY_KIND_MEMSET = 2,
    OPSCOPE_CUPTI_ACTIVITY_KIND_KERNEL = 3, /* never enabled: it serialises kernels */
    OPSCOPE_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL = 10,
};

/* CUpti_ActivityMemcpyKind: the copy kinds named in the profile (copyKind is one byte) */
enum {
    OPSCOPE_CUPTI_MEMCPY_KIND_HTOD = 1,
    OPSCOPE_CUPTI_MEMCPY_KIND_DTOH = 2,
    OPSCOPE_CUPTI_MEMCPY_KIND_DTOD = 8,
    OPSCOPE_CUPTI_MEMCPY_KIND_PTOP = 10,
};

/* CUgraphNodeType: the node kinds that produce device records */
enum {
    OPSCOPE_CU_GRAPH_NODE_TYPE_KERNEL = 0,
    OPSCOPE_CU_GRAPH_NODE_TYPE_MEMCPY = 1,
    OPSCOPE_CU_GRAPH_NODE_TYPE_MEMSET = 2,
};

/* CUpti_ActivityFlag: cuptiActivityFlushAll's forced flush */
#define OPSCOPE_CUPTI_ACTIVITY_FLAG_FLUSH_FORCED (1u << 0)

/* CUpti_CallbackData (API domains), byte offsets on LP64 */
enum {
    OPSCOPE_CUPTI_CBDATA_SITE = 0,            /* uint32 callbackSite */
    OPSCOPE_CUPTI_CBDATA_FUNCTION_NAME = 8,   /* const char * */
    OPSCOPE_CUPTI_CBDATA_FUNCTION_PARAMS = 16, /* const void *: the API's arguments */
    OPSCOPE_CUPTI_CBDATA_CORRELATION_ID = 64, /* uint32 */
};
/* CUpti_ResourceData: resourceDescriptor (a CUpti_GraphData * for the graph events) */
enum { OPSCOPE_CUPTI_RESDATA_DESCRIPTOR = 16 };
/* CUpti_GraphData */
enum {
    OPSCOPE_CUPTI_GRAPHDATA_GRAPH = 0,          /* CUgraph */
    OPSCOPE_CUPTI_GRAPHDATA_NODE = 16,          /* CUgraphNode */
    OPSCOPE_CUPTI_GRAPHDATA_ORIGINAL_NODE = 24, /* CUgraphNode (CLONED) */
    OPSCOPE_CUPTI_GRAPHDATA_NODE_TYPE = 32,     /* CUgraphNodeType (uint32) */
    OPSCOPE_CUPTI_GRAPHDATA_GRAPH_EXEC = 48,    /* CUgraphExec (GRAPHEXEC_CREATED) */
};

/* The parameters of cudaGraphLaunch and cuGraphLaunch (plain and _ptsz) begin with the
 * executable graph: the source reads the first pointer of CUpti_CallbackData.functionParams. */
enum { OPSCOPE_CUPTI_GRAPH_LAUNCH_EXEC = 0 };

/* The functions, as dlsym finds them in libcupti.so. Each is call-compatible with NVIDIA's
 * declaration (same parameter sizes and classes; enums passed as int, handles as pointers). */
typedef void (*opscope_cupti_callback_fn)(void *userdata, int domain, uint32_t cbid, const void *cbdata);
typedef void (*opscope_cupti_buffer_requested_fn)(uint8_t **buffer, size_t *size, size_t *max_records);
typedef void (*opscope_cupti_buffer_completed_fn)(void *ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                                  size_t valid);
typedef uint64_t (*opscope_cupti_timestamp_fn)(void);

typedef struct opscope_cupti_api {
    opscope_cupti_result (*get_version)(uint32_t *version);
    opscope_cupti_result (*subscribe)(opscope_cupti_subscriber_t *sub, opscope_cupti_callback_fn cb, void *ud);
    opscope_cupti_result (*unsubscribe)(opscope_cupti_subscriber_t sub);
    opscope_cupti_result (*enable_callback)(uint32_t enable, opscope_cupti_subscriber_t sub, int domain, uint32_t cbid);
    opscope_cupti_result (*get_callback_name)(int domain, uint32_t cbid, const char **name);
    opscope_cupti_result (*activity_enable)(int kind);
    opscope_cupti_result (*activity_disable)(int kind);
    opscope_cupti_result (*register_callbacks)(opscope_cupti_buffer_requested_fn req,
                                                opscope_cupti_buffer_completed_fn done);
    opscope_cupti_result (*flush_all)(uint32_t flag);
    opscope_cupti_result (*get_next_record)(uint8_t *buffer, size_t valid, void **record);
    opscope_cupti_result (*get_num_dropped)(void *ctx, uint32_t stream, size_t *dropped);
    opscope_cupti_result (*get_timestamp)(uint64_t *ts);
    opscope_cupti_result (*get_graph_node_id)(void *node, uint64_t *id);
    /* optional (NULL when the library lacks them) */
    opscope_cupti_result (*flush_period)(uint32_t ms);
    opscope_cupti_result (*register_timestamp)(opscope_cupti_timestamp_fn fn);
    opscope_cupti_result (*get_result_string)(opscope_cupti_result rc, const char **str);
} opscope_cupti_api;

#endif
