#!/usr/bin/env bash
# Runs every test: the CTest suite of build folder $1 (default build). Each tests/<area>/
# registers its own tests there, set-ups included as CTest fixtures that install what they
# need: the forky-root capture tests (tests/capture_e2e, tests/capture_api; skipped without
# root) make the root and build opscope inside it, the browser tests (tests/viewer) install
# their npm packages. tests/compilers builds the whole tree, tests included, a second time
# with the other compiler (clang beside gcc) at -Werror into $1/tests/compilers/clang, so a
# warning only clang gives fails the run (about 35 s of CPU from nothing, a few seconds after).
set -euo pipefail
BUILD=${1:-build}
cd "$(dirname "$0")/.."
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc 2>/dev/null || echo 2)"
