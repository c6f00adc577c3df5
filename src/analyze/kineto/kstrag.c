/* kstrag.c - one rank's inputs of HTA's straggler rule (see kstrag.h). */
#include "analyze/kineto/kstrag.h"

#include "util/vec.h"

#include <stdbool.h>
#include <stdlib.h>

struct opscope_kstrag {
    opscope_kstrag_span *spans;
    int64_t *until;         /* per step, its own end: what holds a CPU record */
    size_t n_spans;
    long last;              /* the step the previous CPU record fell in: records come in time
                               order per thread, so mostly the same one (-1 none) */
    OPSCOPE_VEC(opscope_kstrag_comm) comms;
};

void opscope_kstrag_free(opscope_kstrag_t *s) {
    if (s) {
        free(s->spans);
        free(s->until);
        free(s->comms.v);
    }
    free(s);
}

opscope_kstrag_t *opscope_kstrag_new(const int64_t *numbers, const int64_t *starts, const int64_t *ends, size_t n_steps) {
    opscope_kstrag_t *s = calloc(1, sizeof *s);
    if (s) {
        s->spans = malloc((n_steps ? n_steps : 1) * sizeof *s->spans);
        s->until = malloc((n_steps ? n_steps : 1) * sizeof *s->until);
    }
    if (s && (!s->spans || !s->until)) {
        opscope_kstrag_free(s);
        return NULL;
    }
    for (size_t i = 0; s && i < n_steps; i++) {
        s->spans[i] = (opscope_kstrag_span){numbers[i], starts[i], ends[i]};
        s->until[i] = ends[i];
    }
    if (s) s->n_spans = n_steps, s->last = -1;
    return s;
}

/* The step holding T (start <= T < its own end; of overlapping ones the last by start, as
 * HTA's loop over the steps leaves it), or -1. The steps are by start. */
static long step_of(const opscope_kstrag_t *s, int64_t t) {
    long lo = -1, hi = (long)s->n_spans; /* spans[lo] starts at or before T, spans[hi] after */
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        *(s->spans[mid].start_ns <= t ? &lo : &hi) = mid;
    }
    return lo >= 0 && t < s->until[lo] ? lo : -1;
}

void opscope_kstrag_cpu(opscope_kstrag_t *s, int64_t start, int64_t end) {
    long i = s->last;
    bool hit = i >= 0 && s->spans[i].start_ns <= start && start < s->until[i] &&
               ((size_t)i + 1 == s->n_spans || s->spans[i + 1].start_ns > start);
    if (!hit) s->last = i = step_of(s, start);
    if (i >= 0 && end > s->spans[i].end_ns) s->spans[i].end_ns = end;
}

int opscope_kstrag_gpu(opscope_kstrag_t *s, uint32_t step, int comm, uint32_t name, int64_t stream, int64_t start,
                       int64_t dur) {
    if (step >= s->n_spans) return 0;
    opscope_kstrag_span *sp = &s->spans[step];
    if (start + dur > sp->end_ns) sp->end_ns = start + dur;
    if (!comm || stream <= 0) return 0;
    opscope_kstrag_comm c = {sp->step, stream, start, dur, name};
    return OPSCOPE_VEC_PUSH(s->comms, c);
}

const opscope_kstrag_span *opscope_kstrag_spans(const opscope_kstrag_t *s, size_t *n) {
    *n = s->n_spans;
    return s->spans;
}

const opscope_kstrag_comm *opscope_kstrag_comms(const opscope_kstrag_t *s, size_t *n) {
    *n = s->comms.n;
    return s->comms.v;
}
