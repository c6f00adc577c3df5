/*
 * cpu_ops.h - the CPU side of a Kineto trace as records (internal): every cpu_op,
 * user_annotation and python_function slice becomes one CPU-op record on its thread, with
 * inclusive and self time nested per thread as torch.profiler computes them
 * (torch/autograd/profiler_util.py: EventList._populate_cpu_children, _remove_dup_nodes and
 * FunctionEvent.self_cpu_time_total), its input dims and dtypes where the trace has them, its
 * profiler step and training phase. Aggregates per name (torch's key_averages(): count,
 * self_cpu_time_total, cpu_time_total), per name and shape, per thread, per step and per phase.
 *
 * Nesting, as torch: per thread, slices sorted by start, then longest first (then input
 * order); a slice is a child of the innermost open slice it fits in ([s, e) inside [S, E));
 * a slice that only overlaps is no child. A child with its parent's name that is that
 * parent's only child is folded into it (torch's duplicate nodes: it is no record and its
 * children become the parent's). Self time = inclusive - the children's inclusive. Names
 * torch leaves out of its events (profiler::_record_function_enter/_exit, aten::is_leaf,
 * aten::output_nr, aten::_version, [memory]) are left out; "ProfilerStep#N" is grouped as
 * "ProfilerStep*" as key_averages does (each step keeps its own name in the records).
 * Runtime calls (cudaLaunchKernel...) are CPU events for torch too: they nest and take their
 * time out of their op's self time, and are grouped under their names.
 *
 * Ownership: the analysis owns its arrays; NAMES (the trace's string table) is borrowed and
 * must outlive it. Thread safety: none (one per read).
 */
#ifndef OPSCOPE_CPU_OPS_H
#define OPSCOPE_CPU_OPS_H

#include "model/strtab.h"
#include "read/kineto_event.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct opscope_cpu_ops opscope_cpu_ops_t;

/* Phases of a CPU op (from the op, or the innermost marking range around it). */
typedef enum opscope_cpu_phase {
    OPSCOPE_CPU_PHASE_NONE = 0,   /* inference traces, and the steps' own time */
    OPSCOPE_CPU_PHASE_FORWARD,
    OPSCOPE_CPU_PHASE_BACKWARD,
    OPSCOPE_CPU_PHASE_OPTIMIZER,
    OPSCOPE_CPU_PHASE_DATA,       /* data loading: DataLoader ops, "data loading" ranges */
    OPSCOPE_CPU_PHASE_COUNT
} opscope_cpu_phase;

/* What a record was in the trace. */
typedef enum opscope_cpu_kind {
    OPSCOPE_CPU_KIND_OP = 0,      /* cpu_op (Operator, or a legacy profiler's slice) */
    OPSCOPE_CPU_KIND_ANNOTATION,  /* user_annotation: record_function, ProfilerStep#N */
    OPSCOPE_CPU_KIND_PYTHON,      /* python_function */
    OPSCOPE_CPU_KIND_RUNTIME,     /* cuda_runtime / driver calls */
} opscope_cpu_kind;

/* One CPU-op record (after finish). Name ids are in the trace's string table. */
typedef struct opscope_cpu_op_rec {
    int64_t start_ns, end_ns;
    uint64_t self_ns;            /* end - start - the children's inclusive time */
    uint32_t thread;             /* the reader's dense (pid, tid) index */
    uint32_t name;
    uint32_t dims, types;        /* "[8,64]x[64]" / "float,float"; UINT32_MAX when none */
    uint32_t parent;             /* record index of the parent, UINT32_MAX at top level */
    uint32_t step;               /* index into the steps (by start), UINT32_MAX outside */
    uint16_t depth;              /* 0 at top level */
    uint8_t kind;                /* opscope_cpu_kind */
    uint8_t phase;               /* opscope_cpu_phase */
} opscope_cpu_op_rec;

/* One group of records: by name (ProfilerStep#N as ProfilerStep*), or by name and shape. */
typedef struct opscope_cpu_op_group {
    uint32_t name;               /* name id (the group's label: see opscope_cpu_ops_label) */
    uint32_t dims, types;        /* by shape: the group's; by name: those of the most self time */
    uint8_t kind;
    uint64_t count;
    uint64_t self_ns, total_ns;  /* torch's self_cpu_time_total, cpu_time_total */
    uint64_t min_ns, max_ns;     /* inclusive time of one call */
    uint64_t gpu_kernels, gpu_ns; /* kernels linked to these calls (as innermost CPU op) */
} opscope_cpu_op_group;

typedef struct opscope_cpu_thread {
    uint32_t thread;
    int64_t pid, tid;            /* as in the trace (-1 for string ids) */
    uint64_t records, top_level;
    uint64_t self_ns;            /* = the time its top-level records cover (nothing twice) */
    int64_t first_ns, last_ns;
} opscope_cpu_thread;

typedef struct opscope_cpu_step {
    uint32_t name;               /* ProfilerStep#N */
    int64_t start_ns, end_ns;
    uint64_t records, self_ns;   /* the records that start inside it (itself left out) */
    uint32_t top_group;          /* by-name group with the most self time in it, or UINT32_MAX */
    uint64_t top_self_ns;
} opscope_cpu_step;

typedef struct opscope_cpu_phase_stats {
    uint64_t records, self_ns;
} opscope_cpu_phase_stats;

typedef struct opscope_cpu_ops_results {
    opscope_cpu_op_rec *recs; size_t n_recs;          /* by thread, then start */
    opscope_cpu_op_group *by_name; size_t n_by_name;  /* by self time, then name */
    opscope_cpu_op_group *by_shape; size_t n_by_shape; /* by self time */
    opscope_cpu_thread *threads; size_t n_threads;    /* by thread index */
    opscope_cpu_step *steps; size_t n_steps;          /* by start */
    opscope_cpu_phase_stats phase[OPSCOPE_CPU_PHASE_COUNT];
    bool training;               /* a backward op or an optimizer range was seen */
    uint64_t self_ns;            /* the sum of every record's self time (each instant of a
                                    thread once, whatever the nesting) */
    uint64_t dropped;            /* slices torch leaves out (see above) and duplicate nodes */
    uint32_t step_group_name;    /* name id of "ProfilerStep*", UINT32_MAX when no steps */
    int64_t first_ns, last_ns;   /* span of the records */
} opscope_cpu_ops_results;

/* A new analysis over NAMES (borrowed); NULL when out of memory. */
opscope_cpu_ops_t *opscope_cpu_ops_new(opscope_strtab_t *names);
void opscope_cpu_ops_free(opscope_cpu_ops_t *c);

/* Keeps EV when it is a CPU slice (cpu_op, user_annotation, python_function, runtime call
 * with a name); other kinds are ignored. 0, or -1 when out of memory. */
int opscope_cpu_ops_add(opscope_cpu_ops_t *c, const opscope_kineto_event *ev);

/* The slices kept so far, in input order (until finish; a reader of the same read, such as
 * the critical path, takes its CPU events from them instead of keeping its own copy). */
typedef struct opscope_cpu_slice {
    int64_t start_ns, end_ns;    /* end: start + the duration when positive, else start */
    uint32_t thread;             /* the reader's dense thread index */
    uint32_t name;               /* name id */
    uint8_t kind;                /* opscope_cpu_kind */
} opscope_cpu_slice;
size_t opscope_cpu_ops_n_slices(const opscope_cpu_ops_t *c);
void opscope_cpu_ops_slice_get(const opscope_cpu_ops_t *c, size_t i, opscope_cpu_slice *out);
/* Whether opscope_cpu_ops_stop was called (its slices are gone). */
bool opscope_cpu_ops_stopped(const opscope_cpu_ops_t *c);

/* Forgets every slice kept and keeps no more (a consumer that wants the records of CPU-only
 * traces only, once GPU activity shows up). Finish then gives no record. */
void opscope_cpu_ops_stop(opscope_cpu_ops_t *c);

/* Credits the group of CPU op NAME with one kernel of DUR_NS (call before finish). */
int opscope_cpu_ops_add_gpu(opscope_cpu_ops_t *c, uint32_t name, uint64_t dur_ns);

/* Computes every result; call once after the last slice. 0, or -1 when out of memory. */
int opscope_cpu_ops_finish(opscope_cpu_ops_t *c);

/* Valid after finish, until free. */
const opscope_cpu_ops_results *opscope_cpu_ops_results_get(const opscope_cpu_ops_t *c);

/* The label of a group's or record's NAME: "ProfilerStep*" for every step (as key_averages),
 * else the name from the string table. */
const char *opscope_cpu_ops_label(const opscope_cpu_ops_t *c, uint32_t name);

const char *opscope_cpu_phase_name(int phase);
const char *opscope_cpu_kind_name(int kind);

#endif /* OPSCOPE_CPU_OPS_H */
