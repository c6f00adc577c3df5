#!/usr/bin/env python3
"""Sampled device timing (the default) against --gpu-timing all, on Vulkan (mesa lavapipe):

    t_vulkan_sampled.py bench MODEL | server MODEL | server_all MODEL

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
  the all-mode run's record count and at least 75% of it (the untimed computes after a
  topology's last timed one are in no weight: at most 63 of them per topology);
- the estimated total per op name (duration x weight) within 50% of the all-mode total (two
  processes on a loaded CPU device: a coarse check that the scaling is right, not a timing);
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
    return by, timed


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
    by_s, timed = check_sampled(ps, f"{d}/nodes-sampled.txt", f"{model} default")
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
    off = {n: (est_c[n], cnt_a[n]) for n in cnt_a if not (0.75 * cnt_a[n] <= est_c[n] <= cnt_a[n])}
    e2e.check(cnt_a and not off, f"per op name, the weights add up to 75-100% of the all run's records "
                                 f"({len(cnt_a)} names; off: {dict(list(off.items())[:3])})")
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
else:
    e2e.skip(f"unknown case {what}")
e2e.finish()
