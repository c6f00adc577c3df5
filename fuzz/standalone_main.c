/*
 * standalone_main.c - the driver of the fuzz targets in an ordinary build (no libFuzzer): runs
 * LLVMFuzzerTestOneInput once on each file named on the command line (gzip read through
 * zlib, plain files as they are). It keeps every target compiling and linking in every
 * build and replays the seed inputs in CTest (fuzz/CMakeLists.txt); fuzzing itself is
 * scripts/fuzz.sh (libFuzzer, clang). Exit status 0, or 2 when a file cannot be read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The whole of PATH (decompressed when gzip) in *DATA, its length in *SIZE. 0, or -1. */
static int slurp(const char *path, uint8_t **data, size_t *size) {
    gzFile f = gzopen(path, "rb");
    if (!f) return -1;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (int r = 1; buf && r > 0;) {
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb) break;
            buf = nb;
        }
        r = gzread(f, buf + n, (unsigned)(cap - n));
        if (r < 0) break;
        n += (size_t)r;
        if (r == 0) {
            gzclose(f);
            *data = buf;
            *size = n;
            return 0;
        }
    }
    free(buf);
    gzclose(f);
    return -1;
}

int main(int argc, char **argv) {
    int n = 0;
    for (int i = 1; i < argc; i++) {
        uint8_t *data;
        size_t size;
        if (slurp(argv[i], &data, &size)) {
            fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[i]);
            return 2;
        }
        LLVMFuzzerTestOneInput(data, size);
        free(data);
        n++;
    }
    printf("%s: %d inputs run\n", argv[0], n);
    return 0;
}
