#!/usr/bin/env bash
# Inside a scratch copy of the forky root (scripts/in-root.sh --scratch): builds opscope as a
# package build would (prefix /usr, no tests), then
#   1. `cmake --install` into a prefix that is then moved: `opscope record -- llama-completion`
#      from there preloads the installed capture library (found relative to the CLI) and writes
#      a profile; the C API builds against the installed files (pkg-config and
#      find_package(opscope)) and runs; the static capture links with the installed flags
#      (before the move: those name the prefix);
#   2. `cpack -G DEB`: the package's files and dependencies; `dpkg -i` installs it into the
#      (throwaway) root, /usr/bin/opscope records llama-completion with
#      /usr/lib/<multiarch>/libopscope-ggml.so, `dpkg -r` removes every file again.
# Both times the Vulkan layer is installed as an explicit layer (share/vulkan/explicit_layer.d,
# library_path relative to the manifest) and llama-completion on Vulkan (lavapipe) gets per-op
# records from it; the Vulkan loader lists the packaged layer.
# The program's stdout must be the same as without the capture in both.
set -uo pipefail
SRC=${OPSCOPE_SRC:-/opscope}
PB=${OPSCOPE_BUILD:?}-pkg
M=${OPSCOPE_MODELS:-/models}/tiny-dense-f32.gguf
[ -f "$M" ] || { echo "SKIP: $M missing (the capture_e2e fixture makes it)"; exit 77; }
fail=0
check() { if [ "$2" != "$3" ]; then echo "FAIL $1: expected '$2', got '$3'"; fail=1; else echo "ok   $1"; fi; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# ---- the package build (its own build folder, kept between runs; serialised by a lock)
exec 8>"$PB.lock"
flock 8
if [ ! -f "$PB/CMakeCache.txt" ]; then
    cmake -S "$SRC" -B "$PB" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
          -DBUILD_TESTING=OFF -DOPSCOPE_WERROR=OFF > "$PB.log" 2>&1 ||
        { tail -20 "$PB.log"; echo "FAIL: configure"; exit 1; }
fi
cmake --build "$PB" -j 2 > "$PB.build.log" 2>&1 || { tail -30 "$PB.build.log"; echo "FAIL: build"; exit 1; }
exec 8>&-
MA=$(gcc -print-multiarch)

# one thread and greedy decoding: the output is the same from run to run
RUN=(llama-completion -m "$M" -p hello -n 8 -t 1 -no-cnv --temp 0 --seed 1)
plain=$(cd "$W" && env -u LD_PRELOAD "${RUN[@]}" 2>/dev/null | md5sum)
# CMD records its own LD_PRELOAD (the library the CLI chose), then runs the program
record() { # OPSCOPE_CLI OUT.json
    (cd "$W" && env -u OPSCOPE_LIB -u LD_PRELOAD "$1" record -o "$2" -- \
        sh -c 'printf %s "$LD_PRELOAD" > preload.txt; exec "$@"' sh "${RUN[@]}" 2> "$W/record.err" | md5sum)
}
# per-op records on the Vulkan backend: only the layer gives those (else one GRAPH_SPLIT each)
VKRUN=(llama-completion -m "$M" -p hello -n 4 -t 2 -ngl 99 -no-cnv --temp 0 --no-warmup)
vulkan_ops() { # OPSCOPE_CLI OUT.json [VAR=VALUE]: prints the number of MUL_MAT records on Vulkan backends
    (cd "$W" && env -u OPSCOPE_LIB -u LD_PRELOAD GGML_VK_VISIBLE_DEVICES=0 ${3:-} "$1" record -o "$2" -- \
        "${VKRUN[@]}" > /dev/null 2> "$W/vk.err")
    python3 - "$W/$2" <<'PY' || echo 0
import json, sys
d = json.load(open(sys.argv[1]))
vk = {b["id"] for b in d["backends"] if b["name"].startswith("Vulkan")}
print(sum(1 for r in d["records"] if r["backend_id"] in vk and r["name"] == "MUL_MAT"))
PY
}
layer_ok() { # MANIFEST: the library it names (relative to it) exists
    python3 - "$1" <<'PY'
import json, os, sys
m = sys.argv[1]
p = json.load(open(m))["layer"]["library_path"]
sys.exit(0 if not os.path.isabs(p) and os.path.isfile(os.path.join(os.path.dirname(m), p)) else 1)
PY
}
profile_ok() {
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
mm = [r for r in d["records"] if r["name"] == "MUL_MAT"]
sys.exit(0 if mm and all(r["duration_ns"] > 0 for r in mm) else 1)
PY
}

# ---- 1. cmake --install into a prefix, moved afterwards
cmake --install "$PB" --prefix "$W/inst" > "$W/install.log" 2>&1
check "cmake --install" 0 $?
# the flag lines name the prefix they were installed to (link before moving it)
read -r FLAGS < "$W/inst/lib/$MA/opscope-ggml-static.ldflags"
# shellcheck disable=SC2086
gcc -std=c11 -O1 -I"$W/inst/include" "$SRC/tests/capture_api/static_check.c" -o "$W/static_fl" $FLAGS -lggml -lggml-base \
    > "$W/cc2.log" 2>&1
rc=$?
check "static_check links with the installed opscope-ggml-static.ldflags" 0 $rc
[ $rc = 0 ] || tail -5 "$W/cc2.log"
mv "$W/inst" "$W/moved"
P=$W/moved
L=$P/lib/$MA
for f in bin/opscope "lib/$MA/libopscope-ggml.so" "lib/$MA/libopscope-ggml-static.a" \
         "lib/$MA/opscope-ggml-static.ldflags" "lib/$MA/libopscope.a" "lib/$MA/pkgconfig/opscope-ggml.pc" \
         include/ggml-profiler.h share/man/man1/opscope-record.1.gz; do
    check "installed $f" yes "$([ -f "$P/$f" ] && echo yes || echo no)"
done
out=$(record "$P/bin/opscope" p.json)
check "installed record: stdout unchanged" "$plain" "$out"
check "installed record: preloads the installed library" "$L/libopscope-ggml.so" "$(cat "$W/preload.txt")"
profile_ok "$W/p.json"
check "installed record: profile with timed MUL_MAT records" 0 $?
"$P/bin/opscope" report "$W/p.json" -q --sqlite "$W/p.db"
check "installed report --sqlite on the recorded profile" 0 $?
if [ -f "$PB/lib/libopscope-vklayer.so" ]; then
    layer_ok "$P/share/vulkan/explicit_layer.d/opscope-vklayer.json"
    check "installed layer manifest names the installed layer library (relative path)" 0 $?
    n=$(vulkan_ops "$P/bin/opscope" vk.json)
    check "installed record on Vulkan: per-op MUL_MAT records from the layer" yes "$([ "${n:-0}" -gt 0 ] && echo yes || echo "no ($n)")"
    # the control: without the layer the Vulkan computes have no per-op records
    check "installed record on Vulkan, layer off: no per-op records" 0 "$(vulkan_ops "$P/bin/opscope" vk0.json OPSCOPE_VK_LAYER=0)"
fi

# the C API through the installed pkg-config and CMake files (api_check.c: 9 records)
# shellcheck disable=SC2046 # flag lists
gcc -std=c11 -O1 -Wall -Werror "$SRC/tests/capture_api/api_check.c" -o "$W/api_pc" \
    $(PKG_CONFIG_PATH="$L/pkgconfig" pkg-config --cflags --libs opscope-ggml) -lggml -lggml-base -lpthread \
    -Wl,-rpath,"$L" > "$W/cc.log" 2>&1
rc=$?
check "api_check builds with pkg-config opscope-ggml" 0 $rc
[ $rc = 0 ] || tail -5 "$W/cc.log"
env -u GGML_PROFILE -u LD_PRELOAD "$W/api_pc" "$W/api.json" > "$W/api.out" 2>&1
check "api_check (pkg-config) runs" 0 $?
mkdir -p "$W/cm"
cat > "$W/cm/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.20)
project(api C)
find_package(opscope 0.1 REQUIRED)
add_executable(api_check $SRC/tests/capture_api/api_check.c)
target_link_libraries(api_check PRIVATE opscope::ggml ggml ggml-base pthread)
add_executable(static_check $SRC/tests/capture_api/static_check.c)
target_link_libraries(static_check PRIVATE opscope::ggml_static ggml ggml-base)
CM
cmake -S "$W/cm" -B "$W/cm/b" -DCMAKE_PREFIX_PATH="$P" > "$W/cm.log" 2>&1 && cmake --build "$W/cm/b" >> "$W/cm.log" 2>&1
rc=$?
check "find_package(opscope): api_check and static_check build" 0 $rc
[ $rc = 0 ] || tail -20 "$W/cm.log"
env -u GGML_PROFILE -u LD_PRELOAD LD_LIBRARY_PATH="$L" "$W/cm/b/api_check" "$W/api2.json" > "$W/api2.out" 2>&1
check "api_check (find_package) runs" 0 $?
env -u GGML_PROFILE -u LD_PRELOAD "$W/cm/b/static_check" "$W/static.json" cpu > "$W/static.out" 2>&1
check "static_check (opscope::ggml_static) runs" 0 $?


# ---- 2. the Debian package
rm -rf "$PB/packages"
(cd "$PB" && cpack -G DEB > "$W/cpack.log" 2>&1)
check "cpack -G DEB" 0 $?
DEB=$(ls "$PB"/packages/opscope_*.deb 2>/dev/null | head -1)
if [ -z "$DEB" ]; then
    tail -20 "$W/cpack.log"
    echo "FAILED: no package"
    exit 1
fi
echo "     package: $(basename "$DEB"), $(stat -c %s "$DEB") bytes"
files=$(dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's|^\./|/|')
for f in /usr/bin/opscope "/usr/lib/$MA/libopscope-ggml.so" "/usr/lib/$MA/libopscope-ggml-static.a" \
         "/usr/lib/$MA/pkgconfig/opscope.pc" "/usr/lib/$MA/cmake/opscope/opscope-config.cmake" \
         /usr/include/opscope.h /usr/share/man/man1/opscope.1.gz /usr/share/doc/opscope/formats.md \
         /usr/share/doc/opscope/copyright /usr/share/doc/opscope/LICENSE; do
    check "package has $f" yes "$(grep -qx "$f" <<< "$files" && echo yes || echo no)"
done
dep=$(dpkg-deb -f "$DEB" Depends)
for d in libc6 libsqlite3-0 zlib1g; do
    check "package depends on $d" yes "$(grep -q "$d" <<< "$dep" && echo yes || echo no)"
done
dpkg -i "$DEB" > "$W/dpkg.log" 2>&1
check "dpkg -i" 0 $?
check "installed copyright: MIT (Expat) of the opscope authors" "Copyright: 2026 the opscope authors|License: Expat" \
    "$(grep -E '^(Copyright|License):' /usr/share/doc/opscope/copyright | paste -sd'|')"
check "dpkg knows it" "install ok installed" "$(dpkg-query -W -f='${Status}' opscope 2>/dev/null)"
out=$(record /usr/bin/opscope d.json)
check "packaged record: stdout unchanged" "$plain" "$out"
check "packaged record: preloads the packaged library" "/usr/lib/$MA/libopscope-ggml.so" "$(cat "$W/preload.txt")"
profile_ok "$W/d.json"
check "packaged record: profile with timed MUL_MAT records" 0 $?
grep -q "profile written to $W/d.json" "$W/record.err"
check "packaged record: says where the profile went" 0 $?
/usr/bin/opscope report "$W/d.json" -q --text "$W/d.txt" && grep -q MUL_MAT "$W/d.txt"
check "packaged report reads it" 0 $?
if [ -f "$PB/lib/libopscope-vklayer.so" ]; then
    layer_ok /usr/share/vulkan/explicit_layer.d/opscope-vklayer.json
    check "packaged layer manifest names the packaged layer library" 0 $?
    vulkaninfo --summary 2> /dev/null | grep -q VK_LAYER_OPSCOPE_profiler
    check "the Vulkan loader lists the packaged layer" 0 $?
    n=$(vulkan_ops /usr/bin/opscope dvk.json)
    check "packaged record on Vulkan: per-op MUL_MAT records from the layer" yes "$([ "${n:-0}" -gt 0 ] && echo yes || echo "no ($n)")"
fi
dpkg -r opscope > "$W/dpkg-r.log" 2>&1
check "dpkg -r" 0 $?
left=$(grep -v '/$' <<< "$files" | while read -r f; do [ -e "$f" ] && echo "$f"; done)
check "dpkg -r leaves no file" "" "$left"

echo "$([ $fail = 0 ] && echo passed || echo FAILED)"
exit $fail
