/* cap_env.c - the capture's OPSCOPE_* settings, checked (see cap_env.h). */
#include "capture/life/cap_env.h"

#include "util/hash.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool opscope_cap_env_parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out) {
    if (!text) {
        return false;
    }
    const char *p = text;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') p++;
    if (*p == '+') p++;
    if (*p < '0' || *p > '9') {
        return false;
    }
    uint64_t v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) {
            return false; /* 99999999999999999999: past any range, never wrapped */
        }
        v = v * 10 + d;
    }
    if (*p || v < min || v > max) {
        return false;
    }
    *out = v;
    return true;
}

bool opscope_cap_env_parse_real(const char *text, double lo, double hi, double *out) {
    if (!text || !*text) {
        return false;
    }
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno == ERANGE || !isfinite(v) || !(v > lo && v <= hi)) {
        return false;
    }
    *out = v;
    return true;
}

int opscope_cap_env_parse_word(const char *text, const char *const *names) {
    for (int i = 0; text && names[i]; i++) {
        if (strcmp(text, names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

/* The variables already warned about, by their name's hash (0: a free slot): a setting read
 * at every device or export is said once. Past the slots (more variables than the capture
 * has) a warning is said again rather than lost. */
#define WARNED_SLOTS 64
static _Atomic uint64_t g_warned[WARNED_SLOTS];

static bool first_warning(const char *name) {
    uint64_t h = opscope_hash_bytes(name, strlen(name)) | 1;
    for (int i = 0; i < WARNED_SLOTS; i++) {
        uint64_t cur = atomic_load(&g_warned[i]);
        if (cur == h) {
            return false;
        }
        if (cur == 0) {
            uint64_t zero = 0;
            if (atomic_compare_exchange_strong(&g_warned[i], &zero, h)) {
                return true;
            }
            if (zero == h) {
                return false; /* another thread took this slot for the same name */
            }
        }
    }
    return true;
}

bool opscope_cap_env_warn(const char *name, const char *value, const char *why, const char *using) {
    if (!first_warning(name)) {
        return false;
    }
    char shown[260];
    size_t n = 0;
    for (; value[n] && n < 256; n++) {
        shown[n] = (unsigned char)value[n] < 0x20 || value[n] == 0x7f ? '?' : value[n];
    }
    snprintf(shown + n, sizeof shown - n, "%s", value[n] ? "..." : "");
    /* one line in one write: the program's own threads may be printing */
    char line[640];
    snprintf(line, sizeof line, "opscope: %s=%s %s; using %s\n", name, shown, why, using);
    fputs(line, stderr);
    return true;
}

/* The variable's value, NULL when unset or empty (both mean the default). */
static const char *value_of(const char *name) {
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

uint64_t opscope_cap_env_uint(const char *name, uint64_t min, uint64_t max, uint64_t def, const char *unit) {
    const char *v = value_of(name);
    uint64_t x = def;
    if (v && !opscope_cap_env_parse_uint(v, min, max, &x)) {
        char why[120], using[24];
        snprintf(why, sizeof why, "is not a whole number of %s from %llu to %llu", unit, (unsigned long long)min,
                 (unsigned long long)max);
        snprintf(using, sizeof using, "%llu", (unsigned long long)def);
        opscope_cap_env_warn(name, v, why, using);
        x = def;
    }
    return x;
}

double opscope_cap_env_real(const char *name, double lo, double hi, double def, const char *what) {
    const char *v = value_of(name);
    double x = def;
    if (v && !opscope_cap_env_parse_real(v, lo, hi, &x)) {
        char why[120], using[32];
        snprintf(why, sizeof why, "is not a number of %s above %g and at most %g", what, lo, hi);
        snprintf(using, sizeof using, "%g", def);
        opscope_cap_env_warn(name, v, why, using);
        x = def;
    }
    return x;
}

int opscope_cap_env_word(const char *name, const char *const *names, int def, const char *using) {
    const char *v = value_of(name);
    int i = opscope_cap_env_parse_word(v, names);
    if (!v || i >= 0) {
        return v ? i : def;
    }
    char why[160] = "is not ";
    size_t n = strlen(why);
    for (int k = 0; names[k] && n < sizeof why; k++) {
        const char *sep = k == 0 ? "" : names[k + 1] ? ", " : " or ";
        n += (size_t)snprintf(why + n, sizeof why - n, "%s%s", sep, names[k]);
    }
    opscope_cap_env_warn(name, v, why, using ? using : def >= 0 ? names[def] : "the default");
    return def;
}

bool opscope_cap_env_flag(const char *name, bool def) {
    static const char *const k_flag[] = {"0", "1", NULL};
    return opscope_cap_env_word(name, k_flag, def ? 1 : 0, NULL) == 1;
}
