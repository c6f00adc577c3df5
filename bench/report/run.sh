#!/usr/bin/env bash
# Throughput and peak memory of `opscope report` and of each export on a large generated
# version-2 profile. Prints one line per case: median MB/s of input and median peak RSS over
# RUNS runs (/usr/bin/time -v). The profile is generated in TMPDIR and deleted afterwards
# unless PROFILE names an existing file.
#
# Then `report --sqlite` on a version-3 profile of SQLITE_RECORDS records (the issue's bar:
# 1.4 M records at >= 500k records/s, wall clock), as records/s, and the database's
# `sum(duration_ns), count(*) ... GROUP BY name, type, backend_id` against the same sums
# computed by Python's json module from the profile (exit 1 when they differ).
# SQLITE_ONLY=1 runs that case alone.
# Then a version-3 profile of SIZE (ggml types on every source, as opscope's capture writes):
# the summary with memory traffic computed for every record (version 2 has no types, so its
# records have no traffic) and with the roofline of a fixed peak file.
#
# usage: bench/report/run.sh [BUILD]    env: SIZE (default 1G), RUNS (3), PROFILE, TMPDIR,
#                                            SQLITE_RECORDS (1400000; 0 skips), V3=0 skips
#                                            the traffic cases, SQLITE_ONLY=1
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
SIZE=${SIZE:-1G}
RUNS=${RUNS:-3}
TMP=${TMPDIR:-/tmp}
# shellcheck source=../throughput.sh
. bench/throughput.sh
bench_setup opscope-bench
if [ "${SQLITE_ONLY:-0}" = 1 ]; then
  :
elif [ -n "${PROFILE:-}" ]; then
  prof=$PROFILE
else
  prof=$work/profile.json
  "$GEN" --size "$SIZE" --version 2 -o "$prof"
fi
echo "load: $(cut -d" " -f1-3 /proc/loadavg) (on $(nproc) cores: wall figures need an idle machine)"

if [ "${SQLITE_ONLY:-0}" != 1 ]; then
bytes=$(stat -c %s "$prof")
echo "input: $prof, $bytes bytes ($(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1e6}') MB); runs: $RUNS"
cat "$prof" > /dev/null  # warm the page cache: measure parsing, not the disk
run_case "report (summary)"            "$OPSCOPE" report "$prof"
run_case "report --by-shape"           "$OPSCOPE" report "$prof" --by-shape
run_case "report --chrome-trace"       "$OPSCOPE" report "$prof" -q --chrome-trace "$work/out.trace.json"
run_case "report --json"               "$OPSCOPE" report "$prof" -q --json "$work/out.json"
run_case "report --text"               "$OPSCOPE" report "$prof" -q --text "$work/out.txt"
run_case "report --html-viewer"        "$OPSCOPE" report "$prof" -q --html-viewer "$work/out.html"
run_case "report --sqlite"             "$OPSCOPE" report "$prof" -q --sqlite "$work/out.db"
run_case "report all exports, one pass" "$OPSCOPE" report "$prof" --text "$work/out.txt" \
  --json "$work/out.json" --chrome-trace "$work/out.trace.json" --html-viewer "$work/out.html"
fi

n=${SQLITE_RECORDS:-1400000}
if [ "$n" -gt 0 ]; then
  "$GEN" --records "$n" --version 3 -o "$work/v3.json" > /dev/null
  cat "$work/v3.json" > /dev/null
  secs=() cpus=()
  for _ in $(seq "$RUNS"); do
    rm -f "$work/v3.db"
    /usr/bin/time -f "%e %U %S" -o "$work/time.txt" "$OPSCOPE" report "$work/v3.json" -q --sqlite "$work/v3.db"
    secs+=("$(cut -d' ' -f1 "$work/time.txt")")
    cpus+=("$(awk '{print $2 + $3}' "$work/time.txt")")
  done
  rows=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from records').fetchone()[0])" "$work/v3.db")
  ms=$(printf '%s\n' "${secs[@]}" | median)
  mc=$(printf '%s\n' "${cpus[@]}" | median)
  awk -v n="$rows" -v s="$ms" -v c="$mc" -v all="${secs[*]}" -v b="$(stat -c %s "$work/v3.json")" -v d="$(stat -c %s "$work/v3.db")" \
    'BEGIN{printf "report --sqlite, v3 %d records (%.0f MB -> %.0f MB): median %.2f s = %.0f records/s (CPU, both threads: %.2f s) | runs %s s\n", n, b/1e6, d/1e6, s, n/s, c, all}'
  echo "load after: $(cut -d" " -f1-3 /proc/loadavg)"
  # the bar's query against an independent computation (Python's json module, not opscope)
  python3 - "$work/v3.json" "$work/v3.db" <<'PY'
import json, sqlite3, sys
with open(sys.argv[1]) as f:
    recs = json.load(f)["records"]
want = {}
for r in recs:
    k = (r.get("name", "unknown"), "COPY" if r.get("type", 0) == 1 else "OP", r.get("backend_id", 0))
    e = want.setdefault(k, [0, 0])
    e[0] += r.get("duration_ns", 0)
    e[1] += 1
got = {(n, t, b): [s, c] for n, t, b, s, c in sqlite3.connect(sys.argv[2]).execute(
    "SELECT name, type, backend_id, sum(duration_ns), count(*) FROM records GROUP BY name, type, backend_id")}
same = got == want
print("sum(duration_ns), count(*) by (name, type, backend_id): %s the JSON's (%d groups, %d records)"
      % ("equal to" if same else "DIFFERENT from", len(want), len(recs)))
sys.exit(0 if same else 1)
PY
fi

if [ "${V3:-1}" != 0 ] && [ "${SQLITE_ONLY:-0}" != 1 ]; then
  prof3=$work/profile-v3.json
  "$GEN" --size "$SIZE" --version 3 -o "$prof3"
  cat > "$work/peak.json" <<'PEAK'
{"format": "opscope-peak", "version": 1, "cpu": "bench", "host": "bench", "threads": 2,
 "memory": {"all_gbps": 20, "one_gbps": 15}, "cache": {"all_gbps": 100, "one_gbps": 60},
 "flops": {"all_gflops": 100, "one_gflops": 50}}
PEAK
  prof=$prof3
  bytes=$(stat -c %s "$prof")
  cat "$prof" > /dev/null
  echo "input: $prof, $bytes bytes ($(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1e6}') MB), version 3 (typed: traffic on)"
  run_case "report (summary), v3 traffic" "$OPSCOPE" report "$prof"
  run_case "report --peak, v3"           "$OPSCOPE" report "$prof" --peak "$work/peak.json"
  run_case "report --json, v3"           "$OPSCOPE" report "$prof" -q --json "$work/out.json"
fi
