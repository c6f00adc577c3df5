#!/usr/bin/env bash
# Inside the forky root (scripts/in-root.sh): builds and runs the Vulkan layer's recording test
# (test_vkl_record.c: the layer over a fake driver), as built and under ASan/UBSan.
set -euo pipefail
B=$OPSCOPE_BUILD
[ -f "$B/lib/libopscope-vklayer.so" ] || { echo "SKIP: the Vulkan layer is not built in the root"; exit 77; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# the lock is the one scripts/root-run.sh builds under
exec 8>"$B.lock"
flock 8
cmake --build "$B" -j 2 --target test_vkl_record test_vkl_record_asan > "$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; echo "FAIL: building test_vkl_record"; exit 1; }
exec 8>&-
for t in test_vkl_record test_vkl_record_asan; do
    exe=$(find "$B/tests" -name "$t" -type f -perm -u+x | head -1)
    [ -n "$exe" ] || { echo "FAIL: $t not built"; exit 1; }
    echo "== $t"
    "$exe"
done
