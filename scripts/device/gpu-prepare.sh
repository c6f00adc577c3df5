#!/usr/bin/env bash
# The one command to run HERE, as root, before the device call of the GPU checks
# (scripts/device/gpu-checks.sh), in the checkout the session was STARTED in: the device tool
# sends that checkout, also when a helper calls it from another worktree.
#
#   scripts/device/gpu-prepare.sh [--dry]
#
# 1. scripts/device/cupti-prepare.sh --build: .device/cupti/ (llama.cpp source subset, and
#    prebuilt.tar.xz: llama.cpp with ggml-cuda for sm_90 and libopscope-ggml.so built against
#    it). The llama.cpp build tree stays in /var/cache/opscope/cupti-build-ON and resumes;
#    from nothing it is 143 nvcc units and about 120 C++ ones at -j2: hours on the 2 shared
#    cores here (start it early: it is safe to stop and rerun).
# 2. scripts/device/bundle-vulkan.sh: .dev/ (forky's Vulkan llama.cpp, ggml, opscope).
# 3. The carry measured as the device tool counts it: tracked and untracked-not-ignored files
#    of the checkout, plus .device/cupti and .dev; fails past 60 MiB (the limit is 64 MiB).
# 4. With --dry: scripts/device/gpu-checks-dry.sh (the whole call, here, without a GPU).
# Then prints the device call to make. Knobs: JOBS (2) and NICE for the CUDA build.
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "gpu-prepare: needs root (the forky root)" >&2; exit 1; }
DRY=0
[ "${1:-}" = --dry ] && DRY=1
T0=$(date +%s)
bash "$REPO/scripts/device/cupti-prepare.sh" --build
T1=$(date +%s)
bash "$REPO/scripts/device/bundle-vulkan.sh"
T2=$(date +%s)
bash "$REPO/scripts/device/carry-size.sh" .device/cupti .dev
if [ $DRY = 1 ]; then
    bash "$REPO/scripts/device/gpu-checks-dry.sh"
fi
cat >&2 <<EOF
gpu-prepare: ready ($((T1 - T0)) s CUDA prebuild, $((T2 - T1)) s Vulkan bundle). The device call:
    run  command:   bash scripts/device/gpu-checks.sh
         carry:     [".device/cupti", ".dev"]
         timeout_s: 480
then give_back (unless rerunning at once), and paste \$OUT/checks.md into the closing note of the GPU work.
EOF
