/* oplog.c - the record log's framing and payload encoding (see oplog.h). */
#include "util/oplog.h"

#include "util/hash.h"

#include <string.h>

static const unsigned char k_chunk_magic[4] = {'O', 'P', 'C', 'K'};

static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void opscope_oplog_file_head(unsigned char out[OPSCOPE_OPLOG_HEAD]) {
    memcpy(out, OPSCOPE_OPLOG_MAGIC, 8);
    put32(out + 8, OPSCOPE_OPLOG_VERSION);
    put32(out + 12, 0);
}

bool opscope_oplog_is_log(const void *p, size_t n) {
    const unsigned char *b = p;
    return n >= OPSCOPE_OPLOG_HEAD && memcmp(b, OPSCOPE_OPLOG_MAGIC, 8) == 0 &&
           get32(b + 8) >= OPSCOPE_OPLOG_VERSION_MIN && get32(b + 8) <= OPSCOPE_OPLOG_VERSION;
}

/* The checksum covers the type and the length too, so a header whose length was damaged
 * fails like a damaged payload. */
static uint32_t chunk_sum(uint32_t type, const void *payload, uint32_t len) {
    uint64_t h = opscope_hash_bytes(payload, len);
    return (uint32_t)opscope_mix64(h ^ ((uint64_t)type << 32 | len));
}

void opscope_oplog_chunk_head(unsigned char head[OPSCOPE_OPLOG_CHUNK_HEAD], uint32_t type,
                              const void *payload, uint32_t len) {
    memcpy(head, k_chunk_magic, 4);
    put32(head + 4, type);
    put32(head + 8, len);
    put32(head + 12, chunk_sum(type, payload, len));
}

size_t opscope_oplog_chunk_at(const unsigned char *data, size_t size, size_t off, uint32_t *type,
                              const unsigned char **payload, uint32_t *len) {
    if (off > size || size - off < OPSCOPE_OPLOG_CHUNK_HEAD) return 0;
    const unsigned char *h = data + off;
    if (memcmp(h, k_chunk_magic, 4) != 0) return 0;
    uint32_t n = get32(h + 8);
    if (n > OPSCOPE_OPLOG_MAX_CHUNK || size - off - OPSCOPE_OPLOG_CHUNK_HEAD < n) return 0;
    uint32_t t = get32(h + 4);
    if (chunk_sum(t, h + OPSCOPE_OPLOG_CHUNK_HEAD, n) != get32(h + 12)) return 0;
    *type = t;
    *payload = h + OPSCOPE_OPLOG_CHUNK_HEAD;
    *len = n;
    return off + OPSCOPE_OPLOG_CHUNK_HEAD + n;
}

int opscope_oplog_put_u(opscope_oplog_buf *b, uint64_t v) {
    if (opscope_vec_reserve((void **)&b->v, &b->cap, b->n + 10, 1, 4096)) return -1;
    do {
        unsigned char byte = v & 0x7f;
        v >>= 7;
        b->v[b->n++] = byte | (v ? 0x80 : 0);
    } while (v);
    return 0;
}

int opscope_oplog_put_i(opscope_oplog_buf *b, int64_t v) {
    return opscope_oplog_put_u(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

int opscope_oplog_put_str(opscope_oplog_buf *b, const char *s) {
    if (!s) return opscope_oplog_put_u(b, 0);
    size_t n = strlen(s);
    if (opscope_oplog_put_u(b, (uint64_t)n + 1) ||
        opscope_vec_reserve((void **)&b->v, &b->cap, b->n + n + 1, 1, 4096)) {
        return -1;
    }
    memcpy(b->v + b->n, s, n + 1); /* with its NUL: a reader hands out pointers into the log */
    b->n += n + 1;
    return 0;
}

uint64_t opscope_oplog_get_u(opscope_oplog_cur *c) {
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (c->p >= c->end) break;
        unsigned char byte = *c->p++;
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return v;
    }
    c->bad = true;
    return 0;
}

int64_t opscope_oplog_get_i(opscope_oplog_cur *c) {
    uint64_t u = opscope_oplog_get_u(c);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

const char *opscope_oplog_get_str(opscope_oplog_cur *c, size_t *len) {
    uint64_t n = opscope_oplog_get_u(c);
    *len = 0;
    if (n == 0 || c->bad) return NULL;
    if (n > (uint64_t)(c->end - c->p) || c->p[n - 1] != '\0') {
        c->bad = true;
        return NULL;
    }
    const char *s = (const char *)c->p;
    c->p += n;
    *len = (size_t)(n - 1);
    return s;
}
