#!/usr/bin/env python3
"""Every CPU thread's work and wait at ggml's own threadpool barrier, and at OpenMP's.

t_tpool.py: tpool_graph.c (a graph of 8 nodes, two MUL_MATs among them, computed 40 times with
2 threads) built twice: against the ggml without OpenMP (scripts/threadpool-ggml.sh, run
with LD_LIBRARY_PATH to its prefix; its CPU backend meets at ggml_barrier, a PLT call
`objdump -R` lists, and imports no GOMP_barrier) and against Debian's OpenMP ggml (whose
ggml_barrier calls GOMP_barrier). For each, under the capture with tpcount.c (an independent
count of the barriers every thread met in each compute) ahead of it: the program's output
unchanged (the threadpool one with OPSCOPE_FORCE=1: it is ggml 0.22.0, the capture is built
against Debian's 0.27.0); every compute but at most the first carries per-thread times, every record of those
for both threads; for every thread work + wait over a compute's nodes within 2% of the compute's
span on thread 0 (its records' durations, as t_threads.py checks on llama-bench); the barrier
arrivals the capture noted in those computes (OPSCOPE_STATS' thr_barriers) equal tpcount's
count over the same computes, so each barrier is counted once in the OpenMP build although
both its ggml_barrier and its GOMP_barrier reach the capture; no line says per-thread timing
is unavailable. With 1 thread: no per-thread times and no such line.
"""
import glob
import os
import re
import subprocess
import sys

import e2e

e2e.need_preload()
d = e2e.outdir("tpool")
N = 40
ready = sorted(glob.glob("/build/ggml-threadpool-*/.ready"))
if not ready:
    # the fixture (capture_e2e.tpool_setup) builds it; its absence is a failure, not a skip
    e2e.check(False, "the threadpool ggml is built (scripts/threadpool-ggml.sh): no /build/ggml-threadpool-*/.ready")
    e2e.finish()
PREFIX = os.path.join(os.path.dirname(ready[-1]), "prefix")
LIB = os.path.join(PREFIX, "lib")


def build():
    src = os.path.join(e2e.HERE, "tpool_graph.c")
    flags = ["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror"]
    subprocess.run(flags + [src, "-o", f"{d}/graph-omp", "-lggml", "-lggml-base"], check=True)
    subprocess.run(flags + ["-I", os.path.join(PREFIX, "include"), src, "-o", f"{d}/graph-tpool", "-L", LIB,
                            "-lggml", "-lggml-base"], check=True)
    subprocess.run(flags + ["-shared", "-fPIC", os.path.join(e2e.HERE, "tpcount.c"), "-o", f"{d}/tpcount.so", "-ldl"],
                   check=True)


def check_build():
    cpu = glob.glob(os.path.join(LIB, "backends", "libggml-cpu*.so"))
    e2e.check(len(cpu) == 1, f"the threadpool ggml has one CPU backend module ({cpu})")
    if cpu:
        rel = subprocess.run(["objdump", "-R", cpu[0]], capture_output=True, text=True).stdout
        e2e.check(re.search(r"JUMP_SLOT\s+ggml_barrier\b", rel) is not None and "GOMP_barrier" not in rel,
                  "its ggml_barrier is called through the PLT, and it imports no GOMP_barrier")


def env(kind, pre, extra=None):
    # the threadpool ggml is 0.22.0, the capture is built against Debian's: OPSCOPE_FORCE=1
    x = {"LD_LIBRARY_PATH": LIB, "OPSCOPE_FORCE": "1"} if kind == "tpool" else {}
    x.update(extra or {})
    return e2e.env_for(pre, extra=x)


def stats_barriers(err):
    m = re.findall(r"opscope: stats: .*? thr_barriers=(\d+)", err)
    return int(m[-1]) if m else None


def check_kind(kind):
    exe = f"{d}/graph-{kind}"
    rc0, out0, err0 = e2e.run([exe, str(N), "2"], env(kind, []))
    e2e.check(rc0 == 0 and out0.endswith(b"ok\n"), f"{kind}: the program computes right without the capture ({out0!r} {err0[-200:]!r})")
    prof_path, cnt = f"{d}/{kind}.json", f"{d}/{kind}.barriers"
    e1 = env(kind, [f"{d}/tpcount.so", e2e.PRELOAD],
             {"GGML_PROFILE": prof_path, "OPSCOPE_STATS": "1", "OPSCOPE_TEST_BARRIERS": cnt})
    rc, out, err = e2e.run([exe, str(N), "2"], e1)
    e2e.check(rc == 0 and out == out0, f"{kind}: the same output under the capture ({out!r} {err[-300:]!r})")
    prof = e2e.load_checked(prof_path)
    with open(cnt) as f:
        counts = [int(line.split()[1]) for line in f]
    graphs = e2e.graphs_of(prof)
    e2e.check(len(graphs) == N and len(counts) == N, f"{kind}: {len(graphs)} graph computes recorded, "
                                                     f"{len(counts)} counted, {N} made")
    th = [(i, g, recs) for i, (g, recs) in enumerate(graphs) if any("threads" in r for r in recs)]
    e2e.check(len(th) >= N - 1, f"{kind}: {len(th)} of {len(graphs)} computes carry per-thread times (all but at most the first)")
    partial = [g for _, g, recs in th if not all(len(r.get("threads", [])) == 4 for r in recs)]
    e2e.check(th and not partial, f"{kind}: every record of those has both threads' work and wait ({partial[:5]})")
    bad = []
    for _, g, recs in th:
        span = sum(r["duration_ns"] for r in recs)
        for t in range(2):
            s = sum(r["threads"][2 * t] + r["threads"][2 * t + 1] for r in recs)
            if abs(s - span) > 0.02 * span:
                bad.append((g, t, s, span))
    e2e.check(th and not bad, f"{kind}: every thread's work + wait within 2% of the compute's span on thread 0 "
                              f"(worst [graph, thread, sum, span]: {sorted(bad, key=lambda b: -abs(b[2] - b[3]) / b[3])[:3]})")
    want = sum(counts[i] for i, _, _ in th if i < len(counts))
    got = stats_barriers(err)
    per = sorted({counts[i] for i, _, _ in th if i < len(counts)})
    e2e.check(got == want and want > 0, f"{kind}: barrier arrivals noted {got} == tpcount's {want} over the "
                                        f"{len(th)} timed computes ({per} per compute, both threads)")
    e2e.check("per-thread CPU timing unavailable" not in err, f"{kind}: no line says per-thread timing is unavailable")
    rc1, out1, err1 = e2e.run([exe, "5", "1"], env(kind, [e2e.PRELOAD], {"GGML_PROFILE": f"{d}/{kind}-t1.json"}))
    p1 = e2e.load_checked(f"{d}/{kind}-t1.json")
    e2e.check(rc1 == 0 and not any("threads" in r for r in e2e.op_records(p1)),
              f"{kind}: 1 thread: no record carries per-thread times")
    e2e.check("per-thread CPU timing unavailable" not in err1, f"{kind}: 1 thread: no line says it is unavailable")


build()
check_build()
for k in ("tpool", "omp"):
    check_kind(k)
e2e.finish()
