/*
 * json_stream.h - test helper: runs the JSON pull parser over a buffer, either in memory mode
 * or through a read callback that hands out CHUNK bytes at a time, and renders the token
 * stream (or the error) as text so that two runs can be compared.
 */
#ifndef OPSCOPE_TEST_JSON_STREAM_H
#define OPSCOPE_TEST_JSON_STREAM_H

#include "read/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tj_text {
    char *s;
    size_t len, cap;
} tj_text;

static inline void tj_put(tj_text *t, const char *s, size_t n) {
    if (t->len + n + 1 > t->cap) {
        size_t nc = (t->cap ? t->cap * 2 : 256);
        while (nc < t->len + n + 1) nc *= 2;
        t->s = realloc(t->s, nc);
        t->cap = nc;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = 0;
}

typedef struct tj_src {
    const unsigned char *data;
    size_t size, off, chunk;
} tj_src;

static inline long tj_read(void *ud, char *buf, size_t cap) {
    tj_src *s = ud;
    size_t n = s->size - s->off;
    if (n > s->chunk) n = s->chunk;
    if (n > cap) n = cap;
    memcpy(buf, s->data + s->off, n);
    s->off += n;
    return (long)n;
}

/*
 * Parses DATA[0..SIZE) with read chunks of CHUNK bytes (0 = memory mode). Returns 1 if the
 * input was accepted, 0 if rejected; *OUT receives the rendered token stream (caller frees
 * out->s). When SKIP_AT_DEPTH > 0, containers opened at that depth are skipped with
 * opscope_json_skip.
 */
static inline int tj_parse(const void *data, size_t size, size_t chunk, int skip_at_depth,
                           tj_text *out) {
    tj_src src = {data, size, 0, chunk};
    opscope_json_t *j = chunk ? opscope_json_new(tj_read, &src, NULL, 0, "t.json")
                              : opscope_json_new(NULL, NULL, data, size, "t.json");
    if (!j) return -1;
    char line[128];
    opscope_json_token t;
    int ok = 0;
    for (;;) {
        opscope_json_tok k = opscope_json_next(j, &t);
        if (k == OPSCOPE_JSON_ERROR) {
            const opscope_error *e = opscope_json_error(j);
            snprintf(line, sizeof line, "ERROR %d %s @%llu %u:%u\n", (int)e->code, e->msg,
                     (unsigned long long)e->pos, e->line, e->col);
            tj_put(out, line, strlen(line));
            break;
        }
        snprintf(line, sizeof line, "%d d%d @%llu ", (int)k, t.depth, (unsigned long long)t.pos);
        tj_put(out, line, strlen(line));
        if (k == OPSCOPE_JSON_KEY || k == OPSCOPE_JSON_STRING || k == OPSCOPE_JSON_NUMBER)
            tj_put(out, t.str, t.len);
        if (k == OPSCOPE_JSON_NUMBER) {
            snprintf(line, sizeof line, " %d %lld %.17g", (int)t.is_int, (long long)t.i, t.d);
            tj_put(out, line, strlen(line));
        }
        tj_put(out, "\n", 1);
        if (k == OPSCOPE_JSON_EOF) {
            ok = 1;
            break;
        }
        if (skip_at_depth > 0 && (k == OPSCOPE_JSON_OBJ_BEGIN || k == OPSCOPE_JSON_ARR_BEGIN) &&
            t.depth == skip_at_depth) {
            if (opscope_json_skip(j, &t) != 0) {
                const opscope_error *e = opscope_json_error(j);
                snprintf(line, sizeof line, "ERROR %d %s @%llu %u:%u\n", (int)e->code, e->msg,
                         (unsigned long long)e->pos, e->line, e->col);
                tj_put(out, line, strlen(line));
                break;
            }
            tj_put(out, "skipped\n", 8);
        }
    }
    opscope_json_free(j);
    return ok;
}

#endif
