#!/usr/bin/env python3
"""Sampled device timing (the default) against --gpu-timing all, on Vulkan (mesa lavapipe):

    t_vulkan_sampled.py bench MODEL | server MODEL | server_all MODEL | tokens MODEL

- bench: `llama-bench -p 16 -n 32 -r 2 -ngl 99`, once under `opscope record` (default: sampled)
  and once under `opscope record --gpu-timing all`;
- server: llama-server -ngl 99 with 2 slots and 4 requests, under `opscope record` (default);
  server_all: the same under `opscope record --gpu-timing all` (every compute timed, no weights).
Checks, against nodecount's list of computed nodes per call (an independent shim):
- every Vulkan graph compute is in the profile, device-timed or not: the computes counted
  equal nodecount's calls (and, for bench, the all-mode run's);
- a device-timed compute covers every computed node exactly once (as under `all`); an untimed
  one has host-timed GRAPH_SPLIT records only; some computes are untimed (sampling happened)
  and the first three of each graph topology are timed;
- every device-timed record has a weight >= 1, and per op name the weights add up to at most
  the all-mode run's record count and at least that count less the records of the untimed
  computes after each topology's last timed one (in no weight: at most 63 per topology,
  counted here from nodecount's node lists and the all run's records of the same calls);
- the estimated total per op name (duration x weight) within 50% of the all-mode total (two
  processes on a loaded CPU device: a coarse check that the scaling is right, not a timing);
- an untimed split is marked `sampled_out` with its nodes' `batch` and `queries`;
- tokens: llama-server with 4 clients at once on 4 slots, once in each mode: the token counts
  per phase of graphs_by_batch (batch x graphs) equal in both modes and, summed, to
  llama-server's own (prompt_n, and predicted_n - 1 tokens fed back to decode per request); no
  graph without a phase; per graph, the wall within 1.1x the union of its records; the
  default run's estimates marked (graphs_by_batch, JSON totals, the console's Total time
  measured with Estimated beside it);
- the markers: the console report and the text report have the "Sampled device timing
  (estimates)" section with "est." rows, the JSON summary's Vulkan op groups carry
  device_timed_computes <= computes and estimated_total_ns; the all-mode outputs have none;
  bench: `opscope diff` of the two runs (text, JSON, HTML) and `opscope view` of the default
  one carry the device-timed counts and estimates, summing to the records' duration x weight.
"""
import collections
import json
import os
import re
import subprocess
import sys
import time

import e2e

e2e.need_preload()
what, model = sys.argv[1], sys.argv[2]
m = e2e.model(model)
d = e2e.outdir(f"vulkan_sampled_{what}_{model}")
nc = e2e.nodecount_lib(d)
OPSCOPE = e2e.OPSCOPE
if not OPSCOPE:
    e2e.skip("the opscope CLI is not built in the root")


def rec_env(tag):
    # opscope record sets LD_PRELOAD to the capture library; nodecount comes in front of it
    e = e2e.env_for([], extra={"GGML_VK_VISIBLE_DEVICES": "0", "OPSCOPE_TEST_NODELIST": f"{d}/nodes-{tag}.txt",
                               "OPSCOPE_LIB": e2e.PRELOAD})
    e.pop("OPSCOPE_GPU_TIMING", None)
    return e


def record(tag, mode, cmd, **kw):
    args = [OPSCOPE, "record", "-o", f"{d}/{tag}.json"] + (["--gpu-timing", mode] if mode else []) + ["--"]
    # nodecount must run inside the program: a wrapper puts it before record's own preload
    wrap = ["env", f"LD_PRELOAD={nc}:{e2e.PRELOAD}"]
    return args + wrap + cmd


def vulkan_computes(p, nodes_path):
    """{(graph, split): [records]} of the Vulkan backends, and nodecount's calls in order."""
    ids = {b["id"] for b in p["backends"] if b["name"].startswith("Vulkan")}
    by = collections.defaultdict(list)
    for r in p["records"]:
        if r["type"] == 0 and r["backend_id"] in ids and "graph_id" in r:
            by[(r["graph_id"], r["split_id"])].append(r)
    calls = []
    for line in open(nodes_path):
        _seq, backend, lst = line.split()
        if backend.startswith("Vulkan") and lst != "-":
            calls.append({int(x) for x in lst.split(",")})
    return by, calls


def check_sampled(p, nodes_path, label):
    by, calls = vulkan_computes(p, nodes_path)
    keys = sorted(by)
    e2e.check(len(keys) == len(calls) and len(keys) >= 8,
              f"{label}: {len(keys)} Vulkan graph computes in the profile == {len(calls)} computing calls of nodecount")
    timed = [k for k in keys if all(r.get("time_source", "").startswith("device") for r in by[k])]
    untimed = [k for k in keys if all(r["name"] == "GRAPH_SPLIT" and "time_source" not in r for r in by[k])]
    e2e.check(len(timed) + len(untimed) == len(keys), f"{label}: each compute device-timed or host-timed whole "
              f"({len(timed)} + {len(untimed)} of {len(keys)})")
    e2e.check(untimed and len(timed) >= 3, f"{label}: sampled: {len(timed)} computes device-timed, {len(untimed)} not")
    # an untimed split is marked and keeps its nodes' batch and queries (its tokens still count)
    e2e.check(all(r.get("sampled_out") is True and r.get("batch", 0) >= 1 and "queries" in r
                  for k in untimed for r in by[k]),
              f"{label}: every untimed GRAPH_SPLIT is marked sampled_out and carries its nodes' batch and queries")
    bad = []
    for k, want in zip(keys, calls):
        if k not in timed:
            continue
        seen = collections.Counter()
        for r in by[k]:
            for i in set(range(r["node_index"], r["node_index"] + r.get("n_fused", 1))) & want:
                seen[i] += 1
        if set(seen) != want or any(c > 1 for c in seen.values()):
            bad.append(k)
    e2e.check(not bad, f"{label}: every computed node of every device-timed compute in exactly one record (bad: {bad[:3]})")
    w = [r.get("weight") for k in timed for r in by[k]]
    e2e.check(w and all(isinstance(x, int) and x >= 1 for x in w), f"{label}: every device-timed record has a weight >= 1")
    # the first three computes of the run's first topology (the first compute's node list) are timed
    first = [k for k, c in zip(keys, calls) if c == calls[0]][:3]
    e2e.check(all(k in timed for k in first), f"{label}: the first 3 computes of the first graph are timed ({first})")
    return by, timed, calls


def reports(prof, label, sampled, est=None):
    r = subprocess.run([OPSCOPE, "report", prof, "--top-ops", "100"], capture_output=True, text=True, errors="replace")
    t = subprocess.run([OPSCOPE, "report", prof, "-q", "--text", prof + ".txt"], capture_output=True, text=True)
    text = open(prof + ".txt").read() if t.returncode == 0 else ""
    s = e2e.report_summary(prof, f"{label}: opscope report --json")
    marked = [g for g in (s or {}).get("ops", []) if "device_timed_computes" in g]
    if sampled:
        e2e.check(r.returncode == 0 and "Sampled device timing (estimates)" in r.stdout and " est.\n" in r.stdout,
                  f"{label}: the console report has the sampled-timing section with est. rows")
        e2e.check("Sampled device timing (estimates)" in text and " est.\n" in text,
                  f"{label}: so does the text report")
        e2e.check(marked and all(0 < g["device_timed_computes"] <= g["computes"] and g["estimated_total_ns"] >= g["total_ns"]
                                 for g in marked),
                  f"{label}: the JSON summary's op groups carry device_timed_computes <= computes and estimates "
                  f"({len(marked)} groups)")
        if est is not None:
            # the summary's estimate is sum(duration x weight) over the records (computed above)
            # reports spell a fused group in the CPU's vocabulary (RMS_NORM+MUL, ADD+ADD+ADD), the
            # records in the backend's (RMS_NORM_MUL, MULTI_ADD): both name the same ops once
            # their separators go and a run of ADDs is called what Vulkan calls it
            def plain(n):
                if re.fullmatch(r"ADD(\+ADD)+", n):
                    n = "MULTI_ADD"
                return n.replace("_", "").replace("+", "")
            got = collections.Counter()
            for g in marked:
                got[plain(g["extra"] or g["name"])] += g["estimated_total_ns"]
            diff = {n: (got[plain(n)], est[n]) for n in est if got[plain(n)] != est[n]}
            e2e.check(est and not diff, f"{label}: estimated_total_ns per name == sum of duration x weight "
                                        f"({len(est)} names; differing: {dict(list(diff.items())[:3])})")
    else:
        e2e.check(r.returncode == 0 and "Sampled device timing" not in r.stdout and "Sampled device timing" not in text
                  and not marked, f"{label}: no sampling markers when every compute was timed")


def markers(d, full, sampled, est, n_timed, n_computes):
    """The diff (text, JSON, HTML) and the viewer of the sampled run say how many computes were
    device-timed and give the estimates: their sums equal the records' (duration x weight)."""
    dj, dt, dh, vh = (f"{d}/{n}" for n in ("diff.json", "diff.txt", "diff.html", "view.html"))
    # every compute (--include-warmup): the estimates below are over the whole run
    r = subprocess.run([OPSCOPE, "diff", full, sampled, "--json", dj, "--text", dt, "--html", dh, "--min-share", "0",
                        "-q", "--include-warmup"], capture_output=True, text=True)
    doc = json.load(open(dj)) if r.returncode == 0 else {}
    gs = [g for g in doc.get("groups", []) if "new_device_timed_computes" in g]
    # every weighted record (ops as in EST, and the copies that followed a timed compute)
    total = sum(r["duration_ns"] * r["weight"] for r in e2e.load_checked(sampled)["records"] if "weight" in r)
    e2e.check(total >= sum(est.values()) > 0, f"the weighted records' estimate {total} covers the ops' {sum(est.values())}")
    e2e.check(gs and sum(g["new_estimated_total_ns"] for g in gs) == total
              and all(0 < g["new_device_timed_computes"] <= n_timed and g["new_computes"] <= n_computes for g in gs)
              and not any("base_device_timed_computes" in g for g in doc["groups"]),
              f"diff all -> default: {len(gs)} groups carry NEW's device-timed computes (<= {n_timed}) of <= "
              f"{n_computes} and estimates summing to the records' {total} ns; BASE (all) none")
    text = open(dt).read() if os.path.exists(dt) else ""
    page = open(dh, encoding="utf-8").read() if os.path.exists(dh) else ""
    e2e.check("Sampled device timing (estimates)" in text and "[sampled: see estimates]" in text and " est." in text,
              "diff --text: the estimates section and the marked rows")
    e2e.check("new_device_timed_computes" in page and "device-timed " in page, "diff --html: the estimates and their tag")
    r = subprocess.run([OPSCOPE, "view", sampled, "-o", vh, "-q"], capture_output=True, text=True)
    page = open(vh, encoding="utf-8").read() if r.returncode == 0 else ""
    m = re.search(r'<script type="application/json" id="opscope-data">(.*?)</script>', page, re.S)
    sm = json.loads(m.group(1)).get("sampled", []) if m else []
    e2e.check(sm and sum(x["est_ns"] for x in sm) == total and all(0 < x["timed"] <= n_timed for x in sm)
              and "device-timed " in page,
              f"view: per op the device-timed computes and estimates ({len(sm)} ops, summing to the records')")


if what == "bench":
    cmd = ["llama-bench", "-m", m, "-p", "16", "-n", "32", "-t", "2", "-r", "2", "-ngl", "99", "-o", "json"]
    res = {}
    for tag, mode in (("sampled", None), ("all", "all")):
        rc, out, err = e2e.run(record(tag, mode, cmd), rec_env(tag), timeout=600)
        e2e.check(rc == 0, f"opscope record {'--gpu-timing ' + mode if mode else '(default)'} llama-bench exits 0 ({err[-300:]!r})")
        try:
            res[tag] = [(t["n_prompt"], t["n_gen"], len(t["samples_ns"])) for t in json.loads(out)]
        except (ValueError, KeyError, TypeError):
            res[tag] = None
    e2e.check(res["sampled"] == res["all"] == [(16, 0, 2), (0, 32, 2)], f"the same tests in both modes ({res})")
    ps, pa = e2e.load_checked(f"{d}/sampled.json"), e2e.load_checked(f"{d}/all.json")
    by_s, timed, calls_s = check_sampled(ps, f"{d}/nodes-sampled.txt", f"{model} default")
    by_a, calls_a = vulkan_computes(pa, f"{d}/nodes-all.txt")
    e2e.check(len(by_s) == len(by_a) == len(calls_a),
              f"graph computes equal: default {len(by_s)}, all {len(by_a)} (nodecount {len(calls_a)})")
    e2e.check(all(r.get("time_source", "").startswith("device") for rs in by_a.values() for r in rs)
              and not any("weight" in r for rs in by_a.values() for r in rs),
              "all: every Vulkan compute device-timed, no weights")
    cnt_a, tot_a = collections.Counter(), collections.Counter()
    for rs in by_a.values():
        for r in rs:
            n = r.get("extra") or r["name"]
            cnt_a[n] += 1
            tot_a[n] += r["duration_ns"]
    est_c, est_t = collections.Counter(), collections.Counter()
    for k in timed:
        for r in by_s[k]:
            n = r.get("extra") or r["name"]
            est_c[n] += r["weight"]
            est_t[n] += r["duration_ns"] * r["weight"]
    # What no weight covers: per topology (nodecount's node list of a call), the untimed computes
    # after its last timed one (at most 63). The all run's computes are the same calls in the
    # same order (checked), so their records say how many of each name such a compute has.
    calls_s = [frozenset(c) for c in calls_s]
    keys_s, keys_a = sorted(by_s), sorted(by_a)
    same = calls_s == [frozenset(c) for c in calls_a] and len(keys_s) == len(keys_a) == len(calls_s)
    e2e.check(same, "both runs computed the same node lists in the same order")
    last_timed = {}
    timed_set = set(timed)
    for i, k in enumerate(keys_s):
        if k in timed_set:
            last_timed[calls_s[i]] = i
    tail = collections.Counter()
    tails = collections.Counter()
    for i, k in enumerate(keys_s):
        if same and k not in timed_set and i > last_timed.get(calls_s[i], -1):
            tails[calls_s[i]] += 1
            for r in by_a[keys_a[i]]:
                tail[r.get("extra") or r["name"]] += 1
    e2e.check(all(v <= 63 for v in tails.values()),
              f"at most 63 untimed computes after a topology's last timed one ({sorted(tails.values())})")
    off = {n: (est_c[n], cnt_a[n], tail[n]) for n in cnt_a if not (cnt_a[n] - tail[n] <= est_c[n] <= cnt_a[n])}
    e2e.check(cnt_a and not off, f"per op name, the weights add up to the all run's records less those of the "
                                 f"untimed computes after each topology's last timed one, at most "
                                 f"({len(cnt_a)} names; off (weights, all, tail): {dict(list(off.items())[:3])})")
    # the time estimates of two processes on a shared CPU device differ by the load: reported,
    # not checked (bench/capture/gpu_timing.py compares medians over rounds)
    e2e.note("note  estimated / all-run total per name: " +
             str({n: round(est_t[n] / tot_a[n], 2) for n in tot_a if tot_a[n]}))
    reports(f"{d}/sampled.json", f"{model} default", True, est_t)
    reports(f"{d}/all.json", f"{model} all", False)
    markers(d, f"{d}/all.json", f"{d}/sampled.json", est_t, len(timed), len(by_s))

elif what in ("server", "server_all"):
    mode = "all" if what == "server_all" else None
    answers = e2e.server_completions(
        lambda port: record("server", mode, ["llama-server", "-m", m, "--parallel", "2", "-c", "1024", "-t", "2",
                                             "-ngl", "99", "--host", "127.0.0.1", "--port", str(port),
                                             "--no-warmup", "--no-webui"]),
        rec_env("server"), f"{d}/server.log", ((0, 1), (2, 3)), 16)
    e2e.check(len(answers) == 4 and all(a.get("tokens_predicted") == 16 for a in answers.values()),
              f"4 requests answered with 16 tokens each ({[a.get('tokens_predicted', a.get('error')) for a in answers.values()]})")
    p = e2e.load_checked(f"{d}/server.json")
    if mode:
        by, calls = vulkan_computes(p, f"{d}/nodes-server.txt")
        e2e.check(len(by) == len(calls) >= 8 and all(r.get("time_source", "").startswith("device") and "weight" not in r
                                                     for rs in by.values() for r in rs),
                  f"llama-server all: every one of {len(by)} Vulkan computes (nodecount {len(calls)}) device-timed, "
                  f"no weights")
        reports(f"{d}/server.json", "llama-server all", False)
    else:
        check_sampled(p, f"{d}/nodes-server.txt", "llama-server default")
        reports(f"{d}/server.json", "llama-server default", True)
elif what == "tokens":
    # the same workload in both modes: 4 clients at once on 4 slots, 48 tokens each (enough
    # decode steps for sampling to leave several untimed)
    N_PREDICT = 48
    groups, llama, profs, truth, per_graph = {}, {}, {}, {}, {}
    for tag, mode in (("tok-sampled", None), ("tok-all", "all")):
        sent = []

        def body(i):
            sent.append(time.clock_gettime_ns(time.CLOCK_MONOTONIC))  # the profile's clock
            return {"prompt": f"Request {i}: hello", "n_predict": N_PREDICT, "temperature": 0, "ignore_eos": True}

        env = rec_env(tag)
        env["OPSCOPE_TEST_NODECOUNT"] = f"{d}/count-{tag}.txt"
        env["OPSCOPE_TEST_NODEPHASE"] = f"{d}/phase-{tag}.txt"
        answers = e2e.server_completions(
            lambda port: record(tag, mode, ["llama-server", "-m", m, "--parallel", "4", "-c", "2048", "-t", "2",
                                            "-ngl", "99", "--host", "127.0.0.1", "--port", str(port),
                                            "--no-warmup", "--no-webui"]),
            env, f"{d}/{tag}.log", ((0, 1, 2, 3),), N_PREDICT, body_for=body)
        e2e.check(len(answers) == 4 and all(a.get("tokens_predicted") == N_PREDICT for a in answers.values()),
                  f"{tag}: 4 requests answered with {N_PREDICT} tokens each")
        t = [a.get("timings", {}) for a in answers.values()]
        # llama-server's own counts: the prompt tokens it evaluated, and the tokens it fed back
        # to decode (each predicted token but the last: the first comes from the prompt's logits)
        llama[tag] = sum(x.get("prompt_n", 0) for x in t) + sum(x.get("predicted_n", 0) - 1 for x in t)
        # nodecount's truth per scheduler compute (a graph, in order), read from the graph on
        # the host whether or not opscope timed it: its rows (widest MUL_MAT's src1 ne[1]) and
        # attention queries per sequence over its splits, the phase by the documented rule
        # (queries 1: decode, more: prefill; no attention: the rows), and when it started
        rows, qs, start = collections.defaultdict(int), collections.defaultdict(int), {}
        for line in open(f"{d}/phase-{tag}.txt"):
            _seq, sched, _be, r, q = line.split()
            if int(sched) >= 0:
                rows[int(sched)] = max(rows[int(sched)], int(r))
                qs[int(sched)] = max(qs[int(sched)], int(q))
        for line in open(f"{d}/count-{tag}.txt"):
            _seq, sched, _be, _n, _c, _tok, t0, _t1 = line.split()
            if int(sched) >= 0:
                start.setdefault(int(sched), int(t0))

        def phase(k):
            x = qs[k] or rows[k]
            return "prefill" if x > 1 else "decode" if x == 1 else "none"
        truth[tag] = [(rows[k], phase(k)) for k in sorted(rows)]
        before = sum(rows[k] for k in rows if start[k] < min(sent or [0]))
        want_ph = {ph: sum(r for r, p in truth[tag] if p == ph) for ph in ("prefill", "decode", "none")}
        profs[tag] = e2e.load_checked(f"{d}/{tag}.json")
        s = e2e.report_summary(f"{d}/{tag}.json", f"{tag}: opscope report --json") or {}
        gs = s.get("graphs_by_batch", [])
        groups[tag] = {ph: sum(g["batch"] * g["graphs"] for g in gs if g["phase"] == ph)
                       for ph in ("prefill", "decode", "none")}
        e2e.note(f"note  {tag}: graphs_by_batch tokens {groups[tag]}; llama-server's prompt + decoded {llama[tag]}, "
                 f"{before} before the first request (start-up); groups "
                 f"{[(g['batch'], g['phase'], g['graphs']) for g in gs]}")
        e2e.check_graph_walls(profs[tag], f"{d}/{tag}.json", f"{tag}")
        import sqlite3
        per_graph[tag] = list(sqlite3.connect(f"{d}/{tag}.json.db").execute(
            "SELECT batch, phase FROM graphs ORDER BY graph_id"))
        e2e.check([tuple(x) for x in per_graph[tag]] == truth[tag] and want_ph["none"] == 0,
                  f"{tag}: per graph, batch and phase equal nodecount's of that scheduler compute, none without a "
                  f"phase ({len(truth[tag])} graphs; opscope {per_graph[tag][:5]}..., nodecount {truth[tag][:5]}...)")
        e2e.check(groups[tag] == want_ph and sum(want_ph.values()) == llama[tag] + before,
                  f"{tag}: graphs_by_batch's tokens per phase {groups[tag]} == nodecount's {want_ph}, in all "
                  f"llama-server's {llama[tag]} + {before} of its start-up")
        if mode is None:
            marked = [g for g in gs if "estimated_op_ns" in g]
            e2e.check(marked and sum(g["sampled_out_graphs"] for g in marked) > 0
                      and all(g["device_timed_graphs"] + g["sampled_out_graphs"] >= 1 for g in marked),
                      f"{tag}: graphs_by_batch marks the sampled groups ({len(marked)} of {len(gs)}: device-timed "
                      f"and sampled-out graphs, estimated_op_ns)")
            want = sum(r["duration_ns"] * r.get("weight", 1) for r in profs[tag]["records"]
                       if r["type"] == 0 and "graph_id" in r and not r.get("sampled_out"))
            e2e.check(sum(g["estimated_op_ns"] for g in marked) + sum(g["op_ns"] for g in gs if g not in marked) == want,
                      f"{tag}: the groups' estimated op time == the graphs' op records' duration x weight, "
                      f"sampled-out splits 0 ({want} ns)")
            e2e.check(s.get("estimated_total_ns") == sum(r["duration_ns"] * r.get("weight", 1)
                                                         for r in profs[tag]["records"] if not r.get("sampled_out"))
                      and s.get("sampled_out_records", 0) > 0,
                      f"{tag}: the summary's estimated_total_ns == sum of duration x weight without the sampled-out "
                      f"splits ({s.get('estimated_total_ns')}; {s.get('sampled_out_records')} sampled out)")
            r = subprocess.run([OPSCOPE, "report", f"{d}/{tag}.json"], capture_output=True, text=True, errors="replace")
            tot = re.search(r"^ Total time: +([0-9.]+) ms measured ", r.stdout, re.M)
            est = re.search(r"^ Estimated: +([0-9.]+) ms est\. over all computes", r.stdout, re.M)
            e2e.check(tot and est and abs(float(tot.group(1)) - s["total_ns"] / 1e6) < 0.01
                      and abs(float(est.group(1)) - s["estimated_total_ns"] / 1e6) < 0.01,
                      f"{tag}: the console's Total time is marked measured, the estimate beside it "
                      f"({tot and tot.group(0)!r}, {est and est.group(0)!r})")
        else:
            e2e.check("estimated_total_ns" not in s and not any("estimated_op_ns" in g for g in gs),
                      f"{tag}: no estimates when every compute was timed")
    a, b = groups["tok-sampled"], groups["tok-all"]
    e2e.check(a["prefill"] + a["decode"] == b["prefill"] + b["decode"] and a["none"] == b["none"] == 0,
              f"tokens equal in the default (sampled) and --gpu-timing all: {a} vs {b}")
    # diff normalises per token: both sides now count the same tokens and phases (every compute,
    # --include-warmup: nodecount's truth counts the warm-up computes too)
    dj = f"{d}/tok-diff.json"
    r = subprocess.run([OPSCOPE, "diff", f"{d}/tok-all.json", f"{d}/tok-sampled.json", "--json", dj, "-q",
                        "--include-warmup"],
                       capture_output=True, text=True, errors="replace")
    doc = json.load(open(dj)) if r.returncode == 0 and os.path.exists(dj) else {}
    sides = [doc.get(k, {}) for k in ("base", "new")]
    want = [(sum(x for x, _ in truth[t]), sum(1 for _, p in truth[t] if p == "prefill"),
             sum(1 for _, p in truth[t] if p == "decode")) for t in ("tok-all", "tok-sampled")]
    got = [(x.get("tokens"), x.get("prefill_graphs"), x.get("decode_graphs")) for x in sides]
    e2e.check(got == want, f"diff all -> default: each side's tokens, prefill and decode graphs == nodecount's "
                           f"({got} vs {want})")
    # per phase too, where llama-server batched the two runs alike (it batches requests as they
    # arrive: a request that comes a moment later starts in a batch of its own)
    if [r for r, _ in truth["tok-sampled"]] == [r for r, _ in truth["tok-all"]]:
        e2e.check(a == b and per_graph["tok-sampled"] == per_graph["tok-all"],
                  f"the server batched both runs alike ({len(truth['tok-all'])} graphs, rows "
                  f"{[r for r, _ in truth['tok-all']][:5]}...): per graph the same batch and phase, "
                  f"per phase the same tokens ({a} vs {b})")
    else:
        e2e.note(f"note  the server batched the runs differently (nodecount's rows: "
                 f"{[r for r, _ in truth['tok-sampled']]} vs {[r for r, _ in truth['tok-all']]}): per phase each "
                 f"run checked against its own graphs above")
else:
    e2e.skip(f"unknown case {what}")
e2e.finish()
