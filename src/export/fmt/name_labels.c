/* name_labels.c - unique short labels of record names (see name_labels.h). */
#include "export/fmt/name_labels.h"

#include "analyze/record/kernel_name.h"
#include "model/strtab.h"
#include "util/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

struct opscope_name_labels {
    opscope_strtab_t *names;  /* full names, ids in the order of the operations table */
    opscope_strtab_t *shorts; /* distinct short forms */
    opscope_strtab_t *labels; /* short forms made unique */
    uint32_t *short_of;       /* per name id: short form id, or NONE when not shortened */
    uint32_t *label_of;       /* per name id: label id, or NONE */
    uint32_t *shortened;      /* name ids that have a label, in order */
    size_t n_shortened, cap;
};

void opscope_name_labels_free(opscope_name_labels_t *l) {
    if (!l) return;
    opscope_strtab_free(l->names);
    opscope_strtab_free(l->shorts);
    opscope_strtab_free(l->labels);
    free(l->short_of);
    free(l->label_of);
    free(l->shortened);
    free(l);
}

/* Grows the per-name arrays to hold id N - 1. */
static int reserve(opscope_name_labels_t *l, size_t n) {
    if (n <= l->cap) return 0;
    size_t nc = l->cap ? l->cap * 2 : 64;
    while (nc < n) nc *= 2;
    uint32_t *a = realloc(l->short_of, nc * sizeof *a);
    if (a) l->short_of = a;
    uint32_t *b = realloc(l->label_of, nc * sizeof *b);
    if (b) l->label_of = b;
    uint32_t *c = realloc(l->shortened, nc * sizeof *c);
    if (c) l->shortened = c;
    if (!a || !b || !c) return -1;
    l->cap = nc;
    return 0;
}

/* Interns NAME; a new one gets its short form. Returns the id or NONE (out of memory). */
static uint32_t add_name(opscope_name_labels_t *l, const char *name) {
    uint32_t before = opscope_strtab_count(l->names), id;
    if (!opscope_strtab_intern(l->names, name, strlen(name), &id)) return NONE;
    if (id < before) return id;
    if (reserve(l, (size_t)id + 1)) return NONE;
    l->short_of[id] = l->label_of[id] = NONE;
    size_t len = strlen(name);
    char *buf = malloc(len + 16);
    if (!buf) return NONE;
    size_t n = opscope_kernel_name_short(buf, len + 16, name);
    if (n < len + 16 && strcmp(buf, name) != 0) {
        uint32_t sid;
        if (!opscope_strtab_intern(l->shorts, buf, n, &sid)) id = NONE;
        else l->short_of[id] = sid;
    }
    free(buf);
    return id;
}

void opscope_name_tag(char *tag, size_t size, const char *full, int wide) {
    uint64_t h = opscope_hash_bytes(full, strlen(full));
    if (wide) snprintf(tag, size, " #%08x", (unsigned)(h >> 32));
    else snprintf(tag, size, " #%04x", (unsigned)(h >> 48));
}

opscope_name_labels_t *opscope_name_labels_new(const opscope_stats_t *s) {
    opscope_name_labels_t *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->names = opscope_strtab_new();
    l->shorts = opscope_strtab_new();
    l->labels = opscope_strtab_new();
    uint32_t *count = NULL;
    if (!l->names || !l->shorts || !l->labels) goto fail;
    for (size_t i = 0; i < opscope_stats_n_ops(s); i++)
        if (add_name(l, opscope_stats_op(s, i)->name) == NONE) goto fail;
    uint32_t nn = opscope_strtab_count(l->names), ns = opscope_strtab_count(l->shorts);
    count = calloc(ns ? ns : 1, sizeof *count);
    if (!count) goto fail;
    for (uint32_t id = 0; id < nn; id++)
        if (l->short_of[id] != NONE) count[l->short_of[id]]++;
    for (uint32_t id = 0; id < nn; id++) {
        uint32_t sid = l->short_of[id];
        if (sid == NONE) continue;
        const char *sh = opscope_strtab_get(l->shorts, sid);
        size_t sl = strlen(sh);
        char *lab = malloc(sl + 16);
        if (!lab) goto fail;
        /* Several kernels with one short form: tagged by their full names, never by the
         * table's order (which differs between a report and a diff) */
        uint32_t lid = 0, before = opscope_strtab_count(l->labels);
        const char *ok = NULL;
        for (int wide = 0; wide < 2; wide++) {
            char tag[16] = "";
            if (count[sid] > 1) opscope_name_tag(tag, sizeof tag, opscope_strtab_get(l->names, id), wide);
            size_t ln = (size_t)snprintf(lab, sl + 16, "%s%s", sh, tag);
            ok = opscope_strtab_intern(l->labels, lab, ln, &lid);
            if (!ok || lid >= before || count[sid] < 2) break;
        }
        free(lab);
        if (!ok) goto fail;
        l->label_of[id] = lid;
        l->shortened[l->n_shortened++] = id;
    }
    free(count);
    return l;
fail:
    free(count);
    opscope_name_labels_free(l);
    return NULL;
}

const char *opscope_name_labels_get(opscope_name_labels_t *l, const char *name) {
    if (!l || !name) return name;
    uint32_t before = opscope_strtab_count(l->names), id;
    /* Interning an unknown name (none should be: every record has a group) only grows the
     * table; it has no label. */
    if (!opscope_strtab_intern(l->names, name, strlen(name), &id) || id >= before) return name;
    return l->label_of[id] == NONE ? name : opscope_strtab_get(l->labels, l->label_of[id]);
}

size_t opscope_name_labels_n(const opscope_name_labels_t *l) { return l ? l->n_shortened : 0; }

const char *opscope_name_labels_label(const opscope_name_labels_t *l, size_t i) {
    return l && i < l->n_shortened ? opscope_strtab_get(l->labels, l->label_of[l->shortened[i]])
                                   : NULL;
}

const char *opscope_name_labels_full(const opscope_name_labels_t *l, size_t i) {
    return l && i < l->n_shortened ? opscope_strtab_get(l->names, l->shortened[i]) : NULL;
}
