#!/usr/bin/env bash
# The declared CUPTI ABI checked against NVIDIA's real headers (tests/cupti_abi/abi_check.c),
# once per header set this machine can have:
#   - every CUDA toolkit under /usr/local/cuda* (cupti.h in include/, extras/CUPTI/include or
#     targets/x86_64-linux/include, with the toolkit's own libcupti)
#   - Debian trixie's libcupti-dev 12.4 with nvidia-cuda-dev's headers, fetched once with apt's
#     verification by scripts/cupti-headers.sh (OPSCOPE_CUPTI_FETCH=0: only if already cached)
# For each: the check must pass with at least 150 checks and 0 mismatches, and a build that
# injects one wrong offset (-DOPSCOPE_ABI_INJECT) must fail with exactly that one mismatch.
# No header set at all: says so loudly and exits 77 (CTest: skipped), never a silent pass.
#
#   tests/cupti_abi/run.sh WORKDIR
# OPSCOPE_CUPTI_ROOTS: toolkit folders instead of /usr/local/cuda* (a glob or a list)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
WORK=${1:?usage: run.sh WORKDIR}
CC=${CC:-cc}
mkdir -p "$WORK"
sets=()   # "NAME|INCLUDE_DIRS|LIBDIR"

for root in ${OPSCOPE_CUPTI_ROOTS:-/usr/local/cuda*}; do
    [ -d "$root" ] && [ ! -L "$root" ] || continue
    inc=$(for d in "$root/include" "$root/extras/CUPTI/include" "$root/targets/x86_64-linux/include"; do
              [ -f "$d/cupti.h" ] && { echo "$d"; break; }; done)
    cuda=$(for d in "$root/include" "$root/targets/x86_64-linux/include"; do
              [ -f "$d/cuda.h" ] && { echo "$d"; break; }; done)
    lib=$(for d in "$root/extras/CUPTI/lib64" "$root/lib64" "$root/lib" "$root/targets/x86_64-linux/lib"; do
              ls "$d"/libcupti.so > /dev/null 2>&1 && { echo "$d"; break; }; done)
    if [ -n "$inc" ] && [ -n "$cuda" ] && [ -n "$lib" ]; then
        sets+=("toolkit $root|$inc $cuda|$lib")
    else
        echo "NOTE: $root lacks cupti.h, cuda.h or libcupti.so: not checked"
    fi
done
deb=
if [ "${OPSCOPE_CUPTI_FETCH:-1}" = 0 ]; then
    cache=${OPSCOPE_CUPTI_DEB:-/var/cache/opscope/cupti-trixie}
    [ -f "$cache/.ready" ] && deb=$cache
    echo "fetch off (OPSCOPE_CUPTI_FETCH=0)" > "$WORK/cupti-headers.log"
else
    deb=$("$REPO/scripts/cupti-headers.sh" 2> "$WORK/cupti-headers.log")
fi
if [ -n "$deb" ] && [ -f "$deb/usr/include/cupti.h" ]; then
    sets+=("Debian $(sed -n 2p "$deb/SOURCE" | cut -d' ' -f1-2)|$deb/usr/include|$deb/usr/lib/x86_64-linux-gnu")
else
    echo "NOTE: Debian's libcupti-dev could not be had (see $WORK/cupti-headers.log):"
    sed 's/^/    /' "$WORK/cupti-headers.log" 2> /dev/null | tail -5
fi
if [ ${#sets[@]} -eq 0 ]; then
    echo "################################################################################"
    echo "SKIPPED: no CUPTI headers on this machine (no /usr/local/cuda*, Debian's libcupti-dev"
    echo "not fetchable): the declared CUPTI ABI is NOT checked"
    echo "################################################################################"
    exit 77
fi

fail=0
n=0
for s in "${sets[@]}"; do
    name=${s%%|*} rest=${s#*|}
    incs=${rest%%|*} lib=${rest#*|}
    n=$((n + 1))
    flags=(-std=c11 -O1 -Wall -Wextra -Werror -D_GNU_SOURCE)
    for i in $incs; do flags+=(-I"$i"); done
    flags+=(-I"$REPO/src" -I"$REPO/tests/capture_cupti")
    srcs=("$HERE/abi_check.c" "$REPO/src/capture/gpu/cupti_rec.c" "$REPO/src/capture/gpu/cupti_names.c")
    link=(-L"$lib" -lcupti -Wl,-rpath,"$lib")
    echo "== $name: $incs, $lib"
    if ! "$CC" "${flags[@]}" "${srcs[@]}" "${link[@]}" -o "$WORK/abi_check_$n" > "$WORK/build_$n.log" 2>&1; then
        cat "$WORK/build_$n.log"; echo "FAIL: $name: abi_check.c does not build"; fail=1; continue
    fi
    "$WORK/abi_check_$n" > "$WORK/abi_$n.txt" 2>&1
    rc=$?
    cat "$WORK/abi_$n.txt"
    sum=$(grep '^abi_check: ' "$WORK/abi_$n.txt" | tail -1)
    checks=$(echo "$sum" | sed -n 's/^abi_check: \([0-9]*\) checks, \([0-9]*\) mismatches.*/\1/p')
    bad=$(echo "$sum" | sed -n 's/^abi_check: \([0-9]*\) checks, \([0-9]*\) mismatches.*/\2/p')
    if [ "$rc" != 0 ] || [ "${bad:-x}" != 0 ] || [ "${checks:-0}" -lt 150 ]; then
        echo "FAIL: $name: exit $rc, ${checks:-?} checks, ${bad:-?} mismatches (want >= 150 checks, 0 mismatches)"
        fail=1; continue
    fi
    # the check must catch a wrong offset: one injected, exactly that one reported
    "$CC" "${flags[@]}" -DOPSCOPE_ABI_INJECT "${srcs[@]}" "${link[@]}" -o "$WORK/abi_inject_$n" > "$WORK/build_inject_$n.log" 2>&1 ||
        { cat "$WORK/build_inject_$n.log"; echo "FAIL: $name: the injected build fails to build"; fail=1; continue; }
    "$WORK/abi_inject_$n" > "$WORK/inject_$n.txt" 2>&1
    irc=$?
    mism=$(grep -c '^MISMATCH' "$WORK/inject_$n.txt")
    if [ "$irc" = 1 ] && [ "$mism" = 1 ] && grep -q '^MISMATCH kernel_rec.correlationId offset' "$WORK/inject_$n.txt"; then
        echo "ok       $name: the injected wrong offset is caught: $(grep '^MISMATCH' "$WORK/inject_$n.txt" | tr -s ' ')"
    else
        echo "FAIL: $name: with a wrong kernel correlationId offset: exit $irc, $mism mismatches"
        grep '^MISMATCH' "$WORK/inject_$n.txt"
        fail=1
    fi
    echo "ok       $name: $checks checks, 0 mismatches"
done
[ $fail = 0 ] && echo "cupti abi: ${#sets[@]} header set(s) checked" || echo "cupti abi: FAIL"
exit $fail
