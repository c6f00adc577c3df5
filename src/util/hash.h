/*
 * hash.h - the tree's one set of hash functions (keep every hash constant here): the 64-bit
 * finaliser of the open-addressing tables (MurmurHash3's fmix64: every input bit reaches
 * every output bit, so a table can mask the low bits of keys that differ only in their high
 * bits), one FNV-1a for bytes and a word-at-a-time step for keys built from integers. Pure;
 * thread-safe; header-only, so every library (the capture's, the Vulkan layer) can use it.
 */
#ifndef OPSCOPE_UTIL_HASH_H
#define OPSCOPE_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define OPSCOPE_FNV_BASIS 0xcbf29ce484222325ULL
#define OPSCOPE_FNV_PRIME 0x100000001b3ULL

static inline uint64_t opscope_mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* Folds the 64-bit value V into H: one multiply (FNV-1a over a word) and a shift that brings
 * the high bits down; finish a key with opscope_mix64. Start from OPSCOPE_FNV_BASIS. */
static inline uint64_t opscope_hash_word(uint64_t h, uint64_t v) {
    h = (h ^ v) * OPSCOPE_FNV_PRIME;
    return h ^ (h >> 29);
}

/* FNV-1a of the N bytes at P, continuing H (start from OPSCOPE_FNV_BASIS). */
static inline uint64_t opscope_fnv1a(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * OPSCOPE_FNV_PRIME;
    return h;
}

/* A well-mixed hash of LEN bytes (names, keys): words, the tail bytes, the finaliser. */
static inline uint64_t opscope_hash_bytes(const void *data, size_t len) {
    const unsigned char *p = data;
    uint64_t h = OPSCOPE_FNV_BASIS ^ len;
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = opscope_hash_word(h, w);
    }
    return opscope_mix64(opscope_fnv1a(h, p, len));
}

#endif /* OPSCOPE_UTIL_HASH_H */
