"""Shared helpers of the capture end-to-end tests. Runs INSIDE the forky root (scripts/in-root.sh).

Expected values come from the real programs and from nodecount.c (an independent 50-line shim
that counts the nodes each ggml_backend_graph_compute_async call computes and times the call),
never from opscope's own code.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from intervals import records_union, union_len  # noqa: E402

SKIP = 77
MODELS = os.environ.get("OPSCOPE_MODELS", "/models")
PRELOAD = os.environ.get("OPSCOPE_PRELOAD", "")
OPSCOPE = os.environ.get("OPSCOPE_BIN", "")
HERE = os.path.dirname(os.path.abspath(__file__))
EMPTY_OPS = {"NONE", "VIEW", "RESHAPE", "PERMUTE", "TRANSPOSE"}

failures = []


def note(msg):
    print(msg, flush=True)


def check(cond, msg):
    """Records a failed assertion (the test goes on, to report every problem at once)."""
    note(("ok    " if cond else "FAIL  ") + msg)
    if not cond:
        failures.append(msg)
    return cond


def finish():
    note(f"{'FAILED' if failures else 'passed'}: {len(failures)} failed checks")
    sys.exit(1 if failures else 0)


def skip(msg):
    note("SKIP: " + msg)
    sys.exit(SKIP)


def need_preload():
    if not PRELOAD or not os.path.exists(PRELOAD):
        skip("libopscope-ggml.so is not built in the root yet")


def outdir(name):
    d = os.path.join(os.getcwd(), "out-" + name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    return d


def nodecount_lib(d):
    so = os.path.join(d, "nodecount.so")
    subprocess.run(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
                    os.path.join(HERE, "nodecount.c"), "-o", so, "-ldl"], check=True)
    return so


def model(name):
    p = os.path.join(MODELS, name + ".gguf")
    if not os.path.exists(p):
        skip(f"{p} missing (the fixture runs scripts/make-models.py)")
    return p


def env_for(preloads, profile=None, counts=None, extra=None):
    env = dict(os.environ)
    env.pop("GGML_PROFILE", None)
    if preloads:
        env["LD_PRELOAD"] = ":".join(preloads)
    if profile:
        env["GGML_PROFILE"] = profile
    if counts:
        env["OPSCOPE_TEST_NODECOUNT"] = counts
    # the device checks here want every GPU compute timed; the sampled default has its own
    # test (t_vulkan_sampled.py), which asks for it
    env.setdefault("OPSCOPE_GPU_TIMING", "all")
    env.update(extra or {})
    return env


def run(cmd, env, timeout=300, stdin=subprocess.DEVNULL):
    r = subprocess.run(cmd, env=env, capture_output=True, timeout=timeout, stdin=stdin)
    return r.returncode, r.stdout, r.stderr.decode("utf-8", "replace")


# ---- processes that must never outlive the test (a test that hangs turns CI red) ----

def guard_children():
    """Makes this test the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER): a
    program whose parent died (a command under a killed `opscope record`, a script's background
    job) stays below the test instead of going to init, so stop_children finds it, CTest's
    TIMEOUT (which kills the test's whole tree) reaches it, and the test kills it when it ends,
    however it ends (normally, an exception, SIGTERM or SIGHUP)."""
    import atexit
    import ctypes
    if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
        note(f"note  PR_SET_CHILD_SUBREAPER failed (errno {ctypes.get_errno()}): orphans go to init")
    atexit.register(stop_children)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda s, _f: sys.exit(128 + s))


def proc_table():
    """{pid: (state, ppid)} of every process, from /proc."""
    table = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    st = f.read()
            except OSError:
                continue
            rest = st[st.rindex(")") + 2:].split()
            table[int(name)] = (rest[0], int(rest[1]))
    return table


def descendants(pid):
    """(pid, state, ppid) of every descendant of PID."""
    table = proc_table()
    kids = {}
    for p, (_, pp) in table.items():
        kids.setdefault(pp, []).append(p)
    out, todo = [], [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.append((c, *table[c]))
            todo.append(c)
    return out


def stop_children(pr=None, timeout=15):
    """SIGKILLs every process this test started that still runs, however deep (PR among them,
    a subprocess.Popen), and reaps them: PR through PR.wait, the orphans that came to the test
    (guard_children) through waitpid. Bounded by TIMEOUT seconds. Returns the pids it killed."""
    me, killed = os.getpid(), []
    deadline = time.monotonic() + timeout
    while True:
        live = [(p, pp) for p, state, pp in descendants(me) if state not in "ZX"]
        for p, _ in live:
            try:
                os.kill(p, signal.SIGKILL)
                killed.append(p)
            except OSError:
                pass
        for p, state, pp in descendants(me):
            if pp == me and state in "ZX" and (pr is None or p != pr.pid):
                try:
                    os.waitpid(p, os.WNOHANG)
                except OSError:
                    pass
        if pr is not None and pr.returncode is None:
            try:
                pr.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                pass
        if (not live and (pr is None or pr.returncode is not None)) or time.monotonic() > deadline:
            return killed
        time.sleep(0.05)


def read_counts(path):
    """nodecount.c's log, one entry per sched graph compute (its backend calls summed; a backend
    call outside a scheduler is its own entry): [(key, n_calls, n_computed, n_tokens, wall_ns)]."""
    order, agg = [], {}
    with open(path) as f:
        for line in f:
            seq, sched, _backend, _n, comp, tok, t0, t1 = line.split()
            key = ("s", int(sched)) if int(sched) >= 0 else ("c", int(seq))
            if key not in agg:
                order.append(key)
                agg[key] = [0, 0, 0, 0]
            a = agg[key]
            a[0] += 1
            a[1] += int(comp)
            a[2] = a[2] or int(tok)
            a[3] += int(t1) - int(t0)
    return [(k, *agg[k]) for k in order]


LOG_MAGIC = b"\x89OPSLOG\n"


def is_record_log(path):
    """True when PATH is a record log (a capture streams one while the program runs: a killed
    run leaves it; docs/formats.md, "The record log")."""
    with open(path, "rb") as f:
        return f.read(8) == LOG_MAGIC


def load_profile(path):
    """The JSON profile at PATH; a record log is read by `opscope report --json` (the log's
    reader), which writes the same JSON profile the capture writes at a normal end."""
    if is_record_log(path):
        out = path + ".from-log.json"
        r = subprocess.run([OPSCOPE, "report", "-q", path, "--json", out], capture_output=True, text=True)
        if r.returncode != 0:
            raise ValueError(f"opscope report --json of the record log: exit {r.returncode}: {r.stderr.strip()}")
        path = out
    with open(path) as f:
        return json.load(f)


def load_checked(path, what="is valid JSON"):
    """The profile at PATH, with its records checked complete; one that cannot be read fails
    the test and ends it."""
    try:
        p = load_profile(path)
    except (OSError, ValueError) as ex:
        check(False, f"profile {path} {what} ({ex})")
        finish()
    recs = p.get("records", [])
    check(len(recs) > 0 and all(record_complete(r) for r in recs), f"{len(recs)} records, all complete (none torn)")
    return p


def one_thread(cmd, threads):
    """CMD with its '-t THREADS' replaced by '-t 1'."""
    return [("1" if a == threads and cmd[i - 1] == "-t" else a) for i, a in enumerate(cmd)]


def one_thread_pair(cmd, threads, profile, tries=1):
    """CMD run on 1 thread (its '-t THREADS' replaced) without and with the preload, PROFILE as
    GGML_PROFILE: (rc_plain, rc_preload, out_plain, out_preload). A differing pair is run again,
    up to TRIES runs in all."""
    cmd1 = one_thread(cmd, threads)
    for attempt in range(tries):
        rc2, out2, _ = run(cmd1, env_for([]))
        rc3, out3, _ = run(cmd1, env_for([PRELOAD], profile=profile))
        if out2 == out3:
            break
        if attempt + 1 < tries:
            note(f"note  1-thread outputs differed ({len(out2)}, {len(out3)} bytes): running again")
    return rc2, rc3, out2, out3


def op_records(prof):
    return [r for r in prof.get("records", []) if r.get("type", 0) == 0]


def graphs_of(prof):
    """OP records grouped by graph_id, in graph order: [(graph_id, [records])]."""
    g = {}
    for r in op_records(prof):
        g.setdefault(r.get("graph_id"), []).append(r)
    return sorted(g.items(), key=lambda kv: (kv[0] is None, kv[0] if kv[0] is not None else 0))


def tokens_per_graph(prof):
    """{graph_id: rows of its first RMS_NORM record by node index}: the tokens a llama graph
    evaluated (the first layer's norm has a row per token)."""
    rows = {}
    for gid, recs in graphs_of(prof):
        for r in sorted(recs, key=lambda r: r.get("node_index", 0)):
            if r["name"] == "RMS_NORM" and "ne" in r:
                rows[gid] = r["ne"][1]
                break
    return rows


def covered(recs):
    """Nodes covered by a graph's OP records (a fused record covers n_fused nodes)."""
    return sum(int(r.get("n_fused", 1)) for r in recs)


def record_complete(r):
    keys = ("type", "name", "backend_id", "start_ns", "duration_ns")
    if any(k not in r for k in keys):
        return False
    return isinstance(r["name"], str) and r["name"] != "" and r["duration_ns"] >= 0 and r["start_ns"] >= 0


def check_report(profile_path, expect_ops):
    """opscope's own reader must accept the file and name the ops the program ran."""
    if not OPSCOPE:
        # Only in a half-edited shared tree: a fresh checkout that builds has the CLI.
        note("note  opscope CLI not built in the root: report check not run")
        return
    r = subprocess.run([OPSCOPE, "report", profile_path, "--top-ops", "100"], capture_output=True,
                       text=True, errors="replace", timeout=120)
    if r.returncode != 0 and "not available in this build yet" in r.stderr:
        note("note  opscope report is still a placeholder in this checkout: report check not run")
        return
    if not check(r.returncode == 0, f"opscope report {os.path.basename(profile_path)} exits 0 "
                                    f"(got {r.returncode}: {r.stderr.strip()[:200]})"):
        return
    for op in expect_ops:
        check(op in r.stdout, f"opscope report lists {op}")


# ggml type number: (block elements, block bytes), as ggml_blck_size / ggml_type_size give them
GGML_SIZES = {0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 8: (32, 34), 26: (1, 4), 27: (1, 8),
              30: (1, 2)}


def _nbytes(t, shape):
    n = 1
    for d in shape:
        n *= max(d, 1)
    blck, size = GGML_SIZES[t]
    return (n + blck - 1) // blck * size


def report_summary(profile_path, what):
    """The summary of `opscope report PROFILE --json` (checked to exit 0, as WHAT), or None."""
    out = profile_path + ".summary.json"
    r = subprocess.run([OPSCOPE, "report", profile_path, "-q", "--json", out], capture_output=True,
                       text=True, errors="replace", timeout=120)
    if not check(r.returncode == 0, f"{what} exits 0 ({r.stderr.strip()[:200]})"):
        return None
    return json.load(open(out))["summary"]


def check_traffic(prof, profile_path):
    """Memory traffic on a real profile: MUL_MAT's traffic is at least the weight
    bytes its records read (summed here from their shapes and types), and each SET_ROWS
    record's bytes are the rows it set, not the KV cache it writes into."""
    if not OPSCOPE:
        return
    summary = report_summary(profile_path, "opscope report --json")
    if summary is None:
        return
    groups = summary["ops"]
    weights, n_sr, bad_sr = {}, 0, []
    for rec in op_records(prof):
        if (rec["name"] == "MUL_MAT" and not rec.get("extra") and rec.get("n_src", 0) >= 1 and
                rec.get("type_src", [-1])[0] in GGML_SIZES):
            b = rec["backend_id"]
            weights[b] = weights.get(b, 0) + _nbytes(rec["type_src"][0], rec["ne_src"][0])
        if rec["name"] == "SET_ROWS" and rec.get("n_fused", 1) == 1 and rec.get("out_type") in GGML_SIZES:
            n_sr += 1
            src = rec["ne_src"][0]
            want = _nbytes(rec["out_type"], [src[0]]) * max(src[1], 1) * max(src[2], 1) * max(src[3], 1)
            if rec["bytes"] != want:
                bad_sr.append((rec["bytes"], want))
    for g in groups:
        if g["name"] == "MUL_MAT" and g["backend_id"] in weights and not g["extra"]:
            check((g["traffic_bytes"] or 0) >= weights[g["backend_id"]],
                  f"MUL_MAT traffic {g['traffic_bytes']} >= the weight bytes its records read "
                  f"({weights[g['backend_id']]})")
    check(n_sr == 0 or not bad_sr, f"SET_ROWS bytes are the rows set ({len(bad_sr)} of {n_sr} differ: {bad_sr[:3]})")


def llama_perf(stderr_text):
    """llama.cpp's own counts from common_perf_print: (prompt tokens, prompt ms, eval runs,
    eval ms), None where a line is missing."""
    import re
    pm = re.search(r"prompt eval time =\s*([0-9.]+) ms /\s*([0-9]+) tokens", stderr_text)
    em = re.search(r"\beval time =\s*([0-9.]+) ms /\s*([0-9]+) runs", stderr_text)
    return (int(pm.group(2)) if pm else None, float(pm.group(1)) if pm else None,
            int(em.group(2)) if em else None, float(em.group(1)) if em else None)


def check_batches(profile_path, stderr_text, label):
    """The report's graphs by batch against llama.cpp's own perf print for the same run (one
    sequence): the prompt's graphs hold its tokens (batch x graphs), batch 1 has one graph per
    eval run, and each group's graph time lies inside llama's time for that phase (which also
    holds graph building and the scheduler's work around the compute)."""
    if not OPSCOPE:
        return
    p_tok, p_ms, e_runs, e_ms = llama_perf(stderr_text)
    if not check(p_tok is not None and e_runs is not None,
                 f"{label}: llama.cpp printed its prompt and eval counts ({p_tok}, {e_runs})"):
        return
    summary = report_summary(profile_path, f"{label}: opscope report --json")
    if summary is None:
        return
    groups = summary.get("graphs_by_batch", [])
    own = json.load(open(profile_path)).get("summary", {}).get("graphs_by_batch")
    check(own == groups, f"{label}: the capture's own summary has the same graphs_by_batch as the report's")
    prompt = [g for g in groups if g["batch"] > 1]
    gen = [g for g in groups if g["batch"] == 1]
    got_tok = sum(g["batch"] * g["graphs"] for g in prompt)
    check(got_tok == p_tok, f"{label}: prompt graphs hold llama's prompt tokens: sum of batch x graphs "
                            f"{got_tok} == {p_tok} ({[(g['batch'], g['graphs']) for g in prompt]})")
    got_runs = sum(g["graphs"] for g in gen)
    check(got_runs == e_runs, f"{label}: batch-1 graphs {got_runs} == llama's eval runs {e_runs}")
    for name, gs, ms in (("prompt", prompt, p_ms), ("eval", gen, e_ms)):
        wall = sum(g["wall_ns"] for g in gs) / 1e6
        # the lower bound only catches a lost time base: the rest of llama's time (graph
        # building, a preempted thread on a loaded machine) is unbounded
        check(0.05 * ms <= wall <= ms * 1.02 + 0.2,
              f"{label}: {name} graphs' wall {wall:.2f} ms within llama's {name} time {ms:.2f} ms "
              f"(and at least 5% of it)")


def _bad_time(prof, counts, tol, min_wall_ns):
    bad, timed = [], 0
    for (gid, recs), (_key, _calls, _comp, _tok, wall) in zip(graphs_of(prof), counts):
        if wall >= min_wall_ns:
            timed += 1
            s = sum(r["duration_ns"] for r in recs)
            if abs(s - wall) > tol * wall:
                bad.append((gid, s, wall))
    return bad, timed


def check_graphs(prof, counts, label, tol=0.05, min_wall_ns=0, timing=True, retry=None):
    """Profile graphs vs nodecount's sched graph computes: same number, same computed nodes, and
    the sum of op durations within tol of the wall time of the graph's backend calls.
    RETRY: a function that records the run again and returns (profile, counts); when the timing
    check fails, it is made on that second run instead (a single stall on this 2-core machine,
    e.g. in a cold first graph, is not what the check is for; a real fault fails twice)."""
    graphs = graphs_of(prof)
    check(len(graphs) == len(counts),
          f"{label}: {len(graphs)} graphs with OP records == {len(counts)} graph computes seen by nodecount")
    bad_nodes, bad_time, timed = [], [], 0
    for (gid, recs), (_key, _calls, comp, _tok, wall) in zip(graphs, counts):
        if covered(recs) != comp:
            bad_nodes.append((gid, covered(recs), comp))
        if wall >= min_wall_ns:
            timed += 1
            s = sum(r["duration_ns"] for r in recs)
            if abs(s - wall) > tol * wall:
                bad_time.append((gid, s, wall))
    check(not bad_nodes, f"{label}: OP records cover exactly the computed nodes of every graph"
                         f" (mismatches [graph, recorded, computed]: {bad_nodes[:5]})")
    devs = sorted(abs(sum(r["duration_ns"] for r in recs) - c[4]) / c[4]
                  for (_g, recs), c in zip(graphs, counts) if c[4] > 0)
    if devs:
        note(f"note  {label}: op sum vs graph wall: {timed - len(bad_time)}/{timed} graphs within {tol:.0%}, "
             f"median deviation {devs[len(devs) // 2] * 100:.2f}%, worst {devs[-1] * 100:.2f}%")
    if not timing:
        return
    if bad_time and retry:
        worst = sorted(bad_time, key=lambda x: -abs(x[1] - x[2]) / x[2])[:3]
        note(f"note  {label}: timing off in {len(bad_time)}/{timed} graphs ({worst}); recording again")
        prof2, counts2 = retry()
        bad_time, timed = _bad_time(prof2, counts2, tol, min_wall_ns)
    check(timed > 0 and not bad_time,
          f"{label}: sum of op durations within {tol:.0%} of the graph's wall time in {timed - len(bad_time)}/{timed}"
          f" graphs (worst [graph, sum_ns, wall_ns]: {sorted(bad_time, key=lambda x: -abs(x[1] - x[2]) / x[2])[:3]})")


def check_device_records(p, nodes_path, gpu_log, label, prefix="Vulkan", min_graphs=1):
    """The device-timed records of backends named PREFIX* in profile P, against nodecount's list
    of computed nodes (OPSCOPE_TEST_NODELIST) and the raw device spans (OPSCOPE_GPU_LOG):
    no GRAPH_SPLIT placeholder; every record timed on the device; every computed node of every
    graph compute in exactly one record; every record inside its compute's host interval
    within 50 us; per graph, the union of the op intervals within 5% of the device span.
    Returns {(graph_id, split_id): [records]}."""
    import collections
    ids = {b["id"] for b in p["backends"] if b["name"].startswith(prefix)}
    recs = [r for r in p["records"] if r["backend_id"] in ids and r["type"] == 0]
    check(not any(r["name"] == "GRAPH_SPLIT" for r in recs),
          f"{label}: no GRAPH_SPLIT placeholder on {prefix} ({sum(r['name'] == 'GRAPH_SPLIT' for r in recs)} found)")
    check(recs and all(r.get("time_source") == "device" and r.get("n_kernels", 0) >= 1 and r.get("kernel")
                       for r in recs if "graph_id" in r),
          f"{label}: {len(recs)} {prefix} OP records, all timed on the device with their kernels named")
    calls = []
    for line in open(nodes_path):
        _seq, backend, lst = line.split()
        if backend.startswith(prefix) and lst != "-":
            calls.append({int(x) for x in lst.split(",")})
    by_graph = collections.defaultdict(list)
    for r in recs:
        if "graph_id" in r:
            by_graph[(r["graph_id"], r["split_id"])].append(r)
    keys = sorted(by_graph)
    check(len(keys) == len(calls) and len(keys) >= min_graphs,
          f"{label}: {len(keys)} {prefix} graph computes with records == {len(calls)} computing calls seen by nodecount")
    bad = []
    for k, want in zip(keys, calls):
        seen = collections.Counter()
        for r in by_graph[k]:
            rng = set(range(r["node_index"], r["node_index"] + r.get("n_fused", 1)))
            if not rng & want:
                bad.append((k, "record covers no computed node", r["node_index"], r["name"]))
            for i in rng & want:
                seen[i] += 1
        missing = sorted(want - set(seen))
        twice = sorted(i for i, c in seen.items() if c > 1)
        if missing or twice:
            bad.append((k, "missing", missing[:5], "twice", twice[:5]))
    check(not bad, f"{label}: every computed node of every {prefix} graph in exactly one record "
                   f"({len(keys)} graphs; problems: {bad[:3]})")
    late = [(r["graph_id"], r["node_index"], r["start_ns"] - r["host_start_ns"],
             r["host_end_ns"] - r["start_ns"] - r["duration_ns"])
            for r in recs if "graph_id" in r and (r["start_ns"] < r["host_start_ns"] - 50000 or
                                                 r["start_ns"] + r["duration_ns"] > r["host_end_ns"] + 50000)]
    check(not late, f"{label}: every {prefix} record inside its host interval within 50 us (outside: {late[:3]})")
    spans = {}
    for line in open(gpu_log):
        if line.startswith("#"):
            continue
        gid, split, _bi, _n, _batches, span, _first, _last = line.split()
        spans[(int(gid), int(split))] = int(span)
    ratios = [(k, records_union(by_graph[k]) / spans[k]) for k in keys if spans.get(k)]
    off = [(k, round(x, 3)) for k, x in ratios if abs(x - 1) > 0.05]
    check(ratios and len(ratios) == len(keys) and not off,
          f"{label}: per graph, {prefix} op time (union) within 5% of the device span ({len(ratios)} graphs; "
          f"min {min((x for _, x in ratios), default=0):.3f}, max {max((x for _, x in ratios), default=0):.3f}; "
          f"off: {off[:3]})")
    return by_graph


def perf_logger_blocks(text):
    """GGML_VK_PERF_LOGGER's output (stderr), one dict per printed graph block:
    group name -> [count, total us]. MUL_MAT_VEC counts as MUL_MAT (the perf logger picks _VEC
    by a size heuristic; records carry the op)."""
    import re
    blocks, cur = [], None
    for line in text.splitlines():
        if line.startswith("Vulkan Timings:"):
            cur = {}
            blocks.append(cur)
        elif cur is not None and line.startswith("Total time"):
            cur = None
        elif cur is not None:
            mm = re.match(r"^(\S+?):? .*?(\d+) x [\d.]+ us = ([\d.]+) us", line)
            if mm:
                name = mm.group(1).rstrip(":")
                name = {"MUL_MAT_VEC": "MUL_MAT", "MUL_MAT_ID_VEC": "MUL_MAT_ID"}.get(name, name)
                c = cur.setdefault(name, [0, 0.0])
                c[0] += int(mm.group(2))
                c[1] += float(mm.group(3))
    return blocks


def server_completions(cmd_for, env, log_path, batches, n_predict, body_for=None, status=None, stop_timeout=60,
                       stop_signal=signal.SIGTERM, stop_after=0):
    """Runs llama-server as CMD_FOR(port) on a free local port (output to LOG_PATH), waits for
    /health, sends the requests of each batch in BATCHES at once ("Request i: hello", N_PREDICT
    greedy tokens, or BODY_FOR(i) when given: request i's JSON body), then, STOP_AFTER seconds
    later, stops it with STOP_SIGNAL (SIGTERM; killed when it has not ended STOP_TIMEOUT s
    later). Returns {i: the reply's JSON or {"error": ...}}; STATUS, a dict when given, receives
    "healthy" (whether /health answered) and "rc" (the server's exit status, None when it had
    to be killed)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    log = open(log_path, "wb")
    srv = subprocess.Popen(cmd_for(port), env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    answers = {}
    status = {} if status is None else status
    status.update(healthy=False, rc=None)

    def ask(i, start):
        b = body_for(i) if body_for else {"prompt": f"Request {i}: hello", "n_predict": n_predict, "temperature": 0,
                                          "ignore_eos": True}
        req = urllib.request.Request(base + "/completion", json.dumps(b).encode(), {"Content-Type": "application/json"})
        start.wait()  # the batch's requests leave together
        try:
            with urllib.request.urlopen(req, timeout=300) as r:
                answers[i] = json.loads(r.read())
        except OSError as ex:
            answers[i] = {"error": str(ex)}

    try:
        for _ in range(1200):
            if srv.poll() is not None:
                break
            try:
                with urllib.request.urlopen(base + "/health", timeout=2) as r:
                    if r.status == 200:
                        status["healthy"] = True
                        break
            except OSError:
                time.sleep(0.25)
        for batch in batches if status["healthy"] else []:
            start = threading.Barrier(len(batch))
            th = [threading.Thread(target=ask, args=(i, start)) for i in batch]
            for t in th:
                t.start()
            for t in th:
                t.join()
    finally:
        time.sleep(stop_after)
        if srv.poll() is None:
            srv.send_signal(stop_signal)
            try:
                status["rc"] = srv.wait(timeout=stop_timeout)
            except subprocess.TimeoutExpired:
                srv.kill()
                srv.wait()
        else:
            status["rc"] = srv.returncode
        log.close()
    return answers


def check_graph_walls(prof, profile_path, label):
    """Per graph, the report's wall (report --sqlite's graphs.wall_ns) within 1.1x of the union
    of the graph's own records' spans, computed here (pipelined graphs on an asynchronous
    backend overlap, and a graph must not be charged for its neighbours); notes the largest
    span/union (what a first-start-to-last-end wall would overstate)."""
    if not OPSCOPE:
        return
    import sqlite3
    db = profile_path + ".db"
    if os.path.exists(db):
        os.unlink(db)
    r = subprocess.run([OPSCOPE, "report", profile_path, "-q", "--sqlite", db], capture_output=True, text=True,
                       errors="replace", timeout=300)
    if not check(r.returncode == 0, f"{label}: report --sqlite exits 0 ({r.stderr.strip()[:200]})"):
        return
    spans = {}
    for rec in prof.get("records", []):
        if "graph_id" in rec:
            spans.setdefault(rec["graph_id"], []).append((rec["start_ns"], rec["start_ns"] + rec["duration_ns"]))
    walls = dict(sqlite3.connect(db).execute("SELECT graph_id, wall_ns FROM graphs"))
    bad, worst = [], (1.0, None)
    for g, iv in spans.items():
        u = union_len(iv)
        span = max(e for _, e in iv) - min(s for s, _ in iv)
        if u and span / u > worst[0]:
            worst = (span / u, g)
        if not (u * 0.999 <= walls.get(g, -1) <= 1.1 * u):
            bad.append((g, walls.get(g), u))
    note(f"note  {label}: largest first-start-to-last-end span / union of a graph: {worst[0]:.2f} (graph {worst[1]})")
    check(not bad and len(walls) == len(spans),
          f"{label}: every graph's wall within 1.1x the union of its records ({len(spans)} graphs; bad {bad[:5]})")
