#!/usr/bin/env bash
# The CUPTI source with NVIDIA's real libcupti and no GPU: gathers the libraries this machine
# can have (every CUDA toolkit's under /usr/local/cuda*; Debian trixie's libcupti12 through
# scripts/cupti-headers.sh, fetched once and cached, OPSCOPE_CUPTI_FETCH=0: only if cached)
# into WORKDIR/libs and runs tests/capture_cupti/real-in-root.sh in the forky root there.
# No library at all: says so and exits 77 (skipped).
#
#   tests/capture_cupti/real.sh WORKDIR
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
WORK=${1:?usage: real.sh WORKDIR}
rm -rf "$WORK/libs" && mkdir -p "$WORK/libs"
for root in ${OPSCOPE_CUPTI_ROOTS:-/usr/local/cuda*}; do
    [ -d "$root" ] && [ ! -L "$root" ] || continue
    for d in "$root/extras/CUPTI/lib64" "$root/lib64" "$root/lib" "$root/targets/x86_64-linux/lib"; do
        so=$(readlink -f "$d/libcupti.so" 2> /dev/null) && [ -f "$so" ] &&
            { cp "$so" "$WORK/libs/$(basename "$root")-$(basename "$so")"; break; }
    done
done
deb=
if [ "${OPSCOPE_CUPTI_FETCH:-1}" = 0 ]; then
    cache=${OPSCOPE_CUPTI_DEB:-/var/cache/opscope/cupti-trixie}
    [ -f "$cache/.ready" ] && deb=$cache
else
    deb=$("$REPO/scripts/cupti-headers.sh" 2> "$WORK/cupti-headers.log") || echo "NOTE: Debian's libcupti12 not had: $(tail -1 "$WORK/cupti-headers.log")"
fi
so=$(readlink -f "$deb/usr/lib/x86_64-linux-gnu/libcupti.so.12" 2> /dev/null) && [ -n "$deb" ] && [ -f "$so" ] &&
    cp "$so" "$WORK/libs/debian-$(basename "$so")"
if [ -z "$(ls "$WORK/libs")" ]; then
    echo "SKIPPED: no real libcupti on this machine (no /usr/local/cuda*, Debian's not fetchable)"
    exit 77
fi
ls -l "$WORK/libs"
cd "$WORK" && exec "$REPO/scripts/in-root.sh" --no-build bash /opscope/tests/capture_cupti/real-in-root.sh
