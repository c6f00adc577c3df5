/* diff_kind.c - the kinds of a diff's runs and the refusal of unlike ones (see diff_kind.h). */
#include "analyze/diff/diff_kind.h"

#include <stdio.h>
#include <string.h>

enum { KIND_GGML = 0, KIND_KINETO = 1, KIND_CHROME = 2 };

static int on_meta(void *ud, const opscope_meta *m) {
    opscope_diff_kind *k = ud;
    const char *p = m->profiler ? m->profiler : "";
    int kind = !strcmp(p, "kineto") ? KIND_KINETO : !strcmp(p, "chrome") ? KIND_CHROME : KIND_GGML;
    if (!(k->seen & (1u << kind))) k->path[kind] = k->reading;
    k->seen |= 1u << kind;
    return 0;
}

opscope_sink opscope_diff_kind_sink(opscope_diff_kind *k) {
    opscope_sink s = {0};
    s.ud = k;
    s.on_meta = on_meta;
    return s;
}

const char *opscope_diff_kind_refusal(const opscope_diff_kind *base, const opscope_diff_kind *new_side,
                                      char *buf, size_t size) {
    const opscope_diff_kind *side[2] = {base, new_side};
    const char *ggml = NULL, *kineto = NULL;
    for (int s = 0; s < 2; s++) {
        if (!ggml && (side[s]->seen & (1u << KIND_GGML))) ggml = side[s]->path[KIND_GGML];
        if (!kineto && (side[s]->seen & (1u << KIND_KINETO))) kineto = side[s]->path[KIND_KINETO];
    }
    if (!ggml || !kineto) return NULL;
    snprintf(buf, size,
             "%s is a ggml profile and %s a PyTorch (Kineto) trace: their ops share no names (ggml "
             "ops vs PyTorch kernels and CPU ops), so no group could be paired; compare two ggml "
             "profiles or two traces",
             ggml ? ggml : "?", kineto ? kineto : "?");
    return buf;
}
