/*
 * cupti_names.c - API roles and kernel names for the CUPTI source (see cupti_names.h).
 */
#include "capture/gpu/cupti_names.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int starts(const char *s, const char *p) {
    return strncmp(s, p, strlen(p)) == 0;
}

opscope_cupti_role opscope_cupti_api_role(const char *name) {
    if (!name) {
        return OPSCOPE_CUPTI_ROLE_NONE;
    }
    /* host functions run on the CPU: no device record */
    if (strstr(name, "HostFunc")) {
        return OPSCOPE_CUPTI_ROLE_NONE;
    }
    /* the runtime's cudaX and the driver's cuX alike, the first match in this order */
    static const struct {
        const char *api;
        opscope_cupti_role role;
    } roles[] = {
        {"StreamBeginCapture", OPSCOPE_CUPTI_ROLE_CAPTURE_BEGIN},
        {"StreamEndCapture", OPSCOPE_CUPTI_ROLE_CAPTURE_END},
        {"GraphLaunch", OPSCOPE_CUPTI_ROLE_GRAPH},
        {"Launch", OPSCOPE_CUPTI_ROLE_KERNEL},
        {"Memcpy", OPSCOPE_CUPTI_ROLE_COPY},
        {"Memset", OPSCOPE_CUPTI_ROLE_FILL},
    };
    const char *api = starts(name, "cuda") ? name + 4 : starts(name, "cu") ? name + 2 : NULL;
    for (size_t i = 0; api && i < sizeof roles / sizeof roles[0]; i++) {
        if (starts(api, roles[i].api)) {
            return roles[i].role;
        }
    }
    return OPSCOPE_CUPTI_ROLE_NONE;
}

/* The identifier of an Itanium-mangled function (its last source name), or 0. */
static size_t base_identifier(const char *m, const char **id) {
    if (!starts(m, "_Z")) {
        return 0;
    }
    const char *p = m + 2;
    if (*p == 'N') { /* nested: the last <length><name> before E */
        p++;
        while (*p == 'K' || *p == 'V' || *p == 'r') p++;
    }
    size_t best = 0;
    while (isdigit((unsigned char)*p)) {
        char *end;
        unsigned long n = strtoul(p, &end, 10);
        if (n == 0 || strnlen(end, n) < n) {
            break;
        }
        *id = end;
        best = n;
        p = end + n;
        if (m[2] != 'N') {
            break;
        }
    }
    return best;
}

/* DEM without the leading "void " of a template's return type and without the parameter
 * list (the first '(' outside template brackets). */
static void shorten(const char *dem, char *out, size_t size) {
    if (starts(dem, "void ")) {
        dem += 5;
    }
    int depth = 0;
    size_t i = 0;
    for (; dem[i]; i++) {
        char c = dem[i];
        if (c == '<') depth++;
        else if (c == '>') depth--;
        else if (c == '(' && depth == 0) break;
    }
    snprintf(out, size, "%.*s", (int)i, dem);
}

void opscope_cupti_kernel_name(const char *mangled, opscope_cupti_demangle_fn demangle, char *out, size_t size) {
    if (size == 0) {
        return;
    }
    if (!mangled) {
        snprintf(out, size, "?");
        return;
    }
    if (!starts(mangled, "_Z")) {
        snprintf(out, size, "%s", mangled);
        return;
    }
    if (demangle) {
        int status = -1;
        char *d = demangle(mangled, NULL, NULL, &status);
        if (d && status == 0) {
            shorten(d, out, size);
            free(d);
            return;
        }
        free(d);
    }
    const char *id = NULL;
    size_t n = base_identifier(mangled, &id);
    if (n) {
        snprintf(out, size, "%.*s", (int)n, id);
    } else {
        snprintf(out, size, "%s", mangled);
    }
}
