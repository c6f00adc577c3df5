#!/usr/bin/env bash
# The in-root half of scripts/in-root.sh (runs inside the forky root, never on the host):
# builds opscope into $OPSCOPE_BUILD, exports OPSCOPE_BIN / OPSCOPE_PRELOAD, runs the command.
set -euo pipefail
B=$OPSCOPE_BUILD
if [ "${OPSCOPE_BUILD_IT:-1}" = 1 ]; then
    mkdir -p "$B"
    exec 8>"$B.lock"
    flock 8
    # Warnings are errors on the host build; forky's newer gcc must not turn a new warning into a
    # broken test root, so -Werror stays off here.
    if [ ! -f "$B/CMakeCache.txt" ]; then
        cmake -S /opscope -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPSCOPE_WERROR=OFF \
              -DOPSCOPE_IN_ROOT=ON > "$B.log" 2>&1 ||
            { cat "$B.log" >&2; echo "in-root: cmake configure failed" >&2; exit 1; }
    else
        # configure again first: a target added since the last build must be in the list below
        cmake "$B" > "$B.log" 2>&1 ||
            { cat "$B.log" >&2; echo "in-root: cmake configure failed" >&2; exit 1; }
    fi
    # Only what runs in the root: the CLI and the capture library (when its target exists).
    targets=${OPSCOPE_TEST_TARGETS:-}
    if [ -z "$targets" ]; then
        targets=opscope
        help=$(cmake --build "$B" --target help 2>/dev/null || true)
        case "$help" in *" opscope-ggml"*) targets="opscope-ggml $targets" ;; esac
        case "$help" in *" opscope-vklayer"*) targets="opscope-vklayer $targets" ;; esac
    fi
    # Each target on its own: a broken CLI must not hide the capture library, and the other way
    # round; whatever is missing afterwards shows up as an empty OPSCOPE_BIN / OPSCOPE_PRELOAD.
    failed=
    for t in $targets; do
        cmake --build "$B" -j 2 --target "$t" > "$B.$t.log" 2>&1 ||
            { tail -20 "$B.$t.log" >&2; echo "in-root: building $t failed (log: $B.$t.log in the root)" >&2
              failed="$failed $t"; }
    done
    exec 8>&-
    # The test fixture sets OPSCOPE_TEST_STRICT_BUILD=1: a target that does not build must fail
    # the suite, not leave the tests to run an older library or skip.
    if [ -n "$failed" ] && [ "${OPSCOPE_TEST_STRICT_BUILD:-0}" = 1 ]; then
        echo "in-root: build failed:$failed" >&2
        exit 1
    fi
fi
mkdir -p "$B/bin"
OPSCOPE_BIN=$(find "$B" -maxdepth 3 -type f -name opscope -perm -u+x 2>/dev/null | head -1)
OPSCOPE_PRELOAD=$(find "$B" -maxdepth 4 -name 'libopscope-ggml.so' 2>/dev/null | head -1)
export OPSCOPE_BIN OPSCOPE_PRELOAD
[ -n "$OPSCOPE_BIN" ] && ln -sf "$OPSCOPE_BIN" "$B/bin/opscope"
cd /host-cwd
if [ $# -eq 1 ]; then exec bash -c "$1"; else exec "$@"; fi
