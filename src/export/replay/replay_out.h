/*
 * replay_out.h - the outputs of `opscope replay` (internal): the console table and the JSON
 * document (docs/replay.md) of a finished replay: each unique graph op of a profile (its
 * uses: the backend and fused group its records ran as) against test-backend-ops' isolated
 * time per call on each backend, with the projection of the model per backend; and the
 * three as outputs of the command's session (analyze/session/session.h, replay_output.c).
 *
 * The command (src/cli/replay.c) runs test-backend-ops and fills an opscope_replay_table;
 * these only read it. Ownership: everything in the table is borrowed. Thread safety: none
 * beyond that of W or F.
 */
#ifndef OPSCOPE_REPLAY_OUT_H
#define OPSCOPE_REPLAY_OUT_H

#include "analyze/session/session.h"
#include "export/replay/ops_export.h"
#include "util/out.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define OPSCOPE_REPLAY_MAX_BACKENDS 16

typedef enum opscope_replay_status {
    OPSCOPE_REPLAY_NONE = 0,     /* no result line */
    OPSCOPE_REPLAY_OK,           /* timed */
    OPSCOPE_REPLAY_UNSUPPORTED,  /* the backend does not support the op */
    OPSCOPE_REPLAY_FAILED,       /* test-backend-ops crashed or failed on this line */
    OPSCOPE_REPLAY_MISMATCH,     /* test-backend-ops built another op: a different ggml op enum */
} opscope_replay_status;

/* One line's result on one backend. */
typedef struct opscope_replay_result {
    opscope_replay_status status;
    double time_us;    /* per call, OPSCOPE_REPLAY_OK */
    int64_t n_runs;
    char note[240];    /* why there is no time; the op built for a mismatch */
} opscope_replay_result;

/* One row: a line and the (captured backend, fused group) its records ran as. */
typedef struct opscope_replay_row {
    size_t line;
    const opscope_ops_line *l;
    const opscope_ops_use *u;
} opscope_replay_row;

typedef struct opscope_replay_table {
    const char *input, *mode; /* the profile; test-backend-ops' mode (perf, test) */
    double flag;              /* in-model over isolated beyond this (or its inverse): flagged */
    const opscope_ops_export_t *x;
    const char *backends[OPSCOPE_REPLAY_MAX_BACKENDS];
    int n_b;
    opscope_replay_result *res[OPSCOPE_REPLAY_MAX_BACKENDS]; /* [backend][line] */
    bool failed[OPSCOPE_REPLAY_MAX_BACKENDS];                /* test-backend-ops ran nothing */
    opscope_replay_row *rows;                                /* by model time, longest first */
    size_t n_rows;
} opscope_replay_table;

/* The index of backend NAME in R, -1 when absent. */
int opscope_replay_backend_index(const opscope_replay_table *r, const char *name);

/* The table, the projection per backend, the flagged rows and the lines without a result. */
void opscope_replay_write_console(FILE *f, const opscope_replay_table *r);

/* The JSON document; TBO names the test-backend-ops that ran. */
void opscope_replay_write_json(opscope_out_t *w, const opscope_replay_table *r, const char *tbo);

/* The session's replay output: its sink collects the unique ops into OPS; its finish
 * finishes them, calls RUN (the command: test-backend-ops on every backend, filling TABLE,
 * whose x is OPS; returns 0, or -1 with ERR filled: the command stops, every output
 * aborted) and writes the console table to CONSOLE (NULL: none). Pointers are borrowed. */
typedef struct opscope_replay_output_opts {
    opscope_ops_export_t *ops;
    opscope_replay_table *table;
    int (*run)(void *ud, opscope_replay_table *table, opscope_error *err);
    void *run_ud;
    FILE *console;
} opscope_replay_output_opts;
int opscope_output_replay(opscope_output *o, const opscope_replay_output_opts *opts, opscope_error *err);

/* The JSON document (TBO: the test-backend-ops that ran) and the exported graph-op file of
 * R into W, written at finish (after the replay output's, added before them), renamed at
 * commit. They take W over, on failure too. Return 0, or -1 with ERR filled. */
int opscope_output_replay_json(opscope_output *o, opscope_out_t *w, const opscope_replay_table *r,
                               const char *tbo, opscope_error *err);
int opscope_output_replay_ops(opscope_output *o, opscope_out_t *w, const opscope_replay_table *r,
                              opscope_error *err);

#endif /* OPSCOPE_REPLAY_OUT_H */
