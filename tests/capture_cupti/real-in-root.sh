#!/usr/bin/env bash
# Inside the forky root (scripts/in-root.sh, from tests/capture_cupti/real.sh): the CUPTI
# source with NVIDIA's real libcupti and no GPU (no CUDA driver in the root). For each library
# in ./libs (the toolkit's, Debian's): cuda_program (a ggml program with a fake CUDA backend,
# its launches through fake_cupti.c) under the capture with OPSCOPE_CUPTI=1 and
# OPSCOPE_CUPTI_LIB=that library. Checked: stdout and exit status as without the capture;
# exactly one CUPTI line on stderr, naming the error cuptiSubscribe returned and CUPTI's own
# string for it (both asked of the library directly by cupti_probe.c) and the cause (no CUDA
# driver in the process, or another subscriber for 39); the CUDA computes are still recorded
# (host-timed splits).
set -uo pipefail
LIB=${OPSCOPE_PRELOAD:-}
[ -n "$LIB" ] || { echo "SKIP: libopscope-ggml.so not built in the root"; exit 77; }
HERE=/opscope/tests/capture_cupti
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
gcc -std=c11 -O1 -Wall -Wextra -Werror -shared -fPIC "$HERE/fake_cupti.c" -o "$OUT/fake.so" || exit 1
gcc -std=c11 -O1 -Wall -Wextra -Werror "$HERE/cuda_program.c" -o "$OUT/cuda_program" -lggml -lggml-base -ldl || exit 1
gcc -std=c11 -O1 -Wall -Wextra -Werror "$HERE/cupti_probe.c" -o "$OUT/probe" -ldl || exit 1
"$OUT/cuda_program" "$OUT/fake.so" eager 3 > "$OUT/plain.txt" || { echo "FAIL: the program fails alone"; exit 1; }
fail=0
n=0
for cupti in "$PWD"/libs/*; do
    n=$((n + 1))
    name=$(basename "$cupti")
    "$OUT/probe" "$cupti" > "$OUT/probe.txt" || { echo "FAIL: $name: the probe failed"; fail=1; continue; }
    sed "s/^/  $name: probe: /" "$OUT/probe.txt"
    rc=$(sed -n 's/^subscribe //p' "$OUT/probe.txt")
    str=$(sed -n 's/^string //p' "$OUT/probe.txt")
    if [ "$rc" = 0 ]; then
        echo "FAIL: $name: the real libcupti accepted a subscription without a driver: this test's premise is gone"
        fail=1; continue
    fi
    cause="no CUDA driver in this process"
    [ "$rc" = 39 ] && cause="another subscriber holds CUPTI"
    env OPSCOPE_CUPTI=1 OPSCOPE_GPU_TIMING=all OPSCOPE_CUPTI_LIB="$cupti" GGML_PROFILE="$OUT/p.json" LD_PRELOAD="$LIB" \
        "$OUT/cuda_program" "$OUT/fake.so" eager 3 > "$OUT/out.txt" 2> "$OUT/err.txt"
    st=$?
    cat "$OUT/err.txt" | sed "s/^/  $name: stderr: /"
    [ $st = 0 ] && echo "ok    $name: exit status 0 under the capture" || { echo "FAIL: $name: exit status $st"; fail=1; }
    cmp -s "$OUT/plain.txt" "$OUT/out.txt" && echo "ok    $name: stdout unchanged" || { echo "FAIL: $name: stdout differs"; fail=1; }
    lines=$(grep -ci cupti "$OUT/err.txt")
    line=$(grep -i cupti "$OUT/err.txt")
    want="CUPTI refused the subscription (error $rc, \"$str\": $cause"
    if [ "$lines" = 1 ] && [[ "$line" == *"$want"* ]] && [[ "$line" == *"timed on the host"* ]]; then
        echo "ok    $name: one warning: $want"
    else
        echo "FAIL: $name: want one CUPTI line with: $want"; fail=1
    fi
    python3 - "$OUT/p.json" <<'PY' || fail=1
import json, sys
p = json.load(open(sys.argv[1]))
ids = {b["id"] for b in p["backends"] if b["name"].startswith("CUDA")}
recs = [r for r in p["records"] if r["backend_id"] in ids and r["type"] == 0]
ok = len(recs) == 3 and all(r["name"] == "GRAPH_SPLIT" and "time_source" not in r for r in recs)
print(("ok    " if ok else "FAIL: ") + f"the 3 CUDA computes recorded as host-timed splits ({len(recs)})")
sys.exit(0 if ok else 1)
PY
done
[ $n -gt 0 ] || { echo "SKIP: no real libcupti given"; exit 77; }
[ $fail = 0 ] && echo "real libcupti without a GPU: ok ($n libraries)" || echo "real libcupti without a GPU: FAIL"
exit $fail
