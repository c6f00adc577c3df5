#!/usr/bin/env bash
# By hand (not a ctest test: needs a whisper.cpp source tree and a C++ compiler): a real
# program on a static ggml. Builds whisper.cpp (which builds its own ggml as static libraries)
# with whisper-cli linked against libopscope-ggml-static.a and its --wrap flags, then runs
# whisper-cli on MODEL/WAV without and with GGML_PROFILE and checks: same stdout, a profile
# with records, every CPU graph's callbacks matching the walk (inexact_graphs=0), and the op
# sum at most the graph time and within 10% of it in OPSCOPE_STATS (equal while the last CPU
# step runs to the compute's return).
#
#   tests/capture_api/static-whisper.sh WHISPER_SRC MODEL WAV [WORKDIR]
# (MODEL/WAV: e.g. scripts/make-whisper-model.py's tiny-whisper.bin and tiny-whisper-2s.wav)
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 WHISPER_SRC MODEL WAV [WORKDIR]" >&2; exit 1; }
SRC=$(cd "$1" && pwd)
MODEL=$2 WAV=$3
HERE=$(cd "$(dirname "$0")/../.." && pwd)
W=${4:-$(mktemp -d)}
mkdir -p "$W"
cmake -S "$HERE" -B "$W/opscope" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPSCOPE_GGML_INCLUDE_DIR="$SRC/ggml/include" \
      > "$W/opscope.log" 2>&1
cmake --build "$W/opscope" -j 2 --target opscope-ggml-static >> "$W/opscope.log" 2>&1
read -r WRAP LIBS < "$W/opscope/lib/opscope-ggml-static-openmp.ldflags" # ggml-cpu with OpenMP
G=$W/whisper/ggml/src
# the wrap flags anywhere on the link line; our archive after whisper's objects and libraries,
# and ggml's archives once more after it (ours calls ggml)
cmake -S "$SRC" -B "$W/whisper" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF \
      -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_OPENMP=ON -DWHISPER_BUILD_TESTS=OFF \
      -DWHISPER_SDL2=OFF -DWHISPER_CURL=OFF -DWHISPER_FFMPEG=OFF "-DCMAKE_EXE_LINKER_FLAGS=$WRAP" \
      "-DCMAKE_CXX_STANDARD_LIBRARIES=$LIBS $G/libggml.a $G/libggml-cpu.a $G/libggml-base.a -lgomp" \
      > "$W/whisper.log" 2>&1
cmake --build "$W/whisper" -j 2 --target whisper-cli >> "$W/whisper.log" 2>&1
CLI=$W/whisper/bin/whisper-cli
RUN=("$CLI" -m "$MODEL" -f "$WAV" -t 2 -nf)
env -u GGML_PROFILE "${RUN[@]}" > "$W/plain.txt" 2> "$W/plain.err"
GGML_PROFILE="$W/profile.json" OPSCOPE_STATS=1 "${RUN[@]}" > "$W/prof.txt" 2> "$W/prof.err"
fail=0
cmp -s "$W/plain.txt" "$W/prof.txt" || { echo "FAIL: stdout differs with profiling"; fail=1; }
stats=$(grep '^opscope: stats:' "$W/prof.err" || true)
echo "$stats"
ratio=$(sed -n 's/.* op\/graph=\([0-9.]*\) .*/\1/p' <<< "$stats")
case "$stats" in *" inexact_graphs=0 "*) ;; *) echo "FAIL: graphs whose callbacks did not match the walk"; fail=1 ;; esac
python3 -c "import sys; r = float(sys.argv[1]); sys.exit(0 if 0.9 <= r <= 1.0001 else 1)" "${ratio:-0}" ||
    { echo "FAIL: op sum / graph time $ratio"; fail=1; }
python3 - "$W/profile.json" <<'PY' || fail=1
import collections, json, sys
d = json.load(open(sys.argv[1]))
ops = [r for r in d["records"] if r.get("type", 0) == 0]
copies = [r for r in d["records"] if r.get("type", 0) == 1]
graphs = collections.Counter(r["graph_id"] for r in ops)
assert ops and graphs, "no OP records"
assert any(r["name"] == "MUL_MAT" for r in ops), "no MUL_MAT"
print(f"ok   {len(ops)} OP records in {len(graphs)} graphs, {len(copies)} copies (the program's own calls)")
PY
[ $fail = 0 ] && echo "ok: whisper-cli on a static ggml ($W)"
exit $fail
