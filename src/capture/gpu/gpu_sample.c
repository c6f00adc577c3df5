/*
 * gpu_sample.c - per-topology sampling of device-timed computes (see gpu_sample.h).
 */
#include "capture/gpu/gpu_sample.h"
#include "util/hash.h"

#include <string.h>

#define DEF_BUDGET 0.05
#define DEF_WARMUP 3u
#define DEF_N_INIT 4u
#define DEF_N_MAX 64u
#define MIN_SAMPLES 3u /* pairs before N follows them: one pair may be an outlier */
#define PROBE 16u      /* at N = 1, one compute in PROBE still untimed: pairs keep coming */
#define RATIO_ONE 65536u /* the fixed point of cost ratios */

void opscope_gpu_sample_init(opscope_gpu_sample *s, const opscope_gpu_sample_config *cfg) {
    memset(s, 0, sizeof *s);
    if (cfg) {
        s->cfg = *cfg;
    }
    if (!(s->cfg.budget > 0)) s->cfg.budget = DEF_BUDGET;
    if (!s->cfg.warmup) s->cfg.warmup = DEF_WARMUP;
    if (!s->cfg.n_init) s->cfg.n_init = DEF_N_INIT;
    if (!s->cfg.n_max) s->cfg.n_max = DEF_N_MAX;
    if (s->cfg.n_init > s->cfg.n_max) s->cfg.n_init = s->cfg.n_max;
    s->prev = -1;
}

static opscope_gpu_sample_topo *slot_at(opscope_gpu_sample *s, int i) {
    return i == -2 ? &s->overflow : &s->slots[i];
}

/* The slot of KEY, claimed when new (-2: the table is full, the shared overflow entry). */
static int slot_of(opscope_gpu_sample *s, uint64_t key) {
    key = key ? key : 1; /* 0 marks a free slot */
    uint64_t h = opscope_mix64(key);
    for (uint32_t k = 0; k < OPSCOPE_GPU_SAMPLE_SLOTS; k++) {
        uint32_t i = (uint32_t)((h >> 40) + k) % OPSCOPE_GPU_SAMPLE_SLOTS;
        if (s->slots[i].key == key) {
            return (int)i;
        }
        if (s->slots[i].key == 0) {
            s->slots[i].key = key;
            s->slots[i].n = s->cfg.n_init;
            return (int)i;
        }
    }
    if (s->overflow.n == 0) {
        s->overflow.n = s->cfg.n_init;
    }
    return -2;
}

static uint64_t median(const uint64_t *v, uint32_t n) {
    uint64_t t[OPSCOPE_GPU_SAMPLE_RING];
    memcpy(t, v, n * sizeof *t);
    for (uint32_t i = 1; i < n; i++) { /* insertion sort: n <= 8 */
        uint64_t x = t[i];
        uint32_t j = i;
        while (j > 0 && t[j - 1] > x) {
            t[j] = t[j - 1];
            j--;
        }
        t[j] = x;
    }
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* N from the median ratio of the pairs, once MIN_SAMPLES are in. */
static void adapt(const opscope_gpu_sample_config *cfg, opscope_gpu_sample_topo *t) {
    if (t->n_ratio < MIN_SAMPLES) {
        return;
    }
    uint32_t nr = t->n_ratio < OPSCOPE_GPU_SAMPLE_RING ? t->n_ratio : OPSCOPE_GPU_SAMPLE_RING;
    double r = (double)median(t->ratio, nr) / RATIO_ONE;
    double n = (r - 1) / cfg->budget;
    uint32_t k = n <= 1 ? 1 : n >= cfg->n_max ? cfg->n_max : (uint32_t)n + (n > (uint32_t)n);
    t->n = k;
    if (t->next_timed > t->last_timed + k) {
        t->next_timed = t->last_timed + k; /* a shorter interval applies at once */
    }
}

/* The cost of occurrence SEQ (TIMED or not): paired with the other kind's cost when that was
 * the occurrence just before, so both were measured at the same moment of the run. */
static void add_cost(const opscope_gpu_sample_config *cfg, opscope_gpu_sample_topo *t, bool timed, uint64_t seq,
                     uint64_t cost) {
    int k = timed ? 1 : 0;
    if (t->last_seq[!k] && t->last_seq[!k] + 1 == seq) {
        uint64_t c = timed ? cost : t->last_cost[1], u = timed ? t->last_cost[0] : cost;
        if (u > 0 && c < UINT64_MAX / RATIO_ONE) {
            t->ratio[t->n_ratio % OPSCOPE_GPU_SAMPLE_RING] = c * RATIO_ONE / u;
            t->n_ratio++;
            adapt(cfg, t);
        }
    }
    t->last_cost[k] = cost;
    t->last_seq[k] = seq;
}

static void close_prev(opscope_gpu_sample *s, uint64_t now_ns) {
    if (s->prev == -1) {
        return;
    }
    opscope_gpu_sample_topo *t = slot_at(s, s->prev);
    if (!s->prev_first && now_ns > s->prev_ns) {
        add_cost(&s->cfg, t, s->prev_timed, s->prev_seq, now_ns - s->prev_ns);
    }
    s->prev = -1;
}

opscope_gpu_sample_decision opscope_gpu_sample_begin(opscope_gpu_sample *s, uint64_t key, uint64_t now_ns) {
    opscope_gpu_sample_decision d = {true, 1};
    if (s->cfg.mode == OPSCOPE_GPU_TIMING_ALL) {
        return d;
    }
    close_prev(s, now_ns);
    int i = slot_of(s, key);
    opscope_gpu_sample_topo *t = slot_at(s, i);
    t->seen++;
    /* after the warm-up, the first sample is untimed: it is the baseline N adapts to */
    if (t->seen == s->cfg.warmup + 1) {
        t->next_timed = t->seen + 1;
        t->last_timed = t->seen - 1;
    }
    /* at N = 1 nothing would be untimed again, and a baseline measured once under noise
     * would hold for good: a probe keeps measuring it */
    bool probe = t->n == 1 && t->seen > s->cfg.warmup && t->seen % PROBE == 0;
    d.timed = (t->seen <= s->cfg.warmup || t->seen >= t->next_timed) && !probe;
    if (d.timed) {
        d.weight = 1 + t->untimed_run;
        t->untimed_run = 0;
        t->timed++;
        t->last_timed = t->seen;
        t->next_timed = t->seen + t->n;
    } else {
        d.weight = 0;
        t->untimed_run++;
    }
    s->prev = i;
    s->prev_timed = d.timed;
    s->prev_first = t->seen == 1;
    s->prev_seq = t->seen;
    s->prev_ns = now_ns;
    return d;
}

void opscope_gpu_sample_pause(opscope_gpu_sample *s) {
    s->prev = -1;
}

uint32_t opscope_gpu_sample_interval(const opscope_gpu_sample *s, uint64_t key) {
    key = key ? key : 1;
    for (uint32_t i = 0; i < OPSCOPE_GPU_SAMPLE_SLOTS; i++) {
        if (s->slots[i].key == key) {
            return s->slots[i].n;
        }
    }
    return 0;
}

bool opscope_gpu_timing_parse(const char *text, opscope_gpu_timing *mode) {
    if (!text) {
        return false;
    }
    if (strcmp(text, "all") == 0) {
        *mode = OPSCOPE_GPU_TIMING_ALL;
    } else if (strcmp(text, "sampled") == 0) {
        *mode = OPSCOPE_GPU_TIMING_SAMPLED;
    } else {
        return false;
    }
    return true;
}
