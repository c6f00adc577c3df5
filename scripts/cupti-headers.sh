#!/usr/bin/env bash
# Fetches, once, Debian trixie's CUPTI 12.4 headers and library (non-free: libcupti-dev,
# libcupti12) with the CUDA headers they include (cuda.h and the runtime's, from
# nvidia-cuda-dev), for tests/cupti_abi (the declared CUPTI ABI checked against real headers)
# and tests/cupti_real (the real libcupti without a GPU). Prints the cache directory:
#   DIR/usr/include                     cupti*.h, cuda.h, cuda_runtime_api.h, crt/...
#   DIR/usr/lib/x86_64-linux-gnu        libcupti.so.12
#   DIR/SOURCE                          packages, versions and SHA256 as apt verified them
#
#   scripts/cupti-headers.sh             fetch if needed, print DIR
#   scripts/cupti-headers.sh --help
#   OPSCOPE_CUPTI_DEB=DIR                where (default /var/cache/opscope/cupti-trixie)
#   OPSCOPE_MIRROR=URL                   package mirror (default: the host's apt configuration)
#
# apt verifies the packages: a private sources list (signed-by the Debian archive keyring),
# `apt-get update` checks the Release signature, `apt-get download` each .deb's SHA256 against
# the signed index. nvidia-cuda-dev is a 0.9 GB download of which only the top-level headers
# are kept (a few MB); the .debs are deleted after extraction. Exit status 1 (and nothing
# printed on stdout) when the packages cannot be had. Safe to run concurrently (flock).
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
    sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
DIR=${OPSCOPE_CUPTI_DEB:-/var/cache/opscope/cupti-trixie}
SUITE=trixie
PKGS=(libcupti-dev libcupti12 nvidia-cuda-dev)
STAMP=$DIR/.ready
log() { [ -t 2 ] && echo "cupti-headers: $*" >&2 || true; }
die() { echo "cupti-headers: $*" >&2; exit 1; }

[ -f "$STAMP" ] && { echo "$DIR"; exit 0; }

. "$(dirname "$0")/apt-mirror.sh"

command -v apt-get > /dev/null && command -v dpkg-deb > /dev/null || die "needs apt-get and dpkg-deb (Debian)"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$KEYRING" ] || die "no $KEYRING (apt-get install debian-archive-keyring)"
mkdir -p "$(dirname "$DIR")"
exec 9> "$DIR.lock"
flock 9
[ -f "$STAMP" ] && { echo "$DIR"; exit 0; }

WORK=$(mktemp -d "$DIR.work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/state/lists/partial" "$WORK/cache/archives/partial" "$WORK/deb" "$WORK/root"
M=$(opscope_apt_mirror cupti-headers)
echo "deb [signed-by=$KEYRING] $M $SUITE main contrib non-free" > "$WORK/sources.list"
APT=(-o Dir::Etc::SourceList="$WORK/sources.list" -o Dir::Etc::SourceParts=/nonexistent
     -o Dir::Etc::Preferences=/nonexistent -o Dir::Etc::PreferencesParts=/nonexistent
     -o Dir::State="$WORK/state" -o Dir::Cache="$WORK/cache" -o APT::Architecture=amd64
     -o APT::Architectures::=amd64 -o Acquire::Languages=none -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
log "apt-get update ($SUITE main contrib non-free)"
# apt-get update exits 0 on some fetch failures: any W:/E: line is a failure here
apt-get "${APT[@]}" update > "$WORK/update.log" 2>&1 || { cat "$WORK/update.log" >&2; die "apt-get update failed"; }
if grep -qE '^(W|E|Err):' "$WORK/update.log"; then cat "$WORK/update.log" >&2; die "apt-get update reported errors"; fi
log "apt-get download ${PKGS[*]} (about 0.95 GB)"
(cd "$WORK/deb" && apt-get "${APT[@]}" download "${PKGS[@]}" > "$WORK/download.log" 2>&1) ||
    { cat "$WORK/download.log" >&2; die "apt-get download failed"; }
{
    echo "Debian $SUITE (contrib non-free), fetched $(date -u +%FT%TZ) with apt's verification"
    for f in "$WORK"/deb/*.deb; do
        echo "$(dpkg-deb -f "$f" Package) $(dpkg-deb -f "$f" Version) sha256 $(sha256sum "$f" | cut -c1-64)"
    done
} > "$WORK/root/SOURCE"
for f in "$WORK"/deb/libcupti*.deb; do
    dpkg-deb -x "$f" "$WORK/root"
done
# nvidia-cuda-dev: only the top-level headers and crt/ (cuda.h, cuda_runtime_api.h, driver_types.h...)
dpkg-deb --fsys-tarfile "$WORK"/deb/nvidia-cuda-dev_*.deb |
    tar -x -C "$WORK/root" --wildcards --no-wildcards-match-slash './usr/include/*.h' './usr/include/crt/*'
# the shared libcupti only: no static archives, no profiler-host libraries (95 MB of 110)
rm -rf "$WORK/root/usr/share/doc" "$WORK"/deb "$WORK"/root/usr/lib/x86_64-linux-gnu/*.a \
    "$WORK"/root/usr/lib/x86_64-linux-gnu/lib{nvperf,checkpoint,pcsampling}*
[ -f "$WORK/root/usr/include/cupti.h" ] && [ -f "$WORK/root/usr/include/cuda.h" ] ||
    die "the packages lack cupti.h or cuda.h"
rm -rf "$DIR"
mv "$WORK/root" "$DIR"
date -u +%FT%TZ > "$STAMP"
log "$DIR: $(du -sh "$DIR" | cut -f1)"
echo "$DIR"
