#!/usr/bin/env python3
"""llama-completion fully offloaded to Vulkan (mesa lavapipe, a real Vulkan device on the CPU)
under the capture library: the copies between host and device.

Checks: stdout identical with and without the capture; a Vulkan0 backend on llvmpipe; the
weight uploads (copy_H2D by tensor_set) carry exactly the bytes of every tensor llama.cpp puts
on the device (all but token_embd, which stays on the host), read from the GGUF file; the
logits downloads (copy_D2H) carry n_vocab x 4 bytes per graph compute; per-op records on every Vulkan
graph compute that nodecount saw (per-op records: t_vulkan_ops.py).
"""
import collections

import gguf

import e2e

e2e.need_preload()
m = e2e.model("tiny-dense-f32")
d = e2e.outdir("vulkan")
nc = e2e.nodecount_lib(d)
vk = {"GGML_VK_VISIBLE_DEVICES": "0"}
cmd = ["llama-completion", "-m", m, "-p", "Hello world", "-n", "4", "--temp", "0", "-t", "2", "-ngl", "99",
       "--ignore-eos", "-no-cnv", "--no-warmup"]
# The first Vulkan run compiles pipelines (tens of seconds; mesa caches them afterwards).
rc0, out0, err0 = e2e.run(cmd, e2e.env_for([], extra=vk), timeout=600)
e2e.check(rc0 == 0, f"llama-completion on Vulkan exits 0 (got {rc0}; {err0[-300:]!r})")
prof = f"{d}/profile.json"
rc1, out1, err1 = e2e.run(cmd, e2e.env_for([nc, e2e.PRELOAD], profile=prof, counts=f"{d}/counts.txt", extra=vk),
                          timeout=600)
e2e.check(rc1 == 0, f"with the capture exits 0 (got {rc1})")
e2e.check(out0 == out1 and len(out1) > 11, f"stdout identical with and without the capture ({len(out0)}, {len(out1)} bytes)")

p = e2e.load_profile(prof)
vk_ids = {b["id"] for b in p["backends"] if b["name"].startswith("Vulkan")}
e2e.check(any("llvmpipe" in b.get("device", "") for b in p["backends"] if b["id"] in vk_ids),
          f"a Vulkan backend on llvmpipe ({[b['device'] for b in p['backends']]})")
recs = p["records"]
e2e.check(all(e2e.record_complete(r) for r in recs), f"{len(recs)} records, all complete")
by = collections.Counter()
for r in recs:
    if r["type"] == 1:
        by[(r["name"], r.get("extra"))] += r["bytes"]
reader = gguf.GGUFReader(m)
weights = sum(int(t.n_bytes) for t in reader.tensors if t.name != "token_embd.weight")
e2e.check(by[("copy_H2D", "tensor_set")] == weights,
          f"weight uploads: {by[('copy_H2D', 'tensor_set')]} bytes H2D == {weights} bytes of device tensors in the GGUF")
counts = e2e.read_counts(f"{d}/counts.txt")
vk_calls = sum(1 for line in open(f"{d}/counts.txt") if " Vulkan" in line)
n_vocab = 256
e2e.check(by[("copy_D2H", "tensor_get_async")] == len(counts) * n_vocab * 4,
          f"logits downloads: {by[('copy_D2H', 'tensor_get_async')]} bytes D2H == {len(counts)} graphs x {n_vocab} x 4")
# per-op records (the Vulkan layer, t_vulkan_ops.py checks them in depth): one graph each
computes = {(r["graph_id"], r["split_id"]) for r in recs
            if r["type"] == 0 and r["backend_id"] in vk_ids and "graph_id" in r}  # not load-time clears
e2e.check(len(computes) == vk_calls and vk_calls >= 4,
          f"{len(computes)} Vulkan computes with records == {vk_calls} Vulkan graph computes seen by nodecount")
e2e.finish()
