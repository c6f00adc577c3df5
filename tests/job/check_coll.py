#!/usr/bin/env python3
"""NCCL collectives against an independent computation from the raw traces.

  check_coll.py OPSCOPE TRACE...

For each trace, `opscope report TRACE --json` (summary.kineto.collectives) must equal what this
script computes from the trace's JSON: every kernel with a "Collective name" arg (else every
record_param_comms CPU op with one), its message size S = max(In msg nelems, Out msg nelems) x
the dtype's size, bus bytes = S x nccl-tests' bus factor (PERFORMANCE.md: allreduce 2(n-1)/n;
allgather, reduce_scatter, all_to_all (n-1)/n; the rest 1), per type and per power-of-two size
bucket, time = the events' durations. Then the traces as one job (summary.job.collectives: per
type, per rank, skew, buckets), also through per-rank summaries (`--job --json`, then
`report summaries/`). With --derived, a second rank is added: a copy of the first trace as rank
1 whose collective kernels last twice as long (its bus bandwidth halves: the skew is known).

A job whose traces have no collective with args (gloo: Debian's torch writes no sizes) is
timed on gloo's own annotations (user_annotation "gloo:all_reduce"...): per type and rank the
count and summed duration; the late rank is the one with the least time (each rank waits in a
collective for the last to arrive), its wait the median rank's time minus its own. With
--late-rank N, the type with the longest wait must name rank N (the job's slow rank).
"""
import json
import os
import subprocess
import sys
import tempfile
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from json_ref import load_json as load, us_to_ns as ns  # noqa: E402

FAILS = []
DTYPE = {"Float": 4, "Double": 8, "Half": 2, "BFloat16": 2, "Int": 4, "Long": 8, "Short": 2, "Char": 1,
         "Byte": 1, "Bool": 1, "ComplexFloat": 8, "ComplexDouble": 16}


def check(cond, what):
    print("ok  " if cond else "FAIL", what)
    if not cond:
        FAILS.append(what)


def kind(name):
    n = name.lstrip("_").replace("_", "")
    for k in ("allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "barrier"):
        if k in n:
            return k
    return "reduce" if n.startswith("reduce") else name.lstrip("_")


def bus(k, s, n):
    if k == "allreduce":
        return s * 2 * (n - 1) // n if n > 1 else 0
    if k in ("allgather", "reducescatter", "alltoall"):
        return s * (n - 1) // n if n > 1 else 0
    return s


def expect(d):
    """{(type, bucket): [count, bytes, bus_bytes, time_ns, group]} and where they were timed."""
    ev = [e for e in d.get("traceEvents", []) if isinstance(e, dict) and e.get("ph") == "X"
          and "Collective name" in (e.get("args") or {})]
    kern = [e for e in ev if e.get("cat") == "kernel"]
    use = kern or [e for e in ev if e.get("cat") == "cpu_op"]
    rows = {}
    for e in use:
        a = e["args"]
        k = kind(a["Collective name"])
        s = max(int(a.get("In msg nelems", -1)), int(a.get("Out msg nelems", -1)), 0) * DTYPE.get(a.get("dtype"), 0)
        n = int(a.get("Group size", 0))
        r = rows.setdefault((k, s.bit_length() - 1), [0, 0, 0, 0, 0])
        r[0] += 1
        r[1] += s
        r[2] += bus(k, s, n)
        r[3] += ns(e.get("dur", 0))
        r[4] = max(r[4], n)
    return rows, ("kernels" if kern else "cpu_ops") if use else "none"


def expect_spans(d):
    """Without any collective with args (gloo: torch writes no sizes): gloo's own annotations
    (user_annotation "gloo:all_reduce"...) per type, {(type, -1): [count, 0, 0, time_ns, 0]}."""
    rows = {}
    for e in d.get("traceEvents", []):
        if (isinstance(e, dict) and e.get("ph") == "X" and e.get("cat") == "user_annotation"
                and str(e.get("name", "")).startswith("gloo:")):
            r = rows.setdefault((kind(e["name"][5:]), -1), [0, 0, 0, 0, 0])
            r[0] += 1
            r[3] += ns(e.get("dur", 0))
    return rows


def by_type(rows):
    t = {}
    for (k, _), r in rows.items():
        x = t.setdefault(k, [0, 0, 0, 0, 0])
        for i in range(4):
            x[i] += r[i]
        x[4] = max(x[4], r[4])
    return t


def gbps(b, t):
    return b / t if t > 0 else 0.0


def same_row(got, r, label):
    ok = (got["count"], got["bytes"], got["bus_bytes"], got["time_ns"], got["group_size"]) == tuple(r)
    ok = ok and abs(got["algbw_gbps"] - gbps(r[1], r[3])) < 1e-4 and abs(got["busbw_gbps"] - gbps(r[2], r[3])) < 1e-4
    check(ok, "%s: count %d, %d bytes, %d bus bytes, %d ns, group %d: algbw %.4f busbw %.4f GB/s (opscope: %s)"
          % (label, r[0], r[1], r[2], r[3], r[4], gbps(r[1], r[3]), gbps(r[2], r[3]),
             {k: got[k] for k in ("count", "bytes", "bus_bytes", "time_ns", "group_size", "algbw_gbps", "busbw_gbps")}))


def check_section(c, rows, on, label):
    check(c["on"] == on, "%s: timed on %s (opscope: %s)" % (label, on, c["on"]))
    t = by_type(rows)
    check([x["type"] for x in c["types"]] == sorted(t), "%s: types %s (opscope: %s)"
          % (label, sorted(t), [x["type"] for x in c["types"]]))
    for x in c["types"]:
        if x["type"] in t:
            same_row(x, t[x["type"]], "%s %s" % (label, x["type"]))
    keys = sorted(rows)
    check([(x["type"], x["bucket"]) for x in c["buckets"]] == keys, "%s: buckets %s" % (label, keys))
    for x in c["buckets"]:
        key = (x["type"], x["bucket"])
        if key in rows:
            check(x["min_bytes"] <= rows[key][1] // rows[key][0] <= x["max_bytes"] or rows[key][1] == 0,
                  "%s %s bucket %d holds its mean size" % (label, key[0], key[1]))
            same_row(x, rows[key], "%s %s bucket %d" % (label, key[0], key[1]))


def report(*args):
    p = subprocess.run([OPSCOPE, "report", *args, "--json", "-", "-q"], capture_output=True, text=True)
    check(p.returncode == 0, "report %s exits 0 (%s)" % (" ".join(args), p.stderr.strip()[-300:]))
    return json.loads(p.stdout)["summary"] if p.returncode == 0 else {}


def median(v):
    v = sorted(v)
    m = len(v)
    return v[m // 2] if m % 2 else (v[m // 2 - 1] + v[m // 2]) / 2


def check_job(job, traces, label):
    skews = {}
    per = {}
    on = "none"
    for path in traces:
        d = load(path)
        rank = int((d.get("distributedInfo") or {}).get("rank", -1))
        rows, o = expect(d)
        if not rows:
            rows = expect_spans(d)
            o = "annotations" if rows else "none"
        per[rank] = rows
        if o == "kernels" or (o in ("cpu_ops", "annotations") and on in ("none", "annotations")):
            on = o
    unsized = on == "annotations"
    tot = {}
    for rows in per.values():
        for key, r in rows.items():
            x = tot.setdefault(key, [0, 0, 0, 0, 0])
            for i in range(4):
                x[i] += r[i]
            x[4] = max(x[4], r[4])
    c = job["collectives"]
    if not unsized:
        check_section(c, tot, on, label)
    else:  # gloo's annotations: no sizes, types only, no buckets
        check(c["on"] == on, "%s: timed on %s (opscope: %s)" % (label, on, c["on"]))
        t = by_type(tot)
        check([x["type"] for x in c["types"]] == sorted(t) and c["buckets"] == [],
              "%s: unsized types %s, no buckets (opscope: %s)" % (label, sorted(t), [x["type"] for x in c["types"]]))
        for x in c["types"]:
            if x["type"] in t:
                same_row(x, t[x["type"]], "%s %s" % (label, x["type"]))
    for x in c["types"]:
        ranks = {}
        for rank, rows in sorted(per.items()):
            t = by_type(rows).get(x["type"])
            if t:
                ranks[rank] = t
        bws = {r: gbps(t[2], t[3]) for r, t in ranks.items()}
        got = {r["rank"]: r for r in x["ranks"]}
        check(sorted(got) == sorted(ranks), "%s %s: ranks %s" % (label, x["type"], sorted(ranks)))
        for r, t in ranks.items():
            g = got.get(r, {})
            check((g.get("count"), g.get("bytes"), g.get("bus_bytes"), g.get("time_ns")) == tuple(t[:4])
                  and abs(g.get("busbw_gbps", -1) - bws[r]) < 1e-4,
                  "%s %s rank %d: %d x, %d ns, busbw %.4f GB/s" % (label, x["type"], r, t[0], t[3], bws[r]))
        if unsized:
            skews[x["type"]] = check_unsized(x, ranks, label)
            continue
        mn, mx, md = min(bws.values()), max(bws.values()), median(bws.values())
        skew = (mx - mn) / md * 100 if md > 0 else 0
        slowest = min(bws, key=lambda r: (bws[r], list(bws).index(r)))
        check(abs(x["busbw_min_gbps"] - mn) < 1e-4 and abs(x["busbw_max_gbps"] - mx) < 1e-4
              and abs(x["busbw_median_gbps"] - md) < 1e-4 and abs(x["busbw_skew_pct"] - skew) < 1e-3
              and x["slowest_rank"] == slowest,
              "%s %s: busbw min %.4f median %.4f max %.4f GB/s, skew %.3f%%, slowest rank %d"
              % (label, x["type"], mn, md, mx, skew, slowest))
        # the late rank: the others wait for the last to arrive, whose collectives are the shortest
        # (the highest bus bandwidth); the median rank's time minus its time is their wait
        late = max(bws, key=lambda r: (bws[r], -list(bws).index(r)))
        med_t = int(median([t[3] for t in ranks.values()]))
        wait = med_t - ranks[late][3] if len(ranks) > 1 and med_t > ranks[late][3] else 0
        skews[x["type"]] = (wait, late, ranks[late][0], ranks[late][3], med_t, mn, mx, len(ranks), skew)
        check(x.get("late_rank") == late and x.get("median_time_ns") == med_t and x.get("late_wait_ns") == wait,
              "%s %s: late rank %d, median time %d ns, the others wait %d ns" % (label, x["type"], late, med_t, wait))
    return skews


def check_unsized(x, ranks, label):
    """A type timed on gloo's annotations: no bandwidth; each rank waits in the collective for
    the last to arrive, so the late rank spends the least time in it (the first in rank order on
    ties), the slowest the most; the median rank's time minus the late rank's is the wait."""
    times = {r: t[3] for r, t in ranks.items()}
    order = list(times)
    late = min(times, key=lambda r: (times[r], order.index(r)))
    slowest = max(times, key=lambda r: (times[r], -order.index(r)))
    med_t = int(median(times.values()))
    wait = med_t - times[late] if len(times) > 1 and med_t > times[late] else 0
    mn, mx = min(times.values()), max(times.values())
    skew = (mx - mn) / median(times.values()) * 100 if median(times.values()) > 0 else 0
    check(x.get("late_rank") == late and x.get("slowest_rank") == slowest and x.get("median_time_ns") == med_t
          and x.get("late_wait_ns") == wait and x.get("time_min_ns") == mn and x.get("time_max_ns") == mx
          and abs(x.get("time_skew_pct", -1) - skew) < 1e-3 and x.get("busbw_max_gbps") == 0,
          "%s %s (no sizes): times %s ns; late rank %d, slowest %d, median %d ns, the others wait %d ns, skew %.3f%%"
          % (label, x["type"], times, late, slowest, med_t, wait, skew))
    return (wait, late, ranks[late][0], times[late], med_t, mn, mx, len(ranks), skew, True)


def check_first_screen(traces, skews, label):
    """The console's first screen (before the first table) names the collective skew: the type
    whose late rank makes the others wait longest, that rank, the wait; none without one."""
    p = subprocess.run([OPSCOPE, "report", *traces], capture_output=True, text=True)
    first = p.stdout.split("\n\n")[0]
    worst = None
    for typ in sorted(skews):
        if skews[typ][0] > 0 and (worst is None or skews[typ][0] > skews[worst][0]):
            worst = typ
    if worst is None:
        check(p.returncode == 0 and "Collective skew" not in first, "%s: no collective skew on the first screen" % label)
        return
    wait, late, calls, late_t, med_t, mn, mx, n, skew = skews[worst][:9]
    if len(skews[worst]) > 9:  # unsized: the ranks' times, no bandwidth
        want = ("Collective skew: %s, time per rank %.1f-%.1f ms over %d ranks (skew %.1f%%; the trace has no sizes, "
                "so no bandwidth); rank %d is late:\n"
                "          the others wait for it, its %d %s calls take %.1f ms against the median rank's %.1f ms "
                "(%.1f ms of waiting, %.2f ms per call)" % (worst, mn / 1e6, mx / 1e6, n, skew, late, calls, worst,
                                                            late_t / 1e6, med_t / 1e6, wait / 1e6, wait / 1e6 / calls))
        check(p.returncode == 0 and want in first, "%s: the first screen names the skew: %s"
              % (label, want.replace("\n", " ")))
        return
    want = ("Collective skew: %s, bus bandwidth %.2f-%.2f GB/s over %d ranks (skew %.1f%%); rank %d is late:\n"
            "          the others wait for it, its %d %s calls take %.1f ms against the median rank's %.1f ms "
            "(%.1f ms of waiting, %.2f ms per call)" % (worst, mn, mx, n, skew, late, calls, worst, late_t / 1e6,
                                                        med_t / 1e6, wait / 1e6, wait / 1e6 / calls))
    check(p.returncode == 0 and want in first, "%s: the first screen names the skew: %s" % (label, want.replace("\n", " ")))


def derived_rank(src, tmp):
    """A copy of SRC as rank 1 whose collective kernels last twice as long."""
    d = load(src)
    d.setdefault("distributedInfo", {})["rank"] = 1
    for e in d.get("traceEvents", []):
        if isinstance(e, dict) and e.get("cat") == "kernel" and "Collective name" in (e.get("args") or {}):
            e["dur"] = Decimal(str(e["dur"])) * 2
    path = os.path.join(tmp, "derived_rank-1.json")
    with open(path, "w") as f:
        json.dump(d, f, default=lambda v: float(v) if isinstance(v, Decimal) else str(v))
    return path


def main():
    global OPSCOPE
    args = sys.argv[1:]
    derived = "--derived" in args
    args = [a for a in args if a != "--derived"]
    late_want = None
    if "--late-rank" in args:  # the job's deliberately slow rank: the one the others wait for
        i = args.index("--late-rank")
        late_want = int(args[i + 1])
        del args[i:i + 2]
    OPSCOPE, traces = args[0], args[1:]
    with tempfile.TemporaryDirectory() as tmp:
        for path in traces:
            rows, on = expect(load(path))
            s = report(path)
            if s:
                check_section(s["kineto"]["collectives"], rows, on, os.path.basename(path))
        if derived:
            traces = traces + [derived_rank(traces[0], tmp)]
        job = report(*traces).get("job")
        if job:
            skews = check_job(job, traces, "job")
            check_first_screen(traces, skews, "job")
            if late_want is not None:
                worst = max(sorted(skews), key=lambda t: skews[t][0]) if skews else None
                check(worst is not None and skews[worst][1] == late_want,
                      "job: the worst collective skew's late rank is the slow rank %d (%s)"
                      % (late_want, worst and skews[worst][:2]))
        summ = os.path.join(tmp, "summaries")
        os.mkdir(summ)
        for i, path in enumerate(traces):
            p = subprocess.run([OPSCOPE, "report", path, "--job", "--json", os.path.join(summ, "r%d.json" % i), "-q"],
                               capture_output=True, text=True)
            check(p.returncode == 0, "summary of %s (%s)" % (path, p.stderr.strip()[-200:]))
        back = report(summ).get("job")
        if job and back:
            check(back["collectives"] == job["collectives"], "summaries/ give the same collectives as the traces")
    print("%d failure(s)" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
