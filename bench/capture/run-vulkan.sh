#!/usr/bin/env bash
# Vulkan layer benchmarks (by hand; needs root; idle machine): inside the forky test root, on
# mesa's lavapipe,
#   1. overhead   llama-bench decode tokens/s -ngl 99: plain, under the capture, and with
#                 GGML_VK_PERF_LOGGER=1 (bar: the capture keeps >= 95%; it should cost less
#                 than the perf logger)
#   2. accuracy   per group name and per graph, device time vs GGML_VK_PERF_LOGGER's, medians
#                 over the decode graphs (bar: within 15%)
# usage: bench/capture/run-vulkan.sh [PAIRS]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "bench/capture: needs root (the forky test root)" >&2; exit 1; }
mkdir -p "$REPO/bench/out/capture"
cd "$REPO/bench/out/capture"
PAIRS=${1:-5}
case "$PAIRS" in *[!0-9]*|"") echo "usage: bench/capture/run-vulkan.sh [PAIRS]" >&2; exit 1 ;; esac
exec "$REPO/scripts/in-root.sh" '
PAIRS='"$PAIRS"'
set -euo pipefail
echo "== load: $(cut -d" " -f1-3 /proc/loadavg)"
echo "== overhead: llama-bench -p 0 -n 32 -ngl 99 (bar: >= 95% of plain)"
python3 /opscope/bench/capture/vulkan.py overhead --pairs "$PAIRS"
echo "== accuracy vs GGML_VK_PERF_LOGGER, llama-completion -n 32 -ngl 99 (bar: within 15%)"
python3 /opscope/bench/capture/vulkan.py accuracy --n-gen 32 --pairs "$PAIRS"
echo "== load: $(cut -d" " -f1-3 /proc/loadavg)"'
