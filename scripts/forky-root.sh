#!/usr/bin/env bash
# Creates, once, the Debian forky root in which opscope's capture is built and tested:
# Debian's ggml (CPU, BLAS, Vulkan, RPC backends), llama.cpp tools/examples/tests, whisper.cpp
# tools, mesa's lavapipe, python3-gguf and a C toolchain. Forky's binaries need a newer glibc
# than the host has, hence a separate root rather than host packages.
#
#   scripts/forky-root.sh          create the root if needed, print its path
#   OPSCOPE_ROOT=DIR               where (default /var/cache/opscope/forky-root, outside the tree)
#   OPSCOPE_MIRROR=URL             package mirror (default: the host's own apt configuration)
#
# Idempotent and safe to run concurrently (flock on ROOT.lock). A stamp file marks a finished
# root; a half-made one (interrupted run) is removed and made again. Every mount this script
# needs (proc, /dev for debootstrap and apt) lives in a private mount namespace (unshare -m),
# so nothing stays mounted on the host even if the script is killed.
set -euo pipefail

ROOT=${OPSCOPE_ROOT:-/var/cache/opscope/forky-root}
STAMP="$ROOT/.opscope-root-ready"
HERE=$(cd "$(dirname "$0")" && pwd)

# Packages: ggml + llama.cpp (with ggml-rpc-server, in tools-extra) + whisper.cpp from Debian, lavapipe, gguf writer,
# python3-torch (real torch.profiler / Kineto traces, CPU-only, for the trace tests), python3-distributed
# (Dask: the job tests map opscope over the ranks on its workers), and what building
# opscope and running its tests inside the root needs. libopenblas0-pthread: OpenBLAS beside netlib's
# reference BLAS; the root's libblas.so.3 alternative stays the reference one (Debian's default
# without OpenBLAS: what the BLAS tests expect), a test selects OpenBLAS with LD_LIBRARY_PATH.
# Changing this list re-runs apt only.
PKGS=(libggml0 libggml-dev libggml0-backend-blas libggml0-backend-vulkan libggml0-backend-rpc
      libllama0 libllama-dev llama.cpp-tools llama.cpp-tools-extra llama.cpp-examples llama.cpp-tests
      whisper.cpp-tools
      python3-gguf python3-numpy mesa-vulkan-drivers
      libvulkan-dev vulkan-tools
      gcc libc6-dev make cmake zlib1g-dev pkgconf python3 procps time
      libsqlite3-dev help2man dpkg-dev file
      python3-torch python3-distributed
      libblas3 libopenblas0-pthread)
WANT=$(printf '%s\n' "${PKGS[@]}" | sha256sum | cut -c1-16)

log() { [ -t 2 ] && echo "forky-root: $*" >&2 || true; }
die() { echo "forky-root: $*" >&2; exit 1; }

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ]; then
    echo "$ROOT"; exit 0
fi

[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot)"
for tool in debootstrap unshare chroot flock; do
    command -v "$tool" >/dev/null 2>&1 || {
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap util-linux >/dev/null
        break
    }
done

. "$(dirname "$0")/apt-mirror.sh"

# Runs "$@" in a private mount namespace with proc and /dev mounted in the root; the mounts vanish
# with the namespace.
in_ns() {
    unshare -m --propagation private -- bash -c '
        set -e; R=$1; shift
        mount -t proc proc "$R/proc"
        mount --rbind /dev "$R/dev"
        exec "$@"' _ "$ROOT" "$@"
}

mkdir -p "$(dirname "$ROOT")"
exec 9>"$ROOT.lock"
flock 9
# Someone else may have finished while we waited.
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ]; then
    echo "$ROOT"; exit 0
fi

if [ ! -f "$STAMP" ]; then
    # A root without stamp is half-made: start again. Refuse if anything is mounted below it.
    if grep -q " $ROOT/" /proc/self/mounts; then die "$ROOT has mounts below it; unmount them first"; fi
    rm -rf "$ROOT"
    M=$(opscope_apt_mirror forky-root)
    log "debootstrap forky into $ROOT (about a minute)"
    # debootstrap mounts proc/sys itself; the namespace keeps those mounts off the host.
    for try in 1 2 3; do
        if unshare -m --propagation private -- \
            debootstrap --variant=minbase forky "$ROOT" "$M" /usr/share/debootstrap/scripts/sid \
            > "$ROOT.debootstrap.log" 2>&1; then
            break
        fi
        [ "$try" -lt 3 ] || { tail -20 "$ROOT.debootstrap.log" >&2; die "debootstrap failed (log: $ROOT.debootstrap.log)"; }
        log "debootstrap failed (try $try), retrying"
        rm -rf "$ROOT"
        sleep 5
    done
fi

cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
log "installing ${#PKGS[@]} packages"
# forky's Release file in the mirror may be past its Valid-Until date.
# Three tries: a mirror hiccup must not fail a CI run.
for try in 1 2 3; do
    if in_ns chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
        bash -c 'pin_blas() {
                     # the reference BLAS, set by hand: OpenBLAS installed later does not take over
                     local a=libblas.so.3-x86_64-linux-gnu r=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3
                     [ ! -e "$r" ] || update-alternatives --set "$a" "$r" >/dev/null
                 }
                 pin_blas &&
                 apt-get -qq -o Acquire::Check-Valid-Until=false -o Acquire::Retries=3 update &&
                 apt-get install -y -qq -o Acquire::Retries=3 --no-install-recommends "$@" && apt-get clean &&
                 pin_blas' \
        _ "${PKGS[@]}" > "$ROOT.apt.log" 2>&1; then
        break
    fi
    [ "$try" -lt 3 ] || { tail -20 "$ROOT.apt.log" >&2; die "package install failed (log: $ROOT.apt.log)"; }
    log "apt failed (try $try), retrying"
    sleep 5
done
mkdir -p "$ROOT/opscope" "$ROOT/host-cwd" "$ROOT/models" "$ROOT/build"
echo "$WANT" > "$STAMP"
log "ready"
echo "$ROOT"
