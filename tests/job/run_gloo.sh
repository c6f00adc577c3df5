#!/usr/bin/env bash
# Fixture of the gloo job tests: two real 4-rank torch.distributed (gloo, CPU) jobs made in the
# forky root (python3-torch), into OUTDIR/gloo_input (rank 2 slower loading its input) and
# OUTDIR/gloo_compute (rank 1 slower in its forward pass). Exit 77 (skipped) where the root
# cannot be made (not root, no unshare/chroot).
set -euo pipefail
OUT=$1
REPO=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null || ! command -v chroot >/dev/null; then
    echo "SKIP: the gloo jobs need the forky root (root, unshare and chroot)"; exit 77
fi
cd "$OUT"
rm -rf gloo_input gloo_compute
"$REPO/scripts/in-root.sh" --no-build \
    'python3 /opscope/tests/job/make_gloo_job.py /host-cwd/gloo_input --slow-rank 2 --slow-phase input &&
     python3 /opscope/tests/job/make_gloo_job.py /host-cwd/gloo_compute --slow-rank 1 --slow-phase compute' \
    2>&1 | grep -v "^USDT\|UserWarning\|_warn_once" || true
ls gloo_input/rank-3.json gloo_compute/rank-3.json
