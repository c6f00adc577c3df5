#!/usr/bin/env bash
# Installs the host packages opscope's build and tests need (Debian). Idempotent and quiet
# when everything is present. Other areas' set-up (the forky root, the browser test tools)
# has its own script, called from the tests that need it.
set -euo pipefail

# libsqlite3-dev: report --sqlite; help2man: the man pages; pkgconf, dpkg-dev, file: the
# install and package checks (pkg-config files, dpkg-shlibdeps for the package's Depends);
# tmux: the terminal that `opscope top`'s live test drives; python3-venv, -pip, -setuptools,
# -wheel, -numpy, -pandas: the Python package's offline install and its tests (docs/python.md).
pkgs=(cmake make gcc clang libclang-rt-14-dev zlib1g-dev python3 debootstrap libsqlite3-dev
      help2man pkgconf dpkg-dev file man-db tmux python3-venv python3-pip python3-setuptools
      python3-wheel python3-numpy python3-pandas python3-nbclient python3-ipykernel)  # nbclient: docs/hta.ipynb
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
