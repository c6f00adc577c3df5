#!/usr/bin/env bash
# The static-ggml capture: builds libopscope-ggml-static.a in the root's build, links
# static_check.c with its --wrap flags against Debian's SHARED ggml and without
# libopscope-ggml.so (so ggml's internal calls are as invisible as in a static ggml), runs it
# on the CPU backend and on BLAS + CPU, and checks the exported JSON; then the program's own
# backend computes without a scheduler, recorded with GGML_PROFILE.
set -euo pipefail
B=${OPSCOPE_BUILD:-}
[ -n "$B" ] && [ -f "$B/CMakeCache.txt" ] || { echo "SKIP: opscope not configured in the root"; exit 77; }
# the root's build makes only the CLI and the shared library: build the archive, under the
# lock that serialises builds of this directory
exec 8>"$B.lock"
flock 8
cmake --build "$B" -j 2 --target opscope-ggml-static > "$B.static.log" 2>&1 ||
    { tail -20 "$B.static.log"; echo "FAIL: building libopscope-ggml-static.a"; exit 1; }
exec 8>&-
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
read -r FLAGS < "$B/lib/opscope-ggml-static.ldflags"
# shellcheck disable=SC2086 # FLAGS is a list of link flags
gcc -std=c11 -O1 -Wall -Wextra -Werror -I"${OPSCOPE_SRC:-/opscope}/include" \
    "${OPSCOPE_SRC:-/opscope}/tests/capture_api/static_check.c" -o "$OUT/static_check" $FLAGS -lggml -lggml-base
fail=0
check() { if [ "$2" != "$3" ]; then echo "FAIL $1: expected $2, got $3"; fail=1; else echo "ok   $1"; fi; }
# the premise: nothing interposes ggml; the program neither loads the preload library nor
# defines (let alone exports) any ggml function but the profiler API
check "no libopscope-ggml.so" 0 "$(ldd "$OUT/static_check" | grep -c opscope || true)"
check "no ggml function defined" "" "$(nm --defined-only "$OUT/static_check" | awk '$3 ~ /^ggml_/ && $3 !~ /_profiling/ {print $3}')"
check "nothing exported to ggml" "" "$(nm -D --defined-only "$OUT/static_check" | awk '$3 ~ /ggml|cblas|GOMP/ {print $3}')"
# cpu, blas: as above; +eval: the program also has its own eval callback, which is chained
for run in cpu blas cpu+eval blas+eval; do
    mode=${run%+eval}
    extra=""
    [ "$run" != "$mode" ] && extra=eval
    set +e
    env -u GGML_PROFILE -u LD_PRELOAD "$OUT/static_check" "$OUT/$run.json" $mode $extra > "$OUT/$run.out" 2>&1
    rc=$?
    set -e
    sed "s/^/  [$run] /" "$OUT/$run.out" | grep -v load_backend
    if [ $rc = 77 ]; then echo "skip $run"; continue; fi
    check "static_check $run" 0 $rc
    n_op=$(sed -n 's/^op records: //p' "$OUT/$run.out")
    python3 - "$OUT/$run.json" "$n_op" "$mode" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
ops = [r for r in d["records"] if r.get("type", 0) == 0]
assert str(len(ops)) == sys.argv[2], f"JSON has {len(ops)} OP records, the API gave {sys.argv[2]}"
if sys.argv[3] == "cpu":  # 20 computes x 4 layers
    mm = [r for r in ops if r["name"] == "MUL_MAT"]
    assert len(mm) == 80, f"{len(mm)} MUL_MAT records in the JSON"
    assert all(r["ne"][:2] == [256, 64] for r in mm), "MUL_MAT output shape in the JSON"
    # FLOPs are derived from the shapes by the summary, never written as if the capture gave them
    assert all("flops" not in r for r in ops), "a record carries flops the input never gave"
    g = [x for x in d["summary"]["ops"] if x["name"] == "MUL_MAT"]
    assert len(g) == 1 and g[0]["flops"] == 80 * 2 * 256 * 256 * 64, "MUL_MAT flops in the summary"
else:  # each MUL_MAT is a BLAS split of its own: one record without per-op timing
    mm = [r for r in ops if r["name"] == "GRAPH_SPLIT"]
    assert len(mm) == 80, f"{len(mm)} BLAS split records in the JSON"
    assert all(r["tensor_name"].startswith("mm") for r in mm), "BLAS split records name their MUL_MAT"
print(f"ok   {sys.argv[3]} JSON: {len(ops)} OP records, {len(mm)} MUL_MAT")
PY
done
# the OpenMP variant of the flags links (its barrier wrapper pulled in by -u, the original from
# libgomp) and runs; Debian's ggml-cpu is a module whose barriers it cannot reach, so this only
# guards the flags and the archive member
read -r OMPFLAGS < "$B/lib/opscope-ggml-static-openmp.ldflags"
# shellcheck disable=SC2086 # a list of link flags
gcc -std=c11 -O1 -Wall -Wextra -Werror -I"${OPSCOPE_SRC:-/opscope}/include" \
    "${OPSCOPE_SRC:-/opscope}/tests/capture_api/static_check.c" -o "$OUT/static_check_omp" $OMPFLAGS -lggml -lggml-base -lgomp
check "OpenMP flags: barrier wrapper linked" 1 "$(nm "$OUT/static_check_omp" | grep -c ' __wrap_GOMP_barrier$' || true)"
set +e
env -u GGML_PROFILE -u LD_PRELOAD "$OUT/static_check_omp" "$OUT/omp.json" cpu > "$OUT/omp.out" 2>&1
rc=$?
set -e
check "static_check with the OpenMP flags" 0 $rc

# direct backend computes (no scheduler), recorded with GGML_PROFILE: the JSON written at exit
set +e
env -u LD_PRELOAD GGML_PROFILE="$OUT/direct.json" "$OUT/static_check" - direct > "$OUT/direct.out" 2>&1
rc=$?
set -e
sed "s/^/  [direct] /" "$OUT/direct.out" | grep -v load_backend
check "static_check direct" 0 $rc
expect=$(sed -n 's/^direct computes: \([0-9]*\), records expected per compute: \([0-9]*\)$/\1 \2/p' "$OUT/direct.out")
python3 - "$OUT/direct.json" $expect <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
n_comp, per = int(sys.argv[2]), int(sys.argv[3])
ops = [r for r in d["records"] if r.get("type", 0) == 0]
by = {}
for r in ops:
    by.setdefault(r["graph_id"], []).append(r)
assert len(by) == n_comp, f"{len(by)} computes in the JSON, expected {n_comp}"
for gid, rs in by.items():
    assert len(rs) == per, f"graph {gid}: {len(rs)} records, expected {per}"
    assert all(r["split_id"] == -1 for r in rs), "a direct compute is no scheduler split"
    rs.sort(key=lambda r: r["start_ns"])
    for a, b in zip(rs, rs[1:]):  # one backend compute: the steps tile it
        assert a["start_ns"] + a["duration_ns"] == b["start_ns"], f"graph {gid}: gap or overlap"
mm = [r for r in ops if r["name"] == "MUL_MAT"]
assert len(mm) == 4 * n_comp and all(r["ne"][:2] == [256, 64] for r in mm), "MUL_MAT records"
print(f"ok   direct JSON: {n_comp} computes x {per} OP records, steps tile each compute")
PY
exit $fail
