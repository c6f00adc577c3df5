"""bench/python: HTA's TraceAnalysis and opscope.hta's side by side on the same traces, one
fresh Python process per run, in rotated order (HTA, opscope, HTA, opscope ...). run.sh's
header says what it measures; `run.sh --help` lists the options."""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CELL = os.path.join(HERE, "cell.py")
SIDES = ("hta", "opscope")
# the figures that both sides define the same way ("figures:" line); launch stats apart
COMPARED = ("temporal", "overlap", "kernel_type_sum", "kernel_sum", "idle", "queue")
# CPU time (user+sys) beside wall time: the steadier figure where other jobs load the machine
METRICS = (("process_wall_s", "process wall", "s"), ("process_cpu_s", "process CPU", "s"),
           ("process_rss_mib", "process peak RSS", "MiB"), ("cell_wall_s", "cell wall", "s"),
           ("cell_cpu_s", "cell CPU", "s"), ("cell_rss_mib", "cell peak RSS increase", "MiB"))


def _args(argv):
    ap = argparse.ArgumentParser(
        prog="bench/python/run.sh",
        description="HTA's TraceAnalysis against opscope.hta.TraceAnalysis: TraceAnalysis(trace_dir, "
        "include_last_profiler_step=True), the temporal, overlap, kernel, idle, queue and launch "
        "calls and critical_path_analysis(rank, 'ProfilerStep', 0), N fresh processes per side in "
        "rotated order; medians, min and max of process and notebook-cell wall time and peak RSS, "
        "and the ratios HTA/opscope.")
    ap.add_argument("traces", nargs="*", metavar="TRACE_DIR",
                    help="trace folders (default with --hta: DIR/tests/data/df_index_resolver and "
                    "DIR/tests/data/mtia_trace_single_rank)")
    ap.add_argument("--hta", metavar="DIR", help="a clone of HTA's repository (PYTHONPATH=DIR); "
                    "without it, or when DIR is missing, opscope only")
    ap.add_argument("--runs", type=int, default=5, metavar="N", help="runs per side and trace (5)")
    ap.add_argument("--json", metavar="FILE", help="write every run, the medians and ratios as JSON")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), metavar="DIR",
                    help="the build whose lib/libopscope.so.0 opscope's side loads (./build)")
    ap.add_argument("--installed", action="store_true",
                    help="opscope's side imports the installed opscope (no PYTHONPATH, no OPSCOPE_LIBRARY)")
    ap.add_argument("--python", default="/usr/bin/python3", metavar="PY", help="the interpreter (/usr/bin/python3)")
    a = ap.parse_args(argv)
    if a.runs < 1:
        ap.error("--runs must be at least 1")
    return a


class Progress:
    """Progress lines on stderr when it is a terminal; nothing otherwise."""

    def __init__(self):
        self.on = sys.stderr.isatty()

    def __call__(self, text):
        if self.on:
            print("bench/python: " + text, file=sys.stderr, flush=True)


def _env(side, a):
    """The child's environment: HTA's rounding off on both sides, and the side's module path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OPSCOPE_LIBRARY")}
    env["HTA_DISABLE_NS_ROUNDING"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if side == "hta":
        env["PYTHONPATH"] = os.path.abspath(a.hta)
    elif not a.installed:
        env["PYTHONPATH"] = os.path.join(ROOT, "python")
        env["OPSCOPE_LIBRARY"] = os.path.join(os.path.abspath(a.build), "lib", "libopscope.so.0")
    return env


def _run_once(side, trace, a, work, n, cpath):
    """One fresh process running cell.py; its measurements (the process's from wait4, the
    cell's from the child) or raises RuntimeError with the child's output."""
    out = os.path.join(work, "%s-%d.json" % (side, n))
    log = os.path.join(work, "%s-%d.log" % (side, n))
    cmd = [a.python, CELL, side, trace, out] + ([] if cpath else ["--no-cpath"])
    with open(log, "wb") as lf:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT, env=_env(side, a), cwd=work)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code != 0 or not os.path.exists(out):
        with open(log, errors="replace") as lf:
            tail = lf.read()[-3000:]
        raise RuntimeError("%s on %s: exit %d\n%s" % (side, trace, code, tail))
    with open(out) as f:
        r = json.load(f)
    # the child's reset of the high-water mark lowers ru_maxrss too: the process's peak is
    # the larger of the peak before the reset (the imports') and ru_maxrss (after it)
    r["process_wall_s"] = wall
    r["process_cpu_s"] = ru.ru_utime + ru.ru_stime
    r["process_rss_mib"] = max(ru.ru_maxrss, r["hwm_imports_kib"]) / 1024.0
    r["cell_wall_s"] = r["cell_s"]
    # the cell's peak: this process's, or a worker's it forked during the cell (HTA's parser
    # with several ranks: a worker's RSS counts the pages it shares with its parent, so while
    # the parent waits the worker's peak stands for both; workers side by side are not summed)
    peak = max(r["hwm_end_kib"], r["children_kib"])
    if not r["hwm_reset"]:  # no reset: the peak since the process started
        peak = max(peak, ru.ru_maxrss)
    r["cell_rss_mib"] = (peak - r["rss_imports_kib"]) / 1024.0
    r["cell_children_mib"] = r["children_kib"] / 1024.0
    r["figures_file"] = out
    return r


def _stats(runs, key):
    xs = [r[key] for r in runs]
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs)}


def _same(x, y):
    if isinstance(x, str) or isinstance(y, str):  # NaN, inf as text
        return x == y
    return abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))


def _compare(fh, fo, groups):
    """Differences between HTA's figures FH and opscope's FO in GROUPS, as text lines."""
    diffs = []
    for g in groups:
        a, b = fh.get(g, {}), fo.get(g, {})
        for key in sorted(set(a) | set(b)):
            if key not in b:
                diffs.append("%s %s: opscope has no row (HTA: %s)" % (g, key, a[key]))
                continue
            if key not in a:
                diffs.append("%s %s: HTA has no row (opscope: %s)" % (g, key, b[key]))
                continue
            for col in sorted(set(a[key]) | set(b[key])):
                x, y = a[key].get(col), b[key].get(col)
                if x is None or y is None or not _same(x, y):
                    diffs.append("%s %s %s: HTA %s, opscope %s" % (g, key, col, x, y))
    return diffs


def _figures_of(r):
    with open(r["figures_file"]) as f:
        return json.load(f)["figures"]


def _bench_trace(trace, a, sides, work, say):
    """Every run of SIDES on TRACE in rotated order; a dict of runs, stats and comparisons."""
    runs = {s: [] for s in sides}
    cpath, cpath_note, n = True, None, 0
    while min(len(runs[s]) for s in sides) < a.runs:
        for s in sides:
            n += 1
            say("%s: %s run %d/%d" % (os.path.basename(trace.rstrip("/")), s, len(runs[s]) + 1, a.runs))
            r = _run_once(s, trace, a, work, n, cpath)
            if r["cpath_error"]:
                if s != "hta":
                    raise RuntimeError("opscope's critical path failed on %s: %s" % (trace, r["cpath_error"]))
                # HTA's critical path stops on this trace: left out of both sides, every run so
                # far (this one tried it, earlier ones had it) not counted
                cpath, cpath_note = False, r["cpath_error"]
                runs = {x: [] for x in sides}
                say("HTA's critical path failed (%s): left out of both sides, runs start again" % r["cpath_error"])
                break
            runs[s].append(r)
    res = {"trace_dir": trace, "ranks": runs[sides[-1]][0]["ranks"], "critical_path": cpath,
           "critical_path_error": cpath_note, "runs": {}, "stats": {}}
    for s in sides:
        keep = [m for m, _, _ in METRICS] + ["cell_children_mib", "hwm_reset", "hwm_imports_kib",
                                              "rss_imports_kib", "hwm_end_kib", "calls"]
        res["runs"][s] = [{k: r[k] for k in keep} for r in runs[s]]
        res.setdefault("calls_s", {})[s] = {c: statistics.median(r["calls"][c] for r in runs[s])
                                            for c in runs[s][0]["calls"]}
        res.setdefault("children_mib", {})[s] = _stats(runs[s], "cell_children_mib")
        res["stats"][s] = {m: _stats(runs[s], m) for m, _, _ in METRICS}
    res["load"] = [float(x) for x in open("/proc/loadavg").read().split()[:3]]  # at the trace's end
    res["hwm_reset"] = all(r["hwm_reset"] for s in sides for r in runs[s])
    if len(sides) == 2:
        st = res["stats"]
        res["ratios"] = {m: st["hta"][m]["median"] / st["opscope"][m]["median"]
                         if st["opscope"][m]["median"] > 0 else math.inf for m, _, _ in METRICS}
        fh, fo = _figures_of(runs["hta"][0]), _figures_of(runs["opscope"][0])
        res["figure_differences"] = _compare(fh, fo, COMPARED)
        res["launch_differences"] = _compare(fh, fo, ("launch",))
    return res


def _json_size(path):
    """The bytes of JSON in PATH: a gzip file's own record of its size (its last 4 bytes, the
    size modulo 2^32), else the file's size."""
    if not path.endswith(".gz"):
        return os.path.getsize(path)
    with open(path, "rb") as f:
        f.seek(-4, os.SEEK_END)
        return int.from_bytes(f.read(4), "little")


def _print(res, sides):
    name = os.path.basename(res["trace_dir"].rstrip("/"))
    size = sum(_json_size(os.path.join(res["trace_dir"], f)) for f in os.listdir(res["trace_dir"])
               if f.endswith((".json", ".json.gz")))
    n = len(res["runs"][sides[0]])
    print("%s (%.1f MB of JSON, ranks %s), runs per side: %d, load at the end: %s" % (
        name, size / 1e6, ",".join(map(str, res["ranks"])), n, " ".join("%.2f" % x for x in res["load"])))
    if not res["critical_path"]:
        print("  critical path left out of both sides: HTA's stops (%s)" % res["critical_path_error"])
    head = "  %-30s" % "median (min-max)" + "".join("%-26s" % s for s in sides) + ("HTA/opscope" if len(sides) == 2 else "")
    print(head)
    for m, label, unit in METRICS:
        line = "  %-30s" % ("%s (%s)" % (label, unit))
        for s in sides:
            st = res["stats"][s][m]
            line += "%-26s" % ("%.3f (%.3f-%.3f)" % (st["median"], st["min"], st["max"]) if unit == "s"
                               else "%.1f (%.1f-%.1f)" % (st["median"], st["min"], st["max"]))
        if len(sides) == 2:
            line += "%.1f" % res["ratios"][m]
        print(line)
    for s in sides:
        ch = res["children_mib"][s]
        if ch["max"] > 0:
            print("  %s: its worker processes peaked at %.1f MiB RSS (median; the cell counts it)"
                  % (s, ch["median"]))
    for s in sides:
        text = "%s's calls, median wall s: %s" % (s, ", ".join(
            "%s %.3f" % (c, v) for c, v in res["calls_s"][s].items()))
        print(textwrap.fill(text, 100, initial_indent="  ", subsequent_indent="    "))
    if not res["hwm_reset"]:
        print("  /proc/self/clear_refs did not reset VmHWM in some runs: their cell's RSS increase is "
              "the process's peak (ru_maxrss) less the RSS after the imports")
    if len(sides) == 2:
        d = res["figure_differences"]
        print("  figures: equal" if not d else "  figures: %d differences" % len(d))
        for line in d:
            print("    " + line)
        ld = res["launch_differences"]
        print("  launch stats (rows, sums): equal" if not ld else "  launch stats: %d differences" % len(ld))
        for line in ld:
            print("    " + line)


def main(argv):
    a = _args(argv)
    say = Progress()
    hta_ok = bool(a.hta) and os.path.isdir(os.path.join(a.hta, "hta"))
    traces = a.traces
    if not traces and a.hta:
        traces = [os.path.join(a.hta, "tests", "data", d) for d in ("df_index_resolver", "mtia_trace_single_rank")]
    if not traces:
        print("bench/python: no TRACE_DIR and no --hta DIR: nothing to measure (--help)", file=sys.stderr)
        return 2
    for t in traces:
        if not os.path.isdir(t):
            print("bench/python: %s: not a folder of traces" % t, file=sys.stderr)
            return 2
    lib = os.path.join(os.path.abspath(a.build), "lib", "libopscope.so.0")
    if not a.installed and not os.path.exists(lib):
        print("bench/python: missing %s: build first (cmake --build %s --target opscope_shared)"
              % (lib, a.build), file=sys.stderr)
        return 2
    sides = SIDES if hta_ok else ("opscope",)
    if not hta_ok:
        print("HTA was not run (%s): opscope only" % ("no --hta" if not a.hta else "no HTA at " + a.hta))
    print("opscope: %s" % ("the installed package" if a.installed else "python/ with " + lib))
    work = tempfile.mkdtemp(prefix="opscope-bench-python.")
    out = {"python": a.python, "hta": os.path.abspath(a.hta) if hta_ok else None, "installed": a.installed,
           "library": None if a.installed else lib, "runs": a.runs, "traces": []}
    try:
        for t in traces:
            res = _bench_trace(os.path.abspath(t), a, sides, work, say)
            _print(res, sides)
            out["traces"].append(res)
    except RuntimeError as e:
        print("bench/python: %s" % e, file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
