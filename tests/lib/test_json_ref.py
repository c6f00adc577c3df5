#!/usr/bin/env python3
"""lib.json_ref: us_to_ns against conversions worked out by hand (ties away from zero), and
load_json of one document written plain and gzip-compressed (a .json name for the gzip one:
told by its bytes), its fractions exact Decimals."""
import decimal
import gzip
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from json_ref import load_json, us_to_ns  # noqa: E402

D = decimal.Decimal
bad = []


def expect(got, want, what):
    if got != want or type(got) is not type(want):
        bad.append(what)
        print("FAIL: %s: got %r, want %r" % (what, got, want))


# microseconds -> ns: 1.5 us = 1500 ns; 0.0005 us = 0.5 ns -> 1; -0.0005 -> -1; 0.0004 -> 0;
# 2.0015 us = 2001.5 ns -> 2002; 7 (int) = 7000; "12.3456789" = 12345.6789 -> 12346
for v, want in (("1.5", 1500), (D("0.0005"), 1), (D("-0.0005"), -1), (D("0.0004"), 0), (None, 0),
                (D("2.0015"), 2002), (7, 7000), ("12.3456789", 12346), (D("-2.0015"), -2002)):
    expect(us_to_ns(v), want, "us_to_ns(%r)" % (v,))

text = '{"traceEvents": [{"ts": 1.25, "dur": 3, "name": "k\\u00e9"}], "x": 0.1}'
want = {"traceEvents": [{"ts": D("1.25"), "dur": 3, "name": "k\u00e9"}], "x": D("0.1")}
with tempfile.TemporaryDirectory() as d:
    plain, packed = os.path.join(d, "a.json"), os.path.join(d, "b.json")
    with open(plain, "w", encoding="utf-8") as f:
        f.write(text)
    with open(packed, "wb") as f:
        f.write(gzip.compress(text.encode("utf-8")))
    for path in (plain, packed):
        doc = load_json(path)
        expect(doc, want, "load_json(%s)" % os.path.basename(path))
        expect(doc["x"], D("0.1"), "a fraction as a Decimal (%s)" % os.path.basename(path))

print("json_ref: %d checks failed" % len(bad) if bad else "json_ref: all checks passed")
sys.exit(1 if bad else 0)
