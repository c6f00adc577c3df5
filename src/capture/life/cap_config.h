/*
 * cap_config.h - where the profile goes: GGML_PROFILE parsed (internal; pure functions).
 */
#ifndef OPSCOPE_CAP_CONFIG_H
#define OPSCOPE_CAP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

typedef enum opscope_cap_dest {
    OPSCOPE_CAP_DEST_NONE = 0, /* GGML_PROFILE unset: capture off */
    OPSCOPE_CAP_DEST_STDOUT,   /* "1", "stdout", "": console summary on stdout */
    OPSCOPE_CAP_DEST_STDERR,   /* "stderr" */
    OPSCOPE_CAP_DEST_JSON,     /* "*.json" or any other path */
    OPSCOPE_CAP_DEST_TEXT,     /* "*.txt" */
} opscope_cap_dest;

typedef struct opscope_cap_config {
    opscope_cap_dest dest;
    char path[4096];           /* for JSON/TEXT; a child process gets ".PID" appended */
    bool too_long;             /* the path (or PATH.PID) did not fit: dest is NONE, since a
                                * cut path would name another file */
} opscope_cap_config;

/* Parses a GGML_PROFILE value (NULL = unset) into CFG. Pure. */
void opscope_cap_config_parse(const char *value, opscope_cap_config *cfg);

/* Appends ".PID" to CFG's path (for a descendant process). Returns false, with dest NONE and
 * too_long set, when PATH.PID does not fit. Pure. */
bool opscope_cap_config_child(opscope_cap_config *cfg, long pid);

#endif
