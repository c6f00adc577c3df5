#!/usr/bin/env bash
# By hand (not a ctest test: it needs a ggml source tree and a C++ compiler): the static-ggml
# capture against a REAL static ggml. Builds ggml from GGML_SRC as static libraries (CPU
# backend, OpenMP), libopscope-ggml-static.a against that ggml's headers, links
# static_check.c with the --wrap flags and libggml*.a, checks that nothing clashes (the
# program defines ggml's functions once, ours are only the C API and __wrap_*), and runs it,
# with the program setting its CPU abort callback through ggml_backend_cpu_set_abort_callback.
#
#   tests/capture_api/static-real-ggml.sh GGML_SRC [WORKDIR]     (WORKDIR default: a temp dir)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 GGML_SRC [WORKDIR]" >&2; exit 1; }
SRC=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")/../.." && pwd)
W=${2:-$(mktemp -d)}
mkdir -p "$W"
cmake -S "$SRC" -B "$W/ggml" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_BACKEND_DL=OFF \
      -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_OPENMP=ON \
      -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF > "$W/ggml.log" 2>&1
cmake --build "$W/ggml" -j 2 >> "$W/ggml.log" 2>&1
cmake -S "$HERE" -B "$W/opscope" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPSCOPE_GGML_INCLUDE_DIR="$SRC/include" \
      > "$W/opscope.log" 2>&1
cmake --build "$W/opscope" -j 2 --target opscope-ggml-static >> "$W/opscope.log" 2>&1
read -r FLAGS < "$W/opscope/lib/opscope-ggml-static-openmp.ldflags" # ggml-cpu with OpenMP
L=$W/ggml/src
# shellcheck disable=SC2086 # FLAGS is a list of link flags
gcc -std=c11 -O1 -Wall -Wextra -Werror -DSTATIC_CHECK_CPU_LINKED -I"$HERE/include" -I"$SRC/include" "$HERE/tests/capture_api/static_check.c" \
    -o "$W/static_check" $FLAGS "$L/libggml.a" "$L/libggml-cpu.a" "$L/libggml-base.a" -lstdc++ -lgomp -lm -lpthread
defined=$(nm --defined-only "$W/static_check" | awk '$3 ~ /^ggml_backend_sched_graph_compute$/' | wc -l)
[ "$defined" = 1 ] || { echo "FAIL: ggml_backend_sched_graph_compute defined $defined times"; exit 1; }
"$W/static_check" "$W/static.json"
echo "ok: static ggml from $SRC ($W)"
