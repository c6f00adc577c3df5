/*
 * hash.h - the 64-bit finaliser the open-addressing tables share (MurmurHash3's fmix64):
 * every input bit reaches every output bit, so a table can mask the low bits of integer keys
 * (graph ids, counters) that differ only in their high or low bits. Pure; thread-safe.
 */
#ifndef OPSCOPE_UTIL_HASH_H
#define OPSCOPE_UTIL_HASH_H

#include <stdint.h>

static inline uint64_t opscope_mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

#endif /* OPSCOPE_UTIL_HASH_H */
