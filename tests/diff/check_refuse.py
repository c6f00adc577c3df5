#!/usr/bin/env python3
"""`opscope diff` of a ggml profile against a Kineto trace is refused, never an all-zero table.

Usage: check_refuse.py OPSCOPE DATA_DIR WORK_DIR

A ggml profile (DATA_DIR/ggml) against a Kineto trace (DATA_DIR/kineto, and the CPU-only one
of tests/kineto/traces), in both orders, also with several runs a side and with --json: exit
status 2, one line on stderr naming both files and saying why, nothing on stdout, no JSON
file. As a control, two ggml profiles and two Kineto traces still compare (exit 0).
"""
import glob
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checklist import check, failures  # noqa: E402


def main():
    opscope, data, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    ggml = sorted(glob.glob(os.path.join(data, "ggml", "*.json.gz")))[:2]
    kin = sorted(glob.glob(os.path.join(data, "kineto", "*.json.gz")))[:2]
    cpu_only = os.path.join(data, "..", "..", "kineto", "traces", "cpu_only_rank34.json.gz")
    cases = [[ggml[0], kin[0]], [kin[0], ggml[0]], [ggml[0], cpu_only],
             [ggml[0], ggml[1], "--", kin[0], kin[1]], [kin[0], "--", kin[1], ggml[1]]]
    for args in cases:
        out = os.path.join(work, "refused.json")
        if os.path.exists(out):
            os.remove(out)
        p = subprocess.run([opscope, "diff", *args, "--json", out], capture_output=True, text=True)
        label = " ".join(os.path.basename(a) for a in args)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2, f"{label}: exit {p.returncode}, want 2")
        check(len(lines) == 1 and "ggml profile" in lines[0] and "Kineto" in lines[0],
              f"{label}: stderr {lines}")
        paths = [a for a in args if a != "--"]
        check(len(lines) == 1 and any(os.path.basename(a) in lines[0] for a in paths if a in ggml)
              and any(os.path.basename(a) in lines[0] for a in paths if a not in ggml),
              f"{label}: the message names no file of each kind: {lines}")
        check(p.stdout == "" and not os.path.exists(out), f"{label}: wrote output: {p.stdout[:200]!r}")
    for a, b in ((ggml[0], ggml[1]), (kin[0], kin[1])):
        p = subprocess.run([opscope, "diff", "-q", a, b], capture_output=True, text=True)
        check(p.returncode == 0, f"control {os.path.basename(a)} vs {os.path.basename(b)}: exit {p.returncode} "
                                 f"{p.stderr.strip()[:200]}")
    print(f"{len(cases)} refused cases, 2 controls, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
