#!/usr/bin/env bash
# Builds api_check.c against the root's ggml and the root's libopscope-ggml.so, runs it.
set -euo pipefail
LIB=${OPSCOPE_PRELOAD:-}
[ -n "$LIB" ] || { echo "SKIP: libopscope-ggml.so not built in the root"; exit 77; }
OUT=$(mktemp -d)
gcc -std=c11 -O1 -Wall -Wextra -Werror -I/opscope/include /opscope/tests/capture_api/api_check.c \
    -o "$OUT/api_check" -L"$(dirname "$LIB")" -Wl,-rpath,"$(dirname "$LIB")" -lopscope-ggml -lggml -lggml-base -lpthread
env -u GGML_PROFILE -u LD_PRELOAD "$OUT/api_check" "$OUT/api.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['records'])==9, len(d['records'])" "$OUT/api.json"
# A program may also load the library late, with dlopen (Python's ctypes, a plugin): its
# thread-local storage must fit the static TLS space the C library keeps for that.
python3 - "$LIB" <<'PY'
import ctypes, sys
ctypes.CDLL("libggml-base.so.0")
lib = ctypes.CDLL(sys.argv[1])
lib.ggml_backend_sched_get_profiling_records  # the C API is there
print("ok: dlopen of", sys.argv[1])
PY
rm -rf "$OUT"
