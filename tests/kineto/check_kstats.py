"""The kernel and launch statistics of `opscope report --json` (summary.kineto.kernel_stats,
docs/kineto.md "Kernel and launch statistics") against this script's own reading of each trace
(trace_ref.py: the standard library only), on every trace of tests/kineto/traces and on a small
trace written here whose figures are worked out by hand below (kernel sequences included).

usage: check_kstats.py OPSCOPE TRACES_DIR WORK_DIR
"""
import json
import math
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_ref import check, failures, load, slices, ns  # noqa: E402

GPU_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "mtia_ccp_events"}
CALL_CATS = {"cuda_runtime", "cuda_driver", "Runtime", "Driver", "mtia_runtime", "xpu_runtime"}
STATS_CALLS = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync",
               "runFunction - job_prep_and_submit_for_execution"}
QUEUE_CALLS = STATS_CALLS | {"cuLaunchKernel", "cuLaunchKernelEx", "hipLaunchKernel",
                             "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync",
                             "hipMemcpyWithStream"}


def corr_of(e):
    c = (e.get("args") or {}).get("correlation")
    return int(c) if c is not None else None


def split(events, want_op=lambda e: False):
    """The GPU activities, the first runtime call of each correlation id and the cpu_op slices
    WANT_OP keeps."""
    acts, calls, ops = [], {}, []
    for e in slices(events):
        cat = e.get("cat")
        if cat in GPU_CATS:
            acts.append(e)
        elif (cat in CALL_CATS or str(cat).startswith("privateuse1")) and corr_of(e) is not None:
            calls.setdefault(corr_of(e), e)  # the first call of a correlation id
        elif cat in ("cpu_op", "Operator") and want_op(e):
            ops.append(e)
    return acts, calls, ops


def expected(events):
    """Per name, the launches and per stream figures, computed directly from the events."""
    acts, calls, _ = split(events)
    by_name = {}
    for a in acts:
        by_name.setdefault(a["name"], []).append(max(ns(a.get("dur", 0)), 0))
    kernels = {n: (len(v), sum(v), min(v), max(v), statistics.fmean(v),
                   statistics.stdev(v) if len(v) > 1 else 0.0) for n, v in by_name.items()}
    rows = []
    for a in acts:
        c = calls.get(corr_of(a)) if corr_of(a) is not None else None
        rows.append((a, c))
    delays = [max(ns(a["ts"]) - ns(c["ts"]) - ns(c.get("dur", 0)), 0)
              for a, c in rows if c and c["name"] in STATS_CALLS]
    shorter = sum(1 for a, c in rows if c and c["name"] in STATS_CALLS
                  and ns(a.get("dur", 0)) < ns(c.get("dur", 0)))
    streams = {}
    for a, c in rows:
        streams.setdefault((int(a["pid"]), int(a["tid"])), []).append((a, c))
    per_stream = {}
    for key, v in streams.items():
        q = []
        for a, c in v:
            if c and c["name"] in QUEUE_CALLS:
                q += [(ns(c["ts"]), 1), (ns(a["ts"]), -1)]
        q.sort()
        vals, cur, blocked1 = [], 0, 0
        for i, (t, d) in enumerate(q):
            cur += d
            vals.append(cur)
            if cur >= 1 and i + 1 < len(q):
                blocked1 += q[i + 1][0] - t
        v.sort(key=lambda r: (ns(r[0]["ts"]), ns(r[0].get("dur", 0))))
        host = kern = other = 0
        for (p, _), (a, c) in zip(v, v[1:]):
            prev_end = ns(p["ts"]) + max(ns(p.get("dur", 0)), 0)
            gap = ns(a["ts"]) - prev_end
            if c and ns(c["ts"]) > prev_end:
                host += gap
            elif gap < 30000:
                kern += gap
            else:
                other += gap
        per_stream[key] = (len(vals), statistics.fmean(vals) if vals else 0.0, max(vals) if vals else 0,
                           blocked1, host, kern, other)
    return kernels, (len(delays), sum(delays), max(delays) if delays else 0, shorter), per_stream


def sequences(events):
    """Per (CPU op name, kernel names in GPU start order): calls, GPU ns, CPU ns, over every
    cpu_op call with an activity launched inside it (a runtime call on its thread starting in
    the op's [ts, ts + dur]); the cuda_sync events on a stream count as activities of the call
    they come from (HTA's sequences)."""
    acts, calls, ops = split(events, lambda e: True)
    acts += [e for e in slices(events) if e.get("cat") == "cuda_sync" and e.get("args", {}).get("stream", -1) != -1]
    by_thread = {}
    for i, a in enumerate(acts):
        c = calls.get(corr_of(a)) if corr_of(a) is not None else None
        if c:
            by_thread.setdefault((c["pid"], c["tid"]), []).append((ns(c["ts"]), ns(a["ts"]), i, a))
    out = {}
    for o in ops:
        s, e = ns(o["ts"]), ns(o["ts"]) + max(ns(o.get("dur", 0)), 0)
        inside = sorted((t, i, a) for c, t, i, a in by_thread.get((o["pid"], o["tid"]), []) if s <= c <= e)
        if not inside:
            continue
        key = (o["name"], tuple(a["name"] for _, _, a in inside))
        r = out.get(key, (0, 0, 0))
        out[key] = (r[0] + 1, r[1] + sum(max(ns(a.get("dur", 0)), 0) for _, _, a in inside), r[2] + e - s)
    return out


sequences_seen = []
aten_seen = []


def kernel_launch(name):
    return (name.startswith("cuda") and "LaunchKernel" in name[4:]) or name.startswith("cuLaunchKernel") \
        or name.startswith("runFunction")


def aten_kernels(events):
    """Per (aten op name, kernels in call order): op calls, summed first aten op delay and first
    runtime delay; by brute force (every op tried for every launch: of those holding the whole
    call the latest start, then the earlier in the trace, as HTA's pick). None when too big."""
    acts, calls, aten = split(events, lambda e: e["name"].startswith("aten::"))
    ops = [(ns(e["ts"]), ns(e["ts"]) + max(ns(e.get("dur", 0)), 0), e["name"]) for e in aten]
    launches = []
    for i, a in enumerate(acts):
        c = calls.get(corr_of(a)) if corr_of(a) is not None else None
        if c and kernel_launch(c["name"]):
            launches.append((ns(c["ts"]), i, ns(c["ts"]) + ns(c.get("dur", 0)), ns(a["ts"]), a["name"]))
    if len(launches) * len(ops) > 20_000_000:
        return None
    per_op = {}
    for cs, i, ce, ks, name in sorted(launches):
        best = None
        for j, (s, e, _) in enumerate(ops):
            if s <= cs and e >= ce and (best is None or (s, -j) > (ops[best][0], -best)):
                best = j
        if best is not None:
            per_op.setdefault(best, []).append((cs, ks, name))
    out = {}
    for j, v in per_op.items():
        key = (ops[j][2], tuple(n for _, _, n in v))
        r = out.get(key, (0, 0, 0))
        out[key] = (r[0] + 1, r[1] + v[0][0] - ops[j][0], r[2] + v[0][1] - v[0][0])
    return out


def compare_aten(label, got, events):
    want = aten_kernels(events)
    if want is None:
        print(f"{label}: aten op kernels not recomputed (too many ops x launches for brute force)")
        return
    have = {(p["op"], tuple(p["kernels"])): p for p in got.get("aten_op_kernels", [])}
    aten_seen.append(len(want))
    check(set(have) == set(want), f"{label}: {len(have)} aten op patterns == {len(want)} computed")
    for key, (cnt, aten_sum, rt_sum) in want.items():
        p = have.get(key)
        if p is None:
            continue
        check(p["count"] == cnt and close(p["mean_aten_op_delay_ns"], aten_sum / cnt)
              and close(p["mean_runtime_delay_ns"], rt_sum / cnt),
              f"{label}: {key[0]} x{cnt}: {p['count']}, {p['mean_aten_op_delay_ns']}, {p['mean_runtime_delay_ns']}"
              f" == {cnt}, {aten_sum / cnt}, {rt_sum / cnt}")


def compare_sequences(label, got, events):
    want = sequences(events)
    have = {(p["op"], tuple(p["kernels"])): (p["count"], p["gpu_ns"], p["cpu_ns"])
            for p in got.get("kernel_sequences", [])}
    check(len(have) == len(got.get("kernel_sequences", [])), f"{label}: patterns are distinct")
    sequences_seen.append(len(want))
    check(have == want, f"{label}: {len(have)} kernel sequences == {len(want)} computed"
          + ("" if have == want else f" (first differing: {sorted(set(have.items()) ^ set(want.items()), key=str)[:1]})"))


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


def run(opscope, path, work):
    out = os.path.join(work, "kstats.json")
    r = subprocess.run([opscope, "report", "-q", "--json", out, path], capture_output=True, text=True)
    if r.returncode:
        failures.append(f"{path}: opscope exit {r.returncode}: {r.stderr.strip()[:200]}")
        return None
    with open(out) as f:
        return (json.load(f)["summary"].get("kineto") or {}).get("kernel_stats")


def compare(label, got, events):
    kernels, launch, streams = expected(events)
    if not kernels:
        check(got is None, f"{label}: no GPU activity, no kernel_stats")
        return 0
    check(got is not None, f"{label}: kernel_stats present")
    if got is None:
        return 0
    g = {k["name"]: k for k in got["kernels"]}
    check(set(g) == set(kernels), f"{label}: the same {len(kernels)} kernel names")
    for n, (cnt, s, mn, mx, mean, std) in kernels.items():
        k = g.get(n)
        if k is None:
            continue
        check((k["count"], k["sum_ns"], k["min_ns"], k["max_ns"]) == (cnt, s, mn, mx),
              f"{label}: {n[:40]} count/sum/min/max {k['count']},{k['sum_ns']},{k['min_ns']},{k['max_ns']}"
              f" == {cnt},{s},{mn},{mx}")
        check(close(k["mean_ns"], mean) and close(k["std_ns"], std),
              f"{label}: {n[:40]} mean/std {k['mean_ns']},{k['std_ns']} == {mean},{std}")
    l = got["launches"]
    d = l["delay_from_end"]
    check((l["launches"], d["sum_ns"], d["max_ns"] if d["n"] else 0, l["shorter_than_call"]) == launch,
          f"{label}: launches, delay sum/max, shorter {l['launches']},{d['sum_ns']},{d['max_ns']},"
          f"{l['shorter_than_call']} == {launch}")
    gs = {(s["device"], s["stream"]): s for s in got["streams"]}
    check(set(gs) == set(streams), f"{label}: the same streams")
    for key, (pts, mean, mx, blocked1, host, kern, other) in streams.items():
        s = gs.get(key)
        if s is None:
            continue
        check((s["queue_points"], s["queue_max"] if pts else 0, sum(s["queue_time_at_ns"][1:])) ==
              (pts, mx, blocked1) and close(s["queue_mean"], mean),
              f"{label} {key}: queue points/max/at>=1/mean {s['queue_points']},{s['queue_max']},"
              f"{sum(s['queue_time_at_ns'][1:])},{s['queue_mean']} == {pts},{mx},{blocked1},{mean}")
        check((s["idle_host_wait_ns"], s["idle_kernel_wait_ns"], s["idle_other_ns"]) == (host, kern, other),
              f"{label} {key}: idle split {s['idle_host_wait_ns']},{s['idle_kernel_wait_ns']},"
              f"{s['idle_other_ns']} == {host},{kern},{other}")
    compare_sequences(label, got, events)
    compare_aten(label, got, events)
    return len(acts_of(events))


def acts_of(events):
    return [e for e in events if e.get("cat") in GPU_CATS]


def made_trace(path):
    """Three kernels on stream 7, launched by cudaLaunchKernel calls on one thread (us):
         call A  ts 0  dur 10   kernel A  ts 15  dur 5   (ends 20)
         call B  ts 12 dur 1    kernel B  ts 50  dur 2   (ends 52)
         call C  ts 60 dur 40   kernel C  ts 90  dur 20  (ends 110)
       kernel "k" is A and C (5 and 20 us): mean 12.5, sample std sqrt(112.5) = 10.6066 us.
       Delay from the call's end: 15-10 = 5, 50-13 = 37, 90-100 < 0 -> 0: sum 42, max 37 us.
       Shorter than its call: A (5 < 10), C (20 < 40), not B (2 > 1): 2.
       Queue (+1 at call start, -1 at kernel start): t 0 +1 (1), 12 +1 (2), 15 -1 (1), 50 -1 (0),
       60 +1 (1), 90 -1 (0): 6 points, mean 5/6, max 2; at >= 1: 0-50 and 60-90 = 80 us, at 2:
       12-15 = 3 us.
       Idle: before B the gap is 50-20 = 30 us and B's call (12) started before A ended (20),
       30 is not under 30: other 30; before C 90-52 = 38 us, C's call (60) started after B
       ended (52): host wait 38; kernel wait 0.
       A cpu_op "op" on the calls' thread over 0-20 us holds calls A and B: one pattern
       ("op": k, j), 1 call, GPU 5 + 2 = 7 us, CPU 20 us; C's call is in no op."""
    ev = [{"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 0, "dur": 20}]
    for name, (cts, cdur, kts, kdur), corr in (("k", (0, 10, 15, 5), 1), ("j", (12, 1, 50, 2), 2),
                                               ("k", (60, 40, 90, 20), 3)):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": cts, "dur": cdur, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": kts, "dur": kdur,
                   "args": {"correlation": corr, "stream": 7, "device": 0}})
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev}, f)


def made_checks(got):
    k = {r["name"]: r for r in got["kernels"]}["k"]
    check(k["count"] == 2 and k["sum_ns"] == 25000 and close(k["mean_ns"], 12500.0)
          and close(k["std_ns"], math.sqrt(112.5) * 1000), f"made: kernel k {k}")
    l = got["launches"]
    check((l["launches"], l["delay_from_end"]["sum_ns"], l["delay_from_end"]["max_ns"], l["shorter_than_call"])
          == (3, 42000, 37000, 2), f"made: launches {l}")
    s = got["streams"][0]
    check((s["queue_points"], s["queue_max"], s["queue_time_at_ns"][1] + s["queue_time_at_ns"][2],
           s["queue_time_at_ns"][2]) == (6, 2, 80000, 3000) and close(s["queue_mean"], 5 / 6),
          f"made: queue {s}")
    check((s["idle_host_wait_ns"], s["idle_kernel_wait_ns"], s["idle_other_ns"]) == (38000, 0, 30000),
          f"made: idle split {s}")
    seq = [(p["op"], p["kernels"], p["count"], p["gpu_ns"], p["cpu_ns"]) for p in got["kernel_sequences"]]
    check(seq == [("op", ["k", "j"], 1, 7000, 20000)], f"made: kernel sequences {seq}")


def main():
    opscope, traces, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    made = os.path.join(work, "made_kstats.json")
    made_trace(made)
    got = run(opscope, made, work)
    if got:
        made_checks(got)
        compare("made", got, load(made))
    n = 0
    for f in sorted(os.listdir(traces)):
        if not f.endswith(".json.gz"):
            continue
        p = os.path.join(traces, f)
        got = run(opscope, p, work)
        if got is not None or not failures:
            acts = compare(f, got, load(p))
            n += acts > 0
            print(f"{f}: {acts} GPU activities checked")
    check(n >= 5, f"at least 5 traces with GPU activity checked ({n})")
    print(f"kernel sequence patterns per trace: {sequences_seen}")
    print(f"aten op kernel patterns per trace: {aten_seen}")
    check(sum(1 for x in aten_seen if x) >= 3, f"aten op kernels found in 3 traces or more ({aten_seen})")
    check(sum(1 for x in sequences_seen if x) >= 4, f"kernel sequences found in 4 traces or more ({sequences_seen})")
    for x in failures:
        print("FAIL:", x)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
