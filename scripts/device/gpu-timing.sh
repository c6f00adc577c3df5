#!/usr/bin/env bash
# On the GPU machine (the device tool), from the checkout root with .dev carried
# (scripts/device/bundle-vulkan.sh makes it): Debian forky's ggml-vulkan on the NVIDIA GPU, run
# with forky's own loader on the machine's file system (a chroot does not work there: NVIDIA's
# driver returns no vkCreateInstance). Measures decode tokens/s (llama-bench -p 0 -n 128 -r 3
# -ngl 99 -t 8) of the 1B q4_0 and the tiny f32 model in four configurations, rotated per
# round: plain; opscope record (default: sampled device timing); opscope record --gpu-timing
# all; GGML_VK_PERF_LOGGER=1. Then per op name, --gpu-timing all against the perf logger and
# the default against all (medians over decode graphs, llama-completion -n 64 on the 1B q4_0).
# Writes $OUT/table.md (medians and ratios), $OUT/log.txt and the raw runs ($OUT/runs.tar.xz).
# Bars: default >= 95% of plain; all within 5% of the perf logger per name.
# Knobs: ROUNDS (4), MODELS ("m1bq tiny"), BUDGET (seconds for the rounds, 420), ACC_MODEL (the
# per-op model, m1bq), M1BQ (an existing 1B q4_0 to use as m1bq), EXTRA_CFGS ("all_group all_shared": --gpu-timing all with OPSCOPE_VK_GROUP=1,
# and with OPSCOPE_VK_SHARE_BOUNDS=1, the cheaper full timing whose figures set the defaults;
# "" leaves them out). Dry run on another Vulkan device (scripts/device/gpu-timing-dry.sh:
# lavapipe in a scratch copy of the forky root): ICD (the driver's manifest) and EXTRA_LP
# (library directories the driver needs, after the bundle's).
# OPT-IN and not yet run on a GPU: written for the next session lent one; dry-run on lavapipe.
set -u
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
REPO=$(pwd)
: "${OUT:?OUT must be set (the device tool sets it)}"
[ -f .dev/root.tar.xz ] || { echo "no .dev/root.tar.xz: run scripts/device/bundle-vulkan.sh and carry .dev" >&2; exit 2; }
exec > >(tee -a "$OUT/log.txt") 2>&1
ROUNDS=${ROUNDS:-4}; BUDGET=${BUDGET:-420}; MODELS=${MODELS:-m1bq tiny}; ACC_MODEL=${ACC_MODEL:-m1bq}
EXTRA_CFGS=${EXTRA_CFGS-all_group all_shared}
W=/tmp/gt-work; D=/tmp/gt-root; M=/tmp/gt-models
mkdir -p "$W" "$D" "$M"
echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "no nvidia-smi"; nproc
xz -dc .dev/root.tar.xz | tar -x -C "$D" || { echo "unpack failed"; exit 3; }
ICD=${ICD:-$(ls /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd*.json /usr/share/vulkan/icd.d/nvidia_icd*.json \
      /etc/vulkan/icd.d/nvidia_icd*.json 2>/dev/null | head -1)}
echo "icd: $ICD"
FL=$D/usr/lib/x86_64-linux-gnu
LDSO=$FL/ld-linux-x86-64.so.2
LP=$FL:$FL/llama:/usr/local/nvidia/lib64:/usr/local/nvidia/lib${EXTRA_LP:+:$EXTRA_LP}
# the absolute paths forky's binaries and opscope's install name, pointing into the bundle
mkdir -p /opt /usr/lib/x86_64-linux-gnu
ln -sfn "$D/opt/opscope" /opt/opscope
ln -sfn "$FL/ggml" /usr/lib/x86_64-linux-gnu/ggml
ln -sfn "$FL/llama" /usr/lib/x86_64-linux-gnu/llama
RUN="$LDSO --library-path $LP"
E=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root VK_DRIVER_FILES=$ICD GGML_VK_VISIBLE_DEVICES=0
   OPSCOPE_LIB=/opt/opscope/lib/libopscope-ggml.so)
$RUN "$D/usr/bin/llama-bench" --list-devices 2>&1 | tail -3
"${E[@]}" $RUN "$D/usr/bin/llama-bench" --list-devices 2>&1 | grep -q Vulkan0 || { echo "NO VULKAN DEVICE"; exit 3; }
echo "== models ($(el) s)"
PYTHONPATH=$REPO/.dev python3 scripts/device/gen-models.py "$M" tiny-f32 || exit 3
cp "$M/tiny-f32.gguf" "$M/tiny.gguf"
# the 1B q4_0: the CUDA check's (M1BQ, gpu-checks.sh passes it), else written the same way
# (cupti_model.py: q4_0 directly, a few seconds; no 4 GB f32 model to quantize)
case " $MODELS $ACC_MODEL " in
    *" m1bq "*)
        if [ -n "${M1BQ:-}" ] && [ -f "$M1BQ" ]; then ln -sfn "$M1BQ" "$M/m1bq.gguf"
        else python3 scripts/device/cupti_model.py "$M/m1bq.gguf" || exit 3; fi ;;
esac
ls -laL "$M"
echo "== decode tokens/s ($(el) s)"
LB=(-p 0 -n 128 -r 3 -ngl 99 -t 8 -o json)
run_cfg() { # CFG MODEL ROUND
    local c=$1 m=$2 r=$3 o=$W/lb_$2_$1_$3
    local bench=("$D/usr/bin/llama-bench" -m "$M/$m.gguf" "${LB[@]}")
    case $c in
        plain)   "${E[@]}" $RUN "${bench[@]}" > "$o.json" 2> "$o.err" ;;
        default) "${E[@]}" $RUN "$D/opt/opscope/bin/opscope" record -o "$W/p_${m}_${c}.json" -- $RUN "${bench[@]}" > "$o.json" 2> "$o.err" ;;
        all)     "${E[@]}" $RUN "$D/opt/opscope/bin/opscope" record --gpu-timing all -o "$W/p_${m}_${c}.json" -- $RUN "${bench[@]}" > "$o.json" 2> "$o.err" ;;
        perflog) "${E[@]}" GGML_VK_PERF_LOGGER=1 $RUN "${bench[@]}" > "$o.json" 2> /dev/null ;;
        # cheaper full timing: concurrent groups as one interval; every item starting at the last end
        all_group)  "${E[@]}" OPSCOPE_VK_GROUP=1 $RUN "$D/opt/opscope/bin/opscope" record --gpu-timing all -o "$W/p_${m}_${c}.json" -- $RUN "${bench[@]}" > "$o.json" 2> "$o.err" ;;
        all_shared) "${E[@]}" OPSCOPE_VK_SHARE_BOUNDS=1 $RUN "$D/opt/opscope/bin/opscope" record --gpu-timing all -o "$W/p_${m}_${c}.json" -- $RUN "${bench[@]}" > "$o.json" 2> "$o.err" ;;
    esac
    python3 - "$o.json" "$c" "$m" "$r" <<'PY'
import json, sys
t = open(sys.argv[1]).read(); i = t.find("[")
try:
    rows = json.loads(t[i:]) if i >= 0 else []
except ValueError:
    rows = []
print(" ", *sys.argv[2:], *[f"tg {r['avg_ts']:.1f}" for r in rows if r.get("n_gen")] or ["FAILED"], flush=True)
PY
}
CFGS=(plain default all perflog $EXTRA_CFGS)
NC=${#CFGS[@]}
for r in $(seq 1 "$ROUNDS"); do
    for m in $MODELS; do
        for k in $(seq 0 $((NC - 1))); do
            [ "$(el)" -lt "$BUDGET" ] || break 3
            run_cfg "${CFGS[$(( (k + r) % NC ))]}" "$m" "$r"
        done
    done
done
echo "== per op name ($(el) s)"
LC=("$D/usr/bin/llama-completion" -m "$M/$ACC_MODEL.gguf" -p hello -n 64 -ngl 99 --no-warmup -no-cnv --seed 1 -t 8)
"${E[@]}" $RUN "$D/opt/opscope/bin/opscope" record --gpu-timing all -o "$W/acc_all.json" -- $RUN "${LC[@]}" > /dev/null 2> "$W/acc_all.err"
"${E[@]}" $RUN "$D/opt/opscope/bin/opscope" record -o "$W/acc_default.json" -- $RUN "${LC[@]}" > /dev/null 2> "$W/acc_default.err"
"${E[@]}" GGML_VK_PERF_LOGGER=1 $RUN "${LC[@]}" > /dev/null 2> "$W/acc_perflog.err"
python3 scripts/device/gpu_timing_table.py "$W" > "$OUT/table.md"
cat "$OUT/table.md"
(cd "$W" && tar -cf - *.json *.err 2>/dev/null | xz -T8 -6 > "$OUT/runs.tar.xz")
echo "done in $(el) s"
