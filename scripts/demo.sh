#!/usr/bin/env bash
# `make demo`: profiles llama-completion on a tiny random model with opscope's capture library,
# prints the summary and writes profile.json and trace.json (Chrome trace) in the current
# directory. On a fresh machine it first makes what it needs (about 2 minutes, once): the Debian
# forky root with Debian's ggml and llama.cpp (scripts/forky-root.sh), opscope built inside it and
# the tiny models (scripts/make-models.py). Needs root (debootstrap, chroot).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
[ "$(id -u)" -eq 0 ] || { echo "demo: needs root (it makes a Debian forky root with debootstrap)" >&2; exit 1; }
# The host build (report, view, diff) without its hundreds of progress lines: a log instead.
mkdir -p "$BUILD"
LOG="$BUILD/demo-build.log"
echo "demo: building opscope (log: $LOG)" >&2
{ [ -f "$BUILD/CMakeCache.txt" ] || cmake -S "$REPO" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo; } > "$LOG" 2>&1 &&
    cmake --build "$BUILD" -j "$(nproc 2>/dev/null || echo 2)" >> "$LOG" 2>&1 ||
    { tail -30 "$LOG" >&2; echo "demo: the build failed (the whole log: $LOG)" >&2; exit 1; }
echo "demo: making the Debian forky root with ggml and llama.cpp, opscope built in it, tiny models (minutes, once)" >&2
"$REPO/scripts/in-root.sh" '
set -euo pipefail
python3 /opscope/scripts/make-models.py > /dev/null
if [ -z "$OPSCOPE_PRELOAD" ] || [ -z "$OPSCOPE_BIN" ]; then
    echo "demo: the capture library or the opscope CLI did not build in the root (see the messages above)" >&2
    exit 1
fi
echo "demo: opscope record -o profile.json -- llama-completion -m tiny-dense-f32.gguf -n 32 -t 2" >&2
"$OPSCOPE_BIN" record -o profile.json -- llama-completion -m /models/tiny-dense-f32.gguf \
    -p "Once upon a time" -n 32 -t 2 --temp 0 --seed 1 --ignore-eos -no-cnv --no-warmup \
    > /tmp/demo-llama.out 2> /tmp/demo-llama.err ||
    { tail -5 /tmp/demo-llama.err >&2; echo "demo: llama-completion failed" >&2; exit 1; }
status=0
"$OPSCOPE_BIN" report profile.json --top-ops 15 --chrome-trace trace.json || status=$?
if [ "$status" -ne 0 ]; then
    echo "demo: profile.json was written, but opscope report failed (exit $status), so no summary or trace.json" >&2
    exit "$status"
fi
echo "demo: wrote profile.json and trace.json (open it in chrome://tracing or ui.perfetto.dev)" >&2
'
OPS="$BUILD/src/opscope"
cat >&2 <<EOF

next:
  $OPS view profile.json -o profile.html                 # the timeline, in a browser
  $OPS report profile.json --text report.txt             # the full text report
  $OPS report profile.json --batch 1                     # token generation alone
  # your own model (this folder is /host-cwd inside the root, where opscope record works):
  scripts/in-root.sh 'opscope record -o /host-cwd/mine.json -- llama-completion -m /host-cwd/MODEL.gguf -p Hello -n 64'
  $OPS diff profile.json mine.json                       # two runs, op by op
EOF
