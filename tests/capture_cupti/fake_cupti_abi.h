/*
 * fake_cupti_abi.h - the structs and constants of the fake libcupti (fake_cupti.c), written
 * from NVIDIA's documented field order and values, never from opscope's offsets. Shared with
 * tests/cupti_abi/abi_check.c, which checks each field's offset and size and each value
 * against NVIDIA's real headers, so the fake cannot drift from what it stands for.
 */
#ifndef FAKE_CUPTI_ABI_H
#define FAKE_CUPTI_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef void (*cb_fn)(void *ud, int domain, uint32_t cbid, const void *cbdata);
typedef void (*req_fn)(uint8_t **buffer, size_t *size, size_t *max_records);
typedef void (*done_fn)(void *ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid);
typedef uint64_t (*ts_fn)(void);

/* NVIDIA's documented layouts (CUpti_CallbackData, CUpti_ResourceData, CUpti_GraphData, the
 * kernel, memcpy and memset records), up to the last field used. */
typedef struct {
    uint32_t site;
    const char *function_name;
    const void *function_params;
    void *return_value;
    const char *symbol_name;
    void *context;
    uint32_t context_uid;
    uint64_t *correlation_data;
    uint32_t correlation_id;
} cb_data;
typedef struct {
    void *context;
    void *stream;
    void *descriptor;
} res_data;
typedef struct {
    void *graph, *original_graph, *node, *original_node;
    uint32_t node_type;
    void *dependency;
    void *graph_exec;
} graph_data;
typedef struct {
    uint32_t kind;
    uint8_t cache_config, shared_config;
    uint16_t registers;
    uint32_t pgc_req, pgc_exec;
    uint64_t start, end, completed;
    uint32_t device, context, stream;
    int32_t grid[3], block[3], static_shared, dynamic_shared;
    uint32_t local_per_thread, local_total, correlation_id;
    int64_t grid_id;
    const char *name;
    void *reserved0;
    uint64_t queued, submitted;
    uint8_t launch_type, carveout_flag, carveout, padding;
    uint32_t shared_executed;
    uint64_t graph_node_id;
    uint32_t shmem_limit, graph_id;
    void *access_policy;
    uint8_t tail[64]; /* the fields after graphId, unused */
} rec_kernel;
typedef struct {
    uint32_t kind, value;
    uint64_t bytes, start, end;
    uint32_t device, context, stream, correlation_id;
    uint16_t flags, memory_kind;
    uint32_t pad;
    void *reserved0;
    uint64_t graph_node_id;
    uint32_t graph_id, tail[5];
} rec_memset;

/* CUDA graph launches' parameters (cudaGraphLaunch_v10000_params, cuGraphLaunch_params) */
typedef struct {
    void *exec, *stream;
} graph_launch_params;

/* CUptiResult values, activity kinds, resource callback ids, CUgraphNodeType values */
enum { ERR_INVALID_PARAMETER = 1, ERR_MAX_LIMIT_REACHED = 12, ERR_NOT_INITIALIZED = 15, ERR_NOT_SUPPORTED = 27,
       ERR_MULTIPLE_SUBSCRIBERS = 39, ERR_UNKNOWN = 999 };
enum { CBID_GRAPHNODE_CREATED = 13, CBID_GRAPHEXEC_CREATED = 18, CBID_GRAPHNODE_CLONED = 20 };
enum { NODE_KERNEL = 0, NODE_MEMSET = 2 };
enum { KIND_KERNEL = 3, KIND_MEMSET = 2, KIND_CONC_KERNEL = 10, DOM_DRIVER = 1, DOM_RUNTIME = 2, DOM_RESOURCE = 3 };
enum { RT_LAUNCH = 1, RT_GRAPH_LAUNCH = 2, RT_MEMSET = 3, RT_SYNC = 4, RT_BEGIN_CAPTURE = 5, RT_END_CAPTURE = 6,
       DRV_LAUNCH = 7, DRV_GRAPH = 8, DRV_MEMSET = 9 };

#endif
