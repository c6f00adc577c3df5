/*
 * gpu_map.c - device work to graph nodes (see gpu_map.h for the idea).
 */
#include "capture/gpu/gpu_map.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How far ahead of the next node a kernel may jump (fusion consumes a few nodes; the widest
 * ggml fusions, MoE top-k, span a dozen with their views). */
#define MAP_WINDOW 48
/* How many later kernels may show that a kernel is a helper of the next node. */
#define MAP_LOOK 4

/* Length of the match of NAME against PREFIX (compared case-insensitively), or 0: a match
 * must end at '_', a digit, a template's '<' (demangled CUDA kernels) or the end of NAME. */
static size_t match_len(const char *name, const char *prefix, size_t plen) {
    for (size_t i = 0; i < plen; i++) {
        if (name[i] == '\0' ||
            tolower((unsigned char)name[i]) != tolower((unsigned char)prefix[i])) {
            return 0;
        }
    }
    char c = name[plen];
    return (c == '\0' || c == '_' || c == '<' || isdigit((unsigned char)c)) ? plen : 0;
}

/* What an item implements: a rule (ops list) or a graph op/function name. */
typedef struct item_class {
    const opscope_gpu_rule *rule; /* NULL: GENERIC (or nothing) */
    const char *generic;          /* an op or function name of the graph */
    opscope_gpu_role role;
    bool known;
} item_class;

/* Whether rule R names the op of node N (names compared: a node carries ggml's name). */
static bool ops_has(const opscope_gpu_rule *r, const opscope_gpu_node *n) {
    for (int i = 0; i < OPSCOPE_GPU_RULE_OPS && r->ops[i] != OPSCOPE_GGML_OP_NONE; i++) {
        if (opscope_ggml_op_is(n->op, r->ops[i])) {
            return true;
        }
    }
    return false;
}

static bool item_implements(const item_class *c, const opscope_gpu_node *n) {
    if (!c->known || n->empty) {
        return false;
    }
    if (c->rule) {
        return ops_has(c->rule, n);
    }
    return strcmp(c->generic, n->op) == 0 || (n->sub && strcmp(c->generic, n->sub) == 0);
}

static bool is_copy_op(const opscope_gpu_node *n) {
    return !n->empty && (opscope_ggml_op_is(n->op, OPSCOPE_GGML_OP_CPY) ||
                         opscope_ggml_op_is(n->op, OPSCOPE_GGML_OP_CONT) ||
                         opscope_ggml_op_is(n->op, OPSCOPE_GGML_OP_DUP) ||
                         opscope_ggml_op_is(n->op, OPSCOPE_GGML_OP_SET));
}

/* Distinct op and function names of the graph (pointer-deduplicated first: ggml's names are
 * static strings), the generic aliases. */
static int graph_names(const opscope_gpu_node *nodes, int n_nodes, const char **out, int max) {
    int k = 0;
    for (int i = 0; i < n_nodes; i++) {
        const char *cand[2] = {nodes[i].op, nodes[i].sub};
        for (int c = 0; c < 2; c++) {
            const char *s = cand[c];
            if (!s || !*s || nodes[i].empty) {
                continue;
            }
            bool seen = false;
            for (int j = 0; j < k && !seen; j++) {
                seen = out[j] == s || strcmp(out[j], s) == 0;
            }
            if (!seen && k < max) {
                out[k++] = s;
            }
        }
    }
    return k;
}

static item_class classify(const opscope_gpu_rules *rules, const char *const *names, int n_names,
                           const opscope_gpu_item *it) {
    item_class c = {0};
    if (!it->name) {
        return c;
    }
    size_t best = 0;
    for (int r = 0; rules && r < rules->n; r++) {
        size_t l = match_len(it->name, rules->rule[r].prefix, strlen(rules->rule[r].prefix));
        if (l > best) {
            best = l;
            c.rule = &rules->rule[r];
            c.role = rules->rule[r].role;
            c.known = true;
        }
    }
    for (int g = 0; g < n_names; g++) {
        size_t l = match_len(it->name, names[g], strlen(names[g]));
        if (l > best) {
            best = l;
            c.rule = NULL;
            c.generic = names[g];
            c.role = OPSCOPE_GPU_ROLE_MAIN;
            c.known = true;
        }
    }
    return c;
}

static int next_nonempty(const opscope_gpu_node *nodes, int n_nodes, int from) {
    while (from < n_nodes && nodes[from].empty) {
        from++;
    }
    return from;
}

static int last_nonempty(const opscope_gpu_node *nodes, int lo, int hi) {
    for (int i = hi; i > lo; i--) {
        if (!nodes[i].empty) {
            return i;
        }
    }
    return lo;
}

/* The node a label names ("OP+OP+... name"), searched from FROM on and then from the start;
 * *N_OPS: how many nodes the label covers. -1 when none matches. */
static int label_node(const char *label, const opscope_gpu_node *nodes, int n_nodes, int from, int *n_ops) {
    const char *sp = strchr(label, ' ');
    const char *plus = strchr(label, '+');
    size_t l0 = plus && (!sp || plus < sp) ? (size_t)(plus - label) : sp ? (size_t)(sp - label) : strlen(label);
    int n = 1;
    for (const char *c = label; *c && c != sp; c++) {
        n += *c == '+';
    }
    *n_ops = n;
    const char *tname = sp ? sp + 1 : NULL;
    for (int pass = 0; pass < 2; pass++) {
        int lo = pass ? 0 : from, hi = pass ? from : n_nodes;
        for (int i = lo; i < hi; i++) {
            const opscope_gpu_node *x = &nodes[i];
            if (strlen(x->op) != l0 || strncmp(x->op, label, l0) != 0) {
                continue;
            }
            /* capture names are cut at 63 bytes, like ggml's */
            if (!tname || !x->name || strncmp(x->name, tname, 63) == 0) {
                return i;
            }
        }
    }
    return -1;
}

static int map_labels(const opscope_gpu_node *nodes, int n_nodes, const opscope_gpu_item *items, int n_items,
                      opscope_gpu_group *groups, int max_groups) {
    int ng = 0, next = 0, pend = -1;
    uint32_t cur_id = 0;
    for (int k = 0; k < n_items; k++) {
        opscope_gpu_group *cur = ng ? &groups[ng - 1] : NULL;
        const char *lab = items[k].label;
        int j = -1, n_ops = 1;
        if (lab && cur && items[k].label_id == cur_id) {
            cur->n_items = k + 1 - cur->item0;
            cur->n_main++;
            continue;
        }
        if (lab) {
            /* a new opening: the next node with that label, or the current one again (a node
             * whose recording went on in a new command buffer reopens its label there) */
            j = label_node(lab, nodes, n_nodes, next, &n_ops);
            if (cur && (j < 0 || j < next) && label_node(lab, nodes, n_nodes, cur->first, &n_ops) == cur->first) {
                cur->n_items = k + 1 - cur->item0;
                cur->n_main++;
                cur_id = items[k].label_id;
                continue;
            }
        }
        if (j < 0) {
            /* unlabelled (or naming no node): with the group before, else the next one */
            if (cur && pend < 0) {
                cur->n_items = k + 1 - cur->item0;
            } else if (pend < 0) {
                pend = k;
            }
            continue;
        }
        if (ng == max_groups) {
            return -1;
        }
        opscope_gpu_group *g = &groups[ng++];
        g->first = g->main = j;
        g->last = j + n_ops - 1 < n_nodes ? j + n_ops - 1 : n_nodes - 1;
        g->item0 = pend >= 0 ? pend : k;
        g->n_items = k + 1 - g->item0;
        g->n_main = 1;
        pend = -1;
        cur_id = items[k].label_id;
        next = g->last + 1;
    }
    if (ng && pend >= 0) {
        groups[ng - 1].n_items = n_items - groups[ng - 1].item0;
    }
    return ng;
}

int opscope_gpu_map(const opscope_gpu_rules *rules, const opscope_gpu_node *nodes, int n_nodes,
                    const opscope_gpu_item *items, int n_items, opscope_gpu_group *groups, int max_groups) {
    int first = next_nonempty(nodes, n_nodes, 0);
    if (n_items <= 0 || first >= n_nodes) {
        return 0;
    }
    for (int k = 0; k < n_items; k++) {
        if (items[k].label) {
            int ng = map_labels(nodes, n_nodes, items, n_items, groups, max_groups);
            if (ng != 0) {
                return ng;
            }
            break; /* no label named a node of this graph: by kernel names */
        }
    }
    const char *names[256];
    int n_names = graph_names(nodes, n_nodes, names, 256);
    item_class *cls = malloc((size_t)n_items * sizeof *cls);
    if (!cls) {
        return -1;
    }
    for (int k = 0; k < n_items; k++) {
        cls[k] = classify(rules, names, n_names, &items[k]);
    }
    int ng = 0;
    int next = first;   /* first node not in a group yet */
    int pend = -1;      /* first item waiting for the next group, -1: none */
    int rc = 0;
    for (int k = 0; k < n_items && rc == 0; k++) {
        const item_class *c = &cls[k];
        opscope_gpu_group *cur = ng ? &groups[ng - 1] : NULL;
        int nx = next_nonempty(nodes, n_nodes, next);
        bool transfer = items[k].kind != OPSCOPE_GPU_ITEM_DISPATCH;
        bool helper = transfer ? !(nx < n_nodes && is_copy_op(&nodes[nx])) : c->role == OPSCOPE_GPU_ROLE_PRE;
        if (!transfer && c->role == OPSCOPE_GPU_ROLE_POST && cur) {
            cur->n_items = k + 1 - cur->item0;
            continue;
        }
        int j = -1;
        if (!helper && nx < n_nodes) {
            if (transfer) {
                j = nx;
            } else {
                int lim = next + MAP_WINDOW < n_nodes ? next + MAP_WINDOW : n_nodes;
                for (int i = nx; i < lim && j < 0; i++) {
                    if (item_implements(c, &nodes[i])) {
                        j = i;
                    }
                }
            }
        }
        if (j != nx && !helper) {
            /* Not the next node's: another kernel of the current node, a helper of the next
             * one (a later kernel is the next node's), or the next nodes were fused. */
            if (cur && item_implements(c, &nodes[cur->main])) {
                cur->n_items = k + 1 - cur->item0; /* with any helpers pending before it */
                cur->n_main++;
                pend = -1;
                continue;
            }
            /* a kernel that names no node near, or a copy kernel (staging a source), is a
             * helper when a kernel just after it is the next node's */
            bool later = false;
            bool may_help = j < 0 || (c->rule && c->rule->ops[0] == OPSCOPE_GGML_OP_CPY);
            for (int l = k + 1; may_help && l < n_items && l <= k + MAP_LOOK && !later && nx < n_nodes; l++) {
                later = item_implements(&cls[l], &nodes[nx]);
            }
            if (later) {
                helper = true;
            } else if (j < 0) {
                if (cur && pend < 0) {
                    cur->n_items = k + 1 - cur->item0;
                    continue;
                }
                helper = true; /* nothing to attach to yet: the next group takes it */
            }
        }
        if (helper) {
            if (pend < 0) {
                pend = k;
            }
            continue;
        }
        /* item k starts node j's group; the nodes before j that no kernel claimed are the
         * previous group's (fused), or this one's when there is none before */
        if (ng == max_groups) {
            rc = -1;
            break;
        }
        if (cur) {
            cur->last = last_nonempty(nodes, cur->last, j - 1);
        }
        opscope_gpu_group *g = &groups[ng++];
        g->first = cur ? j : nx;
        g->main = j;
        g->last = j;
        g->item0 = pend >= 0 ? pend : k;
        g->n_items = k + 1 - g->item0;
        g->n_main = 1;
        pend = -1;
        if (rules && rules->fused_after && items[k].name) {
            int e = rules->fused_after(items[k].name, nodes, n_nodes, j);
            g->last = e > j && e < n_nodes ? e : j;
        }
        next = g->last + 1;
    }
    if (rc == 0) {
        if (ng == 0) {
            /* no kernel named any node: one group for the whole graph, so nothing is lost */
            if (max_groups < 1) {
                rc = -1;
            } else {
                groups[0] = (opscope_gpu_group){first, last_nonempty(nodes, first, n_nodes - 1), first, 0, n_items, 0};
                ng = 1;
            }
        } else {
            opscope_gpu_group *cur = &groups[ng - 1];
            if (pend >= 0) {
                cur->n_items = n_items - cur->item0;
            }
            cur->last = last_nonempty(nodes, cur->last, n_nodes - 1);
        }
    }
    free(cls);
    return rc < 0 ? -1 : ng;
}

void opscope_gpu_group_name(const opscope_gpu_rules *rules, const opscope_gpu_node *nodes, const opscope_gpu_group *g,
                            char *buf, size_t size) {
    size_t o = 0;
    if (size == 0) {
        return;
    }
    buf[0] = '\0';
    const char *own = rules && rules->group_name ? rules->group_name(nodes, g) : NULL;
    if (own) {
        snprintf(buf, size, "%s", own);
        return;
    }
    for (int i = g->first; i <= g->last; i++) {
        const char *s = nodes[i].op;
        size_t l = strlen(s);
        if (o + l + (i > g->first) >= size) {
            break;
        }
        if (i > g->first) {
            buf[o++] = '_';
        }
        memcpy(buf + o, s, l);
        o += l;
        buf[o] = '\0';
    }
}

void opscope_gpu_split_shared(uint64_t *s, uint64_t *e, const uint64_t *w, int n) {
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && s[j] == s[i] && e[j] == e[i]) {
            j++;
        }
        if (j - i > 1 && e[i] > s[i]) {
            uint64_t sum = 0;
            for (int k = i; k < j; k++) {
                sum += w[k];
            }
            uint64_t t0 = s[i], end = e[i], span = end - t0, total = sum ? sum : (uint64_t)(j - i), acc = 0;
            for (int k = i; k < j; k++) {
                acc += sum ? w[k] : 1;
                s[k] = k == i ? t0 : e[k - 1];
                /* cumulative, so the slices tile [S, E] exactly */
                e[k] = k == j - 1 ? end : t0 + (uint64_t)((double)span * (double)acc / (double)total);
            }
        }
        i = j;
    }
}
