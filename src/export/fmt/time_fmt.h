/*
 * time_fmt.h - a duration in the unit that reads best, for text tables (internal).
 * Pure; thread safe.
 */
#ifndef OPSCOPE_TIME_FMT_H
#define OPSCOPE_TIME_FMT_H

#include <stdbool.h>
#include <stddef.h>

/* "12.345 ms", "+1.20 us", "950 ns" (SIGN: always a sign). */
size_t opscope_fmt_time(char *buf, size_t size, double ns, bool sign);

#endif /* OPSCOPE_TIME_FMT_H */
