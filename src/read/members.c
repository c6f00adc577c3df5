/* members.c - a JSON object's members read by a table, an array's by a function (see members.h). */
#include "read/members.h"

#include <string.h>

static int fail(opscope_json_t *j, const char *msg, const opscope_json_token *t) {
    return opscope_json_fail(j, OPSCOPE_ERROR_SCHEMA, msg, t->pos);
}

static int read_int(opscope_json_t *j, const opscope_member *m, const opscope_json_token *t, void *obj) {
    if (t->type == OPSCOPE_JSON_NULL && m->kind != OPSCOPE_MEMBER_INT) return 0;
    int non_neg = m->kind == OPSCOPE_MEMBER_UINT_NULL;
    if (t->type != OPSCOPE_JSON_NUMBER || !t->is_int || (non_neg && t->i < 0))
        return fail(j, non_neg ? "expected a non-negative integer" : "expected an integer", t);
    if (t->i < m->lo || t->i > m->hi)
        return opscope_json_fail(j, OPSCOPE_ERROR_RANGE, m->range_msg ? m->range_msg : "number out of range for this field",
                                 t->pos);
    char *field = (char *)obj + m->off;
    if (m->size == sizeof(uint32_t)) {
        uint32_t x = (uint32_t)t->i; /* in range: the same bits as the field's int32_t or uint32_t */
        memcpy(field, &x, sizeof x);
    } else if (m->size == sizeof(uint8_t)) { /* a flag (a decode's wiped): its range is 0..1 */
        uint8_t x = (uint8_t)t->i;
        memcpy(field, &x, sizeof x);
    } else {
        memcpy(field, &t->i, sizeof t->i);
    }
    return 0;
}

int opscope_member_read(opscope_json_t *j, const opscope_member *m, const opscope_json_token *val,
                        void *obj) {
    if (m->kind == OPSCOPE_MEMBER_CALL) return m->fn(j, val, obj);
    if (m->kind != OPSCOPE_MEMBER_STR_NULL) return read_int(j, m, val, obj);
    if (val->type == OPSCOPE_JSON_NULL) return 0;
    if (val->type != OPSCOPE_JSON_STRING) return fail(j, "expected a string", val);
    char *buf = (char *)obj + m->buf;
    size_t n = val->len < m->size - 1 ? val->len : m->size - 1;
    memcpy(buf, val->str, n);
    buf[n] = 0;
    const char *s = buf;
    memcpy((char *)obj + m->off, &s, sizeof s);
    return 0;
}

static const opscope_member *find(const opscope_member *ms, size_t n, const char *k, size_t len) {
    for (size_t i = 0; i < n; i++)
        if (strlen(ms[i].key) == len && memcmp(ms[i].key, k, len) == 0) return &ms[i];
    return NULL;
}

int opscope_members_read(opscope_json_t *j, const opscope_json_token *open, const char *what,
                         const opscope_member *ms, size_t n, void *obj) {
    if (open->type != OPSCOPE_JSON_OBJ_BEGIN) return fail(j, what, open);
    opscope_json_token t, v;
    for (;;) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
        if (t.type == OPSCOPE_JSON_OBJ_END) return 0;
        const opscope_member *m = find(ms, n, t.str, t.len); /* before the key's string dies */
        if (opscope_json_next(j, &v) == OPSCOPE_JSON_ERROR) return -1;
        if (m ? opscope_member_read(j, m, &v, obj) : opscope_json_skip(j, &v)) return -1;
    }
}

int opscope_elements_read(opscope_json_t *j, const opscope_json_token *open, const char *what,
                          opscope_member_fn each, void *obj) {
    if (open->type != OPSCOPE_JSON_ARR_BEGIN) return fail(j, what, open);
    opscope_json_token t;
    for (;;) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
        if (t.type == OPSCOPE_JSON_ARR_END) return 0;
        if (each(j, &t, obj)) return -1;
    }
}
