/*
 * op_cost.h - FLOPs and memory traffic of a record whose ggml op is already known (internal).
 *
 * opscope_record_flops and opscope_record_traffic (opscope.h) look the record's op up by
 * name; a caller that needs both (stats, once per record) looks it up once
 * (opscope_ggml_op_value, model/ggml_vocab.h) and passes it here. OP must be that value of
 * REC->name (-1 for a name that is no ggml op). Same results; pure; thread-safe.
 */
#ifndef OPSCOPE_MODEL_OP_COST_H
#define OPSCOPE_MODEL_OP_COST_H

#include "opscope.h"

uint64_t opscope_op_flops(const opscope_record *rec, int op);
uint64_t opscope_op_traffic(const opscope_record *rec, int op, opscope_traffic *out);

#endif /* OPSCOPE_MODEL_OP_COST_H */
