#!/usr/bin/env bash
# What a paused capture costs (`opscope record --paused`, never started): llama-bench tg128 on
# the tiny model against plain in PAIRS rotated pairs (median ratio; bar >= 0.99), and
# llama-server's RSS beside a plain one under the same CLIENTS-client load for SECONDS (bar:
# within 8 MiB): bench/capture/paused_cost.py in the forky root. Needs root. Output in
# bench/out/capture/out-paused-cost/.
# usage: bench/capture/paused_cost.sh [PAIRS] [SECONDS] [CLIENTS] [THREADS]   (defaults 5 120 4 1)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
    echo "bench/capture/paused_cost.sh: needs root (the forky test root)" >&2
    exit 1
fi
OUT="$REPO/bench/out/capture"
mkdir -p "$OUT" && cd "$OUT"
ARGS="${1:-5} ${2:-120} ${3:-4} ${4:-1}"
exec "$REPO/scripts/in-root.sh" "python3 /opscope/scripts/make-models.py > /dev/null && python3 /opscope/bench/capture/paused_cost.py $ARGS"
