#!/usr/bin/env bash
# The GPU checks in ONE device call: CUDA (scripts/device/cupti-check.sh), then Vulkan
# (scripts/device/gpu-timing.sh), every device second measuring, nothing built there.
#
# 1. HERE, as root, in the checkout the session was STARTED in (the device tool sends that one,
#    also when a helper calls it from another worktree), one command:
#        scripts/device/gpu-prepare.sh
#    It makes .device/cupti (llama.cpp + ggml-cuda for sm_90 and opscope, prebuilt) and .dev
#    (forky's Vulkan programs and opscope), checks that the checkout plus both fit the call's
#    64 MiB, and prints the call below. `gpu-prepare.sh --dry` also runs this script's dry run
#    (scripts/device/gpu-checks-dry.sh: CUDA loads and links, Vulkan end to end on lavapipe).
# 2. THERE, one call of the device tool `run`:
#        command:   bash scripts/device/gpu-checks.sh
#        carry:     [".device/cupti", ".dev"]
#        timeout_s: 480
#    then `give_back` unless you rerun at once. A retry of one part after a fix (about 5.7
#    device minutes are left after the first call; a start takes ~1.5): command
#    `PARTS=cuda LIMIT=180 CUDA_LIMIT=170 bash scripts/device/gpu-checks.sh` (or PARTS=vulkan
#    LIMIT=180), same carry, timeout_s 220.
#
# Time plan (seconds; caps enforced here, expectations for an H100 from the runs' sizes):
#   machine start + transfer (outside the command)             60-120
#   CUDA, capped at CUDA_LIMIT (200):
#     01 offsets   ABI check compiled and run                  1-5     (here: 0-1)
#     02 llama     prebuilt.tar.xz unpacked, CUDA0 listed       3-10    (here: 3, 15 MiB)
#     03 opscope   the prebuilt capture library                 0
#     04 model     1B q4_0 written (548 MB, standard library)   3-15    (here: 3-15)
#     05 measure   3 llama-completion -n 64, then up to 9 llama-bench -p 512 -n 128 -r 3;
#                  no run started that would end past the cap  60-150
#   Vulkan, what is left of LIMIT (420):
#     unpack .dev, device listed, tiny model, the 1B q4_0 shared with CUDA    5-20 (here: 1-7)
#     rounds: 2 x 4 configs of llama-bench -p 0 -n 128 -r 3, BUDGET = left - VK_RESERVE  40-150
#     per op: 3 llama-completion -n 64 (VK_RESERVE 100 s is kept for them)  20-60
#   this command ends by LIMIT + ~15 s; timeout_s 480 leaves 45 s over that. The dry run
#   here (gpu-checks-dry.sh, 2 cores, lavapipe, tiny model) took 6 s for CUDA, 25-115 s for
#   Vulkan; the carry is 47.1 MiB of 64 (checkout 8.0, .device/cupti 19.1, .dev 20.0).
#   Device time: ~1.5 min start + <= 7.3 min command + 0.5 min warm = 9.3 of 15 min, leaving
#   ~5.7 min: more than the 4 min a machine needs to start, for one retry of one part.
#
# Output ($OUT, comes back with the reply; paste checks.md into the issue's closing note):
#   checks.md            the GPU, driver and CUDA, opscope's commit, seconds per part, both
#                        summaries, and one "BAR ok|FAIL ..." line per bar of the GPU checks:
#     CUDA  "graphs: every computed node in exactly one OP record", same for "nographs"
#                                     every node of every compute in one record, graphs on/off
#           "...: nothing dropped (0); kernels in records N == delivered by CUPTI N"
#                                     0 dropped records
#           "per group, median per decode graph with graphs on within 15% of off"
#           "tg128 captured/plain R >= 0.95", "pp512 captured/plain R >= 0.97"
#                                     by default (sampled timing, OPSCOPE_CUPTI=1) vs plain
#     Vulkan "default tg = X% of plain (>= 95%)", "--gpu-timing all ... of GGML_VK_PERF_LOGGER's
#           (>= 95%)", "per op name, default within 10% of all"
#   timing.tsv           part, exit status, seconds (the time plan's check)
#   cuda.tar.xz          cupti-check.sh's $OUT: steps.tsv, NN-step.log, cupti-summary.md/.json,
#                        each run's stderr, nodecount's lists, OPSCOPE_GPU_LOG tables
#   cuda-profiles.tar.xz the llama-completion profiles, graphs on and off (profile-graphs.json,
#                        profile-nographs.json), when packed they are under 16 MiB (llama-bench's
#                        stay on the machine)
#   vulkan.tar.xz        gpu-timing.sh's $OUT: table.md, log.txt, runs.tar.xz
#   (the device tool brings back at most 8 files of 16 MiB: the parts write under RAW,
#   /tmp/gpu-checks-raw, and only these 5 files are left in $OUT)
#
# Knobs: PARTS ("cuda vulkan"), LIMIT (420), CUDA_LIMIT (200), VK_RESERVE (100), ROUNDS (2),
# MODELS (m1bq), EXTRA_CFGS ("" here; gpu-timing.sh's), DRY=1 (here, no GPU: cupti-check.sh's
# CUPTI_CHECK_DRY; gpu-checks-dry.sh sets it). A part whose carry (.device/cupti, .dev) is
# missing is skipped with a line saying so. Exit status 0 when every part asked for ran and
# exited 0 (cupti-check.sh exits 1 on a failed check; gpu-timing.sh's bars are its BAR lines).
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then sed -n '2,66p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?OUT must be set (the device tool sets it)}"
PARTS=${PARTS:-cuda vulkan}
LIMIT=${LIMIT:-420}
CUDA_LIMIT=${CUDA_LIMIT:-200}
VK_RESERVE=${VK_RESERVE:-100}
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
# limited SECONDS CMD...: runs CMD in its own process group, ended whole (TERM, then KILL) past
# SECONDS, so no llama-bench of one part runs on into the next; its exit status (124: killed)
limited() {
    local lim=$1
    shift
    setsid "$@" &
    local p=$! w rc
    (sleep "$lim"; kill -TERM -- -"$p" 2>/dev/null && { sleep 5; kill -KILL -- -"$p" 2>/dev/null; }; exit 0) &
    w=$!
    wait "$p"
    rc=$?
    kill "$w" 2>/dev/null
    [ $rc -eq 143 ] || [ $rc -eq 137 ] && rc=124
    return $rc
}
# the BAR lines of a summary: cupti_measure.py's "| check | ok/FAIL |" rows, table.md's BAR lines
bars() { sed -n 's/^| \(.*\) | \(ok\|FAIL\) |$/BAR \2 \1/p;t;/^BAR /p' "$1" 2>/dev/null | sed 's/^BAR ok /BAR ok   /'; }
RAW=${RAW:-/tmp/gpu-checks-raw}
rm -rf "$RAW"
mkdir -p "$OUT" "$RAW"
S=$OUT/checks.md
: > "$OUT/timing.tsv"
{
    echo "# GPU checks$([ "${DRY:-0}" = 1 ] && echo ': DRY RUN, no GPU')"
    echo
    echo '```'
    if command -v nvidia-smi > /dev/null; then
        nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
        nvidia-smi 2>/dev/null | grep -o 'CUDA Version: [0-9.]*' | head -1
    else
        echo "no nvidia-smi"
    fi
    nvcc --version 2>/dev/null | tail -1 || echo "no nvcc on PATH"
    echo "$(nproc) cores; opscope $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?'); parts: $PARTS; limit $LIMIT s"
    echo '```'
} > "$S"

M1BQ=
case " $PARTS " in *" cuda "*)
    echo "== CUDA ($(el) s in)"
    if [ -f "$REPO/.device/cupti/llama-src.tar.xz" ]; then
        C=$RAW/cuda
        mkdir -p "$C"
        [ -f "$REPO/.device/cupti/prebuilt.tar.xz" ] ||
            echo "NO prebuilt.tar.xz carried: cupti-check.sh builds llama.cpp here, which CUDA_LIMIT ($CUDA_LIMIT s) will likely cut (run scripts/device/gpu-prepare.sh first)" | tee -a "$S"
        t=$(date +%s)
        lim=$((CUDA_LIMIT < LIMIT - $(el) ? CUDA_LIMIT : LIMIT - $(el)))
        OUT=$C CUPTI_CHECK_DEADLINE=$((t + lim - 5)) CUPTI_CHECK_DRY=${DRY:-0} \
            limited "$lim" bash "$REPO/scripts/device/cupti-check.sh" > "$C/log.txt" 2>&1
        rc=$?
        printf 'cuda\t%s\t%s\n' $rc $(($(date +%s) - t)) >> "$OUT/timing.tsv"
        tail -25 "$C/log.txt"
        { echo; echo "## CUDA (cupti-check.sh): exit $rc, $(($(date +%s) - t)) s of $lim"; echo; echo '```'
          cat "$C/steps.tsv" 2>/dev/null; echo '```'; echo
          if [ $rc = 124 ]; then echo "(stopped after $lim s)"; echo; fi
          echo '```'; bars "$C/cupti-summary.md"; echo '```'; echo
          cat "$C/cupti-summary.md" 2>/dev/null || echo "(no summary)"; } >> "$S"
        [ -f "${WORK:-/tmp/cupti-check}/m1b-q4_0.gguf" ] && M1BQ=${WORK:-/tmp/cupti-check}/m1b-q4_0.gguf
    else
        echo "no .device/cupti carried: CUDA skipped" | tee -a "$S"
        printf 'cuda\tskipped\t0\n' >> "$OUT/timing.tsv"
    fi
;; esac

case " $PARTS " in *" vulkan "*)
    echo "== Vulkan ($(el) s in)"
    left=$((LIMIT - $(el)))
    if [ ! -f "$REPO/.dev/root.tar.xz" ]; then
        echo "no .dev carried: Vulkan skipped" | tee -a "$S"
        printf 'vulkan\tskipped\t0\n' >> "$OUT/timing.tsv"
    elif [ $left -lt $((VK_RESERVE + 60)) ]; then
        echo "Vulkan skipped: $left s left of $LIMIT" | tee -a "$S"
        printf 'vulkan\tno-time\t0\n' >> "$OUT/timing.tsv"
    else
        V=$RAW/vulkan
        mkdir -p "$V"
        t=$(date +%s)
        # gpu-timing.sh's budget counts from its own start
        (cd "$REPO" && OUT=$V BUDGET=$((left - VK_RESERVE)) ROUNDS=${ROUNDS:-2} MODELS=${MODELS:-m1bq} \
            EXTRA_CFGS=${EXTRA_CFGS-} M1BQ=$M1BQ limited $((left - 10)) bash scripts/device/gpu-timing.sh > /dev/null 2>&1)
        rc=$?
        printf 'vulkan\t%s\t%s\n' $rc $(($(date +%s) - t)) >> "$OUT/timing.tsv"
        tail -25 "$V/log.txt" 2>/dev/null
        { echo; echo "## Vulkan (gpu-timing.sh): exit $rc, $(($(date +%s) - t)) s of $((left - 10)), rounds budget $((left - VK_RESERVE)) s"
          echo; echo '```'; grep '^== ' "$V/log.txt" 2>/dev/null; echo; bars "$V/table.md"; echo '```'; echo
          grep -v '^BAR ' "$V/table.md" 2>/dev/null || echo "(no table)"; } >> "$S"
    fi
;; esac
# the raw outputs, packed into at most 3 files of at most 16 MiB (profiles left out past that)
if [ -d "$RAW/cuda" ]; then
    prof=$(cd "$RAW/cuda" && ls profile-graphs.json profile-nographs.json 2> /dev/null)
    [ -z "$prof" ] || tar -C "$RAW/cuda" -cf - $prof | xz -T0 -6 > "$OUT/cuda-profiles.tar.xz"
    [ ! -f "$OUT/cuda-profiles.tar.xz" ] || [ "$(stat -c %s "$OUT/cuda-profiles.tar.xz")" -lt 16000000 ] ||
        { rm -f "$OUT/cuda-profiles.tar.xz"; echo "(the CUDA profiles, packed, passed 16 MiB: not brought back)" >> "$S"; }
    tar -C "$RAW" --exclude='profile-*.json' -cf - cuda | xz -T0 -6 > "$OUT/cuda.tar.xz"
fi
[ -d "$RAW/vulkan" ] && tar -C "$RAW" -cf - vulkan | xz -T0 -6 > "$OUT/vulkan.tar.xz"
{ echo; echo "total $(el) s of $LIMIT"; echo '```'; cat "$OUT/timing.tsv"; echo '```'; } >> "$S"
cat "$S"
# 0 when every part asked for ran and exited 0 (a skipped part, a stopped one or a failed check: 1)
! cut -f2 "$OUT/timing.tsv" | grep -qvx 0
