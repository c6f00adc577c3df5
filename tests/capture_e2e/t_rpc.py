#!/usr/bin/env python3
"""ggml RPC under the capture, and `opscope merge`.

ggml-rpc-server runs in its own time namespace (`unshare --time --monotonic N`: its
CLOCK_MONOTONIC is N s ahead, as on another machine), llama-completion uses it over loopback
with --rpc; both are profiled. The true offset is the namespace's, known to this test and not
given to opscope: `opscope merge` must estimate it from the profiles.

Cases (argument):
  one        one server (+1000 s): the server writes its profile on SIGTERM; the merged
             profile has every server op inside a client RPC call (on the client's clock)
             within 200 us, the true offset inside the stated bound, backends carrying their
             process, and `opscope report` showing the per-server table. `one N` makes N
             such runs, each checked (the bar: every one of them).
  two        two servers (+1000 s, +2500 s), `--rpc a,b`: each server's offset and ops.
  sequence   several clients in sequence on one server; it writes its profile on SIGINT, and
             each client merges with it.
  killed     a client killed mid-run: the server goes on (and serves the next client, which
             merges with it) or dies by SIGPIPE as it does without the capture; either way its
             profile is written.
  vulkan     the server on Vulkan (lavapipe, GGML_VK_VISIBLE_DEVICES=0), device-timed ops.
  windowed   the server under `opscope record --paused` (+1000 s): a client while paused,
             `opscope ctl start`, a second client, `ctl stop`, a third; the server's profile
             holds one window and only its graphs; merged with the second client, every
             server op inside a client RPC call within 200 us, as for `one`.
Expected values (offsets, containment) are computed here from the files, not by opscope.
usage (inside the root): t_rpc.py CASE [N]
"""
import bisect
import json
import os
import signal
import socket
import subprocess
import sys
import time

import e2e

RPC_SERVER = "/usr/libexec/x86_64-linux-gnu/llama/bin/ggml-rpc-server"
BAR_NS = 200_000
case = sys.argv[1] if len(sys.argv) > 1 else "one"

e2e.need_preload()
if not os.path.exists(RPC_SERVER):
    e2e.skip(f"{RPC_SERVER} missing (llama.cpp-tools-extra)")
if not e2e.OPSCOPE:
    e2e.skip("opscope CLI not built in the root")
model = e2e.model("tiny-dense-f32")
d = e2e.outdir("rpc-" + case)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Server:
    """ggml-rpc-server, profiled, in a time namespace SHIFT s ahead."""

    def __init__(self, name, shift_s, extra_env=None, device=None, paused=False):
        self.port = free_port()
        self.profile = f"{d}/{name}.json"
        self.shift_ns = shift_s * 1_000_000_000
        env = e2e.env_for([e2e.PRELOAD], profile=self.profile, extra=extra_env)
        cmd = ["unshare", "--time", "--fork", "--monotonic", str(shift_s), RPC_SERVER,
               "-H", "127.0.0.1", "-p", str(self.port), "-t", "1"]
        if device:
            cmd += ["-d", device]
        if paused:  # under opscope record --paused: its control channel is the run's
            env = e2e.env_for([], extra=extra_env)
            env.pop("LD_PRELOAD", None)
            env["OPSCOPE_LIB"] = e2e.PRELOAD
            cmd = [e2e.OPSCOPE, "record", "--paused", "-o", self.profile, "--"] + cmd
        self.log = open(f"{d}/{name}.log", "wb")
        # SIGINT at its default even when this test runs in a background job (which starts
        # with it ignored: the server, like any program, would then keep it ignored)
        self.outer = subprocess.Popen(cmd, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL,
                                      preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.pid = None
        for _ in range(300):  # the server itself is unshare's child (record's grandchild)
            for p, _st, _pp in e2e.descendants(self.outer.pid):
                try:
                    if open(f"/proc/{p}/comm").read().startswith("ggml-rpc"):
                        self.pid = p
                except OSError:
                    pass
            # the port may have gone to another test's server between free_port() and the
            # bind (tests of several checkouts share loopback): only a listener this server
            # holds counts, else a client here would be served, and profiled, over there
            if self.pid and self.listening() and self.holds_port():
                return
            if self.outer.poll() is not None:
                break
            time.sleep(0.1)
        e2e.check(False, f"ggml-rpc-server {name} starts and listens on {self.port}")
        self.stop(signal.SIGKILL)
        e2e.finish()

    def listening(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                pass
            # a bare connect/close makes the server print "Client connection closed": harmless
            return True
        except OSError:
            return False

    def holds_port(self):
        """The server process holds the socket listening on its port (/proc/net/tcp's
        LISTEN entry for the port, by inode, among the process's descriptors)."""
        mine = set()
        try:
            fds = os.listdir(f"/proc/{self.pid}/fd")
            rows = [ln.split() for ln in open("/proc/net/tcp").read().splitlines()[1:]]
        except OSError:
            return False
        for f in fds:
            try:
                mine.add(os.readlink(f"/proc/{self.pid}/fd/{f}"))
            except OSError:
                pass  # closed since the listing
        return any(int(r[1].split(":")[1], 16) == self.port and r[3] == "0A" and f"socket:[{r[9]}]" in mine
                   for r in rows)

    def endpoint(self):
        return f"127.0.0.1:{self.port}"

    def stop(self, sig=signal.SIGTERM):
        if self.pid and self.outer.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass
        try:
            self.outer.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.outer.kill()
            self.outer.wait()
        return self.outer.returncode


def client(name, servers, n=16, prompt="Hello world, this is a test", wait=True):
    prof = f"{d}/{name}.json"
    cmd = ["llama-completion", "-m", model, "--rpc", ",".join(s.endpoint() for s in servers), "-ngl", "99",
           "-n", str(n), "-p", prompt, "-no-cnv", "-t", "1", "--no-warmup", "--temp", "0", "--seed", "1"]
    env = e2e.env_for([e2e.PRELOAD], profile=prof)
    if not wait:
        return prof, subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      stdin=subprocess.DEVNULL)
    rc, out, err = e2e.run(cmd, env, timeout=600)
    e2e.check(rc == 0, f"{name}: llama-completion --rpc exits 0 (got {rc}; {err.strip()[-300:]})")
    return prof, rc


def merge(client_prof, servers, out, extra=()):
    cmd = [e2e.OPSCOPE, "merge", client_prof] + [s.profile for s in servers] + ["-o", out] + list(extra)
    r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=300)
    e2e.note(r.stdout.strip())
    e2e.check(r.returncode == 0, f"opscope merge exits 0 (got {r.returncode}: {r.stderr.strip()[:300]})")
    if r.returncode != 0:
        e2e.finish()
    return json.load(open(out)), r.stdout


def client_calls(m):
    """The client's RPC calls on the merged timeline, computed here from ggml-rpc's protocol: a
    GRAPH_SPLIT on an RPC backend (ggml-rpc sends the graph and returns) up to the end of the
    first read that waited for its results: a blocking read (tensor_get on the endpoint, or a
    tensor_copy out of an RPC device, which ggml makes as a get from the source) or the
    SYNCHRONIZE that collected an asynchronous get of the endpoint."""
    be = {b["id"]: b for b in m["backends"]}
    rpc = lambda r: be[r["backend_id"]]["name"].startswith("RPC")
    ep_of = lambda r: be[r["backend_id"]]["device"]
    evs = sorted((r for r in m["records"] if rpc(r)), key=lambda r: r["start_ns"])

    def blocking_read(r, ep):
        x = r.get("extra") or ""
        if r["type"] != 1:
            return False
        if x in ("tensor_get", "tensor_get_2d"):
            return ep_of(r) == ep
        return x == "tensor_copy" and r["name"] in ("copy_D2D", "copy_D2H")

    calls = {}
    for i, sp in enumerate(evs):
        if sp["type"] != 0 or sp["name"] != "GRAPH_SPLIT":
            continue
        ep = ep_of(sp)
        end, pending = sp["start_ns"] + sp["duration_ns"], False
        for r in evs[i + 1:]:
            if r["type"] == 0 and r["name"] == "GRAPH_SPLIT" and ep_of(r) == ep:
                break
            if blocking_read(r, ep) or (pending and r["type"] == 0 and r["name"] == "SYNCHRONIZE" and ep_of(r) == ep):
                end = r["start_ns"] + r["duration_ns"]
                break
            if r["type"] == 1 and ep_of(r) == ep and (r.get("extra") or "").startswith("tensor_get") and "async" in r["extra"]:
                pending = True
        calls.setdefault(ep, []).append((sp["start_ns"], end))
    return calls


def worst_outside(m, label, calls, during_client=True):
    """The farthest any graph op of process LABEL (an OP record with a graph id: not a buffer
    clear the server made for a client's RPC_CMD_BUFFER_CLEAR) during the client's run lies
    outside every call in CALLS (ns), and how many such records there are."""
    be = {b["id"]: b for b in m["backends"]}
    starts = [c[0] for c in calls]
    # a server that served other clients too: only the ops during this client's run count
    client = m["merge"]["processes"][0]["label"]
    mine = [r for r in m["records"] if be[r["backend_id"]].get("process") == client]
    t_lo = min(r["start_ns"] for r in mine)
    t_hi = max(r["start_ns"] + r["duration_ns"] for r in mine)
    worst, n = 0, 0
    for r in m["records"]:
        if r.get("type", 0) != 0 or "graph_id" not in r or be[r["backend_id"]].get("process") != label:
            continue
        if during_client and not t_lo <= r["start_ns"] <= t_hi:
            continue
        n += 1
        a, e = r["start_ns"], r["start_ns"] + r["duration_ns"]
        k = bisect.bisect_right(starts, a) - 1
        near = calls[max(0, k - 2):k + 2] or calls
        worst = max(worst, min(max(0, c0 - a) + max(0, e - c1) for c0, c1 in near))
    return worst, n


def check_server(m, srv, calls, tag):
    procs = {p["file"]: p for p in m["merge"]["processes"]}
    p = procs.get(srv.profile)
    if not e2e.check(p is not None, f"{tag}: the merge names the server's process"):
        return
    label = p["label"]
    e2e.check(p["method"] == "estimated", f"{tag}: offset estimated from the data (method {p['method']})")
    lo, hi, off = p.get("bound_lo_ns"), p.get("bound_hi_ns"), p["offset_ns"]
    # The namespace shift is exact; each process calibrates its own timestamps against its
    # CLOCK_MONOTONIC, so allow 10 us on top of the stated bound for those calibrations.
    e2e.check(lo is not None and lo - 10_000 <= srv.shift_ns <= hi + 10_000,
              f"{tag}: true offset {srv.shift_ns} ns inside the stated bound [{lo}, {hi}] (+-10 us)")
    e2e.check(abs(off - srv.shift_ns) <= BAR_NS,
              f"{tag}: estimate {off} within 200 us of the true {srv.shift_ns} (error {(off - srv.shift_ns) / 1e3:.1f} us, "
              f"stated uncertainty {p.get('uncertainty_ns', 0) / 1e3:.1f} us)")
    ep_calls = calls.get(srv.endpoint(), [])
    e2e.check(len(ep_calls) > 0, f"{tag}: client calls to {srv.endpoint()}: {len(ep_calls)}")
    worst, n = worst_outside(m, label, ep_calls)
    e2e.check(n > 0, f"{tag}: {n} server op records in the merged profile")
    e2e.check(worst <= BAR_NS, f"{tag}: every server op lies inside a client RPC call within 200 us "
                               f"(farthest outside: {worst / 1e3:.1f} us)")
    be = [b for b in m["backends"] if b.get("process") == label]
    e2e.check(len(be) > 0 and all(b["id"] >= p["backend_id_base"] for b in be),
              f"{tag}: the server's backends carry its process ({[b['name'] for b in be]})")
    return worst, p


def check_report(merged, labels):
    r = subprocess.run([e2e.OPSCOPE, "report", merged], capture_output=True, text=True, errors="replace",
                       timeout=120)
    e2e.check(r.returncode == 0, f"opscope report on the merged profile exits 0 ({r.stderr.strip()[:200]})")
    e2e.check("RPC servers" in r.stdout, "the report has the per-server table")
    for lab in labels:
        e2e.check(lab in r.stdout, f"the report names server {lab}")
    v = subprocess.run([e2e.OPSCOPE, "view", merged, "-o", merged + ".html"], capture_output=True, text=True,
                       timeout=120)
    e2e.check(v.returncode == 0 and os.path.getsize(merged + ".html") > 0, "opscope view writes the merged timeline")
    t = subprocess.run([e2e.OPSCOPE, "report", merged, "-q", "--chrome-trace", merged + ".trace.json"],
                       capture_output=True, text=True, timeout=120)
    names = []
    if t.returncode == 0:
        names = [e["args"]["name"] for e in json.load(open(merged + ".trace.json"))["traceEvents"]
                 if e.get("name") == "process_name"]
    e2e.check(all(any(n.startswith(lab + ":") for n in names) for lab in labels),
              f"the Chrome trace names each process ({names})")
    # the same per-server figures in the JSON summary, against the calls computed here
    j = subprocess.run([e2e.OPSCOPE, "report", merged, "-q", "--json", merged + ".report.json"],
                       capture_output=True, text=True, timeout=120)
    rpc = json.load(open(merged + ".report.json"))["summary"].get("rpc") if j.returncode == 0 else None
    if not e2e.check(rpc is not None, "report --json has the rpc summary"):
        return
    servers = {sv["process"]: sv for sv in rpc["servers"]}
    calls = client_calls(json.load(open(merged)))
    for lab in labels:
        sv = servers.get(lab)
        mine = calls.get(sv["endpoint"], []) if sv else []
        e2e.check(sv is not None and sv["calls"] == len(mine) > 0 and
                  sv["call_ns"] == sum(c1 - c0 for c0, c1 in mine) and sv["graphs_inside"] == sv["graphs"] and
                  sv["compute_ns"] + sv["other_ns"] == sv["call_ns"],
                  f"JSON rpc server {lab}: {len(mine)} calls and their span as computed here, every graph inside "
                  f"({ {k: sv[k] for k in ('calls', 'call_ns', 'compute_ns', 'graphs', 'graphs_inside')} if sv else None})")
    check_time(json.load(open(merged)), json.load(open(merged + ".report.json"))["summary"], r.stdout)
    e2e.check(len(rpc["calls"]) == sum(len(v) for v in calls.values()) and
              sorted((c["start_ns"], c["end_ns"]) for c in rpc["calls"]) == sorted(x for v in calls.values() for x in v),
              f"JSON rpc calls: every call, with the bounds computed here ({len(rpc['calls'])})")


def check_time(m, summ, console):
    """%Time counts each instant once per machine: the client's RPC records' overlap with the
    union of the server records' intervals, computed here, is the summary's rpc_covered_ns
    and is left out of pct_time (docs/metrics.md, "Merged RPC time")."""
    be = {b["id"]: b for b in m["backends"]}
    client = m["merge"]["processes"][0]["label"]
    union = []
    for a, e in sorted((r["start_ns"], r["start_ns"] + r["duration_ns"]) for r in m["records"]
                       if be[r["backend_id"]].get("process") != client):
        if union and a <= union[-1][1]:
            union[-1][1] = max(union[-1][1], e)
        else:
            union.append([a, e])
    starts = [u[0] for u in union]
    cov = 0
    for r in m["records"]:
        b = be[r["backend_id"]]
        if b.get("process") != client or not b["name"].startswith("RPC"):
            continue
        a, e = r["start_ns"], r["start_ns"] + r["duration_ns"]
        k = max(0, bisect.bisect_right(starts, a) - 1)
        while k < len(union) and union[k][0] < e:
            cov += max(0, min(e, union[k][1]) - max(a, union[k][0]))
            k += 1
    all_ns = sum(r["duration_ns"] for r in m["records"])
    pct = sum(g["pct_time"] for g in summ["ops"])
    e2e.check(cov > 0 and summ.get("rpc_covered_ns") == cov and abs(pct - 100) < 1e-6 and
              summ.get("counted_ns") == all_ns - cov,
              f"%Time counts the client's RPC time under the server's records once: covered {cov} ns computed "
              f"here, {summ.get('rpc_covered_ns')} in the summary; pct_time sums to {pct:.4f}")
    e2e.check(f"{cov / 1e6:.3f} ms of the client's RPC records: waiting on RPC server" in console,
              "the console's header says how much of the client's RPC time the server's records cover")
    e2e.note(f"figure: client RPC time covered by server records {cov / 1e6:.3f} ms of {all_ns / 1e6:.3f} ms")


def check_capture_meta(prof, program):
    p = e2e.load_checked(prof)
    c = p.get("capture", {})
    e2e.check(c.get("program") == program and c.get("clock") == "CLOCK_MONOTONIC" and "pid" in c and
              "boot_id" in c and "realtime_offset_ns" in c and "time_ns" in c,
              f"{os.path.basename(prof)}: capture metadata ({c})")
    return p


def one_server(tag):
    """The "one" case once, its files in the folder D names (kept until the next run). Returns
    True when every check of this run passed."""
    failed0 = len(e2e.failures)
    srv = Server("server", 1000)
    cprof, _ = client("client", [srv])
    rc = srv.stop(signal.SIGTERM)
    e2e.check(os.path.exists(srv.profile), f"{tag}the server wrote its profile on SIGTERM (exit {rc})")
    sp = check_capture_meta(srv.profile, "ggml-rpc-server")
    cp = check_capture_meta(cprof, "llama-completion")
    e2e.check(cp["capture"]["realtime_offset_ns"] - sp["capture"]["realtime_offset_ns"] > 999_000_000_000,
              f"{tag}the clock reference shows the server's clock 1000 s ahead")
    e2e.check(any(r["name"] == "SYNCHRONIZE" for r in cp["records"]), f"{tag}the client records its RPC waits")
    merged = f"{d}/merged.json"
    m, out = merge(cprof, [srv], merged)
    e2e.check("+-" in out, f"{tag}merge prints the residual uncertainty")
    worst, p = check_server(m, srv, client_calls(m), tag + "one server") or (None, None)
    if p:
        # how far inside each bound the true offset lay: a bound that excludes it (a negative
        # margin) means records that contradict causality, a wide one only weak evidence
        lo, hi = p.get("bound_lo_ns"), p["bound_hi_ns"]
        lo_m = f"{(srv.shift_ns - lo) / 1e3:.1f}" if lo is not None else "none"
        e2e.note(f"figure: {tag}one server: offset error {(p['offset_ns'] - srv.shift_ns) / 1e3:.1f} us, "
                 f"uncertainty +-{p['uncertainty_ns'] / 1e3:.1f} us, {p['used']} matches, {p['rejected']} left out, "
                 f"truth {(hi - srv.shift_ns) / 1e3:.1f} us below the upper bound and {lo_m} us above the lower, "
                 f"farthest server op outside a call {worst / 1e3:.1f} us, load {os.getloadavg()[0]:.2f}")
        check_report(merged, [p["label"]])
    # --offset overrides; a wrong one puts the ops outside the calls (so the check can fail)
    m2, _ = merge(cprof, [srv], f"{d}/merged-given.json", ["--offset", f"{srv.profile}={srv.shift_ns - 50_000_000}"])
    p2 = m2["merge"]["processes"][1]
    e2e.check(p2["method"] == "given" and p2["offset_ns"] == srv.shift_ns - 50_000_000, f"{tag}--offset is used as given")
    w2, _ = worst_outside(m2, p2["label"], client_calls(m2).get(srv.endpoint(), []), during_client=False)
    e2e.check(w2 > BAR_NS, f"{tag}with an offset 50 ms off, server ops fall outside the calls ({w2 / 1e3:.0f} us)")
    return len(e2e.failures) == failed0


if case == "one":
    # "one [N]": N runs (each its own server, client and merge), every one checked; a failed
    # run's files stay in out-rpc-one-K for looking into
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    passed = 0
    for k in range(1, runs + 1):
        if runs > 1:
            d = e2e.outdir(f"rpc-one-{k}")
        passed += one_server(f"run {k} of {runs}: " if runs > 1 else "")
    e2e.note(f"figure: {passed} of {runs} runs passed every check")

elif case == "two":
    a, b = Server("server-a", 1000), Server("server-b", 2500)
    cprof, _ = client("client", [a, b])
    for s in (a, b):
        s.stop(signal.SIGTERM)
        e2e.check(os.path.exists(s.profile), f"{os.path.basename(s.profile)} written on SIGTERM")
    merged = f"{d}/merged.json"
    m, _ = merge(cprof, [a, b], merged, ["--label", f"box-a={a.profile}", "--label", f"box-b={b.profile}"])
    calls = client_calls(m)
    e2e.check(len(calls) == 2, f"the client called two endpoints ({list(calls)})")
    for s, tag in ((a, "server a"), (b, "server b")):
        res = check_server(m, s, calls, tag)
        if res:
            e2e.note(f"figure: {tag}: offset error {(res[1]['offset_ns'] - s.shift_ns) / 1e3:.1f} us, "
                     f"uncertainty +-{res[1]['uncertainty_ns'] / 1e3:.1f} us, farthest outside {res[0] / 1e3:.1f} us")
    labels = sorted(p["label"] for p in m["merge"]["processes"][1:])
    e2e.check(labels == ["box-a", "box-b"], f"--label names the processes ({labels})")
    ids = [x["id"] for x in m["backends"]]
    e2e.check(len(ids) == len(set(ids)), "backend ids stay unique after renumbering")
    check_report(merged, ["box-a", "box-b"])

elif case == "sequence":
    # several clients in sequence on one server, then SIGINT
    srv = Server("server", 1000)
    profs = [client(f"client{i}", [srv], n=8 + 4 * i, prompt="Client %d says: " % i + "why " * i)[0] for i in range(3)]
    rc = srv.stop(signal.SIGINT)
    e2e.check(os.path.exists(srv.profile), f"the server wrote its profile on SIGINT (exit {rc})")
    for i, cprof in enumerate(profs):
        m, _ = merge(cprof, [srv], f"{d}/merged{i}.json")
        check_server(m, srv, client_calls(m), f"client {i} of 3 in sequence")

elif case == "killed":
    # a client killed mid-run: ggml-rpc-server either goes on (the kill fell between two
    # requests) or dies by SIGPIPE (it was answering: plain ggml-rpc-server does the same);
    # either way its profile is written, and a server that went on serves the next client
    srv = Server("server", 1000)
    _, k = client("killed", [srv], n=4000, wait=False)
    time.sleep(4)
    k.kill()
    k.wait()
    time.sleep(1)
    alive = srv.outer.poll() is None
    e2e.note(f"note  after the kill the server is {'alive' if alive else f'gone (exit {srv.outer.returncode})'}")
    e2e.check(alive or srv.outer.returncode == -signal.SIGPIPE,
              f"the server survives, or dies by SIGPIPE as without the capture ({srv.outer.returncode})")
    if alive:
        cprof, _ = client("after", [srv])
        srv.stop(signal.SIGTERM)
        e2e.check(os.path.exists(srv.profile), "the server wrote its profile on SIGTERM")
        m, _ = merge(cprof, [srv], f"{d}/merged.json")
        check_server(m, srv, client_calls(m), "a client after a killed one")
    else:
        srv.stop(signal.SIGTERM)
        e2e.check(os.path.exists(srv.profile), "the server wrote its profile before dying by SIGPIPE")
        sp = e2e.load_checked(srv.profile)
        e2e.check(len([r for r in sp["records"] if r.get("type", 0) == 0]) > 0, "with the killed client's graphs")

elif case == "vulkan":
    srv = Server("server", 1000, extra_env={"GGML_VK_VISIBLE_DEVICES": "0"}, device="Vulkan0")
    cprof, _ = client("client", [srv], n=4)
    srv.stop(signal.SIGTERM)
    sp = e2e.load_checked(srv.profile)
    e2e.check(any(b["name"].startswith("Vulkan") for b in sp["backends"]), "the server computed on Vulkan")
    m, _ = merge(cprof, [srv], f"{d}/merged.json")
    check_server(m, srv, client_calls(m), "Vulkan server")

elif case == "windowed":
    srv = Server("server", 1000, paused=True)

    def ctl(what):
        r = subprocess.run([e2e.OPSCOPE, "ctl", "--pid", str(srv.pid), what], capture_output=True, text=True, timeout=60)
        e2e.check(r.returncode == 0, f"ctl {what} ({r.stdout.strip()} {r.stderr.strip()})")
        return time.monotonic_ns()

    client("before", [srv], n=4)
    ctl("start")
    cprof, _ = client("client", [srv])
    ctl("stop")
    client("after", [srv], n=4)
    rc = srv.stop(signal.SIGTERM)
    sp = e2e.load_checked(srv.profile, f"the paused server's profile, written on SIGTERM (exit {rc})")
    wins = sp.get("capture", {}).get("windows", [])
    e2e.check(sp["capture"].get("windowed") is True and len(wins) == 1 and wins[0]["end_ns"] > 0,
              f"the server's profile holds one closed window ({wins})")
    ops = [r for r in sp["records"] if r.get("type", 0) == 0]
    out = [r for r in ops if wins and not wins[0]["start_ns"] <= r["start_ns"] <= wins[0]["end_ns"]]
    e2e.check(ops and not out, f"its {len(ops)} op records all start inside the window ({len(out)} outside)")
    m, _ = merge(cprof, [srv], f"{d}/merged.json")
    check_server(m, srv, client_calls(m), "windowed server")

else:
    e2e.skip(f"unknown case {case}")

e2e.finish()
