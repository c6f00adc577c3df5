#!/usr/bin/env python3
"""checks.py PART OPSCOPE REPO WORK, run by the venv's Python (python.venv installed the package):

  values  on the repository's traces (tests/kineto/traces) and profiles (tests/read/data): the
          DataFrames against this script's own reading of the files (counts, sums and per-name
          totals of GPU activities, CPU ops, profiler steps, each stream's activities and busy
          union; a profile's op groups), and `summary` against `opscope report --json`
  errors  bad input raises opscope.Error with the file, line, column and byte offset of the
          fault (placed by this script) and the line:column `opscope report` prints
  job     opscope.job of a folder and of a list of traces: its summary against `opscope report
          DIR --json`, each rank's GPU activities and rank against the checks' own reading of
          its trace, the tables' rows against the summary's, a bad folder as opscope.Error
  speed   the biggest trace loads with a bounded number of Python calls (none per event:
          sys.setprofile counts them) and its time beside json.load of the same text
"""
import collections
import gc
import gzip
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checklist import check, failures  # noqa: E402
from intervals import union_len  # noqa: E402
from json_ref import load_json, us_to_ns  # noqa: E402

import opscope  # noqa: E402  (the venv's installed package)

part, exe, repo, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
TRACES = os.path.join(repo, "tests", "kineto", "traces")
# GPU activities as docs/kineto.md lists them; their stream is the event's tid
GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset", "mtia_ccp_events"}


def traces():
    return sorted(os.path.join(TRACES, f) for f in os.listdir(TRACES) if f.endswith(".json.gz"))


def report_summary(path):
    out = os.path.join(work, os.path.basename(path) + ".report.json")
    subprocess.run([exe, "report", path, "--json", out, "-q"], check=True)
    with open(out) as f:
        return json.load(f)["summary"]


def check_trace(path):
    name = os.path.basename(path)
    p = opscope.load(path)
    ev = [e for e in load_json(path).get("traceEvents", []) if isinstance(e, dict) and e.get("ph") == "X"]
    # GPU activities: count and per-name count and duration
    gpu = [e for e in ev if e.get("cat") in GPU_CATS]
    want = collections.defaultdict(lambda: [0, 0])
    for e in gpu:
        w = want[e["name"]]
        w[0] += 1
        w[1] += us_to_ns(e.get("dur"))
    k = p.kernels
    check(len(k) == len(gpu), "%s: %d GPU activities, trace has %d" % (name, len(k), len(gpu)))
    got = {n: [int(c), int(s)] for n, c, s in
           zip(*(lambda g: (g.index, g["count"], g["sum"]))(k.groupby("name")["dur_ns"].agg(["count", "sum"])))}
    check(got == dict(want), "%s: per-kernel counts and ns (%d names; first differing: %s)"
          % (name, len(want), next((n for n in want if got.get(n) != want[n]), None)))
    # per activity name: count, sum, extremes, mean and sample standard deviation
    durs = collections.defaultdict(list)
    for e in gpu:
        durs[e["name"]].append(us_to_ns(e.get("dur")))
    ks = {r.name: r for r in p.kernel_stats.itertuples()}
    check(set(ks) == set(durs), "%s: kernel_stats names (%d, trace %d)" % (name, len(ks), len(durs)))
    for n, v in durs.items():
        r = ks.get(n)
        mean = sum(v) / len(v)
        std = statistics.stdev(v) if len(v) > 1 else 0.0
        ok = r is not None and (r.count, r.sum_ns, r.min_ns, r.max_ns) == (len(v), sum(v), min(v), max(v)) and \
            abs(r.mean_ns - mean) <= 1e-9 * max(1.0, mean) and abs(r.std_ns - std) <= 1e-6 * max(1.0, std)
        if not check(ok, "%s: kernel_stats of %s: %s, trace n=%d sum=%d mean=%.3f std=%.3f"
                     % (name, n[:40], r and (r.count, r.sum_ns, r.mean_ns, r.std_ns), len(v), sum(v), mean, std)):
            break
    # each stream: activities and the union of their intervals
    per = collections.defaultdict(list)
    for e in gpu:
        per[(int(e.get("pid")), int(e.get("tid")))].append(
            (us_to_ns(e["ts"]), us_to_ns(e["ts"]) + us_to_ns(e.get("dur"))))
    for row in p.streams.itertuples():
        iv = per.get((row.device, row.stream), [])
        check(row.activities == len(iv), "%s: stream %d/%d has %d activities, trace %d"
              % (name, row.device, row.stream, row.activities, len(iv)))
        check(row.busy_ns == union_len(iv), "%s: stream %d/%d busy %d ns, union %d"
              % (name, row.device, row.stream, row.busy_ns, union_len(iv)))
    check(len(p.streams) == len(per), "%s: %d streams, trace %d" % (name, len(p.streams), len(per)))
    # profiler steps
    steps = sorted((int(e["name"].split("#")[1]), us_to_ns(e.get("dur"))) for e in ev
                   if e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith("ProfilerStep#"))
    got_steps = sorted(zip(p.steps["step"].tolist(), p.steps["dur_ns"].tolist()))
    check(got_steps == steps, "%s: steps %s, trace %s" % (name, got_steps[:3], steps[:3]))
    # CPU ops: no name more often than the trace's cpu_op events have it, most names exactly
    # as often (the analysis folds torch's duplicate nodes, as torch.profiler does)
    cpu = collections.Counter(e["name"] for e in ev if e.get("cat") == "cpu_op")
    c = p.cpu_ops
    have = c[c["kind"] == "cpu_op"]["name"].value_counts()
    over = [(n, int(v), cpu.get(n)) for n, v in have.items() if v > cpu.get(n, 0)]
    check(not over, "%s: CPU op counts per name above the trace's: %s" % (name, over[:3]))
    same = sum(1 for n, v in have.items() if v == cpu.get(n))
    check(same >= 0.9 * len(have), "%s: %d of %d CPU op names counted as in the trace" % (name, same, len(have)))
    check(len(have) == 0 or have.sum() >= 0.9 * sum(cpu.values()),
          "%s: %d CPU op records of %d cpu_op events" % (name, have.sum(), sum(cpu.values())))
    check(p.summary == report_summary(path), "%s: summary == report --json's" % name)
    return len(k), len(c)


def check_profile(path):
    name = os.path.basename(path)
    p = opscope.load(path)
    recs = load_json(path)["records"]
    want = collections.defaultdict(lambda: [0, 0, None, None])
    for r in recs:
        w = want[(r["name"], r.get("extra"), r["backend_id"])]
        w[0] += 1
        w[1] += r["duration_ns"]
        w[2] = r["duration_ns"] if w[2] is None else min(w[2], r["duration_ns"])
        w[3] = r["duration_ns"] if w[3] is None else max(w[3], r["duration_ns"])
    g = p.ops.fillna({"fused": ""}).groupby(["name", "fused", "backend_id"]).agg(
        count=("count", "sum"), total=("total_ns", "sum"), mn=("min_ns", "min"), mx=("max_ns", "max"))
    got = {(n, f or None, int(b)): [int(r["count"]), int(r["total"]), int(r["mn"]), int(r["mx"])]
           for (n, f, b), r in g.iterrows()}
    check(got == dict(want), "%s: op groups' count, ns, min, max per (name, fused, backend): %s vs %s"
          % (name, sorted(got.items())[:2], sorted(want.items())[:2]))
    check(p.summary == report_summary(path), "%s: summary == report --json's" % name)
    check(len(p.kernels) == 0 and list(p.kernels.columns)[:2] == ["name", "kind"],
          "%s: no kernels, the columns kept" % name)


def values():
    for t in traces():
        nk, nc = check_trace(t)
        print("%s: %d GPU activities, %d CPU op records checked" % (os.path.basename(t), nk, nc))
    for prof in ("seed_v3.json", "v2_small.json", "killed_run.oplog"):
        path = os.path.join(repo, "tests", "read", "data", prof)
        if prof.endswith(".oplog"):  # a record log: its summary, as report reads it
            check(opscope.load(path).summary == report_summary(path), "%s: summary" % prof)
        else:
            check_profile(path)
        print("%s: checked" % prof)


def errors():
    bad = b'{"profiler": "ggml", "version": 3,\n "records": [\n  {"type": 0, @}\n]}\n'
    path = os.path.join(work, "bad.json")
    with open(path, "wb") as f:
        f.write(bad)
    at = bad.index(b"@")
    line = bad[:at].count(b"\n") + 1
    col = at - (bad.rfind(b"\n", 0, at) + 1) + 1
    try:
        opscope.load(path)
        check(False, "bad input raises")
    except opscope.Error as e:
        check(e.byte == at, "byte offset %d, the fault is at %d" % (e.byte, at))
        check((e.line, e.column) == (line, col), "line:col %d:%d, the fault %d:%d" % (e.line, e.column, line, col))
        check(e.file == path, "file %r" % e.file)
        r = subprocess.run([exe, "report", path, "-q"], capture_output=True, text=True)
        check(r.returncode == 2 and ("%s:%d:%d:" % (path, line, col)) in r.stderr,
              "report says %d:%d too: %r" % (line, col, r.stderr.strip()))
        check(str(e).startswith("%s:%d:%d:" % (path, line, col)), "the message: %r" % str(e))
        print("bad JSON: %s" % e)
    # a trace cut inside its header (gzip too)
    with gzip.open(os.path.join(TRACES, "a100_alexnet_fwd.json.gz"), "rb") as f:
        head = f.read()[:300]
    cut = os.path.join(work, "cut.json")
    with open(cut, "wb") as f:
        f.write(head)
    try:
        opscope.load(cut)
        check(False, "a cut trace raises")
    except opscope.Error as e:
        check(e.file == cut and e.byte > 0, "cut trace: %s (byte %d)" % (e, e.byte))
    missing = os.path.join(work, "absent.json")
    try:
        opscope.load(missing)
        check(False, "a missing file raises")
    except opscope.Error as e:
        check(e.file == missing and "No such file" in str(e) or "cannot open" in str(e), "missing file: %s" % e)
        print("missing file: %s" % e)


def job_summary(inputs):
    out = os.path.join(work, "job.report.json")
    subprocess.run([exe, "report", *inputs, "--json", out, "-q"], check=True)
    with open(out) as f:
        return json.load(f)["summary"]["job"]


def check_job(inputs, given):
    j = opscope.job(given)
    want = job_summary(inputs)
    want.pop("read_threads"), j.summary.pop("read_threads")  # how many threads read it
    check(j.summary == want, "%s: summary == report --json's (%s)" % (given, sorted(want)[:4]))
    check(len(j.ranks) == len(inputs) == len(want["ranks"]), "%s: %d ranks" % (given, len(j.ranks)))
    for path in inputs:
        d = load_json(path)
        row = j.ranks[j.ranks["trace"].map(os.path.realpath) == os.path.realpath(path)]
        n_gpu = sum(1 for e in d["traceEvents"] if e.get("ph") == "X" and e.get("cat") in GPU_CATS)
        rank = d.get("distributedInfo", {}).get("rank")
        check(len(row) == 1 and int(row["gpu_activities"].iloc[0]) == n_gpu,
              "%s: %s GPU activities, trace %d" % (path, row["gpu_activities"].tolist(), n_gpu))
        check(rank is None or int(row["rank"].iloc[0]) == rank, "%s: rank %s" % (path, row["rank"].tolist()))
    check(j.stragglers["rank"].tolist() == [s["rank"] for s in want["stragglers"]], "%s: stragglers" % given)
    print("%s: %d ranks, %d stragglers, %d collective types" % (given, len(j.ranks), len(j.stragglers),
                                                                 len(j.collectives)))


def check_job_profiles(given):
    """A job read with its ranks' profiles (one read per trace) gives each rank's tables and
    summary as a load of its trace on its own does, cpu_ops too when it was left out (read
    again on first use), and its profiles outlive the job object."""
    plain = opscope.job(given)
    for cpu_ops in (True, False):
        j = opscope.job(given, series=True, launches=True, cpu_ops=cpu_ops)
        check(j.summary == plain.summary or {k for k, v in j.summary.items() if plain.summary.get(k) != v} <= {"read_threads"},
              "%s: the job's summary with profiles == without" % given)
        for name in opscope.JOB_TABLES:
            check(j.tables[name].equals(plain.tables[name]), "%s: job table %s the same with profiles" % (given, name))
        check(len(j.profiles) == len(j.ranks), "%s: a profile per rank" % given)
        left = repr(j.profiles[0])
        check("cpu_ops=" not in left if not cpu_ops else True, "%s: cpu_ops left out: %s" % (given, left))
        profiles, traces = j.profiles, j.ranks["trace"].tolist()
        del j, plain
        gc.collect()
        for p, trace in zip(profiles, traces):
            one = opscope.load(trace, series=True, launches=True)
            check(p.path == trace, "%s: profile path %s" % (given, p.path))
            check(p.summary == one.summary, "%s: %s's summary == its own load's" % (given, trace))
            for name in opscope.TABLES:
                check(p.tables[name].equals(one.tables[name]),
                      "%s: %s's table %s == its own load's (%d rows, %d)" % (
                          given, os.path.basename(trace), name, len(p.tables[name]), len(one.tables[name])))
        plain = opscope.job(given)
    print("%s: job profiles equal to each trace's load, cpu_ops kept and left out" % given)


def check_sequences_left_out(path):
    """sequences=False: a load without the kernel sequences (empty tables, empty summary
    lists, the rest of the summary as a full load's); a job's profile read that way gives
    them on first use as a full load does."""
    name = os.path.basename(path)
    full = opscope.load(path, series=True, launches=True)
    ks = full.summary["kineto"]["kernel_stats"]
    check(len(full.kernel_seqs) > 0 and len(full.aten_kernels) > 0 and ks["kernel_sequences"] and ks["aten_op_kernels"],
          "%s: a full load has kernel sequences (%d, %d)" % (name, len(full.kernel_seqs), len(full.aten_kernels)))
    lean = opscope.load(path, series=True, launches=True, sequences=False)
    lk = lean.summary["kineto"]["kernel_stats"]
    check(len(lean.kernel_seqs) == 0 and len(lean.aten_kernels) == 0 and not lk["kernel_sequences"]
          and not lk["aten_op_kernels"], "%s: sequences=False: no sequences" % name)
    strip = lambda d: json.loads(json.dumps(d).replace(json.dumps(ks["kernel_sequences"]), "[]")
                                 .replace(json.dumps(ks["aten_op_kernels"]), "[]"))
    check(lean.summary == strip(full.summary), "%s: sequences=False: the rest of the summary unchanged" % name)
    for t in opscope.TABLES:
        if t not in ("kernel_seqs", "aten_kernels"):
            check(lean.tables[t].equals(full.tables[t]), "%s: sequences=False: table %s unchanged" % (name, t))
    p = opscope.job([path], series=True, launches=True, sequences=False).profiles[0]
    check(p.tables.rows("kernel_seqs") is None and p.tables.rows("aten_kernels") is None,
          "%s: a job's profile with sequences=False: the sequence tables left out" % name)
    check(p.kernel_seqs.equals(full.kernel_seqs) and p.aten_kernels.equals(full.aten_kernels),
          "%s: ... and read again on first use as a full load has them" % name)
    print("%s: sequences left out and read again (%d kernel sequences, %d aten op rows)"
          % (name, len(full.kernel_seqs), len(full.aten_kernels)))


def job():
    check_sequences_left_out(os.path.join(TRACES, "a100_alexnet_fwd.json.gz"))
    d = os.path.join(repo, "tests", "job", "traces")
    ranks = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".json.gz"))
    check_job(ranks, d)
    check_job_profiles(d)
    many = [os.path.join(TRACES, f) for f in ("a100_alexnet_fwd.json.gz", "a100_ddp_train_rank0.json.gz")]
    check_job(many, many)
    empty = os.path.join(work, "empty")
    os.makedirs(empty, exist_ok=True)
    try:
        opscope.job(empty)
        check(False, "an empty folder raises")
    except opscope.Error as e:
        check(e.file == empty, "empty folder: %s" % e)
        print("empty folder: %s" % e)


def speed():
    path = max(traces(), key=os.path.getsize)
    small = os.path.join(TRACES, "triton_example.json.gz")
    with gzip.open(path, "rb") as f:
        raw = f.read()
    events = raw.count(b'"ph"')
    with gzip.open(small, "rb") as f:
        small_events = f.read().count(b'"ph"')

    def calls_of(p):
        n = [0]

        def prof(frame, event, arg):
            if event == "call":
                n[0] += 1
        opscope.load(p)  # warm: imports, the page cache
        sys.setprofile(prof)
        opscope.load(p)
        sys.setprofile(None)
        return n[0]
    calls, small_calls = calls_of(path), calls_of(small)
    # the same tables and columns: the calls must not grow with the events
    check(events > 100 * small_events and calls < 1.5 * small_calls + 500,
          "%d Python calls for %d events, %d for %d" % (calls, events, small_calls, small_events))
    p = opscope.load(path)
    calls = [calls]
    t0 = time.perf_counter()
    opscope.load(path)
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    json.loads(gzip.decompress(open(path, "rb").read()))
    t_json = time.perf_counter() - t0
    check(t_load < 3 * t_json, "load %.3f s against json.load %.3f s" % (t_load, t_json))
    print("%s: %.1f MB, %d events, %d rows in the DataFrames: opscope.load %.3f s (%d Python calls), "
          "json.load alone %.3f s" % (os.path.basename(path), len(raw) / 1e6, events,
                                      sum(len(v) for v in p.tables.values()), t_load, calls[0], t_json))


{"values": values, "errors": errors, "job": job, "speed": speed}[part]()
sys.exit(1 if failures else 0)
