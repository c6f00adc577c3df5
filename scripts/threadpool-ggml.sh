#!/usr/bin/env bash
# Builds, once, a ggml without OpenMP (GGML_OPENMP=OFF: its CPU backend meets at ggml's own
# spin barrier, ggml_barrier, as macOS builds and many self-built ones do) into a prefix cached
# in the forky root (scripts/forky-root.sh), for the capture's threadpool tests. Prints the
# prefix as the root sees it:
#   PREFIX/include           ggml's headers
#   PREFIX/lib               libggml.so.0, libggml-base.so.0 (run with LD_LIBRARY_PATH=PREFIX/lib)
#   PREFIX/lib/backends      libggml-cpu.so, dlopen'ed by ggml's backend loader (GGML_BACKEND_DL)
#   PREFIX/SOURCE            where the source came from, its SHA256, the options, the build time
#
#   scripts/threadpool-ggml.sh           build if needed, print PREFIX
#   scripts/threadpool-ggml.sh --help
#
# The source: Debian's mirror serves no source packages here, so ggml's source comes from the
# npm registry, pinned (package, version, SHA256 of the tarball): the upstream llama.cpp tree
# that @novastera-oss/llamarn ships, of which only ggml/ is kept (MIT, as ggml). It is ggml
# 0.22.0, Debian's CPU code a few releases older; the capture needs only its exported API.
# Built: ggml-base, ggml and the CPU backend only, one variant (GGML_NATIVE=OFF: AVX2, FMA,
# F16C, as Debian's haswell variant), as a dlopen'ed module like Debian's; no BLAS, Vulkan,
# RPC, tests or examples. The compiler (g++: the root has only gcc) is installed in a throwaway
# copy of the root (scripts/in-root.sh --scratch); only the prefix stays, in the root's /build.
# Exit status 1, nothing on stdout, when it cannot be built. Safe to run concurrently (flock).
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
    sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
PKG=@novastera-oss/llamarn@0.10.5
SHA=7d3f79118a7f0c0543145202535770b629840d98243200e7c7524db603316064
NAME=ggml-threadpool-0.22.0
OPTS=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGML_OPENMP=OFF -DGGML_BACKEND_DL=ON
      -DGGML_CPU_ALL_VARIANTS=OFF -DGGML_NATIVE=OFF -DGGML_BLAS=OFF -DGGML_VULKAN=OFF -DGGML_RPC=OFF
      -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF -DGGML_CCACHE=OFF)
IN=/build/$NAME
log() { [ -t 2 ] && echo "threadpool-ggml: $*" >&2 || true; }
die() { echo "threadpool-ggml: $*" >&2; exit 1; }

if [ "${1:-}" = --in-root ]; then
    # Inside a scratch copy of the root (scripts/in-root.sh --scratch): the compiler, then the build.
    export DEBIAN_FRONTEND=noninteractive
    { apt-get -qq -o Acquire::Check-Valid-Until=false -o Acquire::Retries=3 update &&
      apt-get install -y -qq -o Acquire::Retries=3 --no-install-recommends g++; } > "$IN/apt.log" 2>&1 ||
        { tail -20 "$IN/apt.log" >&2; die "installing g++ in the scratch root failed"; }
    rm -rf "$IN/obj" "$IN/prefix"
    t0=$(date +%s)
    cmake -S "$IN/src" -B "$IN/obj" "${OPTS[@]}" -DCMAKE_INSTALL_PREFIX="$IN/prefix" \
          -DGGML_BACKEND_DIR="$IN/prefix/lib/backends" > "$IN/build.log" 2>&1 &&
        nice -n 10 cmake --build "$IN/obj" -j 2 >> "$IN/build.log" 2>&1 &&
        cmake --install "$IN/obj" >> "$IN/build.log" 2>&1 ||
        { tail -30 "$IN/build.log" >&2; die "building ggml failed (log: $IN/build.log in the root)"; }
    t1=$(date +%s)
    # the module is installed where GGML_BACKEND_DIR says, for ggml's loader to find
    ls "$IN/prefix/lib/backends/"libggml-cpu*.so > /dev/null 2>&1 || die "no libggml-cpu*.so was installed"
    rm -rf "$IN/obj"
    echo "build: $((t1 - t0)) s on $(nproc) CPUs (cmake configure, build -j 2, install)" > "$IN/time"
    exit 0
fi

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(bash "$HERE/forky-root.sh")
DIR=$ROOT$IN
WANT=$(printf '%s\n' "$PKG" "$SHA" "${OPTS[@]}" | sha256sum | cut -c1-16)
STAMP=$DIR/.ready
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ]; then echo "$IN/prefix"; exit 0; fi
command -v npm > /dev/null || die "needs npm (the source is fetched from the npm registry)"
mkdir -p "$ROOT/build"
exec 9> "$DIR.lock"
flock 9
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ]; then echo "$IN/prefix"; exit 0; fi
rm -rf "$DIR"
mkdir -p "$DIR"
WORK=$(mktemp -d "$DIR.work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
log "npm pack $PKG (about 190 MB; ggml/ is kept)"
(cd "$WORK" && npm pack --silent "$PKG" > pack.log 2>&1) || { cat "$WORK/pack.log" >&2; die "npm pack $PKG failed"; }
tgz=$(ls "$WORK"/*.tgz)
got=$(sha256sum "$tgz" | cut -c1-64)
[ -z "$SHA" ] || [ "$got" = "$SHA" ] || die "$PKG: SHA256 $got, want $SHA"
mkdir -p "$DIR/src"
tar -xzf "$tgz" -C "$DIR/src" --strip-components=4 package/cpp/llama.cpp/ggml
rm -f "$tgz"
[ -f "$DIR/src/src/ggml-cpu/ggml-cpu.c" ] || die "$PKG has no ggml/src/ggml-cpu/ggml-cpu.c"
# the tree ships without ggml's pkg-config template, which a standalone configure reads
[ -f "$DIR/src/ggml.pc.in" ] || printf '%s\n' 'prefix=@CMAKE_INSTALL_PREFIX@' 'Name: ggml' \
    'Description: ggml without OpenMP' 'Version: @GGML_VERSION@' 'Libs: -L${prefix}/lib -lggml -lggml-base' \
    'Cflags: -I${prefix}/include' > "$DIR/src/ggml.pc.in"
log "building ggml (GGML_OPENMP=OFF, CPU backend only) in the root"
bash "$HERE/in-root.sh" --no-build --scratch bash /opscope/scripts/threadpool-ggml.sh --in-root >&2 ||
    die "the build in the root failed"
{
    echo "ggml/ of $PKG from the npm registry, tarball SHA256 $got"
    echo "cmake ${OPTS[*]}"
    cat "$DIR/time"
} > "$DIR/prefix/SOURCE"
rm -rf "$DIR/src"
echo "$WANT" > "$STAMP"
log "$(cat "$DIR/time")"
echo "$IN/prefix"
