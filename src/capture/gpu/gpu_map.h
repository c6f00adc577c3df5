/*
 * gpu_map.h - device work to graph nodes, for any GPU backend (internal; pure: no ggml, no
 * Vulkan, no global state, so it is unit-tested on the host with real dispatch streams).
 *
 * A GPU backend computes a graph by recording device work node after node: a node gives one
 * main kernel, sometimes helpers before it (src1 quantization, staging) or after it (split-k
 * reduce), none when the backend fused it into a neighbour or it computes nothing. The
 * mapping reads the kernels' names in recording order and walks the nodes alongside: a
 * kernel whose name implements the op of a node a little ahead starts that node's group; the
 * nodes it jumped over belong to the group before (fused). Names are matched by the longest
 * prefix among the backend's rules and the graph's own op names in lower case ("add_f32" ->
 * ADD, "mul_mat_vec_f32" -> MUL_MAT through a rule), so an op the rules do not know still
 * maps when its kernel is named after it.
 *
 * When the program labels its nodes (ggml-vulkan with GGML_VK_DEBUG_MARKERS: "OP+OP+... name"
 * around every node's commands, helpers included), the labels decide instead: exact, fused
 * ranges included; items without a label join the group next to them.
 */
#ifndef OPSCOPE_GPU_MAP_H
#define OPSCOPE_GPU_MAP_H

#include "capture/gpu/gpu_source.h"
#include "model/ggml_vocab.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum opscope_gpu_role {
    OPSCOPE_GPU_ROLE_MAIN = 0, /* implements the ops listed in the rule */
    OPSCOPE_GPU_ROLE_PRE,      /* a helper of the next main kernel (quantize src1, staging) */
    OPSCOPE_GPU_ROLE_POST,     /* a helper of the main kernel before it (split-k reduce) */
} opscope_gpu_role;

/* The most ops one rule names. */
#define OPSCOPE_GPU_RULE_OPS 5

/* A backend's naming rule: kernels whose name starts with PREFIX (followed by '_', a digit or
 * the end) implement one of OPS, ggml op values (model/ggml_vocab.h), the unused ones 0
 * (OPSCOPE_GGML_OP_NONE, which computes nothing, so no kernel implements it). */
typedef struct opscope_gpu_rule {
    const char *prefix;
    opscope_ggml_op ops[OPSCOPE_GPU_RULE_OPS];
    opscope_gpu_role role;
} opscope_gpu_rule;

typedef struct opscope_gpu_node opscope_gpu_node;
typedef struct opscope_gpu_group opscope_gpu_group;

typedef struct opscope_gpu_rules {
    const opscope_gpu_rule *rule;
    int n;
    /* The backend's own name for a fused group when it has one ("MULTI_ADD"), else NULL. */
    const char *(*group_name)(const opscope_gpu_node *nodes, const opscope_gpu_group *g);
    /* The last node a main kernel named NAME computes when it starts node J's group: J, or
     * further when its name says it fused the nodes after J (ggml-cuda's mul_mat_vec_q with
     * has_fusion set: the up projection, the gate and the GLU). NULL: J. */
    int (*fused_after)(const char *name, const opscope_gpu_node *nodes, int n_nodes, int j);
} opscope_gpu_rules;

/* The rules for a source by name ("vulkan"); NULL when there are none (names alone). */
const opscope_gpu_rules *opscope_gpu_rules_for(const char *source);

/* A node as the mapping needs it. */
struct opscope_gpu_node {
    const char *op;  /* ggml op name, e.g. "MUL_MAT" */
    const char *name; /* the tensor's name (labels name nodes by it), or NULL */
    const char *sub; /* UNARY/GLU function ("SILU", "SWIGLU"), else NULL */
    bool empty;      /* computes nothing (views, NONE, not flagged for compute) */
};

/* One record's worth: the nodes [first, last] (empty ones included), described by node MAIN,
 * timed by the items [item0, item0 + n_items). */
struct opscope_gpu_group {
    int32_t first, last, main;
    int32_t item0, n_items;
    int32_t n_main;  /* items that are not helpers or transfers (kernels of the op itself) */
};

/*
 * Maps N_ITEMS items (recording order) of one graph compute onto its N_NODES nodes. Writes
 * at most MAX_GROUPS groups (N_ITEMS + 1 always suffice) in node order and returns how many,
 * or -1 when GROUPS is too small. Items that belong to no node (a graph without nodes) get no
 * group: the return is 0. Every non-empty node lies in exactly one group's range when the
 * return is positive. Thread safety: reentrant.
 */
int opscope_gpu_map(const opscope_gpu_rules *rules, const opscope_gpu_node *nodes, int n_nodes,
                    const opscope_gpu_item *items, int n_items, opscope_gpu_group *groups, int max_groups);

/* The name of fused group G: the backend's own (RULES' group_name: ggml-vulkan's
 * GGML_VK_PERF_LOGGER names, "MULTI_ADD", "TOPK_MOE_EARLY_SOFTMAX_NORM") or the op names of its
 * nodes joined by '_' ("RMS_NORM_MUL", "ROPE_VIEW_SET_ROWS"). Writes at most SIZE bytes
 * (truncated, NUL-terminated). RULES may be NULL. */
void opscope_gpu_group_name(const opscope_gpu_rules *rules, const opscope_gpu_node *nodes, const opscope_gpu_group *g,
                            char *buf, size_t size);

/*
 * Splits the intervals several consecutive groups share. A source that times a concurrent
 * group of nodes as one interval (the Vulkan layer's OPSCOPE_VK_GROUP=1: the nodes recorded
 * between two barriers) gives each of them the same [S, E]; the rule that splits it: the
 * groups of a run of equal intervals get consecutive slices, in node order, each in
 * proportion to W (the node's output bytes: decode is bound by memory traffic, and a
 * matrix-vector product's output grows with its weight rows), equal slices when every W is 0.
 * S, E: N groups' device start and end (rewritten); W: their weights. Pure; reentrant.
 */
void opscope_gpu_split_shared(uint64_t *s, uint64_t *e, const uint64_t *w, int n);

#endif
