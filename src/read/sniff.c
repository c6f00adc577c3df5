/* sniff.c - inputs that are no profile or trace, told by magic bytes and first tokens. */
#include "read/sniff.h"
#include "read/json.h"

#include <string.h>

#define READS "; opscope reads ggml profiles (opscope record, GGML_PROFILE) and Kineto or " \
              "Chrome traces: JSON, plain or gzip"

const char opscope_sniff_no_keys[] =
    "a JSON object without the keys of a profile (records, backends) or of a trace "
    "(traceEvents)" READS;

static int starts(const unsigned char *p, size_t n, const char *lit) {
    size_t l = strlen(lit);
    return n >= l && memcmp(p, lit, l) == 0;
}

/* Case-insensitive prefix, for HTML tags. */
static int starts_ci(const unsigned char *p, size_t n, const char *lit) {
    size_t l = strlen(lit);
    if (n < l) return 0;
    for (size_t i = 0; i < l; i++) {
        unsigned char c = p[i];
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c - 'A' + 'a');
        if (c != (unsigned char)lit[i]) return 0;
    }
    return 1;
}

static const char *llama_bench_text(const unsigned char *p, size_t n);

static const char *by_magic(const unsigned char *p, size_t n) {
    if (starts(p, n, "SQLite format 3")) return "an SQLite database (report --sqlite writes these), not a profile or trace" READS;
    if (starts(p, n, "\x7f" "ELF")) return "an executable (ELF), not a profile or trace" READS;
    if (starts(p, n, "PK\x03\x04")) return "a zip archive, not a profile or trace" READS;
    if (starts(p, n, "%PDF")) return "a PDF document, not a profile or trace" READS;
    if (starts(p, n, "\xef\xbb\xbf")) { /* a UTF-8 byte order mark: look after it */
        p += 3;
        n -= 3;
    }
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n')) i++;
    p += i;
    n -= i;
    if (starts_ci(p, n, "<!doctype html") || starts_ci(p, n, "<html"))
        return "an HTML page (view and diff --html write these), not a profile or trace" READS;
    if (starts(p, n, "<?xml") || starts(p, n, "<"))
        return "XML or HTML, not a profile or trace" READS;
    if (starts(p, n, "====") || starts(p, n, "opscope diff\n") || starts(p, n, "opscope summary"))
        return "opscope's own text report, not a profile or trace" READS;
    for (size_t k = 0; k < n && k < 4096; k++)
        if (p[k] == 0) return "binary data, not a profile or trace" READS;
    return llama_bench_text(p, n);
}

#define BENCH "llama-bench's results"
#define BENCH_HINT "; profile llama-bench itself: opscope record -- llama-bench ..." READS

/* llama-bench's -o sql, csv and md outputs, by their first line (its column names). */
static const char *llama_bench_text(const unsigned char *p, size_t n) {
    if (starts(p, n, "CREATE TABLE IF NOT EXISTS test"))
        return BENCH " (-o sql), not a profile or trace" BENCH_HINT;
    if (starts(p, n, "build_commit,") || starts(p, n, "\"build_commit\","))
        return BENCH " (-o csv), not a profile or trace" BENCH_HINT;
    if (starts(p, n, "| model ") || starts(p, n, "|   model ") || starts(p, n, "| model|"))
        return BENCH " (-o md), not a profile or trace" BENCH_HINT;
    return NULL;
}

/* The keys every llama-bench JSON test object has; one of them names it. */
static int is_bench_key(const opscope_json_token *t) {
    static const char *const keys[] = {"build_commit", "model_filename", "n_prompt", "avg_ts",
                                       "samples_ns"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (t->len == strlen(keys[i]) && memcmp(t->str, keys[i], t->len) == 0) return 1;
    return 0;
}

/* After an object's '{': 1 when one of its keys is llama-bench's, 2 when the whole object was
 * seen without a "ph" (a trace event always has one), 0 otherwise (or cut by the prefix). */
static int object_kind(opscope_json_t *j) {
    opscope_json_token t, v;
    int ph = 0;
    for (;;) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return 0;
        if (t.type == OPSCOPE_JSON_OBJ_END) return ph ? 0 : 2;
        if (t.type != OPSCOPE_JSON_KEY) return 0;
        if (is_bench_key(&t)) return 1;
        if (t.len == 2 && memcmp(t.str, "ph", 2) == 0) ph = 1;
        if (opscope_json_next(j, &v) == OPSCOPE_JSON_ERROR) return 0;
        if (opscope_json_skip(j, &v)) return 0;
    }
}

const char *opscope_sniff_foreign(const void *prefix, size_t size) {
    const unsigned char *p = prefix;
    const char *m = by_magic(p, size);
    if (m) return m;
    opscope_json_t *j = opscope_json_new(NULL, NULL, prefix, size, NULL);
    if (!j) return NULL;
    opscope_json_token t;
    const char *why = NULL;
    if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) goto out;
    switch (t.type) {
    case OPSCOPE_JSON_OBJ_BEGIN:
        /* llama-bench -o jsonl: one test object a line */
        if (object_kind(j) == 1) why = BENCH " (-o jsonl), not a profile or trace" BENCH_HINT;
        break;
    case OPSCOPE_JSON_ARR_BEGIN:
        /* a Chrome trace may be a bare array of event objects (or empty) */
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) goto out;
        if (t.type != OPSCOPE_JSON_OBJ_BEGIN && t.type != OPSCOPE_JSON_ARR_END)
            why = "a JSON array of values that are not objects (numbers, strings or arrays), "
                  "not a trace's events" READS;
        if (t.type == OPSCOPE_JSON_OBJ_BEGIN) {
            int k = object_kind(j);
            if (k == 1) why = BENCH " (-o json), not a profile or trace" BENCH_HINT;
            else if (k == 2)
                why = "a JSON array of objects that are not trace events (the first has no "
                      "\"ph\"), not a profile or trace" READS;
        }
        break;
    default: break; /* a lone value: the ggml reader says where and what it wants */
    }
out:
    opscope_json_free(j);
    return why;
}
