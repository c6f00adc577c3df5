/*
 * job.c - the job as a whole: shares, medians, deviations, stragglers and what bounds it
 * (job.h; definitions in docs/job.md).
 */
#include "analyze/job/job.h"

#include "util/sort.h"

#include <ctype.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

const char *opscope_job_cause_name(opscope_job_cause c) {
    switch (c) {
    case OPSCOPE_JOB_CAUSE_COMPUTE: return "compute";
    case OPSCOPE_JOB_CAUSE_INPUT: return "input";
    case OPSCOPE_JOB_CAUSE_LAUNCH: return "launch";
    default: return "unknown";
    }
}

/* The number of digits at P (at most 9 kept), into *V; 0 when none. */
static size_t digits_at(const char *p, int64_t *v) {
    size_t k = 0;
    *v = 0;
    for (; isdigit((unsigned char)p[k]); k++)
        if (k < 9) *v = *v * 10 + (p[k] - '0');
    return k;
}

int64_t opscope_job_rank_from_name(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int64_t after_rank = -1, last = -1;
    for (const char *p = base; *p;) {
        int64_t v;
        size_t k = digits_at(p, &v);
        if (!k) {
            p++;
            continue;
        }
        last = v;
        /* "rank-3", "rank_3", "rank3", "RANK.3": the number after the word */
        const char *q = p;
        while (q > base && (q[-1] == '-' || q[-1] == '_' || q[-1] == '.')) q--;
        if (q - base >= 4 && !strncasecmp(q - 4, "rank", 4)) after_rank = v;
        p += k;
    }
    return after_rank >= 0 ? after_rank : last;
}

static double pct_of(int64_t a, int64_t b) {
    return b > 0 ? 100.0 * (double)a / (double)b : 0.0;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of V[0..N) (sorted in place): the middle value, the mean of the two middle ones
 * for an even N. */
static int64_t median_i64(int64_t *v, size_t n) {
    if (!n) return 0;
    opscope_sort(v, n, sizeof *v, cmp_i64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double median_dbl(double *v, size_t n) {
    if (!n) return 0;
    opscope_sort(v, n, sizeof *v, cmp_dbl);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int by_rank(const void *a, const void *b) {
    const opscope_job_row *x = a, *y = b;
    if (x->s->rank != y->s->rank) return x->s->rank < y->s->rank ? -1 : 1;
    return strcmp(x->path, y->path); /* a rank claimed twice: a stable order */
}

/* The value a rank is compared on for cause C. */
static int64_t cause_value(const opscope_job_rank_summary *s, opscope_job_cause c) {
    switch (c) {
    case OPSCOPE_JOB_CAUSE_COMPUTE: return s->compute_ns;
    case OPSCOPE_JOB_CAUSE_INPUT: return s->input_ns;
    case OPSCOPE_JOB_CAUSE_LAUNCH: return s->host_wait_ns;
    default: return 0;
    }
}

/* Why row R is late: the cause whose time exceeds the other ranks' median the most. TMP: room
 * for N values. */
static void find_cause(const opscope_job *job, size_t r, int64_t *tmp, opscope_job_straggler *st) {
    st->cause = OPSCOPE_JOB_CAUSE_UNKNOWN;
    st->excess_ns = 0;
    for (int c = OPSCOPE_JOB_CAUSE_COMPUTE; c <= OPSCOPE_JOB_CAUSE_LAUNCH; c++) {
        size_t m = 0;
        for (size_t i = 0; i < job->n; i++)
            if (i != r) tmp[m++] = cause_value(job->rows[i].s, (opscope_job_cause)c);
        int64_t ex = cause_value(job->rows[r].s, (opscope_job_cause)c) - median_i64(tmp, m);
        if (ex > st->excess_ns) {
            st->excess_ns = ex;
            st->cause = (opscope_job_cause)c;
        }
    }
}

static int by_wait(const void *a, const void *b) {
    const opscope_job_straggler *x = a, *y = b;
    return (x->wait_ns < y->wait_ns) - (x->wait_ns > y->wait_ns);
}

/* Stragglers: ranks whose communication time is below the job's median by over a tenth of it
 * (the others wait in their collectives for them), worst first. */
static int find_stragglers(opscope_job *job, int64_t *tmp) {
    job->stragglers = calloc(job->n ? job->n : 1, sizeof *job->stragglers);
    if (!job->stragglers) return -1;
    if (job->n < 2 || job->median_comm_ns <= 0) return 0;
    for (size_t i = 0; i < job->n; i++) {
        int64_t wait = job->median_comm_ns - job->rows[i].s->comm_ns;
        if (wait * 10 <= job->median_comm_ns) continue;
        opscope_job_straggler *st = &job->stragglers[job->n_stragglers++];
        st->row = i;
        st->rank = job->rows[i].s->rank;
        st->wait_ns = wait;
        find_cause(job, i, tmp, st);
    }
    opscope_sort(job->stragglers, job->n_stragglers, sizeof *job->stragglers, by_wait);
    return 0;
}

static void fill_shares(opscope_job_row *w) {
    const opscope_job_rank_summary *s = w->s;
    w->busy_pct = pct_of(s->busy_ns, s->span_ns);
    w->idle_pct = pct_of(s->idle_ns, s->span_ns);
    w->compute_pct = pct_of(s->compute_ns, s->span_ns);
    w->non_compute_pct = pct_of(s->busy_ns - s->compute_ns, s->span_ns);
    w->comm_pct = pct_of(s->comm_ns, s->span_ns);
    w->memory_pct = pct_of(s->memory_ns, s->span_ns);
    w->input_pct = pct_of(s->input_ns, s->span_ns);
    w->overlap_pct = pct_of(s->overlap_ns, s->comm_ns);
}

/* The job's medians over its rows; V and D: room for N values. */
static void fill_medians(opscope_job *job, int64_t *v, double *d) {
    size_t n = job->n;
#define MED_I(field, expr) \
    do { for (size_t i = 0; i < n; i++) v[i] = (expr); job->field = median_i64(v, n); } while (0)
#define MED_D(field, expr) \
    do { for (size_t i = 0; i < n; i++) d[i] = (expr); job->field = median_dbl(d, n); } while (0)
    MED_I(median_step_ns, job->rows[i].s->n_steps ? job->rows[i].s->step_median_ns : job->rows[i].s->span_ns);
    MED_I(median_comm_ns, job->rows[i].s->comm_ns);
    MED_I(median_span_ns, job->rows[i].s->span_ns);
    MED_D(median_compute_pct, job->rows[i].compute_pct);
    MED_D(median_exposed_comm_pct,
          pct_of(job->rows[i].s->comm_ns - job->rows[i].s->overlap_ns, job->rows[i].s->span_ns));
    MED_D(median_memory_pct, job->rows[i].memory_pct);
    MED_D(median_input_pct, job->rows[i].input_pct);
    MED_D(median_idle_pct, job->rows[i].idle_pct);
    MED_D(median_overlap_pct, job->rows[i].overlap_pct);
#undef MED_I
#undef MED_D
}

/* What bounds the job: the worst straggler and its cause, else the slowest rank and the
 * largest share of the median rank's time; and the slowest step of any rank. */
static void find_bound(opscope_job *job) {
    job->slowest_step_rank = job->slowest_step_num = -1;
    int64_t worst = -1;
    for (size_t i = 0; i < job->n; i++) {
        const opscope_job_rank_summary *s = job->rows[i].s;
        int64_t t = s->n_steps ? s->step_median_ns : s->span_ns;
        if (t > worst) {
            worst = t;
            job->bound_row = i;
        }
        for (size_t k = 0; k < s->n_steps; k++)
            if (s->steps[k].dur_ns > job->slowest_step_ns) {
                job->slowest_step_ns = s->steps[k].dur_ns;
                job->slowest_step_num = s->steps[k].num;
                job->slowest_step_rank = s->rank;
            }
    }
    if (job->n_stragglers) {
        job->bound_row = job->stragglers[0].row;
        job->bound_resource = opscope_job_cause_name(job->stragglers[0].cause);
        return;
    }
    struct { double v; const char *name; } r[] = {
        {job->median_compute_pct, "compute"}, {job->median_exposed_comm_pct, "communication"},
        {job->median_memory_pct, "memory"}, {job->median_input_pct, "input"},
        {job->median_idle_pct, job->gpu ? "idle (GPU waits)" : "idle"}};
    job->bound_resource = r[0].name;
    double best = r[0].v;
    for (size_t i = 1; i < sizeof r / sizeof *r; i++)
        if (r[i].v > best) {
            best = r[i].v;
            job->bound_resource = r[i].name;
        }
}

static int64_t annot_time(const opscope_job_annot *a, bool gpu) {
    return gpu ? a->gpu_ns : a->cpu_ns;
}

static int by_max(const void *a, const void *b) {
    const opscope_job_annot_row *x = a, *y = b;
    if (x->max_ns != y->max_ns) return x->max_ns < y->max_ns ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* A rank's top list: its annotations (MODULES false) or its modules. */
static const opscope_job_annot *top_of(const opscope_job_rank_summary *s, bool modules, int *n) {
    *n = modules ? s->n_modules : s->n_annots;
    return modules ? s->modules : s->annots;
}

/* The names of every rank's top list (annotations, or MODULES), each over the ranks listing it,
 * into *OUT. V: room for N values. */
static int find_annots(opscope_job *job, int64_t *v, bool modules, opscope_job_annot_row **out, size_t *n_out) {
    size_t cap = 0;
    int nt;
    for (size_t i = 0; i < job->n; i++) cap += (size_t)(top_of(job->rows[i].s, modules, &nt), nt);
    opscope_job_annot_row *rows = calloc(cap ? cap : 1, sizeof *rows);
    if (!rows) return -1;
    *out = rows;
    size_t nr = 0;
    for (size_t i = 0; i < job->n; i++) {
        const opscope_job_annot *top = top_of(job->rows[i].s, modules, &nt);
        for (int k = 0; k < nt; k++) {
            const char *name = top[k].name;
            size_t a = 0;
            while (a < nr && strcmp(rows[a].name, name)) a++;
            if (a < nr) continue; /* counted when first seen */
            opscope_job_annot_row *row = &rows[nr++];
            row->name = name;
            row->max_ns = -1;
            for (size_t r = i; r < job->n; r++) {
                const opscope_job_rank_summary *t = job->rows[r].s;
                int nq;
                const opscope_job_annot *tq = top_of(t, modules, &nq);
                for (int q = 0; q < nq; q++) {
                    if (strcmp(tq[q].name, name)) continue;
                    int64_t ns = annot_time(&tq[q], t->gpu);
                    v[row->ranks++] = ns;
                    row->kernels += tq[q].kernels;
                    if (ns > row->max_ns) {
                        row->max_ns = ns;
                        row->max_rank = t->rank;
                    }
                    break;
                }
            }
            row->median_ns = median_i64(v, row->ranks);
        }
    }
    opscope_sort(rows, nr, sizeof *rows, by_max);
    *n_out = nr;
    return 0;
}

/* The collectives over the ranks (job_coll.h), from the rows' summaries. */
static int find_colls(opscope_job *job) {
    const opscope_job_rank_summary **s = malloc((job->n ? job->n : 1) * sizeof *s);
    if (!s) return -1;
    for (size_t i = 0; i < job->n; i++) s[i] = job->rows[i].s;
    int rc = opscope_job_colls_analyze(&job->colls, s, job->n);
    free(s);
    return rc;
}

int opscope_job_analyze(opscope_job *job, opscope_job_row *rows, size_t n) {
    memset(job, 0, sizeof *job);
    job->n = n;
    job->rows = rows;
    opscope_sort(rows, n, sizeof *rows, by_rank);
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    double *d = malloc((n ? n : 1) * sizeof *d);
    if (!v || !d) {
        free(v);
        free(d);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        fill_shares(&rows[i]);
        job->gpu |= rows[i].s->gpu;
    }
    fill_medians(job, v, d);
    for (size_t i = 0; i < n; i++) {
        const opscope_job_rank_summary *s = rows[i].s;
        int64_t t = s->n_steps ? s->step_median_ns : s->span_ns;
        rows[i].step_dev_pct = job->median_step_ns > 0 ? pct_of(t - job->median_step_ns, job->median_step_ns) : 0;
    }
    int rc = find_stragglers(job, v);
    if (!rc) find_bound(job);
    if (!rc) rc = find_annots(job, v, false, &job->annots, &job->n_annots);
    if (!rc) rc = find_annots(job, v, true, &job->modules, &job->n_modules);
    if (!rc) rc = find_colls(job);
    free(v);
    free(d);
    return rc;
}

void opscope_job_free(opscope_job *job) {
    if (!job) return;
    free(job->stragglers);
    free(job->annots);
    free(job->modules);
    opscope_job_colls_free(&job->colls);
    job->annots = job->modules = NULL;
    job->n_annots = job->n_modules = 0;
    job->stragglers = NULL;
    job->n_stragglers = 0;
}
