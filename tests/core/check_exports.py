#!/usr/bin/env python3
"""The symbols a shared object made of the core library exports are exactly opscope.h's API.

Usage: check_exports.py LIB HEADER

The expected list is every function HEADER declares with OPSCOPE_API (read from the text of
the header); the actual one is `nm -D --defined-only LIB`, less the reserved names (leading
underscore) a toolchain or sanitizer may add. Both differences are printed.
"""
import re
import subprocess
import sys


def main():
    lib, header = sys.argv[1], sys.argv[2]
    text = open(header).read()
    want = set(re.findall(r"^OPSCOPE_API\b[^;(]*?\b(\w+)\s*\(", text, re.M))
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                         check=True).stdout
    got = {line.split()[-1] for line in out.splitlines() if line.strip()}
    got = {s.split("@")[0] for s in got if not s.startswith("_")}
    fails = 0
    if len(want) < 15:
        print(f"FAIL: only {len(want)} OPSCOPE_API functions found in {header}")
        fails += 1
    for s in sorted(got - want):
        print(f"FAIL: {s} is exported but not marked OPSCOPE_API in {header}")
        fails += 1
    for s in sorted(want - got):
        print(f"FAIL: {s} is marked OPSCOPE_API but not exported")
        fails += 1
    print(f"{len(want)} API functions, {len(got)} exported; {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
