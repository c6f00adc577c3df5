#!/usr/bin/env bash
# Kineto ingest benchmark: builds a few-hundred-MB trace from the test traces' events
# (make_big.py), then reports the median over RUNS runs of
#   ingest  - the reader alone, records to a counting sink (single thread)
#   full    - reader + Kineto analysis + report section
#   report  - `opscope report TRACE` (all statistics), when that binary reads Kineto traces
# as MB/s of input (CPU time and wall time) and peak RSS (/usr/bin/time -v).
#
# usage: bench/kineto/run.sh [BUILD]   env: SIZE_MB (default 400), RUNS (5), TRACE, TMPDIR
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
SIZE_MB=${SIZE_MB:-400}
RUNS=${RUNS:-5}
TMP=${TMPDIR:-/tmp}
BENCH=$BUILD/bench/kineto/bench_kineto
OPSCOPE=$BUILD/src/opscope
[ -x "$BENCH" ] || { echo "missing $BENCH: build first (cmake --build $BUILD)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

work=$(mktemp -d "$TMP/opscope-kineto-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -n "${TRACE:-}" ]; then
  trace=$TRACE
else
  trace=$work/big.json
  python3 bench/kineto/make_big.py tests/kineto/traces "$trace" "$SIZE_MB" >&2
fi
bytes=$(stat -c %s "$trace")
cat "$trace" > /dev/null # warm the page cache: the figure is the parser's, not the disk's

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

run_case() { # name, command...
  local name=$1; shift
  local cpu=() wall=() rss=()
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -v "$@" > "$work/out" 2> "$work/time" || { cat "$work/time" >&2; return 1; }
    local u s e m
    u=$(awk -F': ' '/User time/ {print $2}' "$work/time")
    s=$(awk -F': ' '/System time/ {print $2}' "$work/time")
    e=$(awk -F': ' '/Elapsed/ {print $2}' "$work/time" | awk -F: '{t=0; for(i=1;i<=NF;i++) t=t*60+$i; print t}')
    m=$(awk -F': ' '/Maximum resident/ {print $2}' "$work/time")
    cpu+=("$(echo "$bytes $u $s" | awk '{printf "%.1f", $1/1e6/($2+$3)}')")
    wall+=("$(echo "$bytes $e" | awk '{printf "%.1f", $1/1e6/$2}')")
    rss+=("$m")
  done
  printf '%-8s %8.1f MB input  median %7.1f MB/s (CPU time)  %7.1f MB/s (wall)  peak RSS %7.1f MB (%.1f%% of input)\n' \
    "$name" "$(echo "$bytes" | awk '{print $1/1e6}')" \
    "$(printf '%s\n' "${cpu[@]}" | median)" "$(printf '%s\n' "${wall[@]}" | median)" \
    "$(printf '%s\n' "${rss[@]}" | median | awk '{print $1/1024}')" \
    "$(printf '%s\n' "${rss[@]}" | median | awk -v b="$bytes" '{print 100*$1*1024/b}')"
}

run_case ingest "$BENCH" ingest "$trace"
run_case full "$BENCH" full "$trace"
if [ -x "$OPSCOPE" ] && "$OPSCOPE" report -q "$trace" > /dev/null 2>&1; then
  run_case report "$OPSCOPE" report "$trace"
else
  echo "report   (skipped: $OPSCOPE cannot read Kineto traces in this build)"
fi
