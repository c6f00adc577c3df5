"""Queue length and memory bandwidth over time (docs/kineto.md, "Queue length and memory
bandwidth over time", "Counter tracks"): `opscope report --json` (summary.kineto.queue_length,
.memory_bw) and `--counters-trace` against this script's own reading of each trace of
tests/kineto/traces (trace_ref.py: the standard library only), and against the figures HTA
gave on the same files (HTA_FIGURES below).

For every trace:
- the counters trace holds the input's events unchanged and in order, then the counter events;
- per stream, its "Queue Length" events are the queue computed here: +1 at each queue launch
  call's start, -1 at its activity's start (at one instant the -1 first), one event per
  change with the length after it; "Queue Length (out at end)" the same with -1 at the
  activity's end; each summary is this script's describe() of those lengths;
- per memory kind (HTA's names and kinds), its events are the running sum, in time order
  (starts before ends at one instant, each in input order), of +bandwidth at each activity's
  start and -bandwidth at its end (a 0 us activity lasts 1 us); its summary describe() of the
  sums above 0. Series equal exactly (the same sums in the same order), summaries to 1e-12.

usage: check_kseries.py OPSCOPE TRACES_DIR WORK_DIR
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_ref import check, failures, load, slices, ns  # noqa: E402

GPU_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "mtia_ccp_events"}
CALL_CATS = {"cuda_runtime", "cuda_driver", "Runtime", "Driver", "mtia_runtime", "xpu_runtime"}
QUEUE_CALLS = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync",
               "runFunction - job_prep_and_submit_for_execution", "cuLaunchKernel", "cuLaunchKernelEx",
               "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync",
               "hipMemcpyWithStream"}
MEMORY = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")

# HTA (facebookresearch/HolisticTraceAnalysis, its repository with Debian's pandas,
# HTA_DISABLE_NS_ROUNDING=1, include_last_profiler_step=True) on the same files:
# get_queue_length_summary (per stream: count, mean, std, min, 25%, 50%, 75%, max) and
# get_memory_bw_summary (per kind), and the number of counter events its
# generate_trace_with_counters wrote (queue and bandwidth together). The queue's against
# out_at_start_hta: the times as HTA reads them, the changes of one instant in its row order.
HTA_FIGURES = {
    "a100_alexnet_fwd.json.gz": {
        "queue": {7: (182, 3.3461538461538463, 4.699354785671641, 0, 0, 1, 4, 18),
                  20: (14, 0.6428571428571429, 0.633323693776651, 0, 0, 1, 1, 2)},
        "membw": {"Memcpy HtoD": (16, 4.108898083923092, 3.151912060009415, 0.14277746793084217,
                                  0.7501973568118284, 4.3937357574376765, 5.845805522261133,
                                  11.146690372735602),
                  "Memset": (3, 1.726877077550461, 2.600717527995543, 0.22535211267605634,
                             0.22535211267605634, 0.22535211267605634, 2.4776395599876633,
                             4.7299270072992705)},
        "counters": 234,
    },
    "a100_ddp_train_rank0.json.gz": {
        "queue": {7: (7506, 0.8141486810551559, 1.0580573382960283, 0, 0, 1, 1, 10),
                  40: (42, 0.5, 0.5060608273474739, 0, 0, 0.5, 1, 1)},
        "membw": {"Memcpy DtoD": (960, 39.23087760340418, 108.0407906461632, 0.00510204081632653,
                                  0.1819150998255476, 0.7111111111111111, 2.098360655737705, 605.2009456264775),
                  "Memset": (114, 679.8231444352285, 615.1393652071192, 0.07229823019957324,
                             0.35333487319994905, 682.2784435096154, 1219.5108168667605, 1925.2182254196643)},
        "counters": 9696,
    },
    "recsys_sampled_rank0.json.gz": {
        "queue": {7: (2104, 25.458174904942965, 22.214857958553488, 0, 3, 22, 42, 80),
                  23: (252, 0.626984126984127, 0.6883680913792525, 0, 0, 1, 1, 4),
                  25: (32, 4.0, 2.3827335887250825, 0, 2, 4, 6, 8),
                  84: (16, 0.625, 0.6191391873668903, 0, 0, 1, 1, 2),
                  203: (4, 0.5, 0.5773502691896257, 0, 0, 0.5, 1, 1)},
        "membw": {"Memcpy DtoD": (8, 324.82900201686647, 382.06280905862957, 0.000969227041434456,
                                  0.5145298549107142, 180.27170809300384, 633.0136852041595, 960.2344322344322),
                  "Memcpy DtoH": (8, 0.3520099733642881, 0.5688157318232152, 0.00048828125, 0.00048828125,
                                  0.017007697826496047, 0.4834276018099548, 1.400735294117647),
                  "Memcpy HtoD": (24, 2.103578311169851, 2.6838085192708045, 0.00030637254901960784,
                                  0.0007233453705896282, 0.5470485096434834, 5.171802786084136, 6.830520693099405),
                  "Memset": (10, 75.38503654892908, 238.29538665020957, 0.0014285714285714286,
                             0.004310344827586207, 0.011689549961861175, 0.06114651864035088, 753.5855855855856)},
        "counters": 2508,
    },
    "amd_mi250_minitoy_train.json.gz": {
        "queue": {0: (32, 0.5, 0.508000508000762, 0, 0, 0.5, 1, 1)},
        "membw": {},  # its copies carry no bandwidth: no point above 0 (opscope lists the kind, count 0)
        "counters": 36,
    },
    "a100_event_sync_multi_stream.json.gz": {
        "queue": {20: (4, 0.5, 0.5773502691896257, 0, 0, 0.5, 1, 1),
                  24: (4, 0.5, 0.5773502691896257, 0, 0, 0.5, 1, 1),
                  28: (4, 1.0, 0.816496580927726, 0, 0.75, 1, 1.25, 2)},
        "membw": {"Memset": (3, 0.4272006675010429, 0.0751494718344444, 0.3404255319148936,
                             0.4055068836045056, 0.47058823529411764, 0.47058823529411764, 0.47058823529411764)},
        # stream 28: a launch call and a memset's start at the same microsecond, which HTA's
        # sort leaves launch first (out_at_start_hta: 1, 2, 1, 0; out_at_start: 1, 0, 1, 0)
        "counters": 18,
    },
}
DESCRIBE = ("count", "mean", "std", "min", "p25", "p50", "p75", "max")


def quantile(v, p):
    """numpy's linear quantile of sorted V."""
    if not v:
        return 0.0
    idx = p * (len(v) - 1)
    lo = math.floor(idx)
    a, b, t = v[lo], v[min(lo + 1, len(v) - 1)], idx - lo
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


def describe(vals):
    if not vals:
        return (0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    s = sorted(vals)
    return (len(vals), statistics.fmean(vals), statistics.stdev(vals) if len(vals) > 1 else 0.0,
            s[0], quantile(s, 0.25), quantile(s, 0.5), quantile(s, 0.75), s[-1])


def close(a, b, rel=1e-12):
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def corr_of(e):
    c = (e.get("args") or {}).get("correlation")
    return int(c) if c is not None else None


def memory_kind(name):
    if name[:6] == "Memset":
        return "Memset"
    return name[:11] if name[:6] == "Memcpy" else "Memcpy Unknown"


def expected(events):
    """Per stream (pid, tid): the queue series [(ns, length)] counted out at start and at end;
    per memory kind: [(ns, pid, GB/s)]."""
    acts, calls = [], {}
    for e in slices(events):
        cat = e.get("cat")
        if cat in GPU_CATS:
            acts.append(e)
        elif (cat in CALL_CATS or str(cat).startswith("privateuse1")) and corr_of(e) is not None:
            calls.setdefault(corr_of(e), e)
    queues = {}
    for a in acts:
        c = calls.get(corr_of(a)) if corr_of(a) is not None else None
        if c and c["name"] in QUEUE_CALLS:
            q = queues.setdefault((int(a["pid"]), int(a["tid"])), ([], []))
            start, dur = ns(a["ts"]), max(ns(a.get("dur", 0)), 0)
            q[0].extend([(ns(c["ts"]), 1), (start, 0)])
            q[1].extend([(ns(c["ts"]), 1), (start + dur, 0)])

    def series(keys):
        out, v = [], 0
        for t, up in sorted(keys):
            v += 1 if up else -1
            out.append((t, v))
        return out
    queue = {k: (series(a), series(b)) for k, (a, b) in queues.items()}
    mem = [a for a in acts if MEMORY.match(a["name"])]
    chg = []
    for i, a in enumerate(mem):
        bw = float((a.get("args") or {}).get("memory bandwidth (GB/s)", 0))
        start, dur = ns(a["ts"]), max(ns(a.get("dur", 0)), 0)
        chg.append((start, i, memory_kind(a["name"]), int(a["pid"]), bw))
        chg.append((start + (dur if dur > 0 else 1000), len(mem) + i, memory_kind(a["name"]), int(a["pid"]), -bw))
    chg.sort(key=lambda c: (c[0], c[1]))
    membw = {}
    for t, _, kind, pid, d in chg:
        s = membw.setdefault(kind, [0.0, []])
        s[0] += d
        s[1].append((t, pid, s[0]))
    return queue, {k: v[1] for k, v in membw.items()}


def counters_of(out_events, n_in):
    """The counter events after the first N_IN: queue {(name, pid, id): [(ns, v)]}, bandwidth
    {name: [(ns, pid, v)]}."""
    q, m = {}, {}
    for e in out_events[n_in:]:
        if e.get("name", "").startswith("Queue Length"):
            q.setdefault((e["name"], int(e["pid"]), int(e["id"])), []).append((ns(e["ts"]), int(e["args"][e["name"]])))
        else:
            m.setdefault(e["name"], []).append((ns(e["ts"]), int(e["pid"]), float(e["args"]["Memcpy BW"])))
    return q, m


def check_trace(opscope, path, work):
    name = os.path.basename(path)
    js, ct = os.path.join(work, name + ".json"), os.path.join(work, name + ".counters.json")
    p = subprocess.run([opscope, "report", path, "-q", "--json", js, "--counters-trace", ct], capture_output=True,
                       text=True)
    check(p.returncode == 0, f"{name}: exit {p.returncode}: {p.stderr.strip()}")
    if p.returncode:
        return
    kin = json.load(open(js))["summary"].get("kineto", {})
    events = load(path)
    out = load(ct)
    check(out[:len(events)] == events, f"{name}: the counters trace begins with the input's {len(events)} events")
    check(all(e.get("ph") == "C" for e in out[len(events):]), f"{name}: only counter events follow them")
    queue, membw = expected(events)
    got_q, got_m = counters_of(out, len(events))
    rows = {(r["device"], r["stream"]): r for r in kin.get("queue_length", {}).get("streams", [])}
    check(set(rows) == set(queue), f"{name}: queue streams {sorted(rows)} == {sorted(queue)}")
    for key, (at_start, at_end) in queue.items():
        for track, want, member in (("Queue Length", at_start, "out_at_start"),
                                    ("Queue Length (out at end)", at_end, "out_at_end")):
            got = got_q.get((track, key[0], key[1]), [])
            check(got == want, f"{name}: stream {key} {track}: {len(got)} events == {len(want)} changes, equal")
            d, r = describe([v for _, v in want]), rows.get(key, {}).get(member, {})
            for k, x in zip(DESCRIBE, d):
                check(close(r.get(k, math.nan), x), f"{name}: stream {key} {member}.{k} {r.get(k)} == {x}")
    kinds = {r["name"]: r for r in kin.get("memory_bw", {}).get("kinds", [])}
    check(set(kinds) == set(membw), f"{name}: memory kinds {sorted(kinds)} == {sorted(membw)}")
    for kind, pts in membw.items():
        check(got_m.get(kind) == pts, f"{name}: {kind}: {len(got_m.get(kind, []))} events == {len(pts)} changes, equal")
        d, r = describe([v for _, _, v in pts if v > 0]), kinds.get(kind, {})
        for k, x in zip(DESCRIBE, d):
            check(close(r.get(k, math.nan), x), f"{name}: {kind}.{k} {r.get(k)} == {x}")
    hta = HTA_FIGURES.get(name)
    if not hta:
        return
    for stream, want in hta["queue"].items():
        r = next((v["out_at_start_hta"] for (dev, s), v in rows.items() if s == stream), {})
        for k, x in zip(DESCRIBE, want):
            check(close(r.get(k, math.nan), x, 1e-9), f"{name}: HTA's queue stream {stream} {k} {x} == {r.get(k)}")
    for kind, want in hta["membw"].items():
        for k, x in zip(DESCRIBE, want):
            r = kinds.get(kind, {})
            check(close(r.get(k, math.nan), x, 1e-9), f"{name}: HTA's {kind} {k} {x} == {r.get(k)}")
    n_hta = sum(len(v) for (t, _, _), v in got_q.items() if t == "Queue Length") + sum(len(v) for v in got_m.values())
    check(n_hta == hta["counters"], f"{name}: HTA's {hta['counters']} counter events == {n_hta} (without the end track)")


def main():
    opscope, traces, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    for f in sorted(os.listdir(traces)):
        if f.endswith(".json.gz"):
            check_trace(opscope, os.path.join(traces, f), work)
    # bad input: a trace without its event array's end leaves no counters trace
    cut = os.path.join(work, "cut.json")
    with open(cut, "w") as f:
        f.write('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2}')
    out = os.path.join(work, "cut.counters.json")
    p = subprocess.run([opscope, "report", cut, "-q", "--counters-trace", out], capture_output=True, text=True)
    check(p.returncode == 2 and "traceEvents" in p.stderr and not os.path.exists(out),
          f"cut trace: exit {p.returncode} (2), stderr {p.stderr.strip()!r} names the array, no file left")
    p = subprocess.run([opscope, "report", "-", "--counters-trace", out], capture_output=True, text=True, input="")
    check(p.returncode == 1 and "stdin" in p.stderr, f"stdin: a usage error (exit {p.returncode}): {p.stderr.strip()!r}")
    print(f"check_kseries: {len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
