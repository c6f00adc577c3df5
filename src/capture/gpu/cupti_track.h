/*
 * cupti_track.h - which graph compute launched each CUPTI record, and where in it (internal;
 * pure: no CUDA, unit-tested on the host with the event orders CUPTI produces).
 *
 * Every launch the program makes under a capture scope takes the next places ("seq") of that
 * scope: one for a kernel, copy or fill, as many as the executable graph has device nodes for
 * a CUDA graph launch. A record comes back with the correlation id of the call that launched
 * it, and for a graph replay the id of the executable graph's node; the node's place is the
 * order in which the captured graph's node was created (GRAPHNODE_CREATED during stream
 * capture), carried over to the executable graph's copies (GRAPHNODE_CLONED at instantiation).
 * An exec updated in place (cudaGraphExecUpdate) keeps its nodes, so its places stay.
 *
 * Memory is bounded: fixed tables, the oldest entries overwritten. A record whose launch was
 * forgotten is placed nowhere (scope 0). Thread safety: every function may be called from
 * any thread (one mutex).
 */
#ifndef OPSCOPE_CUPTI_TRACK_H
#define OPSCOPE_CUPTI_TRACK_H

#include "capture/gpu/cupti_names.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct opscope_cupti_track opscope_cupti_track_t;

/* The capture's untimed scope (gpu_source.h's OPSCOPE_GPU_SCOPE_UNTIMED): launches under it
 * take no places; their records are placed there, for the source to drop. */
#define OPSCOPE_CUPTI_SCOPE_UNTIMED UINT64_MAX

/* A new tracker, NULL when out of memory. Free with opscope_cupti_track_free (NULL ok). */
opscope_cupti_track_t *opscope_cupti_track_new(void);
void opscope_cupti_track_free(opscope_cupti_track_t *t);

/* The API call CORR (a launch of ROLE) began under SCOPE (0: outside any scope, not tracked;
 * OPSCOPE_CUPTI_SCOPE_UNTIMED: known only to be dropped).
 * EXEC: the executable graph of a GRAPH launch. Returns false when SCOPE's count became
 * unknown (an exec never seen instantiated): the scope then ends with 0 items. */
bool opscope_cupti_track_launch(opscope_cupti_track_t *t, uint64_t scope, uint32_t corr, opscope_cupti_role role,
                                const void *exec);
/* CORR2, a call nested in CORR's (the runtime calling the driver), launched the same work. */
void opscope_cupti_track_alias(opscope_cupti_track_t *t, uint32_t corr, uint32_t corr2);
/* CORR launched nothing (it was captured into a graph): its places are given back. */
void opscope_cupti_track_unlaunch(opscope_cupti_track_t *t, uint32_t corr);

/* Graph events: a node of GRAPH created (TYPE: CUgraphNodeType), node CLONE (of TYPE) copied
 * from ORIG into GRAPH at instantiation, EXEC instantiated from GRAPH (its node count: the
 * device nodes created in GRAPH, else those cloned into it, whichever graph CUPTI names). */
void opscope_cupti_track_node_created(opscope_cupti_track_t *t, const void *graph, uint64_t node, uint32_t type);
void opscope_cupti_track_node_cloned(opscope_cupti_track_t *t, const void *graph, uint64_t clone, uint64_t orig,
                                     uint32_t type);
void opscope_cupti_track_exec_created(opscope_cupti_track_t *t, const void *exec, const void *graph);

/* No more launches under SCOPE: how many records it will have (0 when unknown or none). */
uint64_t opscope_cupti_track_end_scope(opscope_cupti_track_t *t, uint64_t scope);

/* Where a record of CORR (GRAPH_NODE: its graph node id, 0 none) goes: *SCOPE and *SEQ.
 * False when its launch is unknown (*SCOPE = 0). */
bool opscope_cupti_track_place(opscope_cupti_track_t *t, uint32_t corr, uint64_t graph_node, uint64_t *scope,
                               uint32_t *seq);

#endif
