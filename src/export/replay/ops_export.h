/*
 * ops_export.h - a profile's graph ops as test-backend-ops reads them (internal).
 *
 * `test-backend-ops --test-file FILE` (llama.cpp's tests/test-backend-ops.cpp) re-runs one op
 * per line, in the layout tests/export-graph-ops.cpp writes, all numbers in decimal separated
 * by one space:
 *
 *   OP TYPE NE0 NE1 NE2 NE3 16 P0..P15 NSRC {STYPE SNE0..SNE3 SNB0..SNB3}*NSRC NAME
 *
 * OP is ggml's enum ggml_op value (model/ggml_ops.def), TYPE the output's ggml type, P the op
 * params as int32, then each source's type, shape and strides in bytes, and one token of name
 * ("-" for none). The reader takes NAME with `>>`, so names are written without white space;
 * it has no comment syntax (a comment or blank line would become a bogus test), so counts
 * and times go to a side table (opscope_ops_export_write_tsv).
 *
 * The exporter is a sink: it keeps one entry per unique line (op, output type and shape, op
 * params, sources with types, shapes and strides; the name is not part of the key, as
 * upstream) with, per captured backend and fused group, the count and time of its records.
 * Records it cannot turn into a line are kept per (reason, op, shape) and listed, never
 * dropped silently. Lines are sorted as upstream's std::set sorts them, so the same ops give
 * the same file as test-export-graph-ops.
 *
 * Memory: one entry per unique op and per unique skipped group, never per record.
 * Ownership: every string returned is owned by the exporter. Thread safety: none.
 */
#ifndef OPSCOPE_OPS_EXPORT_H
#define OPSCOPE_OPS_EXPORT_H

#include "model/ggml_vocab.h"
#include "opscope.h"
#include "util/out.h"

#include <stdbool.h>
#include <stdio.h>

/* Why a record gives no line. */
typedef enum opscope_ops_skip_reason {
    OPSCOPE_OPS_OK = 0,
    OPSCOPE_OPS_SKIP_COPY,        /* a COPY record: bytes between backends, not a graph op */
    OPSCOPE_OPS_SKIP_SPLIT,       /* GRAPH_SPLIT: a split timed as a whole, no op described */
    OPSCOPE_OPS_SKIP_UNKNOWN_OP,  /* name not in ggml's op enum (a kernel, a foreign trace) */
    OPSCOPE_OPS_SKIP_VIEW,        /* NONE/VIEW/RESHAPE/PERMUTE/TRANSPOSE: computes nothing */
    OPSCOPE_OPS_SKIP_CUSTOM,      /* MAP_CUSTOM*, CUSTOM: a function pointer in op params */
    OPSCOPE_OPS_SKIP_NO_OUT,      /* no output type and shape in the profile */
    OPSCOPE_OPS_SKIP_NO_PARAMS,   /* no op params in the profile */
    OPSCOPE_OPS_SKIP_NO_SRC_TYPES,/* sources without ggml types */
    OPSCOPE_OPS_SKIP_BAD_TYPE,    /* a type number ggml does not have */
    OPSCOPE_OPS_SKIP_BAD_SHAPE,   /* a negative dimension or stride */
    OPSCOPE_OPS_SKIP_SUB_OP,      /* UNARY/GLU whose op params name no (or another) function */
    OPSCOPE_OPS_SKIP_COUNT_
} opscope_ops_skip_reason;

/* A static sentence for REASON ("" for OPSCOPE_OPS_OK). */
const char *opscope_ops_skip_reason_text(opscope_ops_skip_reason reason);


/* What a line changed from the record (opscope_ops_format_line's *NOTES bits). */
enum {
    /* the profile had no strides: written as the contiguous strides of type and shape */
    OPSCOPE_OPS_NOTE_NO_STRIDES = 1u << 0,
    /* an integer source (rows, positions, expert ids) was a strided view: written contiguous,
     * because test-backend-ops fills such sources as if they were (a strided one would hold
     * uninitialised indices and stop the run on a GGML_ASSERT) */
    OPSCOPE_OPS_NOTE_INDEX_STRIDES = 1u << 1,
};

/*
 * Formats REC as one test-file line without its name and newline ("29 0 256 11 1 1 16 0 ...")
 * into BUF (NUL-terminated; a line needs at most OPSCOPE_OPS_LINE_MAX bytes). *NOTES (may be
 * NULL) receives OPSCOPE_OPS_NOTE_* bits. Returns OPSCOPE_OPS_OK, or why REC has no line (BUF
 * is then ""). Pure.
 */
#define OPSCOPE_OPS_LINE_MAX 4096
opscope_ops_skip_reason opscope_ops_format_line(const opscope_record *rec, char *buf, size_t size,
                                                unsigned *notes);

/* The name token of a tensor name: white space, control bytes and quotes become '_', at most
 * 63 bytes, "-" for NULL or "". BUF needs 64 bytes. */
void opscope_ops_name_token(const char *name, char *buf);

/* Where the records of one line ran: per captured backend and fused group. */
typedef struct opscope_ops_use {
    int32_t backend_id;
    const char *backend;  /* the profile's backend name, "?" when it named none */
    const char *fused;    /* the fused group's name when the backend fused it, else NULL */
    uint64_t count;
    uint64_t total_ns, min_ns, max_ns;
    /* the median call, from a histogram of 8 buckets per power of two (within 4.5%): the
     * typical call, which a few calls stalled by the scheduler do not move as they move the
     * mean */
    uint64_t median_ns;
    uint32_t *hist; /* internal: the histogram behind median_ns */
} opscope_ops_use;

typedef struct opscope_ops_line {
    const char *text;      /* the line without name and newline */
    const char *name;      /* name token (first record's tensor name) */
    const char *op;        /* op name ("GLU") */
    const char *sub_op;    /* "SWIGLU" for UNARY/GLU, else NULL */
    int32_t sub_op_value;  /* its ggml enum value (op_params[0]), -1 without a sub_op */
    const char *shape;     /* "src0 [256, 256] f32, src1 [256, 11] f32 -> [256, 11] f32" */
    int32_t op_value;      /* ggml enum value */
    unsigned notes;        /* OPSCOPE_OPS_NOTE_* of its records */
    size_t n_uses;
    const opscope_ops_use *uses;
} opscope_ops_line;

/* Records of one (reason, op, shape) that gave no line. */
typedef struct opscope_ops_skip {
    opscope_ops_skip_reason reason;
    const char *what;      /* "COPY copy_H2D", "GLU(SWIGLU) [512, 11] f32", "GRAPH_SPLIT" */
    uint64_t count, total_ns;
} opscope_ops_skip;

typedef struct opscope_ops_export opscope_ops_export_t;

/* A new exporter, or NULL when out of memory. Free with opscope_ops_export_free. */
opscope_ops_export_t *opscope_ops_export_new(void);
void opscope_ops_export_free(opscope_ops_export_t *x);

/* The sink to feed (records, backends, meta). It stops the read (non-zero) only when memory
 * runs out. */
opscope_sink opscope_ops_export_sink(opscope_ops_export_t *x);

/*
 * After the read: sorts the lines. Fails (returns -1, ERR filled with OPSCOPE_ERROR_FORMAT
 * and a sentence) when the input was a Kineto or Chrome trace: their records are GPU kernels
 * and CPU calls, with no ggml op, output, types or op params to rebuild. Out of memory:
 * OPSCOPE_ERROR_NOMEM.
 */
int opscope_ops_export_finish(opscope_ops_export_t *x, opscope_error *err);

size_t opscope_ops_export_n_lines(const opscope_ops_export_t *x);
const opscope_ops_line *opscope_ops_export_line(const opscope_ops_export_t *x, size_t i);
size_t opscope_ops_export_n_skipped(const opscope_ops_export_t *x);
const opscope_ops_skip *opscope_ops_export_skipped(const opscope_ops_export_t *x, size_t i);
/* OP records seen, and those that gave a line. */
uint64_t opscope_ops_export_records(const opscope_ops_export_t *x);
uint64_t opscope_ops_export_records_exported(const opscope_ops_export_t *x);

/* The test file: every line with its name token and '\n'. */
void opscope_ops_export_write(const opscope_ops_export_t *x, opscope_out_t *w);

/* The side table, tab-separated with a header: one row per line and use (line number in the
 * test file, 1-based), then one per skipped group (line "-", the reason in `note`). */
void opscope_ops_export_write_tsv(const opscope_ops_export_t *x, opscope_out_t *w);

/* What was not exported and why, and the notes (fused groups, guessed strides), one line
 * each, every line starting with PREFIX: of each kind that repeats per op the first
 * OPSCOPE_NOTES_SHOWN (export/fmt/notes.h), then one line with how many more, naming FULL (may
 * be NULL: none) as the file that holds them all. Nothing when everything was exported as is. */
void opscope_ops_export_print_notes(const opscope_ops_export_t *x, FILE *f, const char *prefix, const char *full);

#endif /* OPSCOPE_OPS_EXPORT_H */
