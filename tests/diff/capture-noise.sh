#!/usr/bin/env bash
# capture-noise.sh - captures the real ggml profiles of tests/diff/data/noise: the same
# llama-completion command run again and again under `opscope record` in the forky root
# (scripts/in-root.sh; needs root), and the same command on a model whose feed-forward
# matrices are three times wider. Not run by the tests, which read the committed files; kept
# so the fixtures can be remade: on an idle machine for noise/ (the committed noise-loaded/
# set was made the same way while other jobs ran). OUT (default data/noise) is where they go.
#
#   same-N   (N = 1..10) the f32 tiny model (scripts/make-models.py), 1 thread, 16 tokens:
#            identical commands, so every difference between two of them is run-to-run noise
#   wide-N   (N = 1..3)  the same with n_ff 1536 instead of 512: MUL_MAT does about 2.3 times
#            the work (attention's matrices unchanged), every other op the same
# One thread: with two on this 2-core machine shared with other jobs, ggml's spinning barrier
# made identical runs differ by 2x.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/data/noise}
N_SAME=${N_SAME:-10} N_WIDE=${N_WIDE:-3}  # the docs' 30 and 15: N_SAME=30 N_WIDE=15 OUT=/tmp/x
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
bash "$here/../../scripts/in-root.sh" '
set -e
python3 - <<PY
import importlib.util
spec = importlib.util.spec_from_file_location("mm", "/opscope/scripts/make-models.py")
mm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mm)
mm.write_model("/host-cwd/wide.gguf", dict(mm.TINY, n_ff=1536), 1)
PY
run() {
    o=$1 m=$2
    "$OPSCOPE_BIN" record -o "/host-cwd/$o.json" -- llama-completion -m "$m" \
        -p "The quick brown fox jumps over" --temp 0 --seed 7 --ignore-eos -no-cnv --no-warmup \
        -n 16 -t 1 >/dev/null 2>"/host-cwd/$o.log"
}
for i in $(seq 1 '"$N_SAME"'); do run same-$i "$OPSCOPE_MODELS/tiny-dense-f32.gguf"; done
for i in $(seq 1 '"$N_WIDE"'); do run wide-$i /host-cwd/wide.gguf; done
'
for f in *.json; do gzip -9n < "$f" > "$out/$f.gz"; done
ls -l "$out"
