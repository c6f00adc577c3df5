/* oplog_backend.c - a BACKEND chunk of the record log (see oplog_backend.h). */
#include "model/oplog_backend.h"

#include <string.h>

int opscope_oplog_get_backend(opscope_oplog_cur *c, opscope_backend *b) {
    memset(b, 0, sizeof *b);
    uint64_t id = opscope_oplog_get_u(c);
    b->name = opscope_oplog_get_cstr(c);
    b->device = opscope_oplog_get_cstr(c);
    b->device_type = (opscope_device_type)opscope_oplog_get_u(c);
    if (c->bad || id > INT32_MAX || !b->name) return -1;
    b->id = (int32_t)id;
    return 0;
}
