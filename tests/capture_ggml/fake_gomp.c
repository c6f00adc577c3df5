/*
 * fake_gomp.c - a stand-in libgomp.so.1 for fallback.c: its GOMP_barrier only counts calls,
 * so the test can tell that the capture's interposer ran the real function.
 */
int fake_gomp_barrier_calls;

void GOMP_barrier(void);
void GOMP_barrier(void) {
    fake_gomp_barrier_calls++;
}
