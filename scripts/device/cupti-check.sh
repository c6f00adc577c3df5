#!/usr/bin/env bash
# The CUPTI source's device check, for ONE call of the GPU machine (an H100,
# CUDA 13 with nvcc, CMake, ninja, 16 cores, no internet). Runs THERE, in the checkout:
#
#   here:   scripts/device/cupti-prepare.sh --build    (puts .device/cupti/llama-src.tar.xz and
#                                                       prebuilt.tar.xz: llama.cpp with ggml-cuda
#                                                       and opscope, built here)
#   there:  bash scripts/device/cupti-check.sh         (device call: carry [".device/cupti"],
#                                                       timeout 600; writes $OUT)
#
# Steps (each logged to $OUT/NN-step.log, with its seconds in $OUT/steps.tsv):
#   1 offsets   tests/cupti_abi/abi_check.c against NVIDIA's real CUPTI headers and the
#               loaded libcupti: any mismatch stops the check (no figure is trusted)
#   2 llama     the prebuilt llama.cpp when .device/cupti/prebuilt.tar.xz is there, is a CUDA
#               build and its llama-bench lists a CUDA0 device here (seconds); else (the
#               fallback, or CUPTI_CHECK_BUILD=1) llama.cpp (the release node-llama-cpp pins)
#               built here with -DGGML_CUDA=ON, sm_90 only, flash attention kernels off unless
#               CUPTI_CHECK_FA=1: llama-bench and llama-completion
#   3 opscope   the prebuilt libopscope-ggml.so and nodecount.so with a prebuilt llama.cpp,
#               else built here against that ggml
#   4 model     a random-weight 1B-class q4_0 model (16 layers, 2048, 8192;
#               scripts/device/cupti_model.py, standard library only)
#   5 measure   scripts/device/cupti_measure.py: coverage with CUDA graphs on and off, nothing
#               lost, per-group medians both ways, device spans inside host time, llama-bench
#               tokens/s plain vs captured; the summary table in $OUT/cupti-summary.md
# Dry run of step 5 without a GPU (Vulkan on lavapipe in the forky root; the figures are then
# lavapipe's, only the script is checked): scripts/in-root.sh 'python3 /opscope/scripts/device/
#   cupti_measure.py --bin /usr/bin --model /models/tiny-dense-q4_0.gguf --preload $OPSCOPE_PRELOAD
#   --nodecount NODECOUNT.so --cupti none --out OUT --backend Vulkan --rounds 1 --pp 32 --tg 8'
# OUT defaults to ./out-cupti when unset. CUPTI_CHECK_SKIP_BUILD=1 reuses the builds in
# $WORK (default /tmp/cupti-check) from an earlier call on the same warm machine.
# CUPTI_CHECK_DEADLINE (epoch seconds, set by gpu-checks.sh): step 5 starts no llama-bench run
# that would end past it, so its summary is written with the runs done.
# CUPTI_CHECK_DRY=1: the dry run HERE, without a GPU (scripts/device/gpu-checks-dry.sh): steps
# 1 and 4 as on the device; 2 unpacks the prebuilt llama.cpp and checks that every library it
# and libopscope-ggml.so need resolves (the toolkit's, and CUDA's stub libcuda.so.1 for the
# driver) and that llama-bench --help and llama-completion --help run with every symbol bound
# (LD_BIND_NOW=1); 5 only compiles cupti_measure.py and runs its --help. Never the fallback build.
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$REPO/out-cupti}
WORK=${WORK:-/tmp/cupti-check}
JOBS=${JOBS:-16}
mkdir -p "$OUT" "$WORK"
: > "$OUT/steps.tsv"
T0=$(date +%s)

step() { # step NN NAME COMMAND...: runs it, logs it, stops the check when it fails
    local n=$1 name=$2 t=$(date +%s)
    shift 2
    echo "== $n $name ($(($(date +%s) - T0)) s in)" >&2
    if "$@" > "$OUT/$n-$name.log" 2>&1; then
        printf '%s\t%s\tok\t%s\n' "$n" "$name" $(($(date +%s) - t)) >> "$OUT/steps.tsv"
    else
        printf '%s\t%s\tFAILED\t%s\n' "$n" "$name" $(($(date +%s) - t)) >> "$OUT/steps.tsv"
        tail -40 "$OUT/$n-$name.log" >&2
        { echo "# CUPTI device check: FAILED at step $n ($name)"; echo; echo '```'; cat "$OUT/steps.tsv";
          echo '```'; echo; echo "last lines of $n-$name.log:"; echo '```'; tail -25 "$OUT/$n-$name.log"; echo '```'; } \
            > "$OUT/cupti-summary.md"
        exit 1
    fi
}

# CUDA's headers and libcupti: the toolkit's, else the nvidia-cuda-cupti Python package's.
DRY=${CUPTI_CHECK_DRY:-0}

find_cupti() {
    if [ -z "${CUDA_HOME:-}" ]; then
        if command -v nvcc > /dev/null; then CUDA_HOME=$(dirname "$(dirname "$(command -v nvcc)")")
        else CUDA_HOME=$(ls -d /usr/local/cuda /usr/local/cuda-* 2> /dev/null | sort -V | tail -1); fi
    fi
    for d in "$CUDA_HOME/extras/CUPTI" "$CUDA_HOME/targets/x86_64-linux" "$CUDA_HOME"; do
        if [ -f "$d/include/cupti.h" ]; then CUPTI_INC=$d/include; break; fi
    done
    for d in "$CUDA_HOME/extras/CUPTI/lib64" "$CUDA_HOME/lib64" "$CUDA_HOME/targets/x86_64-linux/lib"; do
        if ls "$d"/libcupti.so* > /dev/null 2>&1; then CUPTI_LIBDIR=$d; break; fi
    done
    if [ -z "${CUPTI_INC:-}" ] || [ -z "${CUPTI_LIBDIR:-}" ]; then
        local py
        py=$(find / -path /proc -prune -o -type d -path '*nvidia/cuda_cupti' -print 2>/dev/null | head -1)
        [ -n "$py" ] && CUPTI_INC=${CUPTI_INC:-$py/include} && CUPTI_LIBDIR=${CUPTI_LIBDIR:-$py/lib}
    fi
    CUPTI_SO=$(ls "$CUPTI_LIBDIR"/libcupti.so* 2>/dev/null | head -1)
    echo "CUDA_HOME=$CUDA_HOME CUPTI_INC=$CUPTI_INC CUPTI_LIBDIR=$CUPTI_LIBDIR CUPTI_SO=$CUPTI_SO"
    [ -f "$CUPTI_INC/cupti.h" ] && [ -n "$CUPTI_SO" ]
}

offsets() {
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
    "$CUDA_HOME/bin/nvcc" --version | tail -2
    cc -std=c11 -O1 -Wall -D_GNU_SOURCE -I"$CUPTI_INC" -I"$CUDA_HOME/include" -I"$REPO/src" \
        -I"$REPO/tests/capture_cupti" "$REPO/tests/cupti_abi/abi_check.c" "$REPO/src/capture/gpu/cupti_rec.c" \
        "$REPO/src/capture/gpu/cupti_names.c" -L"$CUPTI_LIBDIR" -lcupti -Wl,-rpath,"$CUPTI_LIBDIR" \
        -o "$WORK/abi_check" && "$WORK/abi_check"
}

PRE=$REPO/.device/cupti/prebuilt.tar.xz
PREBUILT=0
LLAMA_BIN=$WORK/llama/build/bin

# The tarball cupti-prepare.sh --build made, unpacked; true when its llama-bench runs here and
# sees the GPU (a newer glibc or another CUDA there than here fails this: then build).
# Where libcudart.so.13 and libcublas(Lt).so.13 are: the toolkit's, else a Python package's
# (nvidia-cublas / nvidia-cuda-runtime wheels, as the device's PyTorch has them).
cuda_libpath() {
    local d p=
    for d in "$CUDA_HOME/lib64" "$CUDA_HOME/targets/x86_64-linux/lib"; do
        [ -d "$d" ] && p=$p${p:+:}$d
    done
    if ! ls "$CUDA_HOME"/lib64/libcublasLt.so.* "$CUDA_HOME"/targets/x86_64-linux/lib/libcublasLt.so.* > /dev/null 2>&1; then
        for d in $(find /usr /opt \( -name 'libcublasLt.so.*' -o -name 'libcudart.so.*' \) -path '*nvidia*' \
                   -printf '%h\n' 2> /dev/null | sort -u); do
            p=$p${p:+:}$d
        done
    fi
    echo "$p"
}

# The dry run's stand-in for the driver: CUDA's stub libcuda.so as libcuda.so.1 (every call
# answers "stub library", so ggml-cuda finds no device and the programs still run)
stub_driver() {
    local s
    s=$(ls "$CUDA_HOME"/lib64/stubs/libcuda.so "$CUDA_HOME"/targets/x86_64-linux/lib/stubs/libcuda.so 2> /dev/null | head -1)
    [ -n "$s" ] || { echo "no stubs/libcuda.so in $CUDA_HOME"; return 1; }
    mkdir -p "$WORK/stub" && ln -sfn "$s" "$WORK/stub/libcuda.so.1" && echo "$WORK/stub"
}

# every library FILES need resolves with LD_LIBRARY_PATH as it is (ldd's "not found": none)
resolves() {
    local f bad=0
    for f in "$@"; do
        [ -e "$f" ] || continue # a pattern that matched nothing
        if ! ldd "$f" > "$WORK/ldd.txt" 2>&1 || grep 'not found' "$WORK/ldd.txt"; then
            echo "UNRESOLVED in $f"; cat "$WORK/ldd.txt"; bad=1
        fi
    done
    return $bad
}

prebuilt() {
    [ "${CUPTI_CHECK_BUILD:-0}" != 1 ] && [ -f "$PRE" ] || { echo "no prebuilt llama.cpp (or CUPTI_CHECK_BUILD=1)"; return 1; }
    rm -rf "$WORK/pre" && mkdir -p "$WORK/pre" && xz -dc "$PRE" | tar -x -C "$WORK/pre" || return 1
    cat "$WORK/pre/BUILD"
    grep -q '^cuda ON' "$WORK/pre/BUILD" || { echo "the prebuilt llama.cpp is CPU-only: building"; return 1; }
    local lp
    lp=$WORK/pre/bin:$(cuda_libpath)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    if [ "$DRY" = 1 ]; then
        lp=$lp:$(stub_driver) || return 1
        echo "LD_LIBRARY_PATH=$lp"
        LD_LIBRARY_PATH=$lp resolves "$WORK/pre"/bin/llama-* "$WORK/pre"/bin/lib*.so* "$WORK/pre"/opscope/*.so || return 1
        local p
        for p in llama-bench llama-completion; do
            LD_LIBRARY_PATH=$lp LD_BIND_NOW=1 "$WORK/pre/bin/$p" --help > "$WORK/pre/$p.help" 2>&1 ||
                { tail -5 "$WORK/pre/$p.help"; echo "$p --help failed"; return 1; }
            echo "$p --help: exit 0, $(wc -l < "$WORK/pre/$p.help") lines, every symbol bound"
        done
        LD_LIBRARY_PATH=$lp "$WORK/pre/bin/llama-bench" --list-devices 2>&1 | tail -3
        export LD_LIBRARY_PATH=$lp
        return 0
    fi
    LD_LIBRARY_PATH=$lp "$WORK/pre/bin/llama-bench" --list-devices 2>&1 | tee "$WORK/pre/devices.txt"
    grep -q CUDA0 "$WORK/pre/devices.txt" || { echo "the prebuilt llama-bench sees no CUDA0 here: building"; return 1; }
    export LD_LIBRARY_PATH=$lp # the toolkit's libcudart/libcublas beside the prebuilt libraries
}

llama() {
    if prebuilt; then
        PREBUILT=1
        LLAMA_BIN=$WORK/pre/bin
        return 0
    fi
    [ "$DRY" = 1 ] && { echo "dry run: no fallback build"; return 1; }
    [ "${CUPTI_CHECK_SKIP_BUILD:-0}" = 1 ] && [ -x "$WORK/llama/build/bin/llama-bench" ] && return 0
    rm -rf "$WORK/llama" && mkdir -p "$WORK/llama"
    tar -xJf "$REPO/.device/cupti/llama-src.tar.xz" -C "$WORK/llama" --strip-components=1 || return 1
    cat "$REPO/.device/cupti/SOURCE"
    cmake -S "$WORK/llama" -B "$WORK/llama/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90-real -DGGML_CUDA_FA="${CUPTI_CHECK_FA:-OFF}" \
        -DGGML_NATIVE=ON -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
        -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_HTML=OFF \
        -DBUILD_SHARED_LIBS=ON &&
        ninja -C "$WORK/llama/build" -j "$JOBS" llama-bench llama-completion
}

opscope() {
    if [ $PREBUILT = 1 ]; then
        cp "$WORK/pre/opscope/nodecount.so" "$WORK/nodecount.so"
        ls -l "$WORK/pre/opscope/libopscope-ggml.so"
        return 0
    fi
    local inc=$WORK/llama/ggml/include lib=$WORK/llama/build/bin
    cmake -S "$REPO" -B "$WORK/opscope" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF \
        -DOPSCOPE_WERROR=OFF -DOPSCOPE_GGML_INCLUDE_DIR="$inc" -DCMAKE_LIBRARY_PATH="$lib" &&
        ninja -C "$WORK/opscope" -j "$JOBS" opscope-ggml &&
        cc -std=c11 -O2 -shared -fPIC -I"$inc" "$REPO/tests/capture_e2e/nodecount.c" -o "$WORK/nodecount.so" -ldl &&
        ls -l "$WORK/opscope"/lib*/libopscope-ggml.so* "$WORK/opscope"/libopscope-ggml.so* 2>/dev/null
}

model() {
    [ -f "$WORK/m1b-q4_0.gguf" ] || python3 "$REPO/scripts/device/cupti_model.py" "$WORK/m1b-q4_0.gguf"
}

measure() {
    if [ "$DRY" = 1 ]; then
        python3 -m py_compile "$REPO/scripts/device/cupti_measure.py" &&
            python3 "$REPO/scripts/device/cupti_measure.py" --help | head -3 &&
            { echo "# CUPTI device check: DRY RUN (no GPU; steps 1-4 ran, step 5 only compiled)"; echo; echo '```';
              cat "$OUT/steps.tsv"; echo '```'; } > "$OUT/cupti-summary.md"
        return
    fi
    local so
    so=$(find "$WORK/pre/opscope" "$WORK/opscope" -name 'libopscope-ggml.so' 2> /dev/null | head -1)
    [ $PREBUILT = 1 ] && so=$WORK/pre/opscope/libopscope-ggml.so
    python3 "$REPO/scripts/device/cupti_measure.py" --bin "$LLAMA_BIN" --model "$WORK/m1b-q4_0.gguf" \
        --preload "$so" --nodecount "$WORK/nodecount.so" --cupti "$CUPTI_SO" --out "$OUT" \
        --deadline "${CUPTI_CHECK_DEADLINE:-0}"
}

find_cupti > "$OUT/00-find.log" 2>&1 || { cat "$OUT/00-find.log" >&2; echo "cupti-check: no CUPTI headers/library found" >&2;
                                          echo "# CUPTI device check: no CUPTI found" > "$OUT/cupti-summary.md"; exit 1; }
cat "$OUT/00-find.log" >&2
step 01 offsets offsets
step 02 llama llama
step 03 opscope opscope
step 04 model model
step 05 measure measure
cat "$OUT/cupti-summary.md"
