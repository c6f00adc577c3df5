#!/usr/bin/env bash
# capture-pairs.sh - captures the real ggml profiles of tests/diff/data/ggml again: Debian's
# llama-completion on the tiny random models (scripts/make-models.py) under `opscope record`,
# in the forky root (scripts/in-root.sh; needs root). Not run by the tests, which read the
# committed files; kept so the fixtures can be remade and reviewed.
#
#   cpu-f32-t2   f32 model, 2 threads, 16 tokens     (the reference of most pairs)
#   cpu-f32-t1   the same on 1 thread                (1 against 2 threads)
#   cpu-q4_0-t2  the q4_0 model, 2 threads           (f32 against q4_0)
#   cpu-f32-nofuse-t2  GGML_CPU_DISABLE_FUSION=1     (RMS_NORM+MUL fused against separate)
#   cpu-f32-n4   f32, 2 threads, 4 tokens            (a shorter run: per-token comparison)
#   vk-f32-n4    all layers on Vulkan (lavapipe), 4 tokens (CPU against Vulkan): its Vulkan
#                computes are one GRAPH_SPLIT each (no per-op device timing)
#   vk-ops-f32-n4  the same command with per-op device timing (the Vulkan layer; the default
#                sampled timing), so its fused groups (RMS_NORM_MUL) meet the CPU's
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here/data/ggml
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
bash "$here/../../scripts/in-root.sh" '
set -e
M=$OPSCOPE_MODELS
run() {
    o=$1; shift
    "$OPSCOPE_BIN" record -o "/host-cwd/$o.json" -- llama-completion -p "The quick brown fox jumps over" \
        --temp 0 --seed 7 --ignore-eos -no-cnv --no-warmup "$@" >/dev/null 2>"/host-cwd/$o.log"
}
run cpu-f32-t2 -m "$M/tiny-dense-f32.gguf" -n 16 -t 2
run cpu-f32-t1 -m "$M/tiny-dense-f32.gguf" -n 16 -t 1
run cpu-q4_0-t2 -m "$M/tiny-dense-q4_0.gguf" -n 16 -t 2
GGML_CPU_DISABLE_FUSION=1 run cpu-f32-nofuse-t2 -m "$M/tiny-dense-f32.gguf" -n 16 -t 2
run cpu-f32-n4 -m "$M/tiny-dense-f32.gguf" -n 4 -t 2
# the first Vulkan run compiles pipelines; the second one is the fixture
GGML_VK_VISIBLE_DEVICES=0 run vk-warm -m "$M/tiny-dense-f32.gguf" -n 1 -t 2 -ngl 99
GGML_VK_VISIBLE_DEVICES=0 run vk-f32-n4 -m "$M/tiny-dense-f32.gguf" -n 4 -t 2 -ngl 99
GGML_VK_VISIBLE_DEVICES=0 run vk-ops-f32-n4 -m "$M/tiny-dense-f32.gguf" -n 4 -t 2 -ngl 99
'
rm -f vk-warm.json
for f in *.json; do gzip -9n < "$f" > "$out/$f.gz"; done
ls -l "$out"
