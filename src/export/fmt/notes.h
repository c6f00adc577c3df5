/*
 * notes.h - a message that repeats once per distinct op, shape or kernel (a profile with
 * 100,003 op names must not print 100,003 lines): the first OPSCOPE_NOTES_SHOWN are printed,
 * then one line with how many more there were, and where every one of them is when a file
 * output holds the full list. Thread safety: none beyond the FILE's.
 */
#ifndef OPSCOPE_NOTES_H
#define OPSCOPE_NOTES_H

#include <stdint.h>
#include <stdio.h>

/* Messages of one kind printed before the rest are counted. */
#define OPSCOPE_NOTES_SHOWN 10

/* After the first OPSCOPE_NOTES_SHOWN of TOTAL messages of one kind: one line on F,
 * "PREFIX... and 99,993 more WHAT" (digits grouped by thousands), with "; every one is in
 * FULL" when FULL (may be NULL) names a file that holds them all. Nothing when TOTAL is at
 * most OPSCOPE_NOTES_SHOWN. PREFIX and WHAT are not NULL. */
void opscope_notes_more(FILE *f, const char *prefix, uint64_t total, const char *what, const char *full);

/* V with its digits grouped by thousands ("99,993") into BUF (27 bytes hold any uint64_t). */
void opscope_notes_count(char *buf, size_t size, uint64_t v);

#endif /* OPSCOPE_NOTES_H */
