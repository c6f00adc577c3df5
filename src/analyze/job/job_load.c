/*
 * job_load.c - a distributed job's inputs read in parallel and the job analysed (see job_load.h).
 */
#include "analyze/job/job_load.h"

#include "analyze/job/job_rank.h"
#include "read/job_summary.h"
#include "read/readers.h"
#include "util/sort.h"

#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool opscope_job_is_dir(const char *path) {
    struct stat st;
    return strcmp(path, "-") && !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* One input of the job (a trace: one rank; a job summary: its ranks) and what its read left. */
typedef struct job_slot {
    char *path;
    opscope_job_summary_rank *ranks;     /* trace NULL: the slot's path */
    size_t n_ranks;
    opscope_error err;
    int failed;                          /* 0 ok, 1 bad input, 2 out of memory, 3 not a trace */
    bool trace;                          /* read as a trace (else a job summary) */
    void *user;                          /* what the reader's hook left (view: the rank's block) */
} job_slot;

typedef struct job_pool {
    job_slot *slots;
    size_t n;
    const opscope_job_reader *rd;        /* how traces are read; NULL: for their figures only */
    FILE *msg;                           /* where messages go; NULL: nowhere */
    opscope_error *err;                  /* the first failure */
    atomic_size_t next, done;
    bool progress;                       /* say how many were read */
} job_pool;

/* One line on P's messages (none without them). */
static void say(const job_pool *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const job_pool *p, const char *fmt, ...) {
    if (!p->msg) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(p->msg, fmt, ap);
    va_end(ap);
}

/* *P's first failure: MSG (static) about FILE at no position, unless one is kept already. */
static void fail(job_pool *p, opscope_error_code code, const char *msg, const char *file) {
    if (p->err->code) return;
    *p->err = (opscope_error){.code = code, .msg = msg};
    snprintf(p->err->file, sizeof p->err->file, "%s", file ? file : "");
}

static bool is_trace_name(const char *name) {
    size_t n = strlen(name);
    return (n > 5 && !strcmp(name + n - 5, ".json")) || (n > 8 && !strcmp(name + n - 8, ".json.gz"));
}

static int by_path(const void *a, const void *b) {
    return strcmp(((const job_slot *)a)->path, ((const job_slot *)b)->path);
}

static int add_slot(job_slot **v, size_t *n, size_t *cap, const char *dir, const char *name) {
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        job_slot *nv = realloc(*v, nc * sizeof *nv);
        if (!nv) return -1;
        *v = nv;
        *cap = nc;
    }
    size_t len = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
    char *p = malloc(len);
    if (!p) return -1;
    if (dir) snprintf(p, len, "%s/%s", dir, name);
    else snprintf(p, len, "%s", name);
    memset(&(*v)[*n], 0, sizeof **v);
    (*v)[(*n)++].path = p;
    return 0;
}

/* The inputs of a folder: its *.json and *.json.gz files (traces, job summaries), by name. Returns the count added, or
 * -1 (message printed). */
static long add_dir(job_pool *p, size_t *cap, const char *dir) {
    job_slot **v = &p->slots;
    size_t *n = &p->n;
    DIR *d = opendir(dir);
    if (!d) {
        say(p, "opscope: %s: cannot open the folder\n", dir);
        fail(p, OPSCOPE_ERROR_IO, "cannot open the folder", dir);
        return -1;
    }
    size_t first = *n;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !is_trace_name(e->d_name)) continue;
        if (add_slot(v, n, cap, dir, e->d_name)) {
            closedir(d);
            say(p, "opscope: out of memory\n");
            fail(p, OPSCOPE_ERROR_NOMEM, "out of memory", dir);
            return -1;
        }
    }
    closedir(d);
    opscope_sort(*v + first, *n - first, sizeof **v, by_path);
    return (long)(*n - first);
}

bool opscope_job_is_summary(const char *path) {
    char head[32];
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : NULL;
    if (!f) return false;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return opscope_job_summary_sniff(head, n);
}

/* Reads one input into SLOT: a job summary's ranks, or a trace through its own analysis, freed
 * before the next input is taken. */
static void read_one(job_slot *slot, const opscope_job_reader *rd) {
    if (opscope_job_is_summary(slot->path)) {
        if (opscope_job_summary_read(slot->path, &slot->ranks, &slot->n_ranks, &slot->err)) slot->failed = 1;
        return;
    }
    slot->trace = true;
    if (rd) {
        if (!(slot->ranks = calloc(1, sizeof *slot->ranks))) {
            slot->failed = 2;
            return;
        }
        slot->n_ranks = 1;
        slot->failed = rd->read(rd->ud, slot->path, &slot->ranks[0].sum, &slot->user, &slot->err);
        return;
    }
    opscope_job_rank_t *r = opscope_job_rank_new(NULL);
    slot->ranks = calloc(1, sizeof *slot->ranks);
    if (!r || !slot->ranks) {
        opscope_job_rank_free(r);
        slot->failed = 2;
        return;
    }
    slot->n_ranks = 1;
    opscope_sink sink;
    memset(&sink, 0, sizeof sink);
    opscope_read_options ro = {.kineto = opscope_job_rank_collector(r)};
    if (opscope_read_file_opts(slot->path, OPSCOPE_FORMAT_AUTO, &sink, &ro, &slot->err)) slot->failed = 1;
    else if (!opscope_job_rank_events(r)) slot->failed = 3; /* a ggml profile, say */
    else if (opscope_job_rank_finish(r, &slot->ranks[0].sum)) slot->failed = 2;
    opscope_job_rank_free(r);
}

static void *worker(void *ud) {
    job_pool *p = ud;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n) return NULL;
        read_one(&p->slots[i], p->rd);
        size_t d = atomic_fetch_add(&p->done, 1) + 1;
        if (p->progress) say(p, "\ropscope: read %zu of %zu%s", d, p->n, d == p->n ? "\n" : "");
    }
}

/* Reads every slot on THREADS threads (the calling one among them). */
static void read_all(job_pool *p, int threads) {
    pthread_t tid[64];
    int started = 0;
    for (int t = 1; t < threads && t < 64; t++)
        if (!pthread_create(&tid[started], NULL, worker, p)) started++;
    worker(p);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A lone directory none of whose files was read as a trace or summary (a folder of ggml
 * profiles, say): one line for it rather than one per file. Returns true when said. */
static bool say_no_job(job_pool *p, const char *const *inputs, int n) {
    if (n != 1 || !opscope_job_is_dir(inputs[0])) return false;
    for (size_t i = 0; i < p->n; i++)
        if (p->slots[i].failed != 1 && p->slots[i].failed != 3) return false;
    say(p, "opscope: %s: a directory is read as a distributed job, and none of its %zu "
           "files is a PyTorch profiler (Kineto) trace or job summary; for one ggml "
           "profile, give its file\n", inputs[0], p->n);
    fail(p, OPSCOPE_ERROR_FORMAT, "no PyTorch profiler (Kineto) trace or job summary in the folder", inputs[0]);
    return true;
}

/* Any failed read: its message. Returns 0 when all were read, else -1. */
static int check_reads(job_pool *p, const char *const *inputs, int n) {
    if (p->n && say_no_job(p, inputs, n)) return -1;
    int st = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (!p->slots[i].failed) continue;
        const char *path = p->slots[i].path;
        if (p->slots[i].failed == 2) {
            say(p, "opscope: %s: out of memory\n", path);
            fail(p, OPSCOPE_ERROR_NOMEM, "out of memory", path);
        } else if (p->slots[i].failed == 3) {
            say(p, "opscope: %s: no trace events: a job's ranks are PyTorch "
                   "profiler (Kineto) traces or job summaries\n", path);
            fail(p, OPSCOPE_ERROR_FORMAT, "no trace events: a job's ranks are PyTorch profiler (Kineto) traces or job summaries", path);
        } else {
            char line[768]; /* a 255-byte file name, the longest message and its position fit */
            opscope_error_format(&p->slots[i].err, line, sizeof line);
            say(p, "%s\n", line);
            if (!p->err->code) *p->err = p->slots[i].err;
        }
        st = -1;
    }
    return st;
}

/* Every rank of every slot into ROWS (room for them all); returns the count. Ranks:
 * distributedInfo, else the file name, else the order given; a rank claimed twice is said. */
static size_t resolve_ranks(job_pool *p, opscope_job_row *rows) {
    size_t m = 0;
    for (size_t i = 0; i < p->n; i++)
        for (size_t k = 0; k < p->slots[i].n_ranks; k++) {
            opscope_job_summary_rank *r = &p->slots[i].ranks[k];
            const char *path = r->trace ? r->trace : p->slots[i].path;
            if (r->sum.rank < 0) r->sum.rank = opscope_job_rank_from_name(path);
            if (r->sum.rank < 0) r->sum.rank = (int64_t)m;
            rows[m++] = (opscope_job_row){.path = path, .s = &r->sum};
        }
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < i; j++)
            if (rows[i].s->rank == rows[j].s->rank) {
                say(p, "opscope: warning: %s and %s are both rank %lld\n", rows[j].path, rows[i].path,
                    (long long)rows[i].s->rank);
                break;
            }
    return m;
}

struct opscope_job_set {
    job_pool p;
    opscope_job_row *rows;
    opscope_job job;
    int threads;                         /* how it was read */
    double wall_s;
    bool analyzed;
};

/* The slots of INPUTS (a folder: its traces) into P. Returns 0, or -1 after a message. */
static int gather(const char *const *inputs, int n, job_pool *p) {
    size_t cap = 0;
    for (int i = 0; i < n; i++) {
        if (opscope_job_is_dir(inputs[i])) {
            long k = add_dir(p, &cap, inputs[i]);
            if (k < 0) return -1;
            if (!k) say(p, "opscope: warning: %s holds no *.json or *.json.gz trace\n", inputs[i]);
        } else if (add_slot(&p->slots, &p->n, &cap, NULL, inputs[i])) {
            say(p, "opscope: out of memory\n");
            fail(p, OPSCOPE_ERROR_NOMEM, "out of memory", inputs[i]);
            return -1;
        }
    }
    if (!p->n) {
        say(p, "opscope: no trace to read\n");
        fail(p, OPSCOPE_ERROR_FORMAT, "no trace to read", n ? inputs[0] : NULL);
        return -1;
    }
    return 0;
}

void opscope_job_set_free(opscope_job_set_t *s) {
    if (!s) return;
    if (s->analyzed) opscope_job_free(&s->job);
    free(s->rows);
    for (size_t i = 0; i < s->p.n; i++) {
        for (size_t k = 0; k < s->p.slots[i].n_ranks; k++) {
            opscope_job_rank_summary_free(&s->p.slots[i].ranks[k].sum);
            free(s->p.slots[i].ranks[k].trace);
        }
        free(s->p.slots[i].ranks);
        free(s->p.slots[i].path);
        if (s->p.slots[i].user && s->p.rd && s->p.rd->drop) s->p.rd->drop(s->p.slots[i].user);
    }
    free(s->p.slots);
    free(s);
}

int opscope_job_load(const char *const *inputs, int n, const opscope_job_load_opts *o, opscope_job_set_t **out,
                     opscope_error *err) {
    *out = NULL;
    memset(err, 0, sizeof *err);
    opscope_job_set_t *s = calloc(1, sizeof *s);
    if (!s) return *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"}, -1;
    s->p.rd = o->rd;
    s->p.msg = o->msg;
    s->p.err = err;
    int st = gather(inputs, n, &s->p);
    if (!st) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        int t = o->threads > 0 ? o->threads : cores > 0 ? (int)cores : 1;
        if ((size_t)t > s->p.n) t = (int)s->p.n;
        double t0 = now_s();
        s->p.progress = s->p.n > 1 && o->progress;
        read_all(&s->p, t);
        s->threads = t;
        s->wall_s = now_s() - t0;
        st = check_reads(&s->p, inputs, n);
    }
    if (!st) {
        size_t m = 0;
        for (size_t i = 0; i < s->p.n; i++) m += s->p.slots[i].n_ranks;
        s->rows = calloc(m ? m : 1, sizeof *s->rows);
        if (!s->rows || opscope_job_analyze(&s->job, s->rows, resolve_ranks(&s->p, s->rows))) {
            say(&s->p, "opscope: out of memory\n");
            fail(&s->p, OPSCOPE_ERROR_NOMEM, "out of memory", NULL);
            st = -1;
        } else {
            s->analyzed = true;
        }
    }
    s->p.err = NULL; /* the caller's, only during the load */
    if (st) {
        opscope_job_set_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

void *opscope_job_set_row_user(const opscope_job_set_t *s, const opscope_job_row *row, bool *trace) {
    for (size_t i = 0; i < s->p.n; i++)
        for (size_t k = 0; k < s->p.slots[i].n_ranks; k++)
            if (&s->p.slots[i].ranks[k].sum == row->s) {
                *trace = s->p.slots[i].trace;
                return s->p.slots[i].user;
            }
    *trace = false;
    return NULL;
}

void *opscope_job_set_row_take(opscope_job_set_t *s, const opscope_job_row *row) {
    for (size_t i = 0; i < s->p.n; i++)
        for (size_t k = 0; k < s->p.slots[i].n_ranks; k++)
            if (&s->p.slots[i].ranks[k].sum == row->s) {
                void *u = s->p.slots[i].user;
                s->p.slots[i].user = NULL;
                return u;
            }
    return NULL;
}

const opscope_job *opscope_job_set_job(const opscope_job_set_t *s, int *threads, double *wall_s) {
    if (threads) *threads = s->threads;
    if (wall_s) *wall_s = s->wall_s;
    return &s->job;
}
