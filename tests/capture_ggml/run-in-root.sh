#!/usr/bin/env bash
# Inside the forky root (scripts/in-root.sh): builds and runs the capture's ggml-side tests.
#   test_cap_record, test_cap_cpu    how records are written from real ggml graphs
#   test_cap_devices_race            the backend table's publication under ThreadSanitizer
#   copy2d.c                         ggml's strided copies, each one COPY record
#   fallback.c                       cblas_sgemm / GOMP_barrier interposers always run the real one
#   backend_free.c                   freed backends: the lookup by address, one device query each
#   ../capture_unit/cycles.py        no circle among the capture's files (includes, nm of objects)
#   ../core/layers.py                the declared layering, capture's rooms by nm of their objects
set -euo pipefail
B=$OPSCOPE_BUILD
LIB=${OPSCOPE_PRELOAD:-}
[ -n "$LIB" ] || { echo "SKIP: libopscope-ggml.so not built in the root"; exit 77; }
HERE=/opscope/tests/capture_ggml
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
fail=0

# The unit tests are targets of the root's build (tests/capture_ggml/CMakeLists.txt); the lock
# is the one scripts/root-run.sh builds under.
exec 8>"$B.lock"
flock 8
cmake --build "$B" -j 2 --target test_cap_record test_cap_cpu test_cap_devices_race opscope-ggml-static \
    > "$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; echo "FAIL: building the capture ggml tests"; exit 1; }
exec 8>&-
for t in test_cap_record test_cap_cpu; do
    exe=$(find "$B/tests" -name "$t" -type f -perm -u+x | head -1)
    env -u GGML_PROFILE "$exe" || { echo "FAIL: $t"; fail=1; }
done
exe=$(find "$B/tests" -name test_cap_devices_race -type f -perm -u+x | head -1)
TSAN_OPTIONS="halt_on_error=1 exitcode=66" env -u GGML_PROFILE "$exe" ||
    { echo "FAIL: test_cap_devices_race (66: ThreadSanitizer reported a race)"; fail=1; }

# Strided copies: one record per call, its bytes, the data unchanged.
gcc -std=c11 -O1 -Wall -Wextra -Werror "$HERE/copy2d.c" -o "$OUT/copy2d" -lggml -lggml-base
"$OUT/copy2d" > "$OUT/plain.txt" || { echo "FAIL: copy2d without the capture"; fail=1; }
GGML_PROFILE="$OUT/copy2d.json" LD_PRELOAD="$LIB" "$OUT/copy2d" > "$OUT/profiled.txt" ||
    { echo "FAIL: copy2d under the capture"; fail=1; }
cmp -s "$OUT/plain.txt" "$OUT/profiled.txt" || { echo "FAIL: copy2d output differs under the capture"; fail=1; }
python3 - "$OUT/copy2d.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
got = [(r["extra"], r["bytes"], r["tensor_name"]) for r in d["records"] if r["type"] == 1]
# copy2d.c: a 16 x 8 f32 tensor; the 2d calls move 4 floats of each of its 8 rows.
want = [("tensor_set", 512, "rows2d"), ("tensor_set_2d", 128, "rows2d"), ("tensor_get_2d", 128, "rows2d"),
        ("tensor_set_2d_async", 128, "rows2d"), ("tensor_get_2d_async", 128, "rows2d"),
        ("tensor_get", 512, "rows2d")]
if got != want:
    print("FAIL: copy2d COPY records", got, "!=", want)
    sys.exit(1)
print("ok: copy2d:", len(got), "COPY records, one per call")
PY

# Fallbacks: the real cblas_sgemm (the root's libblas.so.3) and GOMP_barrier (a stand-in
# libgomp.so.1 found through LD_LIBRARY_PATH) run although neither was loaded at the call.
mkdir -p "$OUT/gomp"
gcc -std=c11 -O1 -shared -fPIC -Wl,-soname,libgomp.so.1 "$HERE/fake_gomp.c" -o "$OUT/gomp/libgomp.so.1"
gcc -std=c11 -O1 -Wall -Wextra -Werror "$HERE/fallback.c" -o "$OUT/fallback" -ldl
LD_LIBRARY_PATH="$OUT/gomp" LD_PRELOAD="$LIB" GGML_PROFILE="$OUT/fallback.json" "$OUT/fallback" ||
    { echo "FAIL: fallback"; fail=1; }

# Backends freed and made again: every compute recorded, and the capture asks ggml for a
# backend's device once per backend (it sees the frees), not once per compute: the count
# through count_device.so is the same for 5 and for 50 computes a round.
gcc -std=c11 -O1 -Wall -Wextra -Werror "$HERE/backend_free.c" -o "$OUT/backend_free" -lggml -lggml-base
gcc -std=c11 -O1 -Wall -Wextra -Werror -shared -fPIC "$HERE/count_device.c" -o "$OUT/count_device.so" -ldl
for n in 5 50; do
    COUNT_DEVICE_OUT="$OUT/devices.$n" GGML_PROFILE="$OUT/free.$n.json" LD_PRELOAD="$LIB:$OUT/count_device.so" \
        "$OUT/backend_free" "$n" > "$OUT/free.$n.txt" 2>/dev/null ||
        { cat "$OUT/free.$n.txt"; echo "FAIL: backend_free $n under the capture"; fail=1; }
done
python3 - "$OUT" <<'PY' || fail=1
import json, sys
out = sys.argv[1]
ok = True
calls = {}
for n in (5, 50):
    d = json.load(open("%s/free.%d.json" % (out, n)))
    adds = [r for r in d["records"] if r["type"] == 0 and r["name"] == "ADD"]
    if len(adds) != 3 * n:
        print("FAIL: backend_free %d: %d ADD records, want %d" % (n, len(adds), 3 * n)); ok = False
    calls[n] = int(open("%s/devices.%d" % (out, n)).read())
if calls[5] != calls[50] or calls[5] == 0:
    print("FAIL: ggml_backend_get_device calls: %d for 5 computes a round, %d for 50" % (calls[5], calls[50])); ok = False
if ok:
    print("ok: backend_free: every compute recorded; %d device queries for 15 and for 150 computes" % calls[5])
sys.exit(0 if ok else 1)
PY

# No circle among the capture's files, from the includes and from nm of both libraries' objects.
python3 /opscope/tests/capture_unit/cycles.py /opscope/src/capture "$B" || { echo "FAIL: cycles"; fail=1; }
# The layering with both libraries' objects: capture's rooms by their symbols too.
python3 /opscope/tests/core/layers.py /opscope/src "$B" || { echo "FAIL: layers"; fail=1; }

[ $fail = 0 ] && echo "capture ggml tests: ok"
exit $fail
