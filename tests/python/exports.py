#!/usr/bin/env python3
"""exports.py LIB REPO: libopscope.so's soname carries the major version, and its dynamic
symbols are exactly the functions declared OPSCOPE_API in include/opscope.h and
src/py/opscope_py.h (read from the headers here, not from the library)."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checklist import check, failures  # noqa: E402

lib, repo = sys.argv[1], sys.argv[2]
declared = set()
for h in ("include/opscope.h", "src/py/opscope_py.h"):
    text = open(os.path.join(repo, h)).read()
    declared |= set(re.findall(r"OPSCOPE_API\s[^;(]*?\b(opscope_\w+)\s*\(", text))
out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
exported = {l.split()[-1].split("@")[0] for l in out.splitlines() if l.split()[1:2] in (["T"], ["W"])}
check(len(declared) > 30, "the headers declare the API (%d functions)" % len(declared))
check(exported == declared, "exports == the declared API: extra %s, missing %s"
      % (sorted(exported - declared)[:10], sorted(declared - exported)[:10]))
dyn = subprocess.run(["readelf", "-d", lib], capture_output=True, text=True, check=True).stdout
m = re.search(r"Library soname: \[(.*?)\]", dyn)
check(m and re.fullmatch(r"libopscope\.so\.\d+", m.group(1)), "versioned soname: %s" % (m and m.group(1)))
check("NEEDED" in dyn and "libz" in dyn, "links zlib itself")
print("%d functions exported, soname %s" % (len(exported), m and m.group(1)))
sys.exit(1 if failures else 0)
