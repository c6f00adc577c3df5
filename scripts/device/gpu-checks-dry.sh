#!/usr/bin/env bash
# Dry run HERE, as root and without a GPU, of the device call (scripts/device/gpu-checks.sh)
# with the carries scripts/device/gpu-prepare.sh made (.device/cupti, .dev), through the same
# script and the same carried files:
#   CUDA    on this machine, PARTS=cuda DRY=1: the ABI check against this machine's toolkit;
#           the prebuilt llama.cpp unpacked, every library of it and of libopscope-ggml.so
#           resolved (the toolkit's libcudart/libcublas, CUDA's stub as libcuda.so.1), its
#           llama-bench and llama-completion --help run with every symbol bound; the 1B q4_0
#           written; cupti_measure.py compiled (its runs need the GPU)
#   Vulkan  in a scratch copy of the forky root with mesa's lavapipe as the driver,
#           PARTS=vulkan: unpacking, forky's loader, models, opscope record, the perf logger,
#           the table and its BAR lines, on the tiny model, one round (lavapipe's figures mean
#           nothing for the GPU)
# then the carry's size (scripts/device/carry-size.sh). Writes bench/out/gpu-checks-dry/:
# checks.md (both parts' checks.md, then the carry), cuda/ and vulkan/ (each part's $OUT: the
# files the device tool would bring back). Exit status: 0 when both parts exited 0.
#
#   scripts/device/gpu-checks-dry.sh
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "gpu-checks-dry: needs root (the forky root)" >&2; exit 1; }
D=$REPO/bench/out/gpu-checks-dry
rm -rf "$D"
mkdir -p "$D/cuda" "$D/vulkan"
cd "$REPO"
T0=$(date +%s)
echo "== CUDA, dry, on this machine" >&2
OUT=$D/cuda PARTS=cuda DRY=1 RAW=/tmp/gpu-checks-dry-raw WORK=/tmp/gpu-checks-dry-work \
    bash scripts/device/gpu-checks.sh > "$D/cuda.log" 2>&1
rc_c=$?
rm -rf /tmp/gpu-checks-dry-work /tmp/gpu-checks-dry-raw # the 548 MB model
T1=$(date +%s)
echo "== Vulkan, lavapipe, in a scratch forky root" >&2
# the lavapipe manifest names its library bare: found through EXTRA_LP
scripts/in-root.sh --no-build --scratch '
ICD=$(ls /usr/share/vulkan/icd.d/lvp_icd*.json | head -1)
cd /opscope && OUT=/host-cwd/bench/out/gpu-checks-dry/vulkan PARTS=vulkan LIMIT=900 ICD=$ICD \
    EXTRA_LP=/usr/lib/x86_64-linux-gnu MODELS=tiny ACC_MODEL=tiny ROUNDS=1 bash scripts/device/gpu-checks.sh' \
    > "$D/vulkan.log" 2>&1
rc_v=$?
T2=$(date +%s)
{
    cat "$D/cuda/checks.md"
    echo
    cat "$D/vulkan/checks.md"
    echo
    echo "## Dry run here: CUDA part exit $rc_c in $((T1 - T0)) s, Vulkan part exit $rc_v in $((T2 - T1)) s"
    echo
    echo '```'
    bash scripts/device/carry-size.sh .device/cupti .dev 2>&1
    echo "files left in \$OUT: $(find "$D/cuda" "$D/vulkan" -type f -printf '%f\n' | sort -u | tr '\n' ' ')(the tool brings back 8)"
    echo '```'
} > "$D/checks.md"
cat "$D/checks.md"
[ $rc_c = 0 ] && [ $rc_v = 0 ]
