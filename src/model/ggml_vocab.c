/* ggml_vocab.c - lookups in ggml's vocabulary tables (ggml_vocab.h). */
#include "model/ggml_vocab.h"
#include "opscope.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

const char *const opscope_ggml_op_names[] = {
#define GGML_OP(NAME, CATEGORY, FLOPS, TRAFFIC) #NAME,
#include "model/ggml_ops.def"
#undef GGML_OP
};

static const struct {
    uint8_t flops, traffic;
} k_op_traits[] = {
#define GGML_OP(NAME, CATEGORY, FLOPS, TRAFFIC) \
    {OPSCOPE_GGML_FLOPS_##FLOPS, OPSCOPE_GGML_TRAFFIC_##TRAFFIC},
#include "model/ggml_ops.def"
#undef GGML_OP
};

/* Names to values: open addressing on a hash of a name's length and three of its letters,
 * which tells ggml's op names apart in one or two probes; the names are kept zero-padded so
 * a candidate is compared a word at a time. This runs per record (a full-string hash and
 * memcmp cost 3x the first-letter switches it replaced). Filled once: the names are not
 * constant expressions, so neither are their hashes. */
#define OP_SLOTS 256
#define OP_NAME_MAX 32
static uint8_t op_slot[OP_SLOTS]; /* value + 1; 0: empty */
static uint8_t op_len[OPSCOPE_GGML_OP_COUNT];
static char op_padded[OPSCOPE_GGML_OP_COUNT][OP_NAME_MAX];
static pthread_once_t op_once = PTHREAD_ONCE_INIT;
static atomic_bool op_ready;

static size_t op_hash(const char *s, size_t len) {
    return ((size_t)(unsigned char)s[0] * 31u + (unsigned char)s[len / 2] * 7u +
            (unsigned char)s[len - 1] + len * 61u) & (OP_SLOTS - 1);
}

static void op_index_fill(void) {
    for (int i = 0; i < OPSCOPE_GGML_OP_COUNT; i++) {
        size_t len = strlen(opscope_ggml_op_names[i]);
        if (len >= OP_NAME_MAX) continue; /* none is; such a name would never be found */
        op_len[i] = (uint8_t)len;
        memcpy(op_padded[i], opscope_ggml_op_names[i], len);
        size_t s = op_hash(opscope_ggml_op_names[i], len);
        while (op_slot[s]) s = (s + 1) & (OP_SLOTS - 1);
        op_slot[s] = (uint8_t)(i + 1);
    }
    atomic_store_explicit(&op_ready, true, memory_order_release);
}

/* Whether NAME[0..LEN) is the padded name P: whole words, then the tail byte by byte. */
static bool op_same(const char *p, const char *name, size_t len) {
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t a, b;
        memcpy(&a, p + i, 8);
        memcpy(&b, name + i, 8);
        if (a != b) return false;
    }
    for (; i < len; i++)
        if (p[i] != name[i]) return false;
    return true;
}

int opscope_ggml_op_value(const char *name) {
    /* ggml op names are upper case: anything else is a kernel name, not worth a hash */
    if (!name || name[0] < 'A' || name[0] > 'Z') return -1;
    return opscope_ggml_op_value_n(name, strlen(name));
}

int opscope_ggml_op_value_n(const char *name, size_t len) {
    if (!name || len == 0 || len >= OP_NAME_MAX) return -1;
    if (!atomic_load_explicit(&op_ready, memory_order_acquire)) pthread_once(&op_once, op_index_fill);
    for (size_t s = op_hash(name, len); op_slot[s]; s = (s + 1) & (OP_SLOTS - 1)) {
        int op = op_slot[s] - 1;
        if (op_len[op] == len && op_same(op_padded[op], name, len)) return op;
    }
    return -1;
}

int opscope_ggml_op_count(void) { return OPSCOPE_GGML_OP_COUNT; }

const char *opscope_ggml_op_name(int op) {
    return op >= 0 && op < OPSCOPE_GGML_OP_COUNT ? opscope_ggml_op_names[op] : NULL;
}

opscope_ggml_flops opscope_ggml_op_flops(int op) {
    return op >= 0 && op < OPSCOPE_GGML_OP_COUNT ? (opscope_ggml_flops)k_op_traits[op].flops
                                                  : OPSCOPE_GGML_FLOPS_NONE;
}

opscope_ggml_traffic opscope_ggml_op_traffic(int op) {
    return op >= 0 && op < OPSCOPE_GGML_OP_COUNT ? (opscope_ggml_traffic)k_op_traits[op].traffic
                                                  : OPSCOPE_GGML_TRAFFIC_SRCS;
}

bool opscope_ggml_op_is_view(int op) { return opscope_ggml_op_traffic(op) == OPSCOPE_GGML_TRAFFIC_VIEW; }

bool opscope_ggml_op_has_sub_op(int op) { return op == OPSCOPE_GGML_OP_UNARY || op == OPSCOPE_GGML_OP_GLU; }

/* ggml_type_name and the block layout, by type value; removed values stay NULL / 0. */
static const struct {
    const char *name;
    uint16_t blck, size;
} k_types[] = {
#define GGML_TYPE(VALUE, NAME, BLCK, SIZE) [VALUE] = {#NAME, BLCK, SIZE},
#include "model/ggml_types.def"
#undef GGML_TYPE
};
#define N_TYPES (sizeof k_types / sizeof k_types[0])

static uint64_t mul_sat(uint64_t a, uint64_t b) {
    if (a == 0 || b == 0) return 0;
    if (a > UINT64_MAX / b) return UINT64_MAX;
    return a * b;
}

uint64_t opscope_ggml_type_bytes(int32_t type, uint64_t ne) {
    if (type < 0 || (size_t)type >= N_TYPES) return 0;
    uint64_t blck = k_types[type].blck, size = k_types[type].size;
    if (!blck) return 0;
    return mul_sat((ne + blck - 1) / blck, size);
}

const char *opscope_ggml_type_name(int32_t type) {
    if (type < 0 || (size_t)type >= N_TYPES) return "?";
    const char *s = k_types[type].name;
    return s ? s : "?";
}
