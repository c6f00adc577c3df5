#!/usr/bin/env bash
# Stress battery of the capture (run by hand, needs root): inside the forky test
# root, real llama.cpp programs under `opscope record` and GGML_PROFILE with every kind of
# output (file, FIFO with and without a reader, >(cat), >(gzip), /dev/stdout to a file and a
# pipe, /dev/stderr, /dev/null, a missing folder), SIGTERM mid-run, a full disk (a 48 KB
# tmpfs) and `ulimit -v`: no harmed program, no silent loss (bench/stress/stress.py).
# usage: bench/stress/run.sh [BUILD] [--only SUBSTRING]   (BUILD unused: built in the root)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "bench/stress: needs root (the forky test root)" >&2; exit 1; }
shift || true
mkdir -p "$REPO/bench/out/stress"
cd "$REPO/bench/out/stress"
exec "$REPO/scripts/in-root.sh" python3 /opscope/bench/stress/stress.py "$@"
