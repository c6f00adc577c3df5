#!/usr/bin/env bash
# venv_install.sh REPO BUILD WORK: the package installed as docs/python.md says, into a fresh
# venv over Debian's Python (setuptools, wheel, numpy and pandas from the system), with no
# network: pip may use no index, and the library comes from BUILD (OPSCOPE_BUILD_DIR: setup.py
# builds its target there, the rest of the build untouched). A copy of python/ is installed so
# that the build leaves nothing in the repository. Then `import opscope` from elsewhere must
# find the installed module and the library beside it.
set -euo pipefail
repo=$1 build=$2 work=$3
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
rm -rf "$work"
mkdir -p "$work"
cp -r "$repo/python" "$work/src"
"$py" -m venv --system-site-packages "$work/venv"
# no network: no index, no proxy that could reach one
env -u http_proxy -u https_proxy -u HTTP_PROXY -u HTTPS_PROXY PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    OPSCOPE_BUILD_DIR="$build" "$work/venv/bin/pip" install -q --no-build-isolation --no-index \
    --no-cache-dir "$work/src"
cd "$work"
env -u OPSCOPE_LIBRARY -u PYTHONPATH "$work/venv/bin/python" - "$work/venv" <<'PY'
import os, sys
import opscope
venv = os.path.realpath(sys.argv[1])
mod = os.path.realpath(opscope.__file__)
lib = os.path.realpath(opscope.library_path)
ok = mod.startswith(venv + os.sep) and os.path.dirname(lib) == os.path.dirname(mod)
print("import opscope: %s, library %s" % (mod, lib))
if not ok:
    sys.exit("FAIL: the module or its library is not the venv's installed copy")
PY
