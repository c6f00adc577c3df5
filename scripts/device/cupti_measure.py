#!/usr/bin/env python3
"""The measurements of the CUPTI device check (run by scripts/device/cupti-check.sh on the GPU
machine; standard library only). Writes OUT/cupti-summary.md and OUT/cupti-summary.json.

    cupti_measure.py --bin LLAMA_BIN --model Q4_0.gguf --preload libopscope-ggml.so
                     --nodecount nodecount.so --cupti libcupti.so --out OUT

1. llama-completion (64 tokens, -ngl 99) plain, then under the capture (OPSCOPE_CUPTI=1, every
   compute timed) with CUDA graphs on (default) and off (GGML_CUDA_DISABLE_GRAPHS=1), with
   nodecount.c's independent list of the nodes each CUDA compute computes. Checks: stdout as
   plain; no GRAPH_SPLIT on CUDA; every computed node in exactly one OP record; nothing dropped
   and every record CUPTI delivered (OPSCOPE_GPU_LOG) in a record; each record inside its
   compute's host time within 50 us; the same op groups both ways; per group, the median time
   per decode graph with graphs on within 15% of graphs off.
2. llama-bench -p 512 -n 128 -r 3: plain, captured (default sampling) and captured with every
   compute timed, in rotated rounds; medians of tokens/s; the bar: tg >= 95%, pp >= 97%.
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import time

A = argparse.ArgumentParser()
for k in ("bin", "model", "preload", "nodecount", "cupti", "out"):
    A.add_argument("--" + k, required=True)
A.add_argument("--rounds", type=int, default=3)
# a dry run of this script without a GPU: another backend's device timing (Vulkan on lavapipe)
A.add_argument("--backend", default="CUDA", help="backend name prefix (default CUDA)")
A.add_argument("--extra-env", action="append", default=[], help="NAME=VALUE for every run")
A.add_argument("--pp", default="512")
A.add_argument("--tg", default="128")
# the caller's time limit (gpu-checks.sh): llama-bench rounds that would end past it are not
# started, so the summary is written with the rounds done instead of being lost to a kill
A.add_argument("--deadline", type=float, default=0, help="epoch seconds; 0: none")
# one run's limit: a hang (a driver or CUPTI stuck) fails that run, and the summary still comes
A.add_argument("--run-timeout", type=float, default=90, help="seconds per program run (90)")
args = A.parse_args()
OUT = args.out
results, checks = {}, []


def check(ok, what):
    checks.append((bool(ok), what))
    print(("ok    " if ok else "FAIL  ") + what, flush=True)


def base_env(extra=None):
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = args.bin + ":" + env.get("LD_LIBRARY_PATH", "")
    for k in ("GGML_PROFILE", "LD_PRELOAD"):
        env.pop(k, None)
    env.update(dict(kv.split("=", 1) for kv in args.extra_env))
    env.update(extra or {})
    return env


def captured(extra, tag):
    e = {"LD_PRELOAD": args.preload, "OPSCOPE_CUPTI": "1", "OPSCOPE_CUPTI_LIB": args.cupti,
         "GGML_PROFILE": f"{OUT}/profile-{tag}.json", "OPSCOPE_FORCE": "1"}
    e.update(extra)
    return e


def run(cmd, env, tag):
    t = time.time()
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, timeout=args.run_timeout)
    except subprocess.TimeoutExpired:
        r = subprocess.CompletedProcess(cmd, 124, b"", f"timed out after {args.run_timeout:.0f} s".encode())
    open(f"{OUT}/{tag}.err", "wb").write(r.stderr)
    print(f"   {tag}: rc {r.returncode}, {time.time() - t:.1f} s", flush=True)
    return r


def union(recs):
    iv = sorted((r["start_ns"], r["start_ns"] + r["duration_ns"]) for r in recs)
    tot, cur_s, cur_e = 0, None, None
    for s, e in iv:
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                tot += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return tot + ((cur_e - cur_s) if cur_e is not None else 0)


def completion(plain_out, mode, extra):
    """One captured llama-completion; its checks. A run whose files are missing or unreadable
    fails one check and gives empty figures, so the summary is still written."""
    try:
        return completion_checks(plain_out, mode, extra)
    except (OSError, ValueError, KeyError, IndexError) as e:
        check(False, f"{mode}: profile, node lists and GPU log readable ({type(e).__name__}: {e})")
        return {"records": 0, "graphs": 0, "decode_graphs": 0, "kernels": 0, "median_ns": {}, "groups": (),
                "union_over_sum": 0}


def completion_checks(plain_out, mode, extra):
    tag = f"completion-{mode}"
    e = captured(dict(extra, OPSCOPE_GPU_TIMING="all", LD_PRELOAD=f"{args.nodecount}:{args.preload}",
                      OPSCOPE_TEST_NODECOUNT=f"{OUT}/counts-{mode}.txt", OPSCOPE_TEST_NODELIST=f"{OUT}/nodes-{mode}.txt",
                      OPSCOPE_GPU_LOG=f"{OUT}/gpu-{mode}.tsv"), mode)
    r = run(COMPLETION, base_env(e), tag)
    err = r.stderr.decode("utf-8", "replace")
    check(r.returncode == 0 and r.stdout == plain_out, f"{mode}: exit 0 and stdout as plain")
    check("no per-op" not in err and "opt-in" not in err, f"{mode}: device timing source loaded (no warning)")
    p = json.load(open(f"{OUT}/profile-{mode}.json"))
    ids = {b["id"] for b in p["backends"] if b["name"].startswith(args.backend)}
    recs = [x for x in p["records"] if x.get("backend_id") in ids and x["type"] == 0]
    check(recs and not any(x["name"] == "GRAPH_SPLIT" for x in recs),
          f"{mode}: {len(recs)} {args.backend} OP records, no GRAPH_SPLIT")
    check(all(x.get("time_source") == "device" for x in recs if "graph_id" in x), f"{mode}: all timed on the device")
    by = collections.defaultdict(list)
    for x in recs:
        if "graph_id" in x:
            by[(x["graph_id"], x["split_id"])].append(x)
    keys = sorted(by)
    calls, tokens = [], []
    for line in open(f"{OUT}/nodes-{mode}.txt"):
        _s, be, lst = line.split()
        if be.startswith(args.backend) and lst != "-":
            calls.append({int(i) for i in lst.split(",")})
    for line in open(f"{OUT}/counts-{mode}.txt"):
        f = line.split()
        if len(f) >= 6 and f[2].startswith(args.backend) and int(f[4]) > 0:
            tokens.append(int(f[5]))
    check(len(keys) == len(calls),
          f"{mode}: {len(keys)} {args.backend} graph computes with records == {len(calls)} seen by nodecount")
    bad = []
    for k, want in zip(keys, calls):
        seen = collections.Counter(i for x in by[k] for i in range(x["node_index"], x["node_index"] + x.get("n_fused", 1))
                                   if i in want)
        if set(seen) != want or any(c > 1 for c in seen.values()):
            bad.append(k)
    check(not bad, f"{mode}: every computed node in exactly one OP record ({len(bad)} graphs wrong: {bad[:3]})")
    items = 0
    for line in open(f"{OUT}/gpu-{mode}.tsv"):
        if not line.startswith("#"):
            items += int(line.split()[3])
    kern = sum(x.get("n_kernels", 0) for x in recs if "graph_id" in x)
    check(not p.get("dropped_records") and kern == items,
          f"{mode}: nothing dropped ({p.get('dropped_records', 0)}); kernels in records {kern} == delivered by CUPTI {items}")
    late = [x for x in recs if "graph_id" in x and (x["start_ns"] < x["host_start_ns"] - 50000 or
                                                    x["start_ns"] + x["duration_ns"] > x["host_end_ns"] + 50000)]
    check(not late, f"{mode}: every record inside its compute's host time within 50 us ({len(late)} outside)")
    decode = [k for k, t in zip(keys, tokens) if t == 1]
    per = collections.defaultdict(list)
    groups = collections.Counter()
    for k in decode:
        s = collections.defaultdict(int)
        for x in by[k]:
            s[x["name"]] += x["duration_ns"]
        for n, v in s.items():
            per[n].append(v)
        groups[tuple(sorted(collections.Counter(x["name"] for x in by[k]).items()))] += 1
    ratio = statistics.median([union(by[k]) / max(1, sum(x["duration_ns"] for x in by[k])) for k in decode]) if decode else 0
    return {"records": len(recs), "graphs": len(keys), "decode_graphs": len(decode), "kernels": kern,
            "median_ns": {n: statistics.median(v) for n, v in per.items()},
            "groups": groups.most_common(1)[0][0] if groups else (), "union_over_sum": ratio}


def bench():
    cmd = [f"{args.bin}/llama-bench", "-m", args.model, "-ngl", "99", "-p", args.pp, "-n", args.tg, "-r", "3", "-o", "json"]
    configs = [("plain", {}), ("captured", captured({}, "bench")), ("captured-all", captured({"OPSCOPE_GPU_TIMING": "all"}, "bench-all"))]
    ts = collections.defaultdict(list)
    longest, done = 0.0, 0
    for rnd in range(args.rounds):
        for name, extra in configs[rnd % 3:] + configs[:rnd % 3]:
            if args.deadline and time.time() + 1.5 * longest > args.deadline:
                print(f"   deadline: llama-bench stopped after {done} runs", flush=True)
                return {f"{n} {t}": statistics.median(v) for (n, t), v in ts.items()}, done
            t0 = time.time()
            r = run(cmd, base_env(extra), f"bench-{name}-{rnd}")
            longest, done = max(longest, time.time() - t0), done + 1
            if r.returncode != 0:
                check(False, f"llama-bench {name} round {rnd} exits 0")
                continue
            for row in json.loads(r.stdout):
                test = "pp" if row.get("n_prompt") else "tg"
                ts[(name, test)].append(row["avg_ts"])
    med = {f"{n} {t}": statistics.median(v) for (n, t), v in ts.items()}
    return med, done


os.makedirs(OUT, exist_ok=True)
COMPLETION = [f"{args.bin}/llama-completion", "-m", args.model, "-p", "Hello world, this is a test of", "-n", "64",
              "--temp", "0", "-ngl", "99", "-no-cnv", "--ignore-eos", "--no-warmup", "-t", "8"]
plain = run(COMPLETION, base_env(), "completion-plain")
check(plain.returncode == 0, "plain llama-completion exits 0")
on = completion(plain.stdout, "graphs", {})
off = completion(plain.stdout, "nographs", {"GGML_CUDA_DISABLE_GRAPHS": "1"})
check(on["groups"] == off["groups"] and on["groups"], "the same op groups per decode graph with CUDA graphs on and off")
acc = {}
for n in sorted(set(on["median_ns"]) | set(off["median_ns"])):
    a, b = on["median_ns"].get(n), off["median_ns"].get(n)
    acc[n] = (a, b, a / b if a and b else None)
worst = [(n, round(r, 3)) for n, (_a, _b, r) in acc.items() if r is None or abs(r - 1) > 0.15]
check(not worst, f"per group, median per decode graph with graphs on within 15% of off (outside: {worst})")
med, bench_runs = bench()
check(bench_runs == 3 * args.rounds, f"llama-bench: {bench_runs} of {3 * args.rounds} runs in the time given")
tg = med.get("captured tg", 0) / med.get("plain tg", 1)
pp = med.get("captured pp", 0) / med.get("plain pp", 1)
check(tg >= 0.95, f"tg{args.tg} captured/plain {tg:.3f} >= 0.95")
check(pp >= 0.97, f"pp{args.pp} captured/plain {pp:.3f} >= 0.97")

L = ["# CUPTI device check", "", f"model {os.path.basename(args.model)}; {args.rounds} rotated rounds of llama-bench -r 3", "",
     "| check | result |", "|---|---|"]
L += [f"| {w} | {'ok' if ok else 'FAIL'} |" for ok, w in checks]
L += ["", "| op group | median ns / decode graph, graphs on | graphs off | on/off |", "|---|---|---|---|"]
L += [f"| {n} | {a or '-'} | {b or '-'} | {r:.3f} |" if r else f"| {n} | {a or '-'} | {b or '-'} | - |" for n, (a, b, r) in acc.items()]
L += ["", "| llama-bench (median tokens/s) | value |", "|---|---|"] + [f"| {k} | {v:.1f} |" for k, v in sorted(med.items())]
L += ["", f"tg{args.tg} captured/plain {tg:.3f}, pp{args.pp} {pp:.3f}; every compute timed: tg "
          f"{med.get('captured-all tg', 0) / med.get('plain tg', 1):.3f}, pp "
          f"{med.get('captured-all pp', 0) / med.get('plain pp', 1):.3f}",
      f"decode graphs: graphs on {on['decode_graphs']}, off {off['decode_graphs']}; union/sum of op times (overlap) "
      f"{on['union_over_sum']:.3f} on, {off['union_over_sum']:.3f} off",
      "", "RESULT: " + ("PASS" if all(ok for ok, _ in checks) else "FAIL")]
open(f"{OUT}/cupti-summary.md", "w").write("\n".join(L) + "\n")
json.dump({"checks": checks, "on": on, "off": off, "accuracy": acc, "bench": med}, open(f"{OUT}/cupti-summary.json", "w"),
          indent=1, default=str)
print("\n".join(L))
raise SystemExit(0 if all(ok for ok, _ in checks) else 1)
