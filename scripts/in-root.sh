#!/usr/bin/env bash
# Runs a command inside the forky root (scripts/forky-root.sh) with this source tree available
# and opscope built there.
#
#   scripts/in-root.sh [--no-build] [--scratch] 'shell command'   (one argument: bash -c)
#   scripts/in-root.sh [--no-build] [--scratch] PROGRAM ARGS...   (several: exec'd as given)
#
# --scratch: the root is a throwaway copy (an overlay on a tmpfs): the command may install
# packages or write anywhere in it, and every change vanishes when it ends; /build and /models
# are the real ones (builds persist). The package test installs opscope's .deb that way.
#
# Inside the root:
#   /opscope    this repository, bind-mounted READ-ONLY (the build never writes into the tree)
#   /host-cwd   the caller's working directory, read-write; the command starts there
#   /models     the tiny models (scripts/make-models.py), cached in the root
#   /build/KEY  opscope's build for this checkout (KEY: hash of the checkout's path), built with
#               cmake unless --no-build; serialised by a lock, so concurrent calls are safe
#   /proc, /dev, /sys  mounted for the programs
# Every mount is made in a private mount namespace (unshare -m): the host never sees them and
# they vanish when the command ends, whatever way it ends.
#
# Environment given to the command (env -i otherwise, plus GGML_*, LLAMA_*, OPSCOPE_TEST_*, TERM):
#   OPSCOPE_SRC=/opscope  OPSCOPE_BUILD=/build/KEY  OPSCOPE_MODELS=/models
#   OPSCOPE_BIN      the opscope CLI built in the root
#   OPSCOPE_PRELOAD  libopscope-ggml.so built in the root (empty until it exists)
#   PATH             also has llama.cpp's test programs and $OPSCOPE_BUILD's binaries
set -euo pipefail

BUILD_IT=1
SCRATCH=0
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) BUILD_IT=0; shift ;;
        --scratch) SCRATCH=1; shift ;;
        *) break ;;
    esac
done
[ $# -ge 1 ] || { echo "usage: scripts/in-root.sh [--no-build] [--scratch] 'command' | PROGRAM ARGS..." >&2; exit 1; }

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd -P)
ROOT=$(bash "$HERE/forky-root.sh")
KEY=$(printf '%s' "$REPO" | sha256sum | cut -c1-12)
CWD=$(pwd -P)

PASS=()
while IFS='=' read -r name _; do
    case "$name" in GGML_*|LLAMA_*|OPSCOPE_TEST_*|TERM) PASS+=("$name=${!name}") ;; esac
done < <(env)

# The part that runs inside the namespace: mounts, then chroot into the in-root driver below.
NS=$(cat <<'NS'
set -euo pipefail
R=$1 REPO=$2 CWD=$3 KEY=$4 BUILD_IT=$5 SCRATCH=$6 NPASS=$7
shift 7
PASS=("${@:1:$NPASS}")
shift "$NPASS"
if [ "$SCRATCH" = 1 ]; then
    # each namespace mounts its own tmpfs on the shared, empty mount point
    S=$R.scratch
    mount -t tmpfs -o size=4g,mode=0755 tmpfs "$S"
    mkdir "$S/upper" "$S/work" "$S/root"
    mount -t overlay overlay -o "lowerdir=$R,upperdir=$S/upper,workdir=$S/work" "$S/root"
    mount --bind "$R/build" "$S/root/build"
    mount --bind "$R/models" "$S/root/models"
    R=$S/root
fi
mount -t proc proc "$R/proc"
mount --rbind /dev "$R/dev"
mount --rbind /sys "$R/sys"
mount --bind "$REPO" "$R/opscope"
mount -o remount,bind,ro "$R/opscope"
mount --bind "$CWD" "$R/host-cwd"
exec chroot "$R" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
    PATH=/build/$KEY/bin:/usr/libexec/x86_64-linux-gnu/llama.cpp-tests:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
    OPSCOPE_SRC=/opscope OPSCOPE_BUILD=/build/$KEY OPSCOPE_MODELS=/models OPSCOPE_BUILD_IT=$BUILD_IT \
    "${PASS[@]}" /bin/bash /opscope/scripts/root-run.sh "$@"
NS
)
[ "$SCRATCH" = 0 ] || mkdir -p "$ROOT.scratch"
exec unshare -m --propagation private -- bash -c "$NS" _ "$ROOT" "$REPO" "$CWD" "$KEY" "$BUILD_IT" "$SCRATCH" \
    "${#PASS[@]}" "${PASS[@]}" "$@"
