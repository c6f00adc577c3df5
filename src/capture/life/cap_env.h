/*
 * cap_env.h - the capture's OPSCOPE_* settings read from the environment, each value checked.
 *
 * A setting is a whole number in a range and a unit, a flag (0 or 1), or one word of a table.
 * Unset or empty: the default, silently. A bad value: the default, and one line on stderr
 * naming the variable, the value and what is used instead, e.g.
 *   opscope: OPSCOPE_MAX_MB=abc is not a whole number of MiB from 1 to 1048576; using 512
 * said once per variable and process however often it is read (the program runs on; the
 * warning is one write, as the capture's others). docs/capture.md has the table of every
 * variable, its range and its default.
 *
 * The parse functions are pure; the opscope_cap_env_* readers call getenv and may warn.
 * Thread safety: any thread (getenv's own rule aside: the capture reads its settings at
 * start-up, before the program's threads change the environment).
 */
#ifndef OPSCOPE_CAP_ENV_H
#define OPSCOPE_CAP_ENV_H

#include <stdbool.h>
#include <stdint.h>

/* A whole number from MIN to MAX in TEXT: optional leading blanks and '+', then decimal digits
 * to the end (what strtoull reads, less a sign '-', trailing text and overflow). Writes *OUT
 * only when TEXT is one; returns whether it is. TEXT may be NULL (false). Pure. */
bool opscope_cap_env_parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out);

/* A finite decimal number (strtod's syntax, to the end of TEXT) above LO and at most HI. Writes
 * *OUT only when TEXT is one; returns whether it is. TEXT may be NULL (false). Pure. */
bool opscope_cap_env_parse_real(const char *text, double lo, double hi, double *out);

/* The index of TEXT in NAMES (NULL-terminated; exact, case-sensitive), -1 when absent or TEXT
 * is NULL. Pure. */
int opscope_cap_env_parse_word(const char *text, const char *const *names);

/* Variable NAME as a whole number of UNIT ("MiB", "ms") from MIN to MAX; DEF when unset,
 * empty or bad (then warned). NAME and UNIT are not kept. */
uint64_t opscope_cap_env_uint(const char *name, uint64_t min, uint64_t max, uint64_t def, const char *unit);

/* Variable NAME as a number above LO and at most HI, in WHAT ("percent"); DEF when unset, empty
 * or bad (then warned). */
double opscope_cap_env_real(const char *name, double lo, double hi, double def, const char *what);

/* Variable NAME as a flag: "1" true, "0" false; DEF when unset, empty or bad (then warned). */
bool opscope_cap_env_flag(const char *name, bool def);

/* Variable NAME as one of NAMES (NULL-terminated): its index; DEF when unset, empty or bad.
 * A bad value's warning ends "; using " and USING (what DEF means: "sampled", "the file name's
 * format"); USING may be NULL when DEF indexes NAMES (then that word). DEF may be -1 (no
 * word: the caller's own default, which USING then says). */
int opscope_cap_env_word(const char *name, const char *const *names, int def, const char *using);

/* Says, once per NAME and process, "opscope: NAME=VALUE WHY; using USING" on stderr in one
 * write (VALUE's control bytes as '?', cut at 256 bytes). For the checks the readers above do
 * not make (a path that cannot be opened). Returns whether it was said now. */
bool opscope_cap_env_warn(const char *name, const char *value, const char *why, const char *using);

#endif /* OPSCOPE_CAP_ENV_H */
