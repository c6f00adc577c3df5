#!/usr/bin/env bash
# capture-blas.sh - captures tests/viewer/data/blas-*.json.gz again: Debian's llama-completion
# on the tiny f32 model (scripts/make-models.py) with Debian's ggml-blas loaded beside the CPU
# backend, under `opscope record` in the forky root (scripts/in-root.sh; needs root). The
# prompt is over 32 tokens, so the prompt's matrix products go to BLAS (ggml-blas takes a
# MUL_MAT from 32 rows on) and the scheduler splits each prefill graph between BLAS and CPU;
# the decode steps (1 token) stay on the CPU. Not run by the tests, which read the committed
# files; kept so the fixtures can be remade and reviewed.
#
#   blas-t2   2 threads, the prompt in one batch (one prefill graph), 6 tokens decoded
#   blas-t1   the same on 1 thread (the diff page's NEW)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
bash "$here/../../scripts/in-root.sh" '
set -e
M=$OPSCOPE_MODELS
P="The quick brown fox jumps over the lazy dog while the five boxing wizards jump quickly; pack my box with five dozen liquor jugs."
run() {
    o=$1; shift
    "$OPSCOPE_BIN" record -o "/host-cwd/$o.json" -- llama-completion -p "$P" \
        --temp 0 --seed 7 --ignore-eos -no-cnv --no-warmup -m "$M/tiny-dense-f32.gguf" -n 6 "$@" \
        >/dev/null 2>"/host-cwd/$o.log"
}
run blas-t2 -t 2
run blas-t1 -t 1
'
for f in *.json; do gzip -9n < "$f" > "$out/$f.gz"; done
ls -l "$out"/blas-*
