/*
 * name_labels.h - the names the console and text tables print for records (internal).
 *
 * GPU kernel names are shortened (analyze/record/kernel_name.h); different kernels can share a
 * short form, so each gets a tag from a hash of its full name
 * ("at::native::reduce_kernel<…sum_functor…> #3fa2"): the same kernel has the same label in
 * every report and diff, whatever the table order; the text report lists every label with its
 * full name. Names that need no shortening (ggml ops, copies) are their own label.
 * JSON, Chrome and HTML exports always keep the full name.
 *
 * Ownership: labels are owned by the object and valid until it is freed. Thread safety: none.
 */
#ifndef OPSCOPE_NAME_LABELS_H
#define OPSCOPE_NAME_LABELS_H

#include "analyze/ggml/stats.h"

#include <stddef.h>

typedef struct opscope_name_labels opscope_name_labels_t;

/* Labels for the record names of S's groups (S finished). NULL when out of memory: the
 * functions below then give every name as it is. */
opscope_name_labels_t *opscope_name_labels_new(const opscope_stats_t *s);
void opscope_name_labels_free(opscope_name_labels_t *l);

/* The label of NAME; NAME itself when it is not shortened, unknown, or L is NULL. */
const char *opscope_name_labels_get(opscope_name_labels_t *l, const char *name);

/* Writes " #xxxx" into TAG (at least 12 bytes): 16 bits of a hash of the full name FULL, or
 * 32 bits when WIDE (two names of one short form whose 16 bits collide). */
void opscope_name_tag(char *tag, size_t size, const char *full, int wide);

/* The shortened names, in the order of the operations table: label and full name. */
size_t opscope_name_labels_n(const opscope_name_labels_t *l);
const char *opscope_name_labels_label(const opscope_name_labels_t *l, size_t i);
const char *opscope_name_labels_full(const opscope_name_labels_t *l, size_t i);

#endif /* OPSCOPE_NAME_LABELS_H */
