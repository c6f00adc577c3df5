#!/usr/bin/env bash
# Throughput and peak memory of `opscope diff` on two large generated ggml profiles (bench/
# report/gen_profile, seeds 1 and 2: the same llama-like run with different timings). Prints
# one line per case: median MB/s of both inputs together over RUNS runs, wall and CPU time,
# and the median peak RSS (/usr/bin/time -v). The bar: >= 300 MB/s combined on two
# 400 MB inputs, peak RSS under 64 MB. Each input is read once, warm-up apart included
# (docs/diff.md): the --include-warmup case shows what finding the warm-up costs. The
# profiles are generated in TMPDIR and deleted afterwards unless BASE and NEW name existing
# files.
#
# usage: bench/diff/run.sh [BUILD]    env: SIZE (per input, default 400M), VERSION (2 or 3,
#                                     default 3: tensor names for --by layer), RUNS (3),
#                                     BASE, NEW, TMPDIR
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
SIZE=${SIZE:-400M}
VERSION=${VERSION:-3}
RUNS=${RUNS:-3}
TMP=${TMPDIR:-/tmp}
# shellcheck source=../throughput.sh
. bench/throughput.sh
bench_setup opscope-bench-diff
if [ -n "${BASE:-}" ] && [ -n "${NEW:-}" ]; then
  base=$BASE new=$NEW
else
  base=$work/base.json new=$work/new.json
  "$GEN" --size "$SIZE" --version "$VERSION" --seed 1 -o "$base"
  "$GEN" --size "$SIZE" --version "$VERSION" --seed 2 -o "$new"
fi
bytes=$(( $(stat -c %s "$base") + $(stat -c %s "$new") ))
echo "load: $(cut -d" " -f1-3 /proc/loadavg) (on $(nproc) cores: wall figures need an idle machine)"
echo "inputs: $base + $new, $bytes bytes together ($(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1e6}') MB); runs: $RUNS"
cat "$base" "$new" > /dev/null  # warm the page cache: measure parsing, not the disk

# diff exits 3 when it finds a regression (--fail-on-regression): a result, not a failure
OK_STATUS=3 LABEL_WIDTH=34
run_case "diff (by op, console)"          "$OPSCOPE" diff "$base" "$new"
# warm-up apart (the default) is found while each input is read: against --include-warmup,
# which finds none, it costs the held records' copies; BASE against itself is the same work
run_case "diff --include-warmup"          "$OPSCOPE" diff "$base" "$new" --include-warmup
run_case "diff BASE BASE"                 "$OPSCOPE" diff "$base" "$base"
run_case "diff --json --text"             "$OPSCOPE" diff "$base" "$new" -q --json "$work/out.json" --text "$work/out.txt"
run_case "diff --by shape"                "$OPSCOPE" diff "$base" "$new" -q --by shape --json "$work/out.json"
run_case "diff --by layer,phase,category" "$OPSCOPE" diff "$base" "$new" -q --by layer,phase,category --json "$work/out.json"
run_case "diff --fail-on-regression 5"    "$OPSCOPE" diff "$base" "$new" -q --fail-on-regression 5
run_case "diff --html (500k records/run)" "$OPSCOPE" diff "$base" "$new" -q --html "$work/out.html"
