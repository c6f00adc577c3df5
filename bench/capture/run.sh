#!/usr/bin/env bash
# Capture benchmarks (run by hand, or by bench/run.sh; needs root): inside the forky test root,
#   1. overhead.py    llama-bench decode tokens/s on a 103M-parameter random model, preload on/off
#   2. run-cost.sh    capture cost per record (synthetic graph of cheap nodes, on/off)
#   3. accuracy.py    per-call MUL_MAT time, capture vs test-backend-ops perf, same shapes/types
#                     (the models' decode shapes and a few large ones; mulmat_cold = cold-cache reference)
#   4. graph wall     per graph compute, sum of op durations vs the call's wall time (nodecount)
#   5. rpc_overhead.py the client's decode tokens/s with ggml-rpc-server profiled and without
#   6. threads_cost.py decode tokens/s under record with per-thread timing and with OPSCOPE_THREADS=0
#   7. t_threads.py pinned  llama-bench -t 2 pinned to CPUs 0 and 1, a busy loop on CPU 1 and none
# Figures are only meaningful on an otherwise idle machine (2-thread runs; check `uptime`).
# usage: bench/capture/run.sh [BUILD]   (BUILD unused: opscope is built inside the root)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "bench/capture: needs root (the forky test root)" >&2; exit 1; }
mkdir -p "$REPO/bench/out/capture"
cd "$REPO/bench/out/capture"
OPSCOPE_TEST_TARGETS="opscope-ggml opscope capture_cost mulmat_cold" exec "$REPO/scripts/in-root.sh" '
set -euo pipefail
echo "== load: $(cut -d" " -f1-3 /proc/loadavg)"
python3 /opscope/scripts/make-models.py --bench > /dev/null
echo "== overhead (bar: decode tokens/s within 3%)"
python3 /opscope/bench/capture/overhead.py
echo "== overhead in CPU time, 1 thread (robust to other load on the machine)"
python3 /opscope/bench/capture/overhead.py --cpu-time
echo "== capture cost per record (bar: <= 100 ns)"
bash /opscope/bench/capture/run-cost.sh
echo "== MUL_MAT per-call accuracy (bar: within 25%)"
python3 /opscope/bench/capture/accuracy.py --models bench-100m-f32,tiny-dense-q8_0 \
    --shape f32:4096:1:14336 --shape q4_0:4096:1:14336 --shape q8_0:4096:8:14336 --shape f16:4096:4:14336 || true
echo "== graph wall: op sum vs graph compute wall (bar: within 5%)"
for m in tiny-dense-f32 tiny-moe-q4_0; do
    python3 /opscope/tests/capture_e2e/t_completion.py "$m" 2 | grep "op sum vs graph wall" || true
done
echo "== ggml-rpc-server profiled: client decode tokens/s (bar: within 3%)"
python3 /opscope/bench/capture/rpc_overhead.py || true
echo "== per-thread timing at the barriers: decode tokens/s (bar: >= 98% of OPSCOPE_THREADS=0)"
python3 /opscope/bench/capture/threads_cost.py || true
echo "== per-thread timing, pinned (bars: busy loop on CPU 1: thread 1 causes >= 80% of the wait at MUL_MAT nodes, imbalance >= 1.3; none: <= 1.3)"
python3 /opscope/tests/capture_e2e/t_threads.py pinned || true
echo "== load: $(cut -d" " -f1-3 /proc/loadavg)"
'
