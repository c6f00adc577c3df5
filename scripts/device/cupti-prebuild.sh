#!/usr/bin/env bash
# Builds HERE what the CUPTI device check would otherwise build on the GPU machine (called by
# scripts/device/cupti-prepare.sh --build): llama.cpp from DEST/llama-src.tar.xz with ggml-cuda
# for sm_90 (flags as cupti-check.sh's on-device build: flash attention off unless
# CUPTI_CHECK_FA=1; GGML_NATIVE off, the device's CPU is not this one), libopscope-ggml.so
# against that ggml, and tests/capture_e2e/nodecount.so. Packs DEST/prebuilt.tar.xz:
#   bin/       llama-bench, llama-completion, llama-quantize and their shared libraries
#   opscope/   libopscope-ggml.so, nodecount.so
#   BUILD      toolkit, flags, commit, seconds per stage (cupti-check.sh shows it)
# The build tree stays in /var/cache/opscope/cupti-build-ON (-OFF for CPU-only; outside the
# checkout, never carried; OPSCOPE_CUPTI_BUILD sets the prefix): a later run, from any checkout
# on this machine, resumes it where it stopped (one run at a time: flock); opscope's build in
# it is one per checkout (opscope-KEY, KEY a hash of the checkout's path).
#
#   scripts/device/cupti-prebuild.sh DEST
# Knobs: CUDA_HOME (default: the newest /usr/local/cuda-*), JOBS (2), CUPTI_CHECK_FA (OFF),
# CUPTI_PREPARE_CUDA=OFF (CPU-only: checks this script and the packaging faster; the
# tarball says so and cupti-check.sh does not use it; 35 min here at load 10-14), NICE (0; 19 starved at load 11 here).
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
set -euo pipefail
DEST=${1:?usage: cupti-prebuild.sh DEST}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${OPSCOPE_CUPTI_BUILD:-/var/cache/opscope/cupti-build}-${CUPTI_PREPARE_CUDA:-ON}
JOBS=${JOBS:-2}
CUDA=${CUPTI_PREPARE_CUDA:-ON}
FA=${CUPTI_CHECK_FA:-OFF}
N=(nice -n "${NICE:-0}")
log() { echo "cupti-prebuild: $*" >&2; }
T0=$(date +%s)
stage() { echo "$1 $(($(date +%s) - T0)) s" >> "$BUILD_DIR/stages"; }

if [ "$CUDA" = ON ]; then
    CUDA_HOME=${CUDA_HOME:-$(ls -d /usr/local/cuda-* 2> /dev/null | sort -V | tail -1)}
    [ -x "$CUDA_HOME/bin/nvcc" ] || { log "no nvcc (set CUDA_HOME to a CUDA toolkit)"; exit 1; }
    export PATH=$CUDA_HOME/bin:$PATH
    TOOLKIT=$("$CUDA_HOME/bin/nvcc" --version | tail -1)
else
    TOOLKIT="none (CUPTI_PREPARE_CUDA=OFF: CPU-only, not for the device)"
fi
mkdir -p "$BUILD_DIR"
exec 9> "$BUILD_DIR.lock"
flock 9
: > "$BUILD_DIR/stages"
src=$BUILD_DIR/llama
if [ ! -f "$src/.from" ] || ! cmp -s "$src/.from" "$DEST/SOURCE"; then
    rm -rf "$src" && mkdir -p "$src"
    tar -xJf "$DEST/llama-src.tar.xz" -C "$src" --strip-components=1
    cp "$DEST/SOURCE" "$src/.from"
fi
stage unpack
flags=(-DCMAKE_BUILD_TYPE=Release -DGGML_CUDA="$CUDA" -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF
       -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF
       -DLLAMA_BUILD_HTML=OFF -DBUILD_SHARED_LIBS=ON -DCMAKE_BUILD_RPATH_USE_ORIGIN=ON)
if [ "$CUDA" = ON ]; then
    # no driver here: the programs link against CUDA's stub libcuda.so, as libcuda.so.1, for
    # the link only (-rpath-link: nothing of it is recorded; the device's driver is loaded there)
    stubs=$(ls -d "$CUDA_HOME"/lib64/stubs "$CUDA_HOME"/targets/x86_64-linux/lib/stubs 2> /dev/null | head -1)
    mkdir -p "$BUILD_DIR/stub" && ln -sfn "$stubs/libcuda.so" "$BUILD_DIR/stub/libcuda.so.1"
    flags+=(-DCMAKE_CUDA_ARCHITECTURES=90-real -DGGML_CUDA_FA="$FA" -DCMAKE_CUDA_COMPILER="$CUDA_HOME/bin/nvcc"
            -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$BUILD_DIR/stub")
fi
log "configuring llama.cpp (ggml-cuda $CUDA, sm_90, FA $FA; $TOOLKIT)"
cmake -S "$src" -B "$src/build" -G Ninja "${flags[@]}" > "$BUILD_DIR/configure.log" 2>&1 ||
    { tail -30 "$BUILD_DIR/configure.log" >&2; exit 1; }
stage configure
log "building llama-bench, llama-completion, llama-quantize with $JOBS jobs (log: $BUILD_DIR/build.log)"
"${N[@]}" ninja -C "$src/build" -j "$JOBS" llama-bench llama-completion llama-quantize > "$BUILD_DIR/build.log" 2>&1 ||
    { tail -30 "$BUILD_DIR/build.log" >&2; exit 1; }
stage llama
bin=$src/build/bin
log "building libopscope-ggml.so against that ggml"
# one opscope build per checkout (CMake ties a build folder to one source folder)
OB=$BUILD_DIR/opscope-$(printf '%s' "$(cd "$REPO" && pwd -P)" | sha256sum | cut -c1-12)
cmake -S "$REPO" -B "$OB" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF \
    -DOPSCOPE_WERROR=OFF -DOPSCOPE_GGML_INCLUDE_DIR="$src/ggml/include" -DCMAKE_LIBRARY_PATH="$bin" \
    > "$OB.log" 2>&1 && "${N[@]}" ninja -C "$OB" -j "$JOBS" opscope-ggml >> "$OB.log" 2>&1 ||
    { tail -30 "$OB.log" >&2; exit 1; }
so=$(find "$OB" -name 'libopscope-ggml.so' | head -1)
stage opscope
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/bin" "$STAGE/opscope"
cp -L "$bin"/llama-bench "$bin"/llama-completion "$bin"/llama-quantize "$STAGE/bin/"
for f in "$bin"/lib*.so*; do cp -P "$f" "$STAGE/bin/"; done
cp -L "$so" "$STAGE/opscope/"
cc -std=c11 -O2 -shared -fPIC -I"$src/ggml/include" "$REPO/tests/capture_e2e/nodecount.c" -o "$STAGE/opscope/nodecount.so" -ldl
strip --strip-unneeded "$STAGE"/bin/* "$STAGE"/opscope/*.so 2> /dev/null || true
{
    echo "cuda $CUDA"
    echo "toolkit $TOOLKIT"
    echo "llama.cpp $(sed -n 's/^commit //p' "$DEST/SOURCE")"
    echo "flags ${flags[*]}"
    echo "opscope $(git -C "$REPO" rev-parse --short HEAD 2> /dev/null)$(git -C "$REPO" diff --quiet 2> /dev/null || echo -dirty)"
    echo "built on $(uname -m), glibc $(ldd --version | head -1 | awk '{print $NF}'), $(nproc) cores, $(date -u +%FT%TZ)"
    sed 's/^/stage /' "$BUILD_DIR/stages"
} > "$STAGE/BUILD"
du -sh "$STAGE"/bin "$STAGE"/opscope >&2
tar -C "$STAGE" -cf - . | xz -T"$JOBS" -6 > "$DEST/prebuilt.tar.xz.tmp"
mv "$DEST/prebuilt.tar.xz.tmp" "$DEST/prebuilt.tar.xz"
stage pack
log "$DEST/prebuilt.tar.xz: $(du -h "$DEST/prebuilt.tar.xz" | cut -f1) ($(tail -1 "$BUILD_DIR/stages"))"
cat "$STAGE/BUILD" >&2
