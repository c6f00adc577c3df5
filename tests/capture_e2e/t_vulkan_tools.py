#!/usr/bin/env python3
"""The Vulkan layer under other programs and setups (mesa lavapipe):

    t_vulkan_tools.py bench|server|backend_ops|fallback

- bench: llama-bench -ngl 99 (prompt and decode tests): the same tests as without the capture,
  and the device-record checks of e2e.check_device_records (coverage against nodecount's node
  lists, timeline, union vs device span);
- server: llama-server -ngl 99 with 4 slots and 4 concurrent clients, stopped by SIGTERM: every
  request answered, the same device-record checks, and each graph's wall (report --sqlite's
  graphs table) within 1.1x the union of its own records' spans computed here;
- backend_ops: test-backend-ops perf -b Vulkan0 on an ADD case: the same case as without the
  capture, at least as many device-timed ADD records of its shape as the runs it counted, each
  with ggml-vulkan's add kernel, and the device-record checks;
- fallback: the layer turned off (OPSCOPE_VK_LAYER=0): the program runs as before, its Vulkan
  splits are host-timed GRAPH_SPLIT records again, and stderr says so once.
"""
import json
import re
import subprocess
import sys

import e2e

e2e.need_preload()
what = sys.argv[1]
d = e2e.outdir(f"vulkan_{what}")
nc = e2e.nodecount_lib(d)
prof = f"{d}/profile.json"
vk = {"GGML_VK_VISIBLE_DEVICES": "0"}
logs = dict(vk, OPSCOPE_TEST_NODELIST=f"{d}/nodes.txt", OPSCOPE_GPU_LOG=f"{d}/gpu.tsv")


def capture_env(extra=None):
    return e2e.env_for([nc, e2e.PRELOAD], profile=prof, counts=f"{d}/counts.txt", extra=dict(logs, **(extra or {})))


if what == "bench":
    m = e2e.model("tiny-dense-q4_0")
    cmd = ["llama-bench", "-m", m, "-p", "16", "-n", "16", "-t", "2", "-r", "2", "-ngl", "99", "-o", "json"]

    def tests(out):
        try:
            return [(t["n_prompt"], t["n_gen"], len(t["samples_ns"])) for t in json.loads(out)]
        except (ValueError, KeyError, TypeError):
            return None

    rc0, out0, _ = e2e.run(cmd, e2e.env_for([], extra=vk), timeout=600)
    rc1, out1, err1 = e2e.run(cmd, capture_env(), timeout=600)
    e2e.check(rc0 == 0 and rc1 == 0, f"llama-bench -ngl 99 exits 0 without and with the capture ({rc0}, {rc1}; {err1[-200:]!r})")
    e2e.check(tests(out0) == tests(out1) == [(16, 0, 2), (0, 16, 2)],
              f"the same tests and repetitions with the capture ({tests(out1)})")
    p = e2e.load_checked(prof)
    e2e.check_device_records(p, f"{d}/nodes.txt", f"{d}/gpu.tsv", "llama-bench", min_graphs=30)
    # its tests: llama-bench's own, and its tokens/s within 10% (device-timed graphs)
    summary = e2e.report_summary(prof, "llama-bench -ngl 99: opscope report --json")
    own = json.loads(out1) if rc1 == 0 else []
    got = [(t["model"], t["n_prompt"], t["n_gen"], "Vulkan0" in t["backend"]) for t in (summary or {}).get("tests", [])]
    e2e.check(got == [(o["model_filename"], o["n_prompt"], o["n_gen"], True) for o in own],
              f"llama-bench -ngl 99: the report's tests are llama-bench's, on Vulkan0 ({got})")
    ratios = [t["avg_ts"] / o["avg_ts"] for t, o in zip((summary or {}).get("tests", []), own)]
    e2e.check(len(ratios) == 2 and all(0.9 <= r <= 1.1 for r in ratios),
              f"llama-bench -ngl 99: tokens/s within 10% of its avg_ts (ratios {ratios})")

elif what == "server":
    m = e2e.model("tiny-dense-f32")
    answers = e2e.server_completions(
        lambda port: ["llama-server", "-m", m, "--parallel", "4", "-c", "2048", "-t", "2", "-ngl", "99",
                      "--host", "127.0.0.1", "--port", str(port), "--no-warmup", "--no-webui"],
        capture_env(), f"{d}/server.log", (range(4),), 8)
    slots = {a.get("id_slot") for a in answers.values()}
    e2e.check(len(answers) == 4 and all(a.get("tokens_predicted") == 8 for a in answers.values()),
              f"4 concurrent requests answered with 8 tokens each ({[a.get('tokens_predicted', a.get('error')) for a in answers.values()]})")
    e2e.check(len(slots) == 4, f"in 4 distinct slots ({slots})")
    p = e2e.load_checked(prof)
    e2e.check_device_records(p, f"{d}/nodes.txt", f"{d}/gpu.tsv", "llama-server", min_graphs=4)
    e2e.check_graph_walls(p, prof, "llama-server")

elif what == "backend_ops":
    # one small case: test-backend-ops' perf cases are sized for real GPUs (its MUL_MAT ones take
    # minutes on lavapipe)
    cmd = ["test-backend-ops", "perf", "-o", "ADD", "-b", "Vulkan0", "-p", r"type=f32,ne=\[4096,1,1,1\],nr=\[1,1,1,1\]"]
    LINE = re.compile(r"ADD\(type=(\w+),ne=\[(\d+),(\d+),(\d+),(\d+)\].*?:\s+(\d+) runs - +([\d.]+) us/run")

    def cases(out):
        return [(t, int(a), int(b), int(c), int(e), int(runs)) for t, a, b, c, e, runs, _us in
                LINE.findall(out.decode("utf-8", "replace"))]

    rc0, out0, _ = e2e.run(cmd, e2e.env_for([], extra=vk), timeout=600)
    rc1, out1, err1 = e2e.run(cmd, capture_env(), timeout=600)
    c0, c1 = cases(out0), cases(out1)
    e2e.check(rc0 == 0 and rc1 == 0, f"test-backend-ops -b Vulkan0 exits 0 without and with the capture ({rc0}, {rc1})")
    e2e.check(len(c1) >= 1 and [c[:5] for c in c0] == [c[:5] for c in c1],
              f"the same cases run with the capture ({[c[:5] for c in c1]})")
    p = e2e.load_checked(prof)
    e2e.check_device_records(p, f"{d}/nodes.txt", f"{d}/gpu.tsv", "test-backend-ops", min_graphs=1)
    adds = [r for r in e2e.op_records(p) if r["name"] == "ADD" and r.get("time_source") == "device"]
    for t, a, b, c, e, runs in c1:
        got = [r for r in adds if r["ne"] == [a, b, c, e]]
        e2e.check(len(got) >= runs and all(r["kernel"].split("+")[-1].startswith("add") for r in got),
                  f"ADD {t} [{a},{b},{c},{e}]: {len(got)} device-timed records ending in an add kernel >= {runs} runs")

elif what == "fallback":
    m = e2e.model("tiny-dense-f32")
    cmd = ["llama-completion", "-m", m, "-p", "Hello world", "-n", "4", "--temp", "0", "-t", "2", "-ngl", "99",
           "--ignore-eos", "-no-cnv", "--no-warmup"]
    rc0, out0, _ = e2e.run(cmd, e2e.env_for([], extra=vk), timeout=600)
    rc1, out1, err1 = e2e.run(cmd, capture_env({"OPSCOPE_VK_LAYER": "0"}), timeout=600)
    e2e.check(rc0 == 0 and rc1 == 0 and out0 == out1, f"same exit status and stdout without the layer ({rc0}, {rc1})")
    warn = [line for line in err1.splitlines() if line.startswith("opscope:") and "no per-op timing" in line]
    e2e.check(len(warn) == 1 and "did not load" in warn[0], f"one warning line says the layer did not load ({warn})")
    p = e2e.load_checked(prof)
    ids = {b["id"] for b in p["backends"] if b["name"].startswith("Vulkan")}
    vrec = [r for r in p["records"] if r["backend_id"] in ids and r["type"] == 0]
    counts = sum(1 for line in open(f"{d}/counts.txt") if " Vulkan" in line)
    e2e.check(vrec and all(r["name"] == "GRAPH_SPLIT" for r in vrec) and len(vrec) == counts,
              f"one host-timed GRAPH_SPLIT record per Vulkan graph compute ({len(vrec)} == {counts})")
else:
    e2e.skip(f"unknown case {what}")
e2e.finish()
