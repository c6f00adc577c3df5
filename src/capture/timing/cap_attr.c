/* cap_attr.c - pairing CPU abort-callback timestamps with graph nodes (see cap_attr.h). */
#include "capture/timing/cap_attr.h"

int opscope_cap_steps(const opscope_cap_node *nodes, int n, bool fusion, opscope_cap_step *steps) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (nodes[i].skip) {
            continue;
        }
        int len = 1;
        if (fusion && nodes[i].fuse > 1 && i + nodes[i].fuse <= n) {
            len = nodes[i].fuse;
        }
        steps[k].first = i;
        steps[k].n = len;
        steps[k].t0 = steps[k].t1 = 0;
        k++;
        i += len - 1;
    }
    return k;
}

static void pair(opscope_cap_step *steps, int n_steps, const uint64_t *ts, uint64_t t_start) {
    for (int k = 0; k < n_steps; k++) {
        steps[k].t0 = k == 0 ? t_start : ts[k - 1];
        steps[k].t1 = ts[k];
        if (steps[k].t1 < steps[k].t0) { /* a clock going backwards across cores: clamp */
            steps[k].t1 = steps[k].t0;
        }
    }
}

int opscope_cap_attribute(const opscope_cap_node *nodes, int n, const uint64_t *ts, int n_ts,
                          uint64_t t_start, bool aborted, opscope_cap_step *steps, int *n_steps) {
    int k = opscope_cap_steps(nodes, n, true, steps);
    int result = OPSCOPE_CAP_ATTR_EXACT;
    if (n_ts != k) {
        int k2 = opscope_cap_steps(nodes, n, false, steps);
        if (n_ts == k2 && k2 != k) {
            k = k2;
            result = OPSCOPE_CAP_ATTR_NOFUSION;
        } else {
            k = opscope_cap_steps(nodes, n, true, steps);
            result = (aborted && n_ts < k) ? OPSCOPE_CAP_ATTR_ABORTED : OPSCOPE_CAP_ATTR_INEXACT;
        }
    }
    int timed = n_ts < k ? n_ts : k;
    pair(steps, timed, ts, t_start);
    *n_steps = timed;
    return result;
}

void opscope_cap_close_last(opscope_cap_step *steps, int n_steps, int attr, uint64_t t_end) {
    if (n_steps > 0 && (attr == OPSCOPE_CAP_ATTR_EXACT || attr == OPSCOPE_CAP_ATTR_NOFUSION) &&
        t_end > steps[n_steps - 1].t1) {
        steps[n_steps - 1].t1 = t_end;
    }
}

uint64_t opscope_cap_close_steps(opscope_cap_step *steps, int n_steps, int attr, const uint64_t *bar,
                                 int n_bar, uint64_t t_end) {
    if (n_steps <= 0 || (attr != OPSCOPE_CAP_ATTR_EXACT && attr != OPSCOPE_CAP_ATTR_NOFUSION)) {
        return 0;
    }
    bool last_closed = false;
    for (int k = 0; k < n_steps && k < n_bar && bar; k++) {
        uint64_t b = bar[k];
        uint64_t limit = k + 1 < n_steps ? steps[k + 1].t1 : t_end;
        if (b == 0 || b < steps[k].t1 || b > limit) {
            continue; /* not seen, or not where a barrier after this callback can be */
        }
        steps[k].t1 = b;
        if (k + 1 < n_steps) {
            steps[k + 1].t0 = b;
        } else {
            last_closed = true;
        }
    }
    opscope_cap_step *last = &steps[n_steps - 1];
    uint64_t tail = last_closed && t_end > last->t1 ? t_end - last->t1 : 0;
    /* the last step still runs to the compute's return, so the steps tile the compute (a
     * thread preempted in the OpenMP join would otherwise leave time that is no op's) */
    opscope_cap_close_last(steps, n_steps, attr, t_end);
    return tail;
}

int opscope_cap_attribute_calls(const int32_t *calls, int n, const uint64_t *ts, int n_ts,
                                uint64_t t_start, opscope_cap_step *steps, int *n_steps) {
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        total += calls[i] > 0 ? calls[i] : 0;
    }
    *n_steps = 0;
    if (total != n_ts) {
        return OPSCOPE_CAP_ATTR_INEXACT;
    }
    int k = 0;
    int64_t done = 0;
    uint64_t prev = t_start;
    for (int i = 0; i < n; i++) {
        if (calls[i] <= 0) {
            continue;
        }
        done += calls[i];
        steps[k].first = i;
        steps[k].n = 1;
        steps[k].t0 = prev;
        steps[k].t1 = ts[done - 1] < prev ? prev : ts[done - 1];
        prev = steps[k].t1;
        k++;
    }
    *n_steps = k;
    return OPSCOPE_CAP_ATTR_EXACT;
}
