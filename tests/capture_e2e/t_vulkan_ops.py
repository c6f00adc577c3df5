#!/usr/bin/env python3
"""Per-op device timing on Vulkan (mesa lavapipe) through opscope's Vulkan layer.

    t_vulkan_ops.py MODEL NGL N_TOKENS [--perf-logger]

llama-completion with -ngl NGL under the capture library, which enables the layer
(VK_LAYER_OPSCOPE_profiler) and GGML_VK_DEBUG_MARKERS by itself. Checks, against independent
sources:
- stdout identical with and without the capture;
- no per-split placeholder (GRAPH_SPLIT) left on a Vulkan backend, and every Vulkan record
  timed on the device;
- coverage: per Vulkan graph compute, the OP records' node ranges (a fused record covers
  n_fused nodes) hold every node the backend computes, each exactly once, as listed by
  nodecount.c (an independent shim that logs the computed node indices of every call);
- timeline: every Vulkan record lies inside its compute's host interval (from the call until
  the host saw the work done) within 50 us;
- accuracy: per graph, the union of the Vulkan op intervals is within 5% of the device span of
  that graph's work (the sum over its submissions of first start to last end, from the raw
  device timestamps: OPSCOPE_GPU_LOG);
- with --perf-logger: the group names and counts of every decode graph equal those that
  ggml-vulkan's own GGML_VK_PERF_LOGGER prints for the same run configuration (RMS_NORM_MUL,
  MUL_MAT_ADD, ROPE_VIEW_SET_ROWS, ...).
"""
import collections
import sys

import e2e

e2e.need_preload()
model, ngl, ntok = sys.argv[1], sys.argv[2], sys.argv[3]
perf = "--perf-logger" in sys.argv
serialize = "--serialize" in sys.argv  # OPSCOPE_VK_SERIALIZE=1: the layer's barrier before each end
# OPSCOPE_VK_SHARE_BOUNDS=0: the rules the layer follows on a GPU (unsynchronised nodes start at
# a timestamp of their own), run on lavapipe
gpu_rules = "--gpu-rules" in sys.argv
m = e2e.model(model)
d = e2e.outdir(f"vulkan_ops_{model}_{ngl}{'_serialized' if serialize else ''}{'_gpu_rules' if gpu_rules else ''}")
nc = e2e.nodecount_lib(d)
vk = {"GGML_VK_VISIBLE_DEVICES": "0"}
cmd = ["llama-completion", "-m", m, "-p", "Hello world", "-n", ntok, "--temp", "0", "-t", "2", "-ngl", ngl,
       "--ignore-eos", "-no-cnv", "--no-warmup"]
# The first Vulkan run compiles pipelines (tens of seconds; mesa caches them afterwards).
rc0, out0, err0 = e2e.run(cmd, e2e.env_for([], extra=vk), timeout=600)
e2e.check(rc0 == 0, f"llama-completion -ngl {ngl} on Vulkan exits 0 (got {rc0}; {err0[-300:]!r})")
prof = f"{d}/profile.json"
extra = dict(vk, OPSCOPE_TEST_NODELIST=f"{d}/nodes.txt", OPSCOPE_GPU_LOG=f"{d}/gpu.tsv")
if serialize:
    extra["OPSCOPE_VK_SERIALIZE"] = "1"
if gpu_rules:
    extra["OPSCOPE_VK_SHARE_BOUNDS"] = "0"
rc1, out1, err1 = e2e.run(cmd, e2e.env_for([nc, e2e.PRELOAD], profile=prof, counts=f"{d}/counts.txt", extra=extra),
                          timeout=600)
e2e.check(rc1 == 0, f"with the capture exits 0 (got {rc1}; {err1[-300:]!r})")
e2e.check(out0 == out1 and len(out1) > 11, f"stdout identical with and without the capture ({len(out0)}, {len(out1)} bytes)")
e2e.check("VK_LAYER_OPSCOPE" not in err1 and "no per-op timing" not in err1,
          "no warning that the layer did not load or timed nothing")

p = e2e.load_checked(prof)
by_graph = e2e.check_device_records(p, f"{d}/nodes.txt", f"{d}/gpu.tsv", f"-ngl {ngl}")
keys = sorted(by_graph)
e2e.check_report(prof, ["MUL_MAT"])


# ---- names against GGML_VK_PERF_LOGGER ----
if perf:
    rc2, _o, err2 = e2e.run(cmd, e2e.env_for([], extra=dict(vk, GGML_VK_PERF_LOGGER="1")), timeout=600)
    blocks = [collections.Counter({n: c for n, (c, _us) in b.items()}) for b in e2e.perf_logger_blocks(err2)]
    ours = []
    for k in keys:
        c = collections.Counter(r.get("extra") or r["name"] for r in by_graph[k])
        ours.append(c)
    e2e.check(rc2 == 0 and len(blocks) == len(ours),
              f"GGML_VK_PERF_LOGGER run: {len(blocks)} graph blocks == {len(ours)} Vulkan graphs")
    # the first graph is the prompt (its batch size drives other choices); decode graphs from then on
    diff = [(i, dict(a - b), dict(b - a)) for i, (a, b) in enumerate(zip(ours, blocks)) if i > 0 and a != b]
    e2e.check(len(blocks) > 1 and not diff,
              f"group names and counts of every decode graph == GGML_VK_PERF_LOGGER's "
              f"({len(blocks) - 1} graphs, e.g. {dict(blocks[-1]) if blocks else {}}; differences: {diff[:2]})")
e2e.finish()
