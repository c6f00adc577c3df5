/*
 * kineto_comm.h - a Kineto event's collective arguments (internal): which args keys they are
 * and how their values are kept (read/kineto_event.h's opscope_kineto_comm). Used by the
 * Kineto reader's args loop; pure functions, thread-safe.
 */
#ifndef OPSCOPE_KINETO_COMM_H
#define OPSCOPE_KINETO_COMM_H

#include "read/json.h"
#include "read/kineto_event.h"

#include <stdbool.h>
#include <stddef.h>

int opscope_kineto_comm_key_of(const char *key, size_t len);

/* A collective's args key: its code (> 0), or 0 for any other key (inline: the reader asks for
 * every args key, and most have another length). */
static inline int opscope_kineto_comm_key(const char *key, size_t len) {
    if (len != 5 && len != 10 && len != 13 && len != 14 && len != 15 && len != 18) return 0;
    return opscope_kineto_comm_key_of(key, len);
}

/* Keeps VAL, the value of the key coded WHICH, in C (strings cut to fit, other types ignored). */
void opscope_kineto_comm_set(opscope_kineto_comm *c, int which, const opscope_json_token *val);

/* C as it starts for each event: nothing seen. */
void opscope_kineto_comm_reset(opscope_kineto_comm *c);

/* Whether C holds a collective (its "Collective name" was seen). */
bool opscope_kineto_comm_seen(const opscope_kineto_comm *c);

#endif /* OPSCOPE_KINETO_COMM_H */
