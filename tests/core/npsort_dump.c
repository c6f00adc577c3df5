/* npsort_dump.c - util/npsort.h for check_npsort.py: reads arrays of int64 keys (a count, then
 * the keys, whitespace separated, until the end of input) and prints each one's argsort order
 * on one line. */
#include "util/npsort.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    size_t n;
    while (scanf("%zu", &n) == 1) {
        int64_t *v = malloc((n ? n : 1) * sizeof *v);
        uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
        if (!v || !idx) return 1;
        for (size_t i = 0; i < n; i++)
            if (scanf("%" SCNd64, &v[i]) != 1) return 2;
        opscope_npsort_argsort(v, idx, n);
        for (size_t i = 0; i < n; i++) printf(i ? " %" PRIu32 : "%" PRIu32, idx[i]);
        printf("\n");
        free(v);
        free(idx);
    }
    return 0;
}
