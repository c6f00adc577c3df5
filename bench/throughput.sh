# bench/throughput.sh - what the throughput benchmarks of opscope's commands share (sourced by
# bench/report/run.sh and bench/diff/run.sh, not run alone): the binaries, a scratch folder
# removed at exit, the median and one measured case.
#
# The caller sets BUILD, TMP and RUNS, then calls bench_setup NAME; run_case reads the
# input size from `bytes`.

# Checks that BUILD has opscope and gen_profile and that /usr/bin/time is there; sets OPSCOPE,
# GEN and work (a folder "NAME.XXXXXX" in TMP, removed when the script exits).
bench_setup() {
  OPSCOPE=$BUILD/src/opscope
  GEN=$BUILD/bench/report/gen_profile
  for b in "$OPSCOPE" "$GEN"; do
    [ -x "$b" ] || { echo "missing $b: build first (cmake --build $BUILD)" >&2; exit 1; }
  done
  [ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
  work=$(mktemp -d "$TMP/$1.XXXXXX")
  trap 'rm -rf "$work"' EXIT
}

median() { sort -g | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# run_case LABEL COMMAND...: RUNS runs of COMMAND under /usr/bin/time -v (stdout dropped; an
# exit status other than 0 and OK_STATUS stops the script), then one line: the median MB/s of
# `bytes` by wall clock and by CPU time (user + sys: what a busy machine hides), their
# seconds, the median peak RSS and every run's wall time. LABEL_WIDTH pads the label (32).
run_case() {
  local label=$1; shift
  local secs=() cpus=() rss=()
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -v -o "$work/time.txt" "$@" > /dev/null || [ $? -eq "${OK_STATUS:-0}" ]
    local s c m
    s=$(awk -F': ' '/Elapsed \(wall clock\)/{n=split($2,p,":"); t=0; for(i=1;i<=n;i++) t=t*60+p[i]; print t}' "$work/time.txt")
    c=$(awk -F': ' '/User time|System time/{t+=$2} END{print t}' "$work/time.txt")
    m=$(awk -F': ' '/Maximum resident set size/{print $2}' "$work/time.txt")
    secs+=("$s"); cpus+=("$c"); rss+=("$m")
    rm -f "$work"/out.*
  done
  local ms mc mr
  ms=$(printf '%s\n' "${secs[@]}" | median)
  mc=$(printf '%s\n' "${cpus[@]}" | median)
  mr=$(printf '%s\n' "${rss[@]}" | median)
  awk -v l="$label" -v w="${LABEL_WIDTH:-32}" -v b="$bytes" -v s="$ms" -v c="$mc" -v r="$mr" \
    -v all="$(printf '%s ' "${secs[@]}")" \
    'BEGIN{printf "%-" w "s %7.1f MB/s wall %6.2f s | %7.1f MB/s cpu %6.2f s | peak RSS %6.1f MB | runs %ss\n", l, b/1e6/s, s, b/1e6/c, c, r/1024, all}'
}
