"""PyTorch's memory timeline (`opscope report TIMELINE`, docs/kineto.md "Memory timeline")
against this script's own pass over the entries and against Holistic Trace Analysis' figures
on the same file (HTA's tests/data/memory_analysis, copied as hta/memory_timeline.raw.gz), and
bad timelines refused with the byte offset of the entry, exit 2 and no file written.

usage: check_mem_timeline.py OPSCOPE HTA_DIR WORK_DIR
"""
import gzip
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checklist import check, failures  # noqa: E402

CATS = ["Parameter", "Optimizer state", "Input", "Temporary", "Activation", "Gradient", "Autograd detail", "Unknown"]
# HTA 0.5: MemoryAnalysis(path)._process_raw_events() on tests/data/memory_analysis, then numpy:
# np.argmax of the per-point sum, sizes.max(axis=0) and argmax per category, sizes[-1].
HTA_POINTS = 7721
HTA_PEAK = (3082832104, 1696966047194486198,
            [102440608, 102228128, 19395584, 0, 2592465920, 67858432, 64225280, 134218152])
HTA_CAT_PEAK = [102440608, 102228128, 19395584, 129024, 2746497024, 107868160, 256901120, 168297384]
HTA_CAT_PEAK_NS = [1696966047096061874, 1696966047096061874, 1696966047096061874, 1696966047173267568,
                   1696966047173724095, 1696966047282455056, 1696966047258807253, 1696966047254006353]
HTA_FINAL = [102440608, 102228128, 19395584, 0, 128000, 107868160, 0, 424]


def reference(entries):
    """The points as HTA forms them: a new one where the time changes; -1 becomes t_min."""
    times, sizes, t_min = [], [], -1
    for t, _, nb, cat in entries:
        if t_min == -1 or (0 < t < t_min):
            t_min = t
        if not times or t != times[-1]:
            times.append(t)
            sizes.append(list(sizes[-1]) if sizes else [0] * 8)
        sizes[-1][cat] += nb
    times = [t_min if t < 0 else t for t in times]
    totals = [sum(s) for s in sizes]
    i = totals.index(max(totals))
    cat_peak = [max(s[c] for s in sizes) for c in range(8)]
    cat_at = [times[[s[c] for s in sizes].index(cat_peak[c])] for c in range(8)]
    return len(times), (totals[i], times[i], sizes[i]), cat_peak, cat_at, sizes[-1]


def run(opscope, *args):
    return subprocess.run([opscope, "report", *args], capture_output=True, text=True)


def summary(opscope, path, out):
    p = run(opscope, path, "-q", "--json", out)
    check(p.returncode == 0, f"report {path}: exit {p.returncode} {p.stderr.strip()}")
    with open(out) as f:
        return json.load(f)["summary"]["memory_timeline"]


def figures(m):
    cat = lambda k: [m[k][c] for c in CATS]  # noqa: E731
    return (m["points"], (m["peak_total_bytes"], m["peak_ns"], cat("at_peak_bytes")),
            cat("category_peak_bytes"), cat("category_peak_ns"), cat("final_bytes"))


def bad(opscope, work, name, text, offset, words):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(work, name + ".out.json")
    p = run(opscope, path, "--json", out)
    check(p.returncode == 2, f"{name}: exit {p.returncode} (2)")
    check(f"byte {offset}" in p.stderr or f":{offset + 1}:" in p.stderr, f"{name}: offset {offset} in {p.stderr.strip()!r}")
    check(words in p.stderr, f"{name}: says {words!r}: {p.stderr.strip()!r}")
    check(not os.path.exists(out), f"{name}: no JSON written")


def main():
    opscope, hta, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    path = os.path.join(hta, "memory_timeline.raw.gz")
    with gzip.open(path, "rt") as f:
        entries = json.load(f)
    m = summary(opscope, path, os.path.join(work, "mem.json"))
    got = figures(m)
    check(got == reference(entries), f"opscope {got[:2]} != the script's {reference(entries)[:2]}")
    check(got == (HTA_POINTS, HTA_PEAK, HTA_CAT_PEAK, HTA_CAT_PEAK_NS, HTA_FINAL), f"opscope {got[:2]} != HTA's")
    check(m["entries"] == len(entries) and m["preexisting"] == sum(1 for e in entries if e[0] < 0), "entries")
    # the console names the peak
    p = run(opscope, path)
    check(p.returncode == 0 and "3082832104 bytes" in p.stdout, f"console: {p.stdout[:200]!r}")
    # a small one worked out by hand: two points after the pre-existing one, peak 300 at t=20
    tiny = [[-1, 1, 100, 0], [10, 2, 50, 4], [20, 2, 150, 4], [20, 4, -50, 4], [30, 4, -150, 4]]
    tp = os.path.join(work, "tiny.raw.json")
    with open(tp, "w") as f:
        json.dump(tiny, f)
    t = summary(opscope, tp, os.path.join(work, "tiny.json"))
    check((t["points"], t["peak_total_bytes"], t["peak_ns"], t["first_ns"]) == (4, 250, 20, 10),
          f"tiny: {t['points']} points, peak {t['peak_total_bytes']} at {t['peak_ns']}")
    check(t["category_peak_ns"]["Parameter"] == 10 and t["final_bytes"]["Activation"] == 0, "tiny: categories")
    # bad input: where and what
    bad(opscope, work, "cat.json", "[[-1, 1, 8, 7], [5, 2, 8, 9]]", 16, "category")
    bad(opscope, work, "short.json", "[[-1, 1, 8, 7], [5, 2, 8]]", 16, "4 integers")
    bad(opscope, work, "float.json", "[[-1, 1, 8, 7], [5, 2, 8.5, 1]]", 23, "4 integers")
    bad(opscope, work, "after.json", "[[1, 2, 8, 7]] x", 15, "")
    # torch's plain .json export: [times, sizes], said so
    bad(opscope, work, "stacked.json", "[[1, 2, 3, 4, 5], [[0, 0, 0, 0, 0, 0, 0, 8]]]", 14, ".raw.json.gz")
    p = run(opscope, tp, "--chrome-trace", os.path.join(work, "c.json"))
    check(p.returncode == 1 and "not for a memory timeline" in p.stderr, f"--chrome-trace refused: {p.stderr.strip()}")
    print("check_mem_timeline: %s" % ("FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
