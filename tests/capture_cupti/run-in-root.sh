#!/usr/bin/env bash
# Inside the forky root (scripts/in-root.sh): the CUPTI source (src/capture/gpu/cap_cupti.c) driven
# through the capture library by a fake libcupti and a fake CUDA backend. Scenarios:
#   eager        CUDA 13.0's CUPTI, kernels launched one by one; its timestamp callback is not
#                trusted (zero kernel timestamps from 12.6U2 to 13.0): calibrated clock
#   tscb         CUDA 12.4's CUPTI: timestamps from the callback
#   zerots       CUDA 13.0 with the bug itself: kernel timestamps zero once the callback is
#                registered; zerots12 the same with CUDA 12.6 and CUDA graphs
#   rawts        CUDA 12.4, kernel records stamped with CUPTI's own clock despite the
#                callback (out of range): the source falls back to the calibrated offset
#   zerotrusted  CUDA 12.4 with zero kernel timestamps: those kernels untimed, never misplaced
#   graphs       CUDA 12.8's CUPTI (other version), ggml-cuda's CUDA-graph path (capture,
#                instantiate, replay, exec update, replay without capture), calibrated clock,
#                three records per buffer, buffers and records completed in reverse order
#   drops        CUPTI loses two records: counted, the rest still recorded
#   sampled      the default sampling (gpu_sample.h): computes not sampled are host-timed splits,
#                and CUPTI's records of them are dropped, not written
#   refused      another subscriber holds CUPTI (error 39): one warning saying so, host-timed
#                splits; refused15: error 15 without a CUDA driver loaded: "no CUDA driver"
#   version      CUDA 13.1's CUPTI (CUpti_ActivityKernel11): one warning naming it
#   opt-in       OPSCOPE_CUPTI unset: one line saying it is opt-in; OPSCOPE_CUPTI=0: silent
#   shapes       12,000 computes of new shapes: the kept chains renewed while scopes are pending
# Every run: the program's stdout and exit status as without the capture.
set -euo pipefail
LIB=${OPSCOPE_PRELOAD:-}
[ -n "$LIB" ] || { echo "SKIP: libopscope-ggml.so not built in the root"; exit 77; }
HERE=/opscope/tests/capture_cupti
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
gcc -std=c11 -O1 -Wall -Wextra -Werror -shared -fPIC "$HERE/fake_cupti.c" -o "$OUT/libcupti.so"
gcc -std=c11 -O1 -Wall -Wextra -Werror "$HERE/cuda_program.c" -o "$OUT/cuda_program" -lggml -lggml-base -ldl
"$OUT/cuda_program" "$OUT/libcupti.so" graphs 12 > "$OUT/plain.txt"

# run NAME MODE N ENV...: the program under the capture with the fake CUPTI
run() {
    local name=$1 mode=$2 n=$3
    shift 3
    env "$@" OPSCOPE_CUPTI_LIB="$OUT/libcupti.so" GGML_PROFILE="$OUT/$name.json" LD_PRELOAD="$LIB" \
        "$OUT/cuda_program" "$OUT/libcupti.so" "$mode" "$n" > "$OUT/$name.out" 2> "$OUT/$name.err" ||
        { cat "$OUT/$name.err"; echo "FAIL: $name: the program failed under the capture"; return 1; }
    head -n "$n" "$OUT/plain.txt" | cmp -s - "$OUT/$name.out" ||
        { echo "FAIL: $name: stdout differs under the capture"; return 1; }
}
fail=0
run eager eager 4 OPSCOPE_CUPTI=1 OPSCOPE_GPU_TIMING=all || fail=1
run tscb eager 4 OPSCOPE_CUPTI=1 OPSCOPE_GPU_TIMING=all FAKE_CUPTI_VERSION=22 || fail=1
run zerots eager 4 OPSCOPE_CUPTI=1 OPSCOPE_GPU_TIMING=all FAKE_CUPTI_ZERO_TS=1 || fail=1
run zerots12 graphs 6 OPSCOPE_CUPTI=1 OPSCOPE_GPU_TIMING=all FAKE_CUPTI_VERSION=24 FAKE_CUPTI_ZERO_TS=1 || fail=1
run rawts eager 4 OPSCOPE_CUPTI=1 OPSCOPE_GPU_TIMING=all FAKE_CUPTI_VERSION=22 FAKE_CUPTI_RAW_TS=1 || fail=1
run zerotrusted eager 3 OPSCOPE_CUPTI=1 OPSCOPE_GPU_TIMING=all FAKE_CUPTI_VERSION=22 FAKE_CUPTI_ZERO_TS=1 || fail=1
run graphs graphs 6 OPSCOPE_CUPTI=1 OPSCOPE_GPU_TIMING=all FAKE_CUPTI_VERSION=26 FAKE_CUPTI_NO_TSCB=1 FAKE_CUPTI_PER_BUFFER=3 \
    FAKE_CUPTI_REVERSE=1 || fail=1
run drops eager 3 OPSCOPE_CUPTI=1 OPSCOPE_GPU_TIMING=all FAKE_CUPTI_DROP=2 || fail=1
run sampled graphs 12 OPSCOPE_CUPTI=1 || fail=1
run refused eager 2 OPSCOPE_CUPTI=1 FAKE_CUPTI_REFUSE=1 || fail=1
run refused15 eager 2 OPSCOPE_CUPTI=1 FAKE_CUPTI_REFUSE=15 || fail=1
run version eager 2 OPSCOPE_CUPTI=1 FAKE_CUPTI_VERSION=130100 || fail=1
run optin eager 2 || fail=1
run off eager 2 OPSCOPE_CUPTI=0 || fail=1
# shapes: 12,000 computes, each of a graph of new shapes (8 descriptions each), checkpoints
# every 50 ms, CUPTI's buffers completed every 10 computes: its pending scopes hold the kept chains only until their records are
# written, so the chains are renewed (check.py: what the capture holds at the end against the
# descriptions written, from OPSCOPE_STATS' exit line)
"$OUT/cuda_program" "$OUT/libcupti.so" shapes 12000 > "$OUT/plain-shapes.txt"
env OPSCOPE_CUPTI=1 OPSCOPE_GPU_TIMING=all OPSCOPE_STATS=1 OPSCOPE_CHECKPOINT_MS=50 FAKE_CUPTI_FLUSH_EVERY=90 \
    OPSCOPE_CUPTI_LIB="$OUT/libcupti.so" \
    GGML_PROFILE="$OUT/shapes.json" LD_PRELOAD="$LIB" "$OUT/cuda_program" "$OUT/libcupti.so" shapes 12000 \
    > "$OUT/shapes.out" 2> "$OUT/shapes.err" && cmp -s "$OUT/plain-shapes.txt" "$OUT/shapes.out" ||
    { tail -5 "$OUT/shapes.err"; echo "FAIL: shapes: the program failed or printed otherwise under the capture"; fail=1; }
[ $fail = 0 ] || exit 1
python3 "$HERE/check.py" "$OUT"
