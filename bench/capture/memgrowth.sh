#!/usr/bin/env bash
# The capture's memory on a long run, structure by structure: bench/capture/memgrowth.py in
# the forky root (llama-server plain beside one under `opscope record`, CLIENTS clients each,
# SECONDS long; RSS and the capture's OPSCOPE_STATS lines every 10 s; slopes from WARMUP_S
# on, per minute and per request). Needs root. Output in bench/out/capture/out-memgrowth/.
# usage: bench/capture/memgrowth.sh [SECONDS] [CLIENTS] [WARMUP_S]   (defaults 600 6 120)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "bench/capture/memgrowth.sh: needs root (the forky test root)" >&2; exit 1; }
mkdir -p "$REPO/bench/out/capture"
cd "$REPO/bench/out/capture"
exec "$REPO/scripts/in-root.sh" "
set -euo pipefail
python3 /opscope/scripts/make-models.py > /dev/null
python3 /opscope/bench/capture/memgrowth.py ${1:-600} ${2:-6} ${3:-120}
"
