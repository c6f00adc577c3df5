#!/usr/bin/env python3
"""lib.checklist: check() returns its condition, prints "FAIL: WHAT" for a failed one only and
keeps the failures in order in the shared `failures` list that the scripts importing it read."""
import contextlib
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checklist  # noqa: E402
from checklist import check, failures  # noqa: E402

out = io.StringIO()
with contextlib.redirect_stdout(out):
    got = [check(True, "a"), check(0, "b"), check([], "c"), check(1, "d")]
bad = []
if got != [True, 0, [], 1]:
    bad.append("returns %r, want [True, 0, [], 1]" % (got,))
if out.getvalue() != "FAIL: b\nFAIL: c\n":
    bad.append("printed %r, want 'FAIL: b\\nFAIL: c\\n'" % out.getvalue())
if failures != ["b", "c"] or checklist.failures is not failures:
    bad.append("failures %r, want ['b', 'c'] (one list)" % (failures,))
for b in bad:
    print("FAIL:", b)
print("checklist: %d of 3 checks failed" % len(bad) if bad else "checklist: all 3 checks passed")
sys.exit(1 if bad else 0)
