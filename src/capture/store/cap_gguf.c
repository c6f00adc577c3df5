/* cap_gguf.c - a GGUF file's header (see cap_gguf.h): "GGUF", version, tensor and key-value
 * counts, the key-values (key string, value type, value), then the tensor infos (name, dims,
 * type, offset); little-endian throughout. */
#include "capture/store/cap_gguf.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

enum {
    T_U8, T_I8, T_U16, T_I16, T_U32, T_I32, T_F32, T_BOOL, T_STR, T_ARR, T_U64, T_I64, T_F64,
};
#define MAX_STR ((uint64_t)1 << 20)     /* a key or a value string */
#define MAX_COUNT ((uint64_t)1 << 24)   /* key-values, tensors, array elements */
#define MAX_WALK ((uint64_t)512 << 20)  /* bytes of header walked */
#define MAX_DIMS 8

typedef struct rd {
    FILE *f;
    int bad;
} rd;

static uint64_t get_n(rd *r, int bytes) {
    unsigned char b[8] = {0};
    if (r->bad || fread(b, 1, (size_t)bytes, r->f) != (size_t)bytes) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | b[i];
    return v;
}

static void skip(rd *r, uint64_t n) {
    if (!r->bad && (n > MAX_WALK || fseeko(r->f, (off_t)n, SEEK_CUR) != 0)) r->bad = 1;
    if (!r->bad && ftello(r->f) > (off_t)MAX_WALK) r->bad = 1;
}

/* A string into BUF (cut to SIZE - 1) or, with BUF NULL, skipped. */
static void get_str(rd *r, char *buf, size_t size) {
    uint64_t n = get_n(r, 8);
    if (r->bad || n > MAX_STR) {
        r->bad = 1;
        return;
    }
    if (!buf) {
        skip(r, n);
        return;
    }
    size_t keep = n < size - 1 ? (size_t)n : size - 1;
    if (fread(buf, 1, keep, r->f) != keep) r->bad = 1;
    buf[r->bad ? 0 : keep] = 0;
    skip(r, n - keep);
}

static int type_size(uint32_t t) {
    static const int sz[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return t < sizeof sz / sizeof sz[0] ? sz[t] : -1;
}

/* A value of type T: an integer into *INT (when one), a string into BUF. */
static void get_value(rd *r, uint32_t t, int64_t *ival, char *buf, size_t size) {
    if (t == T_STR) {
        get_str(r, buf, size);
        return;
    }
    if (t == T_ARR) {
        uint32_t et = (uint32_t)get_n(r, 4);
        uint64_t n = get_n(r, 8);
        if (r->bad || n > MAX_COUNT || et == T_ARR) {
            r->bad = 1;
            return;
        }
        if (et == T_STR) {
            for (uint64_t i = 0; i < n && !r->bad; i++) get_str(r, NULL, 0);
            return;
        }
        int es = type_size(et);
        if (es <= 0) r->bad = 1;
        else skip(r, n * (uint64_t)es);
        return;
    }
    int s = type_size(t);
    if (s <= 0) {
        r->bad = 1;
        return;
    }
    uint64_t v = get_n(r, s);
    if (ival && t != T_F32 && t != T_F64) *ival = (t == T_I32) ? (int64_t)(int32_t)v : (int64_t)v;
}

int opscope_cap_gguf_read(const char *path, opscope_cap_gguf *out) {
    memset(out, 0, sizeof *out);
    out->file_type = -1;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    out->size = (uint64_t)st.st_size;
    rd r = {fopen(path, "rb"), 0};
    if (!r.f) return -1;
    char magic[4];
    if (fread(magic, 1, 4, r.f) != 4 || memcmp(magic, "GGUF", 4) != 0) {
        fclose(r.f);
        return -1;
    }
    uint32_t version = (uint32_t)get_n(&r, 4);
    uint64_t n_tensors = get_n(&r, 8), n_kv = get_n(&r, 8);
    if (r.bad || version < 2 || n_tensors > MAX_COUNT || n_kv > MAX_COUNT) {
        fclose(r.f);
        return -1;
    }
    char key[128];
    for (uint64_t i = 0; i < n_kv && !r.bad; i++) {
        get_str(&r, key, sizeof key);
        uint32_t t = (uint32_t)get_n(&r, 4);
        int64_t iv = -1;
        if (!strcmp(key, "general.architecture")) get_value(&r, t, NULL, out->arch, sizeof out->arch);
        else if (!strcmp(key, "general.name")) get_value(&r, t, NULL, out->name, sizeof out->name);
        else if (!strcmp(key, "general.file_type")) {
            get_value(&r, t, &iv, NULL, 0);
            if (!r.bad && iv >= 0 && iv <= INT32_MAX) out->file_type = (int32_t)iv;
        } else get_value(&r, t, NULL, NULL, 0);
    }
    uint64_t params = 0;
    for (uint64_t i = 0; i < n_tensors && !r.bad; i++) {
        get_str(&r, NULL, 0);
        uint32_t nd = (uint32_t)get_n(&r, 4);
        if (nd > MAX_DIMS) r.bad = 1;
        uint64_t ne = 1;
        for (uint32_t d = 0; d < nd && !r.bad; d++) {
            uint64_t x = get_n(&r, 8);
            ne = (x && ne > UINT64_MAX / x) ? UINT64_MAX : ne * x;
        }
        skip(&r, 4 + 8); /* type, offset */
        if (!r.bad) params += ne;
    }
    if (!r.bad) out->n_params = params;
    fclose(r.f);
    return 0;
}
