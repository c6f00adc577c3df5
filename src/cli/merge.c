/*
 * merge.c - `opscope merge CLIENT SERVER... -o OUT`: the profiles of a ggml RPC client and of
 * the ggml-rpc-server processes it used, on the client's clock, in one profile.
 *
 * Each server's clock offset comes from the profiles alone (analyze/rpc/clock_align.h): the
 * client's RPC requests (graph computes, each ended by the synchronize that waited for it,
 * and tensor sets) matched to the server's by order and size. Profiles whose capture metadata
 * shows one clock (same boot, same time namespace) need no offset; --offset overrides.
 * Backends are renumbered to stay unique and carry their process; graph ids likewise. The
 * output is a version-3 ggml profile (report, view, diff and the Chrome export read it) with
 * a top-level "merge" member saying how each process was placed (docs/formats.md).
 */
#include "export/sections/sections.h"
#include "analyze/rpc/clock_align.h"
#include "analyze/rpc/rpc_calls.h"
#include "analyze/session/session.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "export/outputs/outputs.h"
#include "export/json/merge_json.h"
#include "util/out.h"
#include "util/sort.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_COMPUTE (1ull << 60)
#define KEY_GET (3ull << 60)

typedef struct input {
    const char *path;
    char label[256];
    opscope_profile_t *p;
    bool given_offset, estimated;
    const char *method; /* "client", "same clock", "given", "estimated" */
    int64_t offset_ns;  /* server - client */
    opscope_align_result res;
    char endpoint[128];
    int32_t id_base;
    int64_t graph_base;
    opscope_read_status status; /* cut short, killed: the read's (cli/partial.h warned) */
    size_t n_server_events;     /* what it did as a server: graph computes and gets */
    size_t n_requests;          /* the client's requests to its endpoint (the most of any when none fits) */
} input;

typedef struct opt_kv {
    const char *key, *val;
} opt_kv;

static void usage(FILE *f) {
    fputs("usage: opscope merge CLIENT SERVER... -o OUT [--label NAME=FILE]... [--offset LABEL=NS]...\n"
          "\n"
          "Put the profile of a ggml RPC client (llama-cli --rpc host:port,...) and those of the\n"
          "ggml-rpc-server processes it used on one timeline, the client's clock. Each server's\n"
          "clock offset is estimated from the profiles alone: the client's RPC requests (remote\n"
          "graph computes, each ended by the first read that waited for its results, and\n"
          "gets) are matched to the server's by size and time, and every match bounds the\n"
          "offset (the server ran inside the client's request); the bound narrows over the\n"
          "matches and its half width is the residual uncertainty, printed and written to OUT.\n"
          "Profiles whose capture shows one clock (same boot and time namespace) are merged\n"
          "with no offset. OPSCOPE_MERGE_DEBUG=1 prints every matched pair on stderr.\n"
          "\n"
          "OUT is a ggml profile: 'opscope report', 'view', 'diff' and the Chrome export read it.\n"
          "Backends are renumbered (the client's keep their ids) and carry their process; the\n"
          "report then shows per RPC call and per server the server's compute, the client's\n"
          "submit and copies, and the rest (network and waiting).\n"
          "\n"
          "Options:\n"
          "  -o, --output FILE     where to write (required; '-' = stdout)\n"
          "  --label NAME=FILE     name FILE's process NAME (default: host/program from the\n"
          "                        profile's capture metadata, else the file name)\n"
          "  --offset LABEL=NS     the server LABEL's clock minus the client's, in ns (signed):\n"
          "                        use it instead of estimating\n"
          "  -q, --quiet           print nothing on success\n"
          "  -h, --help            this help\n"
          "\n"
          "A server's profile that does not match the client is refused, saying why: no RPC\n"
          "server records, under 4 or under half of the client's requests matched, requests\n"
          "outside its run on the offset, an offset more than 1 s from the wall clocks' (each\n"
          "capture notes CLOCK_REALTIME); and when it is cut short. --offset merges it anyway.\n"
          "\n"
          "Exit status: 0 ok, 1 usage error, 2 bad input (unreadable profile, a server that\n"
          "cannot be aligned or does not match the client) or failed output.\n",
          f);
}

#define usage_error(...) opscope_cli_usage_error("merge", __VA_ARGS__)

static bool split_kv(const char *s, opt_kv *out) {
    const char *eq = strchr(s, '=');
    if (!eq || eq == s || !eq[1]) return false;
    char *k = strndup(s, (size_t)(eq - s));
    if (!k) return false;
    out->key = k;
    out->val = eq + 1;
    return true;
}

static bool parse_i64(const char *s, int64_t *out) {
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || !end || end == s || *end) return false;
    *out = (int64_t)v;
    return true;
}

/* ---- events ---------------------------------------------------------------------------- */

typedef struct evec {
    opscope_align_event *v;
    size_t n, cap;
} evec;

static int epush(evec *e, opscope_align_event x) {
    if (e->n == e->cap) {
        size_t nc = e->cap ? e->cap * 2 : 256;
        opscope_align_event *n = realloc(e->v, nc * sizeof *n);
        if (!n) return -1;
        e->v = n;
        e->cap = nc;
    }
    e->v[e->n++] = x;
    return 0;
}

static int cmp_event(const void *a, const void *b) {
    const opscope_align_event *x = a, *y = b;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

static const opscope_backend *backend_by_id(const opscope_profile_t *p, int32_t id) {
    size_t n = opscope_profile_n_backends(p);
    for (size_t i = 0; i < n; i++) {
        const opscope_backend *b = opscope_profile_backend(p, i);
        if (b->id == id) return b;
    }
    return NULL;
}

static bool is_rpc(const opscope_backend *b) { return b && !strncmp(b->name, "RPC", 3); }


/* A remote graph compute's key: the nodes it computes (the capture caps the client's count at
 * 255) and the rows of its first computed node's output (the batch: a prompt of 11 tokens is
 * told from a decode step, and one client's session from another's). */
static uint64_t compute_key(int64_t nodes, const opscope_record *first, int detail) {
    int64_t rows = (first && (first->has & OPSCOPE_HAS_OUT)) ? first->ne[1] : 0;
    if (rows < 0) rows = 0;
    uint64_t k = KEY_COMPUTE;
    if (detail >= 1) k |= (uint64_t)(rows > 65535 ? 65535 : rows) << 8;
    if (detail >= 2) k |= (uint64_t)(nodes > 255 ? 255 : nodes);
    return k;
}

/* Reads that wait for a server's results (docs/formats.md, "opscope merge"): a blocking
 * get, or a tensor copy out of an RPC device (ggml copies between servers through the client:
 * a get from the source, then a set). The copy's source is not recorded, so it counts for
 * every endpoint; a wrong pairing contradicts the others and is left out. */
static bool blocking_read(const opscope_record *r, const opscope_backend *b, const char *endpoint) {
    if (r->type != OPSCOPE_RECORD_COPY || !is_rpc(b) || !r->extra) return false;
    if (!strcmp(r->extra, "tensor_get") || !strcmp(r->extra, "tensor_get_2d"))
        return !strcmp(b->device, endpoint);
    return !strcmp(r->extra, "tensor_copy") && (!strcmp(r->name, "copy_D2D") || !strcmp(r->name, "copy_D2H"));
}

static bool is_get_async(const opscope_record *r, const opscope_backend *b, const char *endpoint) {
    return r->type == OPSCOPE_RECORD_COPY && is_rpc(b) && !strcmp(b->device, endpoint) && r->extra &&
           !strncmp(r->extra, "tensor_get", 10) && strstr(r->extra, "async");
}

static bool on_endpoint(const opscope_record *r, const opscope_backend *b, const char *endpoint, const char *name) {
    return r->type == OPSCOPE_RECORD_OP && is_rpc(b) && !strcmp(b->device, endpoint) && !strcmp(r->name, name);
}

static int cmp_start(const void *a, const void *b) {
    const opscope_record *x = *(const opscope_record *const *)a, *y = *(const opscope_record *const *)b;
    return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/*
 * The client's requests to ENDPOINT. A graph compute (GRAPH_SPLIT) runs from its submit to the
 * end of the first read that waited for its results: a blocking read, or the SYNCHRONIZE that
 * collected an asynchronous get (ggml-rpc sends the graph and returns; a synchronize with
 * nothing to collect does not wait for the server). A get has its whole interval (blocking),
 * or runs to the synchronize that collected it (asynchronous). Tensor sets are not used:
 * ggml-rpc sends them without an answer, and sets the client makes inside other calls (a copy
 * between devices) are not recorded as such, so the server holds more of them than the
 * client shows and same-size sets pair wrongly.
 */
static int client_events(const opscope_profile_t *p, const char *endpoint, int detail, evec *out) {
    size_t n = opscope_profile_n_records(p);
    const opscope_record **rs = malloc((n ? n : 1) * sizeof *rs);
    const opscope_backend **bs = malloc((n ? n : 1) * sizeof *bs);
    if (!rs || !bs) {
        free(rs);
        free(bs);
        return -1;
    }
    for (size_t i = 0; i < n; i++) rs[i] = opscope_profile_record(p, i);
    opscope_sort(rs, n, sizeof *rs, cmp_start);
    for (size_t i = 0; i < n; i++) bs[i] = backend_by_id(p, rs[i]->backend_id);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const opscope_record *r = rs[i];
        const opscope_backend *b = bs[i];
        int64_t t0 = (int64_t)r->start_ns, t1 = (int64_t)(r->start_ns + r->duration_ns);
        if (on_endpoint(r, b, endpoint, "GRAPH_SPLIT")) {
            opscope_align_event e = {compute_key(r->n_fused, r, detail), t0, t1, 0};
            bool pending_get = false;
            for (size_t j = i + 1; j < n; j++) {
                if (on_endpoint(rs[j], bs[j], endpoint, "GRAPH_SPLIT")) break;
                if (blocking_read(rs[j], bs[j], endpoint) ||
                    (pending_get && on_endpoint(rs[j], bs[j], endpoint, "SYNCHRONIZE"))) {
                    e.t1 = (int64_t)(rs[j]->start_ns + rs[j]->duration_ns);
                    e.end_known = 1;
                    break;
                }
                pending_get |= is_get_async(rs[j], bs[j], endpoint);
            }
            rc = epush(out, e);
        } else if (blocking_read(r, b, endpoint) && r->extra && !strncmp(r->extra, "tensor_get", 10)) {
            /* a get of this endpoint; a copy out of some RPC device is not matched: which
             * server it read from is not recorded (it only ends computes, above) */
            rc = epush(out, (opscope_align_event){KEY_GET | r->bytes, t0, t1, 1});
        } else if (is_get_async(r, b, endpoint)) {
            opscope_align_event e = {KEY_GET | r->bytes, t0, t1, 0};
            for (size_t j = i + 1; j < n; j++)
                if (on_endpoint(rs[j], bs[j], endpoint, "SYNCHRONIZE")) {
                    e.t1 = (int64_t)(rs[j]->start_ns + rs[j]->duration_ns);
                    e.end_known = 1;
                    break;
                }
            rc = epush(out, e);
        }
    }
    free(rs);
    free(bs);
    if (rc) return -1;
    opscope_sort(out->v, out->n, sizeof *out->v, cmp_event);
    return 0;
}

/* The server's handling of requests: graph computes (first op to last, folded by graph id)
 * and tensor sets. */
static int server_events(const opscope_profile_t *p, int detail, evec *out) {
    size_t n = opscope_profile_n_records(p);
    int64_t cur_graph = -1;
    int64_t nodes = 0;
    const opscope_record *first = NULL; /* the graph's first record: its first computed node */
    size_t cur = 0;
    for (size_t i = 0; i < n; i++) {
        const opscope_record *r = opscope_profile_record(p, i);
        int64_t t0 = (int64_t)r->start_ns, t1 = (int64_t)(r->start_ns + r->duration_ns);
        if (r->type == OPSCOPE_RECORD_COPY) {
            if (r->extra && !strcmp(r->extra, "tensor_get") &&
                epush(out, (opscope_align_event){KEY_GET | r->bytes, t0, t1, 0}))
                return -1;
            continue;
        }
        if (!(r->has & OPSCOPE_HAS_GRAPH)) continue;
        if (cur_graph == r->graph_id && cur < out->n) {
            opscope_align_event *e = &out->v[cur];
            if (t0 < e->t0) e->t0 = t0;
            if (t1 > e->t1) e->t1 = t1;
            nodes += r->n_fused;
            e->key = compute_key(nodes, first, detail);
            continue;
        }
        cur_graph = r->graph_id;
        nodes = r->n_fused;
        first = r;
        cur = out->n;
        if (epush(out, (opscope_align_event){compute_key(nodes, first, detail), t0, t1, 0})) return -1;
    }
    opscope_sort(out->v, out->n, sizeof *out->v, cmp_event);
    return 0;
}

/* Distinct endpoints (devices of RPC backends) of the client. */
static size_t endpoints(const opscope_profile_t *p, const char **out, size_t max) {
    size_t n = 0, nb = opscope_profile_n_backends(p);
    for (size_t i = 0; i < nb; i++) {
        const opscope_backend *b = opscope_profile_backend(p, i);
        if (!is_rpc(b)) continue;
        bool seen = false;
        for (size_t k = 0; k < n; k++) seen |= !strcmp(out[k], b->device);
        if (!seen && n < max) out[n++] = b->device;
    }
    return n;
}

/* A's alignment beats B's: more graph computes matched (their node counts make them the
 * strongest evidence of which endpoint a server is: gets of equal size happen anywhere), then
 * more matches agreeing, then a narrower bound. */
static bool better(const opscope_align_result *a, size_t a_computes, const opscope_align_result *b,
                   size_t b_computes) {
    if (!b->ok) return a->ok;
    if (!a->ok) return false;
    if (a_computes != b_computes) return a_computes > b_computes;
    if (a->n_used != b->n_used) return a->n_used > b->n_used;
    if ((a->lo_ns == INT64_MIN) != (b->lo_ns == INT64_MIN)) return b->lo_ns == INT64_MIN;
    return a->lo_ns != INT64_MIN && (a->hi_ns - a->lo_ns) < (b->hi_ns - b->lo_ns);
}

/* Estimates SV's offset against the client's endpoints; the best one wins. -1: no memory. */
static int estimate(const input *client, input *sv) {
    const char *eps[64];
    size_t ne = endpoints(client->p, eps, 64);
    opscope_align_result best = {0};
    size_t best_computes = 0;
    /* Computes keyed by nodes and batch rows first; where that matches under half of the
     * client's computes (a backend that records fused groups differently: Vulkan), by rows
     * only, then by order alone. */
    size_t n_client = 0;
    for (size_t i = 0; i < opscope_profile_n_records(client->p); i++) {
        const opscope_record *r = opscope_profile_record(client->p, i);
        n_client += r->type == OPSCOPE_RECORD_OP && !strcmp(r->name, "GRAPH_SPLIT") &&
                    is_rpc(backend_by_id(client->p, r->backend_id));
    }
    for (int detail = 2; detail >= 0 && (!best.ok || best_computes * 2 * (ne ? ne : 1) < n_client); detail--) {
        evec s = {0};
        if (server_events(sv->p, detail, &s)) return -1;
        sv->n_server_events = s.n;
        for (size_t e = 0; e < ne; e++) {
            evec c = {0};
            if (client_events(client->p, eps[e], detail, &c)) {
                free(s.v);
                return -1;
            }
            opscope_align_result r;
            long *match = malloc((s.n ? s.n : 1) * sizeof *match);
            if (!match) {
                free(c.v);
                free(s.v);
                return -1;
            }
            int rc = opscope_align_estimate(c.v, c.n, s.v, s.n, &r, match);
            if (!best.ok && c.n > sv->n_requests) sv->n_requests = c.n;
            size_t computes = 0;
            for (size_t j = 0; rc == 0 && j < s.n; j++) computes += match[j] >= 0 && (s.v[j].key >> 60) == 1;
            if (getenv("OPSCOPE_MERGE_DEBUG") && rc == 0) { /* each pair and its bounds, for looking into a bad alignment */
                for (size_t j = 0; j < s.n; j++) {
                    if (match[j] < 0) continue;
                    const opscope_align_event *ce = &c.v[match[j]], *se = &s.v[j];
                    fprintf(stderr, "pair %s key %llx c [%lld, %lld]%s s [%lld, %lld] hi %lld lo %lld\n", eps[e],
                            (unsigned long long)se->key, (long long)ce->t0, (long long)ce->t1,
                            ce->end_known ? " waited" : "", (long long)se->t0, (long long)se->t1,
                            (long long)(se->t0 - ce->t0), ce->end_known ? (long long)(se->t1 - ce->t1) : 0LL);
                }
            }
            free(match);
            if (getenv("OPSCOPE_MERGE_DEBUG"))
                fprintf(stderr, "detail %d endpoint %s: computes %zu ok %d offset %lld [%lld, %lld] matched %zu used %zu rejected %zu waited %zu\n",
                        detail, eps[e], computes, r.ok, (long long)r.offset_ns, (long long)r.lo_ns, (long long)r.hi_ns, r.n_matched,
                        r.n_used, r.n_rejected, r.n_lower);
            free(c.v);
            if (rc) {
                free(s.v);
                return -1;
            }
            if (better(&r, computes, &best, best_computes)) {
                best = r;
                best_computes = computes;
                sv->n_requests = c.n;
                snprintf(sv->endpoint, sizeof sv->endpoint, "%s", eps[e]);
            }
        }
        free(s.v);
    }
    sv->res = best;
    return 0;
}

static bool same_clock(const opscope_profile_t *a, const opscope_profile_t *b) {
    const opscope_capture_info *x = opscope_profile_meta(a)->capture, *y = opscope_profile_meta(b)->capture;
    return x && y && x->boot_id && y->boot_id && !strcmp(x->boot_id, y->boot_id) &&
           (x->has & y->has & OPSCOPE_CAPTURE_HAS_TIME_NS) && x->time_ns == y->time_ns && x->clock &&
           y->clock && !strcmp(x->clock, y->clock);
}

/* ---- output ------------------------------------------------------------------------------ */

typedef struct ref {
    uint64_t start;
    uint32_t in;
    uint32_t idx;
} ref;

static int cmp_ref(const void *a, const void *b) {
    const ref *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->in != y->in) return x->in < y->in ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static uint64_t shift(uint64_t t, int64_t off) {
    if (off >= 0) return t >= (uint64_t)off ? t - (uint64_t)off : 0;
    return t + (uint64_t)(-off);
}

/* What the "merge" member says of each input (borrowed from IN). */
static opscope_merge_process process_of(const input *x, size_t i) {
    opscope_merge_process p = {0};
    p.label = x->label;
    p.path = x->path;
    p.server = i > 0;
    p.id_base = x->id_base;
    p.graph_base = x->graph_base;
    p.capture = opscope_profile_meta(x->p)->capture;
    p.offset_ns = x->offset_ns;
    p.method = x->method;
    p.endpoint = x->endpoint;
    p.estimate = i > 0 && x->res.n_matched ? &x->res : NULL;
    return p;
}

/* Every input's records as (start on the client's clock, input, index), sorted; *TOTAL their
 * count. NULL when out of memory. */
static ref *merged_order(const input *in, size_t n, size_t *total) {
    *total = 0;
    for (size_t i = 0; i < n; i++) *total += opscope_profile_n_records(in[i].p);
    ref *refs = malloc((*total ? *total : 1) * sizeof *refs);
    if (!refs) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t m = opscope_profile_n_records(in[i].p);
        for (size_t j = 0; j < m; j++)
            refs[k++] = (ref){shift(opscope_profile_record(in[i].p, j)->start_ns, in[i].offset_ns), (uint32_t)i, (uint32_t)j};
    }
    opscope_sort(refs, *total, sizeof *refs, cmp_ref);
    return refs;
}

/* The merged stream into S: one meta, every input's backends renumbered, the records in REFS'
 * order on the client's clock. Returns 0, or -1 when a sink stopped. */
static int feed_merged(const input *in, size_t n, const ref *refs, size_t total, const opscope_sink *s) {
    opscope_meta meta = {0};
    meta.profiler = "opscope";
    meta.version = 3;
    meta.total_records = total;
    meta.capture = opscope_profile_meta(in[0].p)->capture;
    for (size_t i = 0; i < n; i++) meta.dropped_records += opscope_profile_meta(in[i].p)->dropped_records;
    if (s->on_meta(s->ud, &meta)) return -1;
    for (size_t i = 0; i < n; i++) {
        size_t nb = opscope_profile_n_backends(in[i].p);
        for (size_t j = 0; j < nb; j++) {
            opscope_backend b = *opscope_profile_backend(in[i].p, j);
            b.id += in[i].id_base;
            b.process = in[i].label;
            if (s->on_backend(s->ud, &b)) return -1;
        }
    }
    for (size_t q = 0; q < total; q++) {
        const input *x = &in[refs[q].in];
        opscope_record r = *opscope_profile_record(x->p, refs[q].idx);
        r.start_ns = refs[q].start;
        if (r.has & OPSCOPE_HAS_HOST_TIME) {
            r.host_start_ns = shift(r.host_start_ns, x->offset_ns);
            r.host_end_ns = shift(r.host_end_ns, x->offset_ns);
        }
        r.backend_id += x->id_base;
        if (r.has & OPSCOPE_HAS_GRAPH) r.graph_id += x->graph_base;
        if (s->on_record(s->ud, &r)) return -1;
    }
    return s->on_end ? s->on_end(s->ud) : 0;
}

/* The commit's error into UD (an opscope_error). */
static void merged_done(void *ud, const opscope_output *o, const opscope_error *err) {
    (void)o;
    if (err) *(opscope_error *)ud = *err;
}

static void print_alignment(const input *x);

/* Streams the merged inputs through a session (analyze/session/session.h: the stats, the graphs, the
 * RPC calls) into its one output, the JSON export with the "merge" member; unless QUIET (or
 * OUTPUT is stdout), then says how each server was aligned and prints the RPC tables.
 * Returns 0, or -1 with ERR filled (code OPSCOPE_OK: out of memory). */
static int write_merged(input *in, size_t n, const char *output, bool quiet, opscope_error *err) {
    size_t total;
    ref *refs = merged_order(in, n, &total);
    opscope_merge_process *procs = malloc(n * sizeof *procs);
    opscope_session_opts so = {.stats = {.top_kernels = 20}, .graphs = true, .rpc = true};
    opscope_session_t *s = refs && procs ? opscope_session_new(&so) : NULL;
    opscope_out_t *w = s ? opscope_out_open(output, err) : NULL;
    opscope_merge_processes mc = {procs, n};
    opscope_json_output_opts jo = {.top_extra = opscope_merge_write_member, .top_ud = &mc};
    opscope_output o;
    int rc = !w || opscope_output_json(&o, w, &jo, err) || opscope_session_add(s, &o) ? -1 : 0;
    if (!rc) {
        for (size_t i = 0; i < n; i++) procs[i] = process_of(&in[i], i);
        opscope_sink sink = opscope_session_sink(s);
        rc = feed_merged(in, n, refs, total, &sink);
    }
    if (!rc) rc = opscope_session_finish(s, err);
    if (!rc) rc = opscope_session_commit(s, merged_done, err);
    if (!rc && !quiet && strcmp(output, "-")) {
        for (size_t f = 1; f < n; f++) print_alignment(&in[f]);
        opscope_out_t *con = opscope_out_from_file(stdout, NULL);
        if (con && opscope_session_rpc(s)) opscope_rpc_write_text(con, opscope_session_rpc(s), 10);
        if (con) opscope_out_commit(con, NULL);
        printf("wrote %s\n", output);
    }
    opscope_session_free(s);
    free(refs);
    free(procs);
    return rc;
}

/* ---- the command ------------------------------------------------------------------------- */

static void default_label(input *x) {
    const opscope_capture_info *c = opscope_profile_meta(x->p)->capture;
    if (c && c->program) {
        snprintf(x->label, sizeof x->label, "%s/%s", c->host ? c->host : "?", c->program);
    } else {
        const char *base = strrchr(x->path, '/');
        snprintf(x->label, sizeof x->label, "%s", base ? base + 1 : x->path);
    }
}

static void print_alignment(const input *x) {
    const opscope_align_result *r = &x->res;
    printf("%s: offset %+.6f s (%s", x->label, (double)x->offset_ns / 1e9, x->method);
    if (r->n_matched) {
        printf("; estimate %+.6f s", (double)r->offset_ns / 1e9);
        if (r->lo_ns != INT64_MIN)
            printf(" +- %.1f us", (double)(r->hi_ns - r->lo_ns) / 2e3);
        else
            printf(", upper bound only: no request was waited for");
        printf(" from %zu matched requests to %s, %zu of them waited for, %zu left out", r->n_used,
               x->endpoint, r->n_lower, r->n_rejected);
    }
    printf(")\n");
}

/* The command line: inputs, labels and offsets as given. */
typedef struct merge_args {
    const char *output;
    bool quiet;
    const char **files;
    opt_kv *labels, *offsets;
    size_t nf, nl, no;
} merge_args;

static void merge_args_free(merge_args *m) {
    for (size_t i = 0; i < m->nl; i++) free((char *)m->labels[i].key);
    for (size_t i = 0; i < m->no; i++) free((char *)m->offsets[i].key);
    free(m->files);
    free(m->labels);
    free(m->offsets);
}

/* --label and --offset (A) with its value V into M. Returns a cli status (cli/cli.h). */
static int take_kv(merge_args *m, const char *a, const char *v) {
    bool lab = !strcmp(a, "--label");
    opt_kv *kv = lab ? &m->labels[m->nl] : &m->offsets[m->no];
    if (!split_kv(v, kv)) return usage_error("%s: %s", lab ? "--label needs NAME=FILE" : "--offset needs LABEL=NS", v);
    int64_t tmp;
    if (!lab && !parse_i64(kv->val, &tmp)) {
        free((char *)kv->key);
        return usage_error("--offset needs an integer number of ns: %s", v);
    }
    if (lab) m->nl++;
    else m->no++;
    return OPSCOPE_EXIT_OK;
}

/* Returns a cli status (cli/cli.h): 0 when M is ready, OPSCOPE_CLI_DONE after the help. */
static int parse_merge_args(int argc, char **argv, merge_args *m) {
    memset(m, 0, sizeof *m);
    m->files = calloc((size_t)argc, sizeof *m->files);
    m->labels = calloc((size_t)argc, sizeof *m->labels);
    m->offsets = calloc((size_t)argc, sizeof *m->offsets);
    if (!m->files || !m->labels || !m->offsets) {
        fprintf(stderr, "opscope merge: out of memory\n");
        return OPSCOPE_EXIT_INPUT;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int st = OPSCOPE_EXIT_OK;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return OPSCOPE_CLI_DONE;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (++i >= argc) return usage_error("missing value after: %s", a);
            m->output = argv[i];
        } else if (!strcmp(a, "--label") || !strcmp(a, "--offset")) {
            if (++i >= argc) return usage_error("missing value after: %s", a);
            st = take_kv(m, a, argv[i]);
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            m->quiet = true;
        } else if (a[0] == '-' && a[1]) {
            st = usage_error("unknown option: %s", a);
        } else {
            m->files[m->nf++] = a;
        }
        if (st) return st;
    }
    if (m->nf < 2) return usage_error("need a CLIENT profile and at least one SERVER profile");
    if (!m->output) return usage_error("missing -o OUT");
    for (size_t i = 0; i < m->nl; i++) {
        bool found = false;
        for (size_t f = 0; f < m->nf; f++) found |= !strcmp(m->files[f], m->labels[i].val);
        if (!found) return usage_error("--label names a file that is not an input: %s", m->labels[i].val);
    }
    return OPSCOPE_EXIT_OK;
}

/* Reads every input of M into IN, each labelled. Returns 0, or -1 after a message. */
static int read_inputs(const merge_args *m, input *in) {
    for (size_t f = 0; f < m->nf; f++) {
        input *x = &in[f];
        x->path = m->files[f];
        x->p = opscope_profile_new();
        opscope_error err;
        memset(&err, 0, sizeof err);
        opscope_sink sink = opscope_profile_sink(x->p);
        /* as report reads: a profile cut short or of a program that died is said once */
        opscope_read_options ro = {.status = &x->status};
        if (!x->p || opscope_progress_read(x->path, OPSCOPE_FORMAT_AUTO, &sink, &ro, &err) != 0) {
            if (!x->p) err.code = OPSCOPE_ERROR_NOMEM, err.msg = "out of memory";
            opscope_cli_print_error("merge", &err);
            return -1;
        }
        default_label(x);
        for (size_t i = 0; i < m->nl; i++)
            if (!strcmp(m->labels[i].val, x->path)) snprintf(x->label, sizeof x->label, "%s", m->labels[i].key);
    }
    return 0;
}

/* Labels stay unique: a repeated one gets its pid, else its position. */
static void unique_labels(input *in, size_t nf) {
    for (size_t f = 1; f < nf; f++) {
        for (size_t g = 0; g < f; g++) {
            if (strcmp(in[f].label, in[g].label)) continue;
            const opscope_capture_info *c = opscope_profile_meta(in[f].p)->capture;
            char tmp[32];
            if (c && (c->has & OPSCOPE_CAPTURE_HAS_PID))
                snprintf(tmp, sizeof tmp, "[%" PRId64 "]", c->pid);
            else
                snprintf(tmp, sizeof tmp, "#%zu", f + 1);
            size_t room = sizeof in[f].label - strlen(tmp) - 1, len = strlen(in[f].label);
            if (len > room) len = room;
            memcpy(in[f].label + len, tmp, strlen(tmp) + 1);
            g = (size_t)-1; /* check again from the start */
        }
    }
}

/* --offset: each names a server by label or path. Returns a cli status (cli/cli.h). */
static int given_offsets(const merge_args *m, input *in) {
    for (size_t i = 0; i < m->no; i++) {
        bool found = false;
        for (size_t f = 1; f < m->nf; f++)
            if (!strcmp(m->offsets[i].key, in[f].label) || !strcmp(m->offsets[i].key, in[f].path)) {
                int64_t v = 0;
                parse_i64(m->offsets[i].val, &v);
                in[f].offset_ns = v;
                in[f].given_offset = true;
                found = true;
            }
        if (!found) {
            fprintf(stderr, "opscope merge: --offset names no server: %s (labels:", m->offsets[i].key);
            for (size_t f = 1; f < m->nf; f++) fprintf(stderr, " %s", in[f].label);
            fprintf(stderr, ")\n");
            return OPSCOPE_EXIT_USAGE;
        }
    }
    return OPSCOPE_EXIT_OK;
}

/*
 * What a server's profile must show to be merged with its client without --offset (docs/cli.md,
 * "opscope merge"). A server handles every request its client sends it, so on the true offset
 * nearly all of the client's requests to its endpoint pair with the server's records (32 of 32
 * in tests/capture_e2e's runs; the estimator leaves out a few that contradict the others). An
 * unrelated profile pairs a few by chance: one pair fits any offset, two fit a server whose
 * computes happen to repeat at the client's spacing (an unrelated llama-simple profile gave 2),
 * and each further pair must agree with the same offset within the calls' slack. So at least
 * MERGE_MIN_MATCHED pairs, and at least half of the client's requests: the smallest llama run
 * with its warm-up (-n 1) makes 4 (the warm-up's and the prompt's graph and their logits' get).
 * Another run of the same model passes both (its requests repeat): the wall clocks catch it.
 */
enum { MERGE_MIN_MATCHED = 4 };
/* A client request lies outside the server's run when it ended this long before the run began,
 * or began this long after it ended (the estimator's pairing window). */
#define MERGE_RUN_SLACK_NS 5000000
/*
 * Each capture notes CLOCK_REALTIME - CLOCK_MONOTONIC (capture.realtime_offset_ns), so the wall
 * clocks give the offset too, as far as the machines' clocks agree: NTP keeps them within
 * milliseconds, and a time namespace moves CLOCK_MONOTONIC alone (the e2e runs: 0.000 s from
 * the estimate). An estimate further than this from it fits records of another run: one
 * model's requests repeat from run to run, and of the e2e runs' 34 wrong client/server pairs
 * 10 passed the checks above (6 or 7 of 8 requests matched), 1.35 to 16.5 s away.
 */
#define MERGE_WALL_SLACK_NS 1000000000

/* SV's run on its own clock: its records' span, widened to its capture's start and last write
 * when the profile says them. False when it has no records. */
static bool server_run(const opscope_profile_t *p, int64_t *lo, int64_t *hi) {
    size_t n = opscope_profile_n_records(p);
    for (size_t i = 0; i < n; i++) {
        const opscope_record *r = opscope_profile_record(p, i);
        int64_t a = (int64_t)r->start_ns, e = (int64_t)(r->start_ns + r->duration_ns);
        if (i == 0 || a < *lo) *lo = a;
        if (i == 0 || e > *hi) *hi = e;
    }
    const opscope_capture_info *c = opscope_profile_meta(p)->capture;
    if (n && c && (c->has & OPSCOPE_CAPTURE_HAS_START) && (int64_t)c->start_ns < *lo) *lo = (int64_t)c->start_ns;
    if (n && c && c->end_ns && (int64_t)c->end_ns > *hi) *hi = (int64_t)c->end_ns;
    return n > 0;
}

/* The client's requests to SV's endpoint that SV's run cannot have answered on SV's offset:
 * sent after the run ended, or waited for and answered before it began. -1: no memory. */
static long requests_outside(const input *client, const input *sv, int64_t *lo, int64_t *hi) {
    evec c = {0};
    if (!server_run(sv->p, lo, hi)) return 0;
    if (client_events(client->p, sv->endpoint, 0, &c)) return -1;
    long out = 0;
    for (size_t i = 0; i < c.n; i++) {
        int64_t t0 = c.v[i].t0 + sv->offset_ns, t1 = c.v[i].t1 + sv->offset_ns; /* on the server's clock */
        out += t0 > *hi + MERGE_RUN_SLACK_NS || (c.v[i].end_known && t1 < *lo - MERGE_RUN_SLACK_NS);
    }
    free(c.v);
    return out;
}

/* How far (ns) SV's estimated offset lies from the one the wall clocks give (server - client,
 * into *W), when both captures noted theirs; 0 otherwise. In doubles: each offset is within
 * 2^62 (read/readers.h), their difference not always within int64_t; 1 s against 256 ns steps. */
static double wall_gap(const input *client, const input *sv, double *w) {
    const opscope_capture_info *c = opscope_profile_meta(client->p)->capture, *s = opscope_profile_meta(sv->p)->capture;
    if (!c || !s || !(c->has & s->has & OPSCOPE_CAPTURE_HAS_REALTIME) || !sv->res.ok || strcmp(sv->method, "estimated"))
        return 0;
    *w = (double)c->realtime_offset_ns - (double)s->realtime_offset_ns;
    return fabs((double)sv->offset_ns - *w);
}

/* Says why SV is not merged (exit 2): each reason found, then the way out. */
static int refuse(const input *client, const input *sv, bool few, long outside, int64_t lo, int64_t hi) {
    const opscope_align_result *r = &sv->res;
    fprintf(stderr, "opscope merge: %s: does not match the client %s, not merged:\n", sv->path, client->path);
    if (!sv->n_server_events)
        fprintf(stderr, "  it holds no RPC server records: no graph compute (records with a graph id) and no\n"
                        "  tensor_get, the records of a ggml-rpc-server\n");
    else if (few && !sv->n_requests)
        fprintf(stderr, "  the client made no RPC request to match: no record on an RPC backend (RPC0[host:port])\n");
    else if (few)
        fprintf(stderr, "  %zu of the client's %zu RPC requests%s%s matched its records (a server handles every\n"
                        "  request: at least %d and half of them must match)\n",
                r->ok ? r->n_used : 0, sv->n_requests, sv->endpoint[0] ? " to " : "", sv->endpoint, MERGE_MIN_MATCHED);
    if (outside > 0)
        fprintf(stderr, "  on its offset (%+.6f s, %s) %ld of the client's %zu requests to %s fall outside\n"
                        "  its run (%.3f s): it was not running when the client made them\n",
                (double)sv->offset_ns / 1e9, sv->method, outside, sv->n_requests, sv->endpoint,
                (double)(hi - lo) / 1e9);
    double w = 0, gap = wall_gap(client, sv, &w);
    if (gap > MERGE_WALL_SLACK_NS)
        fprintf(stderr, "  the wall clocks put its clock %+.6f s from the client's, %.3f s from the offset its\n"
                        "  records fit (%+.6f s): they fit requests of another run, or the clocks are that far\n"
                        "  apart (NTP keeps them within milliseconds)\n",
                w / 1e9, gap / 1e9, (double)sv->offset_ns / 1e9);
    if (sv->status.truncated_at)
        fprintf(stderr, "  it is cut short at byte %llu: its %llu records before it were read, what followed is missing\n",
                (unsigned long long)sv->status.truncated_at, (unsigned long long)sv->status.records);
    const opscope_capture_info *c = opscope_profile_meta(sv->p)->capture;
    if (c && c->program) fprintf(stderr, "  its capture says it ran %s\n", c->program);
    fprintf(stderr, "Is it the profile of the ggml-rpc-server this client used, from the same run? To merge it\n"
                    "anyway, give its clock offset: --offset '%s=NS'\n", sv->label);
    return -1;
}

/* SV's offset, set by the same clock or estimated: refused (after the message) unless its
 * records show a server of this client (above). 0, or -1. */
static int check_server(const input *client, const input *sv) {
    const opscope_align_result *r = &sv->res;
    bool estimated = !strcmp(sv->method, "estimated");
    bool few = estimated && (!r->ok || r->n_used < MERGE_MIN_MATCHED || r->n_used * 2 < sv->n_requests);
    int64_t lo = 0, hi = 0;
    long outside = sv->endpoint[0] || !estimated ? requests_outside(client, sv, &lo, &hi) : 0;
    if (outside < 0) {
        fprintf(stderr, "opscope merge: out of memory\n");
        return -1;
    }
    double w;
    bool wall = wall_gap(client, sv, &w) > MERGE_WALL_SLACK_NS;
    if (sv->n_server_events && !few && !outside && !wall) return 0;
    return refuse(client, sv, few, outside, lo, hi);
}

/* Each server's offset: given, the same clock, or estimated. Returns 0, or -1 after a message. */
static int align_servers(input *in, size_t nf) {
    in[0].method = "client";
    for (size_t f = 1; f < nf; f++) {
        input *x = &in[f];
        if (estimate(&in[0], x)) {
            fprintf(stderr, "opscope merge: out of memory\n");
            return -1;
        }
        if (x->given_offset) {
            x->method = "given";
            continue; /* the user's word: no check */
        } else if (same_clock(in[0].p, x->p)) {
            x->method = "same clock";
            x->offset_ns = 0;
        } else {
            x->method = "estimated";
            x->offset_ns = x->res.ok ? x->res.offset_ns : 0;
        }
        if (check_server(&in[0], x)) return -1;
    }
    return 0;
}

/* Backends after the previous inputs' largest id, graph ids likewise. */
static void renumber(input *in, size_t nf) {
    int32_t next_id = 0;
    int64_t next_graph = 0;
    for (size_t f = 0; f < nf; f++) {
        int32_t max_id = -1;
        int64_t max_graph = -1;
        size_t nb = opscope_profile_n_backends(in[f].p), nr = opscope_profile_n_records(in[f].p);
        for (size_t j = 0; j < nb; j++) {
            int32_t id = opscope_profile_backend(in[f].p, j)->id;
            if (id > max_id) max_id = id;
        }
        for (size_t j = 0; j < nr; j++) {
            const opscope_record *r = opscope_profile_record(in[f].p, j);
            if (r->backend_id > max_id) max_id = r->backend_id;
            if ((r->has & OPSCOPE_HAS_GRAPH) && r->graph_id > max_graph) max_graph = r->graph_id;
        }
        in[f].id_base = f == 0 ? 0 : next_id;
        in[f].graph_base = f == 0 ? 0 : next_graph;
        next_id = in[f].id_base + max_id + 1;
        next_graph = in[f].graph_base + max_graph + 1;
    }
}

int opscope_cli_merge(int argc, char **argv) {
    merge_args m;
    int rc = parse_merge_args(argc, argv, &m);
    input *in = NULL;
    if (rc) goto out;
    rc = OPSCOPE_EXIT_INPUT;
    in = calloc(m.nf, sizeof *in);
    if (!in) {
        fprintf(stderr, "opscope merge: out of memory\n");
        goto out;
    }
    if (read_inputs(&m, in)) goto out;
    unique_labels(in, m.nf);
    int st = given_offsets(&m, in);
    if (st) {
        rc = st;
        goto out;
    }
    if (align_servers(in, m.nf)) goto out;
    renumber(in, m.nf);
    opscope_error err;
    memset(&err, 0, sizeof err);
    if (write_merged(in, m.nf, m.output, m.quiet, &err) != 0) {
        char msg[768];
        if (err.code == OPSCOPE_OK) err.code = OPSCOPE_ERROR_NOMEM, err.msg = "out of memory";
        opscope_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "opscope merge: cannot write %s: %s\n", m.output, msg);
        goto out;
    }
    rc = OPSCOPE_EXIT_OK;
out:
    if (in)
        for (size_t f = 0; f < m.nf; f++) opscope_profile_free(in[f].p);
    free(in);
    merge_args_free(&m);
    return opscope_cli_exit_status(rc);
}
