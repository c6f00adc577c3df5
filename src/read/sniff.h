/*
 * sniff.h - what an input is when it is plainly no profile or trace (internal): magic bytes
 * and the first JSON tokens, so that `report [1,2,3]` or a report run on an SQLite file says
 * what the file looks like instead of "expected a value (byte 0)" or "Total records: 0".
 */
#ifndef OPSCOPE_READ_SNIFF_H
#define OPSCOPE_READ_SNIFF_H

#include <stddef.h>

/* PREFIX: the first SIZE bytes of an input (decompressed). Returns a static sentence saying what the input looks like and what opscope reads, or NULL
 * when it may be a profile or trace (then the readers judge it). Pure; thread safe. */
const char *opscope_sniff_foreign(const void *prefix, size_t size);

/* The sentence for a JSON object seen whole without any key of a profile or trace. */
extern const char opscope_sniff_no_keys[];

#endif /* OPSCOPE_READ_SNIFF_H */
