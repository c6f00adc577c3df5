#!/usr/bin/env bash
# `cmake --install` of the host build into a fresh prefix, then moved elsewhere (the tree is
# relocatable): the CLI runs from it, a C program using opscope.h builds against the installed
# library through pkg-config and through find_package(opscope) and reads a profile, the man
# pages render, the docs are there. (Recording with the installed library is checked in the
# forky root: tests/package/package-in-root.sh.)
#   usage: install_check.sh BUILD_DIR WORK_DIR
set -uo pipefail
B=$1 W=$2
SRC=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$W"
mkdir -p "$W"
fail=0
check() { if [ "$2" != "$3" ]; then echo "FAIL $1: expected '$2', got '$3'"; fail=1; else echo "ok   $1"; fi; }

# a sanitized build (make asan / tsan) installs sanitized libraries: link the checks alike
SAN=$(sed -n 's/^OPSCOPE_SANITIZE:STRING=//p' "$B/CMakeCache.txt")
SANFLAGS=${SAN:+-fsanitize=$SAN}
cmake --install "$B" --prefix "$W/first" > "$W/install.log" 2>&1
check "cmake --install exits 0" 0 $?
mv "$W/first" "$W/moved"
P=$W/moved
LIBDIR=$(cd "$P" && dirname "$(find . -name libopscope.a | head -1)" | sed 's|^\./||')
for f in bin/opscope include/opscope.h include/ggml-profiler.h "$LIBDIR/libopscope.a" \
         "$LIBDIR/pkgconfig/opscope.pc" "$LIBDIR/cmake/opscope/opscope-config.cmake" \
         "$LIBDIR/cmake/opscope/opscope-config-version.cmake" share/doc/opscope/README.md \
         share/doc/opscope/formats.md share/man/man1/opscope.1.gz share/man/man1/opscope-report.1.gz \
         share/man/man1/opscope-record.1.gz share/man/man1/opscope-view.1.gz share/man/man1/opscope-merge.1.gz \
         share/doc/opscope/LICENSE share/doc/opscope/copyright \
         share/man/man1/opscope-replay.1.gz share/man/man1/opscope-top.1.gz share/man/man1/opscope-ctl.1.gz share/doc/opscope/replay.md \
         share/doc/opscope/cli.md share/doc/opscope/install.md; do
    check "installed $f" yes "$([ -f "$P/$f" ] && echo yes || echo no)"
done
check "installed LICENSE is the repository's" yes "$(cmp -s "$SRC/LICENSE" "$P/share/doc/opscope/LICENSE" && echo yes || echo no)"
# Debian's copyright format: the licence text indented one space, blank lines as " .";
# undone here, it must give LICENSE's text after its title and copyright line
check "copyright file carries LICENSE (Expat)" yes "$(python3 - "$SRC/LICENSE" "$P/share/doc/opscope/copyright" <<'PY'
import sys
lic = open(sys.argv[1]).read().split("\n")
cp = open(sys.argv[2]).read().split("\n")
holder = lic[2].replace("Copyright (c) ", "")
i = cp.index("License: Expat")
body = [l[1:] if l != " ." else "" for l in cp[i + 1:] if l.startswith(" ")]
ok = ("Copyright: " + holder) in cp and lic[0] == "MIT License" and body == [l for l in lic[4:]][:len(body)] \
     and len(body) == len(lic[4:]) - (1 if lic[-1] == "" else 0)
print("yes" if ok else "no: %r" % body[:3])
PY
)"
check "installed opscope --version" "opscope 0.1.0" "$("$P/bin/opscope" --version)"
"$P/bin/opscope" report "$SRC/tests/read/data/v2_small.json" -q --sqlite "$W/s.db"
check "installed opscope report --sqlite" 0 $?
if command -v man > /dev/null; then
    check "man page of opscope report renders its options" yes \
        "$(MANWIDTH=100 man -l "$P/share/man/man1/opscope-report.1.gz" 2>/dev/null | grep -q -- '--sqlite' && echo yes || echo no)"
fi

# a program reading a profile through the installed opscope.h / libopscope.a
cat > "$W/count.c" <<'C'
#include <opscope.h>
#include <stdio.h>
static int n;
static int on_record(void *ud, const opscope_record *r) { (void)ud; n += r->type == OPSCOPE_RECORD_OP; return 0; }
int main(int argc, char **argv) {
    opscope_sink s = {0};
    s.on_record = on_record;
    opscope_error err;
    if (argc < 2 || opscope_read_file(argv[1], OPSCOPE_FORMAT_AUTO, &s, &err)) return 2;
    printf("%d\n", n);
    return 0;
}
C
want=$(python3 -c "import json,sys; print(sum(1 for r in json.load(open(sys.argv[1]))['records'] if r.get('type',0)==0))" \
       "$SRC/tests/read/data/v2_small.json")
# shellcheck disable=SC2046,SC2086 # pkg-config prints a list of flags
gcc -std=c11 -Wall -Werror $SANFLAGS "$W/count.c" -o "$W/count_pc" \
    $(PKG_CONFIG_PATH="$P/$LIBDIR/pkgconfig" pkg-config --cflags --libs --static opscope) 2> "$W/cc.log"
check "pkg-config opscope: builds" 0 $?
check "pkg-config opscope: reads the profile" "$want" "$("$W/count_pc" "$SRC/tests/read/data/v2_small.json")"

mkdir -p "$W/cm"
cp "$W/count.c" "$W/cm/"
cat > "$W/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(count C)
find_package(opscope 0.1 REQUIRED)
add_executable(count count.c)
target_link_libraries(count PRIVATE opscope::opscope)
CM
cmake -S "$W/cm" -B "$W/cm/b" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_FLAGS="$SANFLAGS" > "$W/cm.log" 2>&1 &&
    cmake --build "$W/cm/b" >> "$W/cm.log" 2>&1
check "find_package(opscope): builds" 0 $?
check "find_package(opscope): reads the profile" "$want" "$("$W/cm/b/count" "$SRC/tests/read/data/v2_small.json" 2>&1)"

[ $fail = 0 ] && rm -rf "$W"
echo "$([ $fail = 0 ] && echo passed || echo FAILED)"
exit $fail
