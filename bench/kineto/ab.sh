#!/usr/bin/env bash
# A/B of two opscope builds on a Kineto bench trace (issues 30 and 31's speed bars: report and
# diff against the build before the CPU-op records and the critical path):
#   - CPU time (user + sys) of `report -q T` and `diff T T`, A and B alternated RUNS times; the
#     median of each and the median of the per-pair ratios A/B (pairs keep the ratio meaningful
#     when the machine's speed drifts), and the median peak RSS (/usr/bin/time -v);
#   - with valgrind installed, the instructions of `report -q` on a smaller cut (callgrind:
#     the same count under any load).
# usage: bench/kineto/ab.sh A_OPSCOPE B_OPSCOPE   env: SIZE_MB (200), SMALL_MB (20; 0: no
#        callgrind), RUNS (7), CASES ("report diff"), TMPDIR
set -euo pipefail
cd "$(dirname "$0")/../.."
A=$1 B=$2
SIZE_MB=${SIZE_MB:-200} SMALL_MB=${SMALL_MB:-20} RUNS=${RUNS:-7} CASES=${CASES:-report diff}
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/opscope-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 bench/kineto/make_big.py tests/kineto/traces "$work/big.json" "$SIZE_MB" >&2
cat "$work/big.json" > /dev/null # the page cache: the figure is the program's, not the disk's

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# one run: "cpu_seconds peak_kb"
one() {
  /usr/bin/time -v "$@" > /dev/null 2> "$work/time" || { tail -5 "$work/time" >&2; return 1; }
  awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} /Maximum resident/ {m=$2}
              END {printf "%.3f %d\n", u+s, m}' "$work/time"
}
for c in $CASES; do
  args=(report -q "$work/big.json"); [ "$c" = diff ] && args=(diff "$work/big.json" "$work/big.json")
  : > "$work/a" ; : > "$work/b" ; : > "$work/r"
  for _ in $(seq "$RUNS"); do
    ra=$(one "$A" "${args[@]}"); rb=$(one "$B" "${args[@]}")
    echo "$ra" >> "$work/a"; echo "$rb" >> "$work/b"
    echo "$ra $rb" | awk '{printf "%.4f\n", $1/$3}' >> "$work/r"
  done
  printf '%-7s %5d MB  CPU s median A %.3f  B %.3f  paired A/B %.3f  peak RSS A %.1f MB  B %.1f MB  (%d pairs)\n' \
    "$c" "$SIZE_MB" "$(cut -d' ' -f1 "$work/a" | median)" "$(cut -d' ' -f1 "$work/b" | median)" \
    "$(median < "$work/r")" "$(cut -d' ' -f2 "$work/a" | median | awk '{print $1/1024}')" \
    "$(cut -d' ' -f2 "$work/b" | median | awk '{print $1/1024}')" "$RUNS"
done
if [ "$SMALL_MB" != 0 ] && command -v valgrind > /dev/null; then
  python3 bench/kineto/make_big.py tests/kineto/traces "$work/small.json" "$SMALL_MB" >&2
  for side in A B; do
    bin=$A; [ $side = B ] && bin=$B
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$bin" report -q "$work/small.json" \
      > /dev/null 2> "$work/cg.err"
    printf 'report  %5d MB  instructions %s %s\n' "$SMALL_MB" "$side" \
      "$(awk '/Collected :/ {print $NF}' "$work/cg.err")"
  done
fi
