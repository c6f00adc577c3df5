/*
 * fallback.c - calls cblas_sgemm and GOMP_barrier as found in the process's global scope
 * while no BLAS or OpenMP library is loaded yet: under the preloaded capture library, those
 * are its interposers, which must still run the real function (the one the process would get
 * once such a library is loaded), never return without it. Run by run-in-root.sh with
 * LD_LIBRARY_PATH pointing at a stand-in libgomp.so.1 (fake_gomp.c) that counts its calls.
 * Prints what it saw; exits 0 when the product is right and the barrier ran once.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int,
                         float, float *, int);

int main(void) {
    int bad = 0;
    sgemm_fn sgemm = (sgemm_fn)dlsym(RTLD_DEFAULT, "cblas_sgemm");
    void (*barrier)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "GOMP_barrier");
    if (!sgemm || !barrier) {
        printf("SKIP: no cblas_sgemm/GOMP_barrier in the global scope (capture library not preloaded)\n");
        return 77;
    }
    /* row-major [2x3] x [3x2] */
    const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {7, 8, 9, 10, 11, 12};
    float c[4] = {-1, -1, -1, -1};
    const float want[4] = {58, 64, 139, 154};
    enum { ROW_MAJOR = 101, NO_TRANS = 111 };
    sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, 2, 2, 3, 1.0f, a, 3, b, 2, 0.0f, c, 2);
    for (int i = 0; i < 4; i++) {
        bad += c[i] != want[i];
    }
    printf("sgemm: %g %g %g %g\n", c[0], c[1], c[2], c[3]);
    barrier();
    void *gomp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
    int *calls = gomp ? (int *)dlsym(gomp, "fake_gomp_barrier_calls") : NULL;
    printf("barrier calls: %d\n", calls ? *calls : -1);
    bad += !calls || *calls != 1;
    printf(bad ? "FAIL\n" : "ok\n");
    return bad ? 1 : 0;
}
