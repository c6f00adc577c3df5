#!/usr/bin/env bash
# job.dask_summaries: the gloo job's ranks (fixture job.gloo_setup) summarised by the worker
# processes of a Dask LocalCluster in the forky root (python3-distributed, scripts/forky-root.sh),
# then `opscope report summaries/` == `opscope report traces/` (tests/job/dask_job.py). The host's
# opscope runs in the root (it needs only libc, libm, zlib and SQLite, all there). Exit 77
# (skipped) where the root cannot be made.
set -euo pipefail
OPSCOPE=$1
OUT=$2
REPO=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null || ! command -v chroot >/dev/null; then
    echo "SKIP: the Dask demonstration needs the forky root (root, unshare and chroot)"; exit 77
fi
D="$OUT/dask"
rm -rf "$D"
mkdir -p "$D/traces"
cp "$OUT"/gloo_compute/rank-*.json "$D/traces/"
cp "$OPSCOPE" "$D/opscope"
cd "$D"
"$REPO/scripts/in-root.sh" --no-build \
    'python3 /opscope/tests/job/dask_job.py /host-cwd/opscope /host-cwd/traces /host-cwd/summaries --workers 4'
