#!/usr/bin/env bash
# Dry run of the GPU machine's measurement (scripts/device/gpu-timing.sh) here, as root: bundles
# .dev/ as for the device call (scripts/device/bundle-vulkan.sh, its size checked against the
# carry's 64 MiB), then runs gpu-timing.sh in a scratch copy of the forky root (its writes
# vanish) with mesa's lavapipe as the Vulkan driver instead of NVIDIA's: the same unpacking,
# forky's own loader, models, opscope record, perf logger and table, on the tiny model only, one
# round. Writes bench/out/gpu-dry/ (the $OUT of the run: table.md, log.txt, runs.tar.xz).
# usage: scripts/device/gpu-timing-dry.sh [--no-bundle]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "gpu-timing-dry: needs root (the forky root)" >&2; exit 1; }
[ "${1:-}" = --no-bundle ] || "$REPO/scripts/device/bundle-vulkan.sh"
SIZE=$(du -sm "$REPO/.dev" | cut -f1)
echo "== .dev is $SIZE MiB (the device call carries 64 MiB at most)"
[ "$SIZE" -lt 64 ] || { echo "gpu-timing-dry: .dev is too large to carry" >&2; exit 1; }
OUTD=$REPO/bench/out/gpu-dry
rm -rf "$OUTD"
mkdir -p "$OUTD"
cd "$REPO"
# inside: the checkout is read-only at /opscope, so the script runs from a copy (it writes .dev's
# models beside it); the lavapipe manifest names its library bare, found through EXTRA_LP
exec "$REPO/scripts/in-root.sh" --no-build --scratch '
set -euo pipefail
rm -rf /tmp/co && mkdir -p /tmp/co && cp -a /opscope/. /tmp/co/ && cd /tmp/co
ICD=$(ls /usr/share/vulkan/icd.d/lvp_icd*.json | head -1)
OUT=/host-cwd/bench/out/gpu-dry ICD=$ICD EXTRA_LP=/usr/lib/x86_64-linux-gnu MODELS=tiny ACC_MODEL=tiny ROUNDS=1 \
    BUDGET=300 bash scripts/device/gpu-timing.sh'
