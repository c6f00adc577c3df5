#!/usr/bin/env python3
"""A Kineto trace cut short is read up to its last complete event, with one warning.

Usage: check_cut.py OPSCOPE TRACE... (stored gzip-compressed; run from a scratch directory)

Each trace is cut at several bytes inside its events (a third, two thirds, three bytes before
its end) and written plain, gzip-compressed (the prefix compressed) and as a gzip stream cut
short itself. `opscope report --json` must exit 0 and print exactly one warning line that
names the file and the byte where the input ended; summary.kineto's event count and GPU
totals (kernels, memcpys, memsets: counts and ns) must equal what this script finds in the
complete events before the cut, decoding them one by one with Python's json (no opscope code).
A cut before the events array began (after a key that says it is a trace) stays an error
(exit 2, a position).
"""
import gzip
import json
import os
import subprocess
import sys

from trace_ref import D, check, failures, ns

KERNEL = {"kernel", "Kernel", "mtia_ccp_events"}
MEMCPY = {"gpu_memcpy", "Memcpy"}
MEMSET = {"gpu_memset", "Memset"}
def complete_events(text):
    """The events of TEXT's traceEvents array that are complete (decoded one at a time)."""
    dec = json.JSONDecoder(parse_float=D)
    i = text.index('"traceEvents"')
    i = text.index("[", i) + 1
    out = []
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        if i >= len(text) or text[i] == "]":
            return out
        try:
            ev, i = dec.raw_decode(text, i)
        except ValueError:
            return out
        out.append(ev)


def gpu_totals(events):
    t = {"kernels": 0, "kernel_ns": 0, "memcpy": 0, "memcpy_ns": 0, "memset": 0, "memset_ns": 0}
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat, dur = e.get("cat"), max(ns(e.get("dur")), 0)
        for key, key_ns, cats in (("kernels", "kernel_ns", KERNEL), ("memcpy", "memcpy_ns", MEMCPY),
                                  ("memset", "memset_ns", MEMSET)):
            if cat in cats:
                t[key] += 1
                t[key_ns] += dur
    return t


def report(opscope, path):
    out = path + ".report.json"
    p = subprocess.run([opscope, "report", "-q", "--json", out, path], capture_output=True, text=True)
    doc = json.load(open(out)) if p.returncode == 0 else None
    return p, doc


def main():
    opscope, traces = sys.argv[1], sys.argv[2:]
    n_cuts = 0
    for t in traces:
        raw = gzip.open(t, "rb").read()
        name = os.path.basename(t).replace(".json.gz", "")
        first = raw.index(b'"traceEvents"')
        for frac in (1 / 3, 2 / 3, None):
            cut = len(raw) - 3 if frac is None else first + int((len(raw) - first) * frac)
            prefix = raw[:cut]
            evs = complete_events(prefix.decode("utf-8", "replace"))
            want = gpu_totals(evs)
            plain = f"{name}_cut{cut}.json"
            with open(plain, "wb") as f:
                f.write(prefix)
            with gzip.open(plain + ".gz", "wb") as f:
                f.write(prefix)
            for path in (plain, plain + ".gz"):
                n_cuts += 1
                p, doc = report(opscope, path)
                if not check(p.returncode == 0, f"{path}: exit {p.returncode}: {p.stderr.strip()}"):
                    continue
                lines = [l for l in p.stderr.splitlines() if l.strip()]
                check(len(lines) == 1 and "warning" in lines[0] and path in lines[0] and
                      f"byte {cut} " in lines[0], f"{path}: want one warning naming byte {cut}: {lines}")
                k = doc["summary"]["kineto"]
                got = {x: k["gpu"][x] for x in want}
                check(got == want, f"{path}: kineto.gpu {got} != python's complete events {want}")
                check(k["events"]["all"] == len(evs),
                      f"{path}: {k['events']['all']} events read != {len(evs)} complete before byte {cut}")
                print(f"ok {path}: {len(evs)} complete events, {want['kernels']} kernels, warning: {lines[0][:90]}...")
        # the gzip stream itself cut short (an interrupted copy of a .gz file)
        whole = f"{name}_whole.json.gz"
        with gzip.open(whole, "wb") as f:
            f.write(raw)
        z = open(whole, "rb").read()
        zcut = f"{name}_zcut.json.gz"
        with open(zcut, "wb") as f:
            f.write(z[:len(z) // 2])
        p, doc = report(opscope, zcut)
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        if check(p.returncode == 0 and len(lines) == 1 and "cut short at byte" in lines[0],
                 f"{zcut}: exit {p.returncode}, stderr {lines}"):
            at = int(lines[0].split("cut short at byte ")[1].split()[0])
            evs = complete_events(raw[:at].decode("utf-8", "replace"))
            check(doc["summary"]["kineto"]["events"]["all"] == len(evs) and 0 < at < len(raw),
                  f"{zcut}: {doc['summary']['kineto']['events']['all']} events != {len(evs)} before byte {at}")
        # cut before the events began: still an error with a position (when a key before them
        # says it is a trace: a bare '{"traceEvents":' could be anything, the ggml reader says)
        if raw[:first].strip() == b"{":
            continue
        early = f"{name}_early.json"
        with open(early, "wb") as f:
            f.write(raw[:first + len(b'"traceEvents"') + 1])
        p = subprocess.run([opscope, "report", early], capture_output=True, text=True)
        check(p.returncode == 2 and early in p.stderr, f"{early}: exit {p.returncode}: {p.stderr.strip()}")
    check(n_cuts >= 6, f"only {n_cuts} cuts checked")
    print(f"{n_cuts} cuts, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
