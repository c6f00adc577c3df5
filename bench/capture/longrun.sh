#!/usr/bin/env bash
# Hours under capture, shortened to minutes: llama-server (tiny model, CLIENTS
# clients, 1 thread) under `opscope record` beside a plain one under the same load, for
# SECONDS (default 600); prints the RSS table every 10 s (plain, captured, the record log's
# size, requests answered), the bytes each checkpoint appended against its records' share,
# drops, and whether a SIGKILL at a random moment after SECONDS (within 20 s) left every graph compute
# older than 2 s whole in the profile, read straight from the log. Needs root (the forky root).
# usage: bench/capture/longrun.sh [SECONDS] [CLIENTS]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "bench/capture/longrun.sh: needs root (the forky test root)" >&2; exit 1; }
SECONDS_=${1:-600}
CLIENTS=${2:-4}
mkdir -p "$REPO/bench/out/capture"
cd "$REPO/bench/out/capture"
exec "$REPO/scripts/in-root.sh" "
set -euo pipefail
echo \"== load: \$(cut -d' ' -f1-3 /proc/loadavg)\"
python3 /opscope/scripts/make-models.py > /dev/null
python3 /opscope/tests/capture_e2e/t_longrun.py $SECONDS_ $CLIENTS
echo \"== load: \$(cut -d' ' -f1-3 /proc/loadavg)\"
"
