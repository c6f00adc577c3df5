#!/usr/bin/env bash
# Prepares the CUPTI device check (scripts/device/cupti-check.sh) HERE, on a machine with npm,
# git and (for --build) NVIDIA's CUDA toolkit; the GPU machine has no internet, and every
# device minute should measure, not build. Puts under .device/cupti/ (git-ignored):
#   llama-src.tar.xz   the llama.cpp release that npm's node-llama-cpp pins (its
#                      llama/gitRelease.bundle), cut to what a CUDA build of llama-bench,
#                      llama-completion and llama-quantize needs (no docs, models, other GPU
#                      backends, web UI); llama.cpp is MIT (its LICENSE is inside)
#   SOURCE             where it came from (package, tag, commit)
# With --build, also (the device then only runs; its own build stays the fallback):
#   prebuilt.tar.xz    llama.cpp built HERE with ggml-cuda for sm_90 (flash attention off
#                      unless CUPTI_CHECK_FA=1, as on the device) by the toolkit's nvcc
#                      (CUDA_HOME, default the newest /usr/local/cuda-*), shared libraries in
#                      bin/; libopscope-ggml.so built against that ggml; nodecount.so; BUILD
#                      (toolkit, flags, seconds per stage). Linked against the toolkit's
#                      libcudart/libcublas, which the device machine's CUDA 13 provides.
# Then name it in the device call:  carry: [".device/cupti"]  (the call carries 64 MiB in all,
# checkout included; this script fails when the folder passes 40 MiB).
#
#   scripts/device/cupti-prepare.sh [--build] [NODE_LLAMA_CPP_VERSION]   (default 3.22.1)
# Knobs for --build: JOBS (2), CUPTI_PREPARE_CUDA=OFF (a CPU-only build: checks this script
# and the packaging in minutes, never carried to the device: cupti-check.sh refuses it).
set -euo pipefail
BUILD=0
[ "${1:-}" = --build ] && { BUILD=1; shift; }
VER=${1:-3.22.1}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
DEST=$REPO/.device/cupti
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
command -v npm >/dev/null || { echo "cupti-prepare: needs npm" >&2; exit 1; }
mkdir -p "$DEST"
if [ -f "$DEST/SOURCE" ] && grep -q "^node-llama-cpp $VER " "$DEST/SOURCE" && [ -f "$DEST/llama-src.tar.xz" ]; then
    echo "cupti-prepare: $DEST/llama-src.tar.xz is node-llama-cpp $VER's already" >&2
else
    echo "cupti-prepare: npm pack node-llama-cpp@$VER" >&2
    (cd "$WORK" && npm pack --silent "node-llama-cpp@$VER" > pack.txt)
    tar -xzf "$WORK/$(tail -1 "$WORK/pack.txt")" -C "$WORK" package/llama/gitRelease.bundle package/llama/llama.cpp.info.json
    git clone -q "$WORK/package/llama/gitRelease.bundle" "$WORK/llama.cpp" 2>/dev/null
    commit=$(git -C "$WORK/llama.cpp" rev-parse HEAD)
    # The subset: everything a CUDA build of the tools needs, without the large parts it never
    # reads. tools/CMakeLists.txt adds every tool, so the tools stay (a few MB).
    (cd "$WORK/llama.cpp" && rm -rf .git docs media models examples tests tools/ui app benches pocs skills conversion \
        ggml/src/ggml-{vulkan,sycl,metal,opencl,cann,hexagon,et,musa,hip,webgpu,zdnn,zendnn,openvino,virtgpu,kompute,rpc})
    # examples/ and tests/ are referenced only when LLAMA_BUILD_EXAMPLES/TESTS are on (off there);
    # keep an empty CMakeLists so a stray add_subdirectory fails loudly rather than silently.
    tar -C "$WORK" -cJf "$DEST/llama-src.tar.xz" llama.cpp
    {
        echo "node-llama-cpp $VER (npm), llama/gitRelease.bundle"
        cat "$WORK/package/llama/llama.cpp.info.json"
        echo "commit $commit"
    } > "$DEST/SOURCE"
fi
commit=$(sed -n 's/^commit //p' "$DEST/SOURCE")
[ $BUILD = 1 ] && bash "$REPO/scripts/device/cupti-prebuild.sh" "$DEST"
size=$(du -sm "$DEST" | cut -f1)
echo "cupti-prepare: $DEST: $(du -h "$DEST/llama-src.tar.xz" | cut -f1) llama.cpp subset (commit ${commit:0:12}), ${size} MiB in all" >&2
if [ "$size" -gt 40 ]; then
    echo "cupti-prepare: $DEST is ${size} MiB: too much to carry with the checkout (64 MiB)" >&2
    exit 1
fi
