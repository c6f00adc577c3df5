#!/usr/bin/env bash
# Both GPU checks of issue 29 in ONE device call, CUDA first, then Vulkan, within LIMIT seconds
# (default 470: a call of at most 8 minutes with the machine's start, leaving time for a
# second call after a fix out of the 15 device minutes a session is lent).
#
#   here:   scripts/device/cupti-prepare.sh --build   .device/cupti: llama.cpp with ggml-cuda
#                                                     and opscope, prebuilt (the device only runs)
#           scripts/device/bundle-vulkan.sh           .dev: forky's Vulkan programs and opscope
#   there:  bash scripts/device/gpu-checks.sh         carry [".device/cupti", ".dev"], timeout_s 540
#
# 1 CUDA    scripts/device/cupti-check.sh (ABI check, the prebuilt llama.cpp or, as fallback,
#           a build there; the model; coverage, accuracy, tokens/s), stopped after CUDA_LIMIT
#           seconds (default 230); writes $OUT/cuda/
# 2 Vulkan  scripts/device/gpu-timing.sh with what is left: its rounds get BUDGET = the time
#           left minus VK_RESERVE (100 s: unpacking, models, the per-op runs); 2 rounds of the
#           1B q4_0 by default (MODELS, ROUNDS, EXTRA_CFGS as gpu-timing.sh); writes $OUT/vulkan/
# $OUT/checks.md: the GPU, both summaries, the seconds each part took. A part that is missing
# its carry (.device/cupti or .dev) is skipped with a line saying so.
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?OUT must be set (the device tool sets it)}"
LIMIT=${LIMIT:-470}
CUDA_LIMIT=${CUDA_LIMIT:-230}
VK_RESERVE=${VK_RESERVE:-100}
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
# limited SECONDS CMD...: runs CMD in its own process group, ended whole (TERM, then KILL) past
# SECONDS, so no llama-bench of one part runs on into the next; its exit status (124: killed)
limited() {
    local lim=$1
    shift
    setsid "$@" &
    local p=$! w rc
    (sleep "$lim"; kill -TERM -- -"$p" 2>/dev/null && { sleep 5; kill -KILL -- -"$p" 2>/dev/null; }; exit 0) &
    w=$!
    wait "$p"
    rc=$?
    kill "$w" 2>/dev/null
    [ $rc -eq 143 ] || [ $rc -eq 137 ] && rc=124
    return $rc
}
mkdir -p "$OUT/cuda" "$OUT/vulkan"
S=$OUT/checks.md
{
    echo "# GPU checks (issue 29)"
    echo
    echo '```'
    if command -v nvidia-smi > /dev/null; then
        nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    else
        echo "no nvidia-smi"
    fi
    nvcc --version 2>/dev/null | tail -1 || echo "no nvcc"
    echo "$(nproc) cores; opscope $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo '```'
} > "$S"

echo "== CUDA ($(el) s in)"
if [ -f "$REPO/.device/cupti/llama-src.tar.xz" ]; then
    t=$(date +%s)
    OUT=$OUT/cuda limited "$CUDA_LIMIT" bash "$REPO/scripts/device/cupti-check.sh" > "$OUT/cuda/log.txt" 2>&1
    rc=$?
    tail -25 "$OUT/cuda/log.txt"
    { echo; echo "## CUDA (cupti-check.sh): exit $rc, $(($(date +%s) - t)) s"; echo; echo '```'
      cat "$OUT/cuda/steps.tsv" 2>/dev/null; echo '```'; echo
      if [ $rc = 124 ]; then echo "(stopped after $CUDA_LIMIT s)"; fi
      cat "$OUT/cuda/cupti-summary.md" 2>/dev/null || echo "(no summary)"; } >> "$S"
else
    echo "no .device/cupti carried: CUDA skipped" | tee -a "$S"
fi

echo "== Vulkan ($(el) s in)"
left=$((LIMIT - $(el)))
if [ ! -f "$REPO/.dev/root.tar.xz" ]; then
    echo "no .dev carried: Vulkan skipped" | tee -a "$S"
elif [ $left -lt $((VK_RESERVE + 60)) ]; then
    echo "Vulkan skipped: $left s left of $LIMIT" | tee -a "$S"
else
    t=$(date +%s)
    (cd "$REPO" && OUT=$OUT/vulkan BUDGET=$((left - VK_RESERVE)) ROUNDS=${ROUNDS:-2} MODELS=${MODELS:-m1bq} \
        EXTRA_CFGS=${EXTRA_CFGS-} limited $((left - 10)) bash scripts/device/gpu-timing.sh > /dev/null 2>&1)
    rc=$?
    tail -25 "$OUT/vulkan/log.txt" 2>/dev/null
    { echo; echo "## Vulkan (gpu-timing.sh): exit $rc, $(($(date +%s) - t)) s, rounds budget $((left - VK_RESERVE)) s"; echo
      cat "$OUT/vulkan/table.md" 2>/dev/null || echo "(no table)"; } >> "$S"
fi
echo >> "$S"
echo "total $(el) s" >> "$S"
cat "$S"
