/* derived.c - a record's display name (see derived.h; the other values are inline there). */
#include "analyze/record/derived.h"

#include "analyze/record/op_display.h"

#include <string.h>

const char *opscope_derived_display(opscope_derived *d, char *buf, size_t size) {
    if (d->display && strlen(d->display) < size) return d->display;
    const opscope_record *r = d->rec;
    opscope_op_display(buf, size, r->type, r->name ? r->name : "", opscope_derived_sub_op(d, NULL),
                       opscope_derived_fused(d));
    return buf;
}
