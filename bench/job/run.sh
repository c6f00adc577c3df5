#!/usr/bin/env bash
# Job benchmark: a folder of RANKS traces of SIZE_MB each (bench/kineto/make_big.py:
# the test traces' events, copied and shifted), read by `opscope report DIR` one trace after the
# other (--threads 1) and on THREADS threads (default 2). Prints the median over RUNS runs of
# the wall time and peak RSS (/usr/bin/time -v) of each, and the ratio parallel / one after
# the other. Bars: ratio <= 0.6 on 2 cores, peak RSS <= 64 MB.
#
# usage: bench/job/run.sh [BUILD]   env: RANKS (8), SIZE_MB (100), RUNS (3), THREADS (2), TMPDIR,
#        TRACE (a trace to copy RANKS times instead of making one)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
RANKS=${RANKS:-8}
SIZE_MB=${SIZE_MB:-100}
RUNS=${RUNS:-3}
THREADS=${THREADS:-2}
TMP=${TMPDIR:-/tmp}
OPSCOPE=$BUILD/src/opscope
[ -x "$OPSCOPE" ] || { echo "missing $OPSCOPE: build first (cmake --build $BUILD)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

work=$(mktemp -d "$TMP/opscope-job-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/job"
if [ -n "${TRACE:-}" ]; then cp "$TRACE" "$work/job/rank-0.json"
else python3 bench/kineto/make_big.py tests/kineto/traces "$work/job/rank-0.json" "$SIZE_MB" >&2; fi
for r in $(seq 1 $((RANKS - 1))); do cp "$work/job/rank-0.json" "$work/job/rank-$r.json"; done
cat "$work"/job/*.json > /dev/null # warm the page cache: the figure is the reader's, not the disk's
bytes=$(du -cb "$work"/job/*.json | tail -1 | cut -f1)

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# one case: prints "WALL_S RSS_MB" medians
run_case() {
  local wall=() rss=()
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -v "$OPSCOPE" report "$work/job" --json "$work/out.json" -q "$@" 2> "$work/time" ||
      { cat "$work/time" >&2; return 1; }
    wall+=("$(awk -F': ' '/Elapsed/ {print $2}' "$work/time" | awk -F: '{t=0; for(i=1;i<=NF;i++) t=t*60+$i; print t}')")
    rss+=("$(awk -F': ' '/Maximum resident/ {print $2/1024}' "$work/time")")
  done
  echo "$(printf '%s\n' "${wall[@]}" | median) $(printf '%s\n' "${rss[@]}" | median)"
}

read -r seq_s seq_mb < <(run_case --threads 1)
read -r par_s par_mb < <(run_case --threads "$THREADS")
printf 'job: %d ranks x %.1f MB (%.1f MB), %d runs, load %s\n' "$RANKS" \
  "$(echo "$bytes $RANKS" | awk '{print $1/1e6/$2}')" "$(echo "$bytes" | awk '{print $1/1e6}')" "$RUNS" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
printf 'one after the other (--threads 1): %6.2f s  %6.1f MB/s  peak RSS %6.1f MB\n' "$seq_s" \
  "$(echo "$bytes $seq_s" | awk '{print $1/1e6/$2}')" "$seq_mb"
printf 'parallel (--threads %d):           %6.2f s  %6.1f MB/s  peak RSS %6.1f MB\n' "$THREADS" "$par_s" \
  "$(echo "$bytes $par_s" | awk '{print $1/1e6/$2}')" "$par_mb"
printf 'ratio parallel / one after the other: %.3f (bar <= 0.6 on 2 cores)\n' \
  "$(echo "$par_s $seq_s" | awk '{print $1/$2}')"
