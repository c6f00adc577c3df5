#!/usr/bin/env bash
# CTest entry of the capture end-to-end tests: runs tests/capture_e2e/SCRIPT ARGS... inside the
# forky root (scripts/in-root.sh), in the test's working directory. Exit 77 (skipped) where the
# root cannot be made: not root, or no unshare/chroot.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null || ! command -v chroot >/dev/null; then
    echo "SKIP: the capture e2e tests need root, unshare and chroot"; exit 77
fi
if [ "$1" = "--setup" ]; then
    # Fixture: make the root (cached), build opscope in it, make and verify the models (llama
    # and whisper).
    # Two tries, each with its output shown: the set-up is idempotent, and a transient failure
    # (mirror, a loaded machine) must not turn the whole suite red.
    for try in 1 2; do
        if OPSCOPE_TEST_STRICT_BUILD=1 "$REPO/scripts/in-root.sh" python3 /opscope/scripts/make-models.py --verify &&
           "$REPO/scripts/in-root.sh" --no-build python3 /opscope/scripts/make-whisper-model.py --verify; then
            exit 0
        fi
        echo "capture_e2e setup: try $try failed" >&2
        sleep 5
    done
    exit 1
fi
if [ "$1" = "--tpool-setup" ]; then
    # Fixture: ggml built without OpenMP, once (cached in the root; a few minutes the first time).
    for try in 1 2; do
        "$REPO/scripts/threadpool-ggml.sh" && exit 0
        echo "capture_e2e tpool setup: try $try failed" >&2
        sleep 5
    done
    exit 1
fi
script=$1; shift
exec "$REPO/scripts/in-root.sh" --no-build python3 "/opscope/tests/capture_e2e/$script" "$@"
