#!/usr/bin/env bash
# Builds the libFuzzer targets (cmake --preset fuzz: clang, ASan+UBSan) and runs each one for
# FUZZ_SECONDS (default 300) in one process (one worker), from seed corpora made of the JSONTestSuite cases,
# the reader test inputs (a record log among them), the job seeds (tests/job/data) and the first kilobytes of the Kineto test traces. Crashes land in build-fuzz/crashes/.
#   FUZZ_SECONDS=600 FUZZ_TARGETS="fuzz_json" scripts/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${FUZZ_SECONDS:-300}
BUILD=${FUZZ_BUILD:-build-fuzz}
command -v clang >/dev/null || { echo "fuzz.sh: clang is needed (apt-get install clang)" >&2; exit 1; }

cmake --preset fuzz -B "$BUILD" >/dev/null
TARGETS=${FUZZ_TARGETS:-$(cd fuzz && ls fuzz_*.c | sed 's/\.c$//')}
cmake --build "$BUILD" -j 2 --target $TARGETS

# seed corpora (regenerated each run; libFuzzer adds what it finds to the same folders)
for t in $TARGETS; do
  corpus="$BUILD/corpus/$t"
  mkdir -p "$corpus" "$BUILD/crashes/$t"
  cp -n tests/read/jsontestsuite/test_parsing/*.json "$corpus/" 2>/dev/null || true
  for f in tests/read/data/*.json tests/read/data/*.oplog tests/job/data/*.json; do [ -f "$f" ] && cp -n "$f" "$corpus/"; done
  for f in tests/kineto/traces/*.json.gz; do
    { gzip -dc "$f" || true; } | head -c 4096 > "$corpus/kineto_$(basename "$f" .gz)"
  done
done

status=0
for t in $TARGETS; do
  echo "== $t: ${SECS}s" >&2
  log="$BUILD/$t.log"
  if ! "$BUILD/fuzz/$t" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
       -max_len=65536 -print_final_stats=1 -artifact_prefix="$BUILD/crashes/$t/" \
       "$BUILD/corpus/$t" >"$log" 2>&1; then
    echo "fuzz.sh: $t found a problem; see $log and $BUILD/crashes/$t/" >&2
    status=1
  fi
  grep -hE "stat::number_of_executed_units|Done [0-9]+ runs" "$log" | tail -2 >&2 || true
done
exit $status
