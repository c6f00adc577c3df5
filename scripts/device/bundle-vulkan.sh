#!/usr/bin/env bash
# On the build machine, as root: packs what scripts/device/gpu-timing.sh needs on the GPU
# machine into .dev/ (git-ignored; name it in the device call's carry, 64 MiB at most):
#   .dev/root.tar.xz  Debian forky's llama.cpp programs (llama-bench, llama-completion,
#                     llama-quantize), ggml and its backends, opscope installed from this
#                     checkout's build in the forky root (scripts/in-root.sh), every library
#                     they load (ldd) with forky's own ld.so and glibc, and the libraries
#                     NVIDIA's Vulkan driver links (X11 client, glvnd): about 18 MB
#   .dev/gguf/        forky's python3-gguf (the model generator imports it)
# usage: scripts/device/bundle-vulkan.sh
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "bundle-vulkan: needs root (the forky root)" >&2; exit 1; }
ROOT=$(bash "$REPO/scripts/forky-root.sh")
KEY=$(printf '%s' "$(cd "$REPO" && pwd -P)" | sha256sum | cut -c1-12)
OUT=$REPO/.dev
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
grep -qx '/.dev/' "$REPO/.git/info/exclude" 2>/dev/null || echo '/.dev/' >> "$(git -C "$REPO" rev-parse --git-common-dir)/info/exclude"
# build and install opscope inside the root (the build the tests use). in-root.sh builds only the
# CLI and the capture libraries; the install also copies what `all` makes (the static archive,
# the man pages), so those targets are built first, where this build has them.
"$REPO/scripts/in-root.sh" 'set -e; help=$(cmake --build "$OPSCOPE_BUILD" --target help)
for t in opscope-ggml-static opscope-man; do
    case "$help" in *" $t"*) cmake --build "$OPSCOPE_BUILD" -j 2 --target "$t" > /dev/null ;; esac
done
rm -rf /opt/opscope && cmake --install "$OPSCOPE_BUILD" --prefix /opt/opscope > /dev/null'
[ -x "$ROOT/opt/opscope/bin/opscope" ] || { echo "bundle-vulkan: opscope did not install in the root" >&2; exit 1; }
L=/usr/lib/x86_64-linux-gnu
WANT="/usr/bin/llama-bench /usr/bin/llama-completion /usr/bin/llama-quantize /opt/opscope/bin/opscope
 /opt/opscope/lib/libopscope-ggml.so /opt/opscope/lib/libopscope-vklayer.so $L/llama/*.so $L/ggml/backends0/*.so
 $L/libX11.so.6 $L/libXext.so.6 $L/libdl.so.2 $L/libpthread.so.0 $L/librt.so.1 $L/libGLdispatch.so.0 $L/libGLX.so.0
 $L/libEGL.so.1 $L/libGL.so.1 $L/libXrandr.so.2 $L/libXrender.so.1 $L/libXi.so.6 $L/libXfixes.so.3"
FILES=$(chroot "$ROOT" bash -c "for f in $(echo $WANT); do [ -e \$f ] || continue; echo \$f; ldd \$f 2>/dev/null | awk '/=>/{print \$3} /ld-linux/{print \$1}'; done" | sort -u)
for f in $FILES $L/ld-linux-x86-64.so.2; do
    mkdir -p "$STAGE$(dirname "$f")"
    cp -L "$ROOT$f" "$STAGE$f"
done
# the layer's manifest (installed) and the loader's own paths
cp -r "$ROOT/opt/opscope/share" "$STAGE/opt/opscope/" 2>/dev/null || true
cp "$ROOT"/opt/opscope/lib/*.json "$STAGE/opt/opscope/lib/" 2>/dev/null || true
mkdir -p "$STAGE/lib64" "$STAGE/tmp"
ln -sfn ../usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$STAGE/lib64/ld-linux-x86-64.so.2"
rm -rf "$OUT"
mkdir -p "$OUT"
tar -C "$STAGE" -cf - . | xz -T2 -6 > "$OUT/root.tar.xz"
cp -r "$ROOT/usr/lib/python3/dist-packages/gguf" "$OUT/gguf"
du -sh "$OUT"/*
