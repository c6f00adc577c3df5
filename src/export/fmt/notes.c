/* notes.c - repeated messages capped (see notes.h). */
#include "export/fmt/notes.h"

#include <inttypes.h>
#include <string.h>

void opscope_notes_count(char *buf, size_t size, uint64_t v) {
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v);
    char out[32];
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) out[k++] = ',';
        out[k++] = digits[i];
    }
    out[k] = 0;
    snprintf(buf, size, "%s", out);
}

void opscope_notes_more(FILE *f, const char *prefix, uint64_t total, const char *what, const char *full) {
    if (total <= OPSCOPE_NOTES_SHOWN) return;
    char n[32];
    opscope_notes_count(n, sizeof n, total - OPSCOPE_NOTES_SHOWN);
    fprintf(f, "%s... and %s more %s%s%s\n", prefix, n, what, full ? "; every one is in " : "", full ? full : "");
}
