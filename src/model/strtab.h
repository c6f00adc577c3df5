/*
 * strtab.h - string interning (internal).
 *
 * Each distinct string is stored once in an arena; opscope_strtab_intern returns a stable
 * pointer (valid until the table is freed) and a dense id (0, 1, 2... in first-seen order),
 * so equal strings can be compared by pointer or id. Thread safety: none.
 */
#ifndef OPSCOPE_STRTAB_H
#define OPSCOPE_STRTAB_H

#include "util/hash.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct opscope_strtab opscope_strtab_t;

opscope_strtab_t *opscope_strtab_new(void);
void opscope_strtab_free(opscope_strtab_t *t);

/* Interns S[0..LEN); returns the stable copy (NUL-terminated) or NULL when out of memory.
 * ID, when not NULL, receives the string's dense id. */
const char *opscope_strtab_intern(opscope_strtab_t *t, const char *s, size_t len, uint32_t *id);

/* Interns the C string S and returns its copy; NULL stays NULL. Out of memory: NULL, and
 * *FAILED set to 1 (never cleared, so one flag can collect a run of calls). */
static inline const char *opscope_strtab_dup(opscope_strtab_t *t, const char *s, int *failed) {
    if (!s) return NULL;
    const char *c = opscope_strtab_intern(t, s, strlen(s), NULL);
    if (!c) *failed = 1;
    return c;
}

/* Number of distinct strings, and the string of a dense id. */
uint32_t opscope_strtab_count(const opscope_strtab_t *t);
const char *opscope_strtab_get(const opscope_strtab_t *t, uint32_t id);


#endif /* OPSCOPE_STRTAB_H */
