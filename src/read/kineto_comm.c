/*
 * kineto_comm.c - a Kineto event's collective arguments (kineto_comm.h; docs/job.md,
 * "NCCL collectives").
 */
#include "read/kineto_comm.h"

#include <stdio.h>
#include <string.h>

enum { COMM_COLL = 1, COMM_IN, COMM_OUT, COMM_GROUP, COMM_DTYPE, COMM_PG };

int opscope_kineto_comm_key_of(const char *key, size_t len) {
    /* one comparison per key: the reader asks for every args key of every event */
    const char *k;
    int which;
    switch (len) {
    case 15: k = "Collective name", which = COMM_COLL; break;
    case 13: k = "In msg nelems", which = COMM_IN; break;
    case 14: k = "Out msg nelems", which = COMM_OUT; break;
    case 10: k = "Group size", which = COMM_GROUP; break;
    case 5: k = "dtype", which = COMM_DTYPE; break;
    case 18: k = "Process Group Name", which = COMM_PG; break;
    default: return 0;
    }
    /* first and last bytes before the call: "Input Dims" and "Concrete Inputs" share the
     * lengths of "Group size" and "Collective name" and come with every CPU op */
    if (key[0] != k[0] || key[len - 1] != k[len - 1]) return 0;
    return memcmp(k, key, len) ? 0 : which;
}

static void set_str(char *dst, size_t size, const opscope_json_token *t) {
    if (t->type != OPSCOPE_JSON_STRING) return;
    snprintf(dst, size, "%.*s", (int)(t->len < size ? t->len : size - 1), t->str);
}

static void set_int(int64_t *dst, const opscope_json_token *t) {
    if (t->type == OPSCOPE_JSON_NUMBER && t->is_int && t->i >= 0) *dst = t->i;
}

void opscope_kineto_comm_set(opscope_kineto_comm *c, int which, const opscope_json_token *val) {
    switch (which) {
    case COMM_COLL: set_str(c->coll, sizeof c->coll, val); break;
    case COMM_DTYPE: set_str(c->dtype, sizeof c->dtype, val); break;
    case COMM_PG: set_str(c->pg, sizeof c->pg, val); break;
    case COMM_IN: set_int(&c->in_nelems, val); break;
    case COMM_OUT: set_int(&c->out_nelems, val); break;
    case COMM_GROUP: set_int(&c->group_size, val); break;
    default: break;
    }
}

void opscope_kineto_comm_reset(opscope_kineto_comm *c) {
    c->coll[0] = c->dtype[0] = c->pg[0] = '\0';
    c->in_nelems = c->out_nelems = c->group_size = -1;
}

bool opscope_kineto_comm_seen(const opscope_kineto_comm *c) { return c->coll[0] != '\0'; }
