#!/usr/bin/env bash
# deb_check.sh BUILD WORK REPO: the Debian package of BUILD (CPack, as `make deb` makes it) holds
# the library with its soname link and the ldconfig trigger, and the Python package under
# lib/python3/dist-packages; unpacked anywhere, that module imports and finds the library
# beside the others through the path cmake --install wrote (_installed.py).
set -euo pipefail
build=$1 work=$2 repo=$3
rm -rf "$work"
mkdir -p "$work"
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/out" -D CPACK_OUTPUT_FILE_PREFIX="$work/out" >/dev/null
deb=$(ls "$work"/out/*.deb)
dpkg-deb -x "$deb" "$work/root"
fail() { echo "FAIL: $*"; exit 1; }
dpkg-deb -I "$deb" triggers | grep -q "activate-noawait ldconfig" || fail "no ldconfig trigger"
dpkg-deb -I "$deb" shlibs | grep -q "libopscope 0" || fail "no shlibs entry for libopscope.so.0"
mod=$(find "$work/root" -path '*/lib/python3/dist-packages/opscope/__init__.py')
[ -n "$mod" ] || fail "no opscope module under lib/python3/dist-packages"
[ -n "$(find "$work/root" -name libopscope.so.0 -type l)" ] || fail "no libopscope.so.0 link"
cd "$work"
env -u OPSCOPE_LIBRARY PYTHONPATH="$(dirname "$(dirname "$mod")")" /usr/bin/python3 - "$work/root" "$repo" <<'PY'
import os, sys
import opscope
root, repo = (os.path.realpath(p) for p in sys.argv[1:3])
lib = os.path.realpath(opscope.library_path)
if not lib.startswith(root + os.sep) or "python3" in lib:
    sys.exit("FAIL: library %s is not the package's, beside the other libraries" % lib)
p = opscope.load(os.path.join(repo, "tests", "read", "data", "seed_v3.json"))
if len(p.ops) != 8:
    sys.exit("FAIL: %d op groups from the packaged library" % len(p.ops))
print("package: %s imports, library %s" % (os.path.relpath(opscope.__file__, root), os.path.relpath(lib, root)))
PY
