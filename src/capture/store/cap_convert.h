/*
 * cap_convert.h - raw capture records to opscope records (internal; nothing here includes
 * ggml): the ggml name tables copied at init, the copy-API names, and the conversion of every
 * record kind. Thread safety: the name tables are written at init, before any record; the
 * conversions are pure (strings point into the caller's buffer and static tables).
 */
#ifndef OPSCOPE_CAP_CONVERT_H
#define OPSCOPE_CAP_CONVERT_H

#include "capture/store/cap_buf.h"
#include "opscope.h"

/* ---- name tables (ggml enum value -> name, copied at init) ---- */

enum { OPSCOPE_CAP_NAMES_OP = 0, OPSCOPE_CAP_NAMES_UNARY, OPSCOPE_CAP_NAMES_GLU, OPSCOPE_CAP_NAMES_COUNT };
#define OPSCOPE_CAP_MAX_NAMES 256

void opscope_cap_names_set(int family, int index, const char *name);
/* The name, or "OP_<n>" style fallback in a static buffer per family entry ("?" at worst). */
const char *opscope_cap_names_get(int family, int index);

/* ---- copy API names ---- */

/* The name of a COPY record's ggml call (its "extra": "tensor_set", "tensor_set_2d", ...),
 * or NULL for a value outside opscope_cap_copy_api. */
const char *opscope_cap_copy_api_name(int api);

/* Converts a raw record to an opscope record; strings point into BUF (and static tables)
 * and stay valid until BUF is reused. */
typedef struct opscope_cap_strbuf {
    char extra[128];
    char name[OPSCOPE_CAP_NAME + 1];
} opscope_cap_strbuf;
void opscope_cap_convert(const opscope_cap_rec *r, opscope_record *out, opscope_cap_strbuf *buf);
/* The same with the sources taken from SRC (R's header describes them). */
void opscope_cap_convert_parts(const opscope_cap_rec *r, const opscope_cap_src *src, opscope_record *out,
                               opscope_cap_strbuf *buf);
/* An OP/COPY record, an opscope_cap_event, or step STEP of an opscope_cap_call (both resolved
 * through their description). */
void opscope_cap_convert_any(const opscope_cap_rec *r, int32_t step, opscope_record *out,
                             opscope_cap_strbuf *buf);

#endif
