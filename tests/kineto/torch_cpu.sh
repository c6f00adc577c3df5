#!/usr/bin/env bash
# Real PyTorch CPU traces for the CPU-op checks, in the test's working directory:
#   torch_cpu.sh --setup           makes torch/ with Debian's python3-torch in the forky root
#                                  (tests/kineto/torch_traces.py: traces + torch's key_averages)
#   torch_cpu.sh --check OPSCOPE   compares opscope's CPU ops with them (check_cpu_ops.py)
# Exit 77 (skipped) where the root cannot be made (not root, no unshare/chroot), or when the
# set-up left no traces.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
case "${1:-}" in
--setup)
    if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null || ! command -v chroot >/dev/null; then
        echo "SKIP: the torch traces need the forky root (root, unshare and chroot)"; exit 77
    fi
    rm -rf torch
    # the older torch's traces kept in the repository get torch's own key_averages too
    "$REPO/scripts/in-root.sh" --no-build python3 /opscope/tests/kineto/torch_traces.py /host-cwd/torch \
        /opscope/tests/kineto/traces/inference_rank1_oldformat.json.gz \
        /opscope/tests/kineto/traces/cpu_only_rank34.json.gz 2>&1 | grep -v '^USDT:' || true
    [ -f torch/legacy.ka.json ] && [ -f torch/cpu_only_rank34.ka.json ] || { echo "set-up failed"; exit 1; }
    ;;
--check)
    [ -f torch/b8.ka.json ] || { echo "SKIP: no torch traces (kineto.torch_setup skipped)"; exit 77; }
    exec python3 "$REPO/tests/kineto/check_cpu_ops.py" "$2" torch
    ;;
*) echo "usage: torch_cpu.sh --setup | --check OPSCOPE" >&2; exit 1 ;;
esac
