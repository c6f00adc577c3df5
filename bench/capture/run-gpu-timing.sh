#!/usr/bin/env bash
# Sampled device timing on lavapipe (by hand; needs root): inside the forky test root,
# llama-bench tg32 -ngl 99 on the tiny f32 model, plain / capture by default (sampled) /
# capture with --gpu-timing all / GGML_VK_PERF_LOGGER, in rotated rounds (gpu_timing.py).
# Bars: default >= 90% of plain tokens/s (medians of >= 6 rounds); per op name the
# default's per-compute medians within 10% of all's; graph-compute counts equal.
# lavapipe's plain runs are bimodal and the machine may be shared: compare medians, rerun when
# the per-round ratios disagree with the ratio of medians.
# MODES (environment): the configurations, default plain,default,all,perf_logger; all_group is
# --gpu-timing all with OPSCOPE_VK_GROUP=1 (concurrent nodes timed as one interval), all_unshared
# --gpu-timing all with OPSCOPE_VK_SHARE_BOUNDS=0 (every item its own start), rare the default with
# N at its longest.
# KEEP (environment): a folder name under bench/out/capture that keeps every capture run's
# profile (MODE-ROUND.json), to look at later.
# usage: bench/capture/run-gpu-timing.sh [ROUNDS] [MODEL]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "bench/capture: needs root (the forky test root)" >&2; exit 1; }
ROUNDS=${1:-6}
MODEL=${2:-tiny-dense-f32}
case "$ROUNDS" in *[!0-9]*|"") echo "usage: bench/capture/run-gpu-timing.sh [ROUNDS] [MODEL]" >&2; exit 1 ;; esac
case "$MODEL" in *[!A-Za-z0-9_-]*|"") echo "bad model name: $MODEL" >&2; exit 1 ;; esac
case "${KEEP:-x}" in *[!A-Za-z0-9_-]*) echo "bad KEEP: $KEEP" >&2; exit 1 ;; esac
[ -z "${KEEP:-}" ] || mkdir -p "$REPO/bench/out/capture/$KEEP"
case "${MODES:-x}" in *[!a-z_,]*) echo "bad MODES: $MODES" >&2; exit 1 ;; esac
mkdir -p "$REPO/bench/out/capture"
cd "$REPO/bench/out/capture"
exec "$REPO/scripts/in-root.sh" '
set -euo pipefail
echo "== load: $(cut -d" " -f1-3 /proc/loadavg)"
python3 /opscope/bench/capture/gpu_timing.py --rounds '"$ROUNDS"' --model '"$MODEL"' --modes '"${MODES:-plain,default,all,perf_logger}"' '"${KEEP:+--keep $KEEP}"'
echo "== load: $(cut -d" " -f1-3 /proc/loadavg)"'
