/*
 * str.h - small tests on NUL-terminated strings that several folders share. Pure;
 * thread-safe; header-only.
 */
#ifndef OPSCOPE_UTIL_STR_H
#define OPSCOPE_UTIL_STR_H

#include <stdbool.h>
#include <string.h>

/* Whether S contains PAT, ignoring the case of S: each byte of S is compared with bit 5 set
 * (c | 0x20), so PAT is written in lower case, and a PAT byte without that bit ('_', '@',
 * upper-case letters) never matches. An empty PAT matches a non-empty S only. Neither may be
 * NULL. */
static inline bool opscope_str_has_ci(const char *s, const char *pat) {
    size_t m = strlen(pat);
    for (; *s; s++) {
        size_t i = 0;
        while (i < m && s[i] && (s[i] | 32) == pat[i]) i++;
        if (i == m) return true;
    }
    return false;
}

#endif /* OPSCOPE_UTIL_STR_H */
