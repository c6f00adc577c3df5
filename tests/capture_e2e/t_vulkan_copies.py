#!/usr/bin/env python3
"""Copies between the CPU and Vulkan (mesa lavapipe) under the capture library, against
copycount.c, an independent shim that logs every ggml_backend_tensor_set_async and
ggml_backend_tensor_copy call and wraps the Vulkan backend's cpy_tensor_async vtable entry.

llama-completion runs the tiny MoE model with every layer on Vulkan but the expert weights on
the CPU (-ngl 99 -cmoe), on a 143-token prompt. Checks:
- expert uploads (tensor_set_async): the same calls as the shim, and the number the model
  implies: 3 MUL_MAT_ID per layer, offloaded to Vulkan (weights uploaded) only where they
  compute at least 32 rows (Vulkan's op-offload batch): every layer of the prompt graph but
  the last, which computes only the output token; none in the 1-token decode graphs;
- scheduler input copies through ggml_backend_tensor_copy: the same calls as the shim;
- input copies through cpy_tensor_async (the vtable call; Vulkan accepts pinned host sources):
  the capture infers them from the split graphs; they must be exactly the copies the shim saw
  succeed, per graph, by tensor and bytes, H2D, with zero duration;
- stdout identical with and without the capture.
The same inferred-copy check runs on the dense model (-ngl 99: token embeddings computed on
the CPU go to Vulkan through cpy_tensor_async).
"""
import collections
import os
import subprocess

import gguf

import e2e

e2e.need_preload()
d = e2e.outdir("vulkan_copies")
cc = os.path.join(d, "copycount.so")
subprocess.run(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
                os.path.join(e2e.HERE, "copycount.c"), "-o", cc, "-ldl"], check=True)
vk = {"GGML_VK_VISIBLE_DEVICES": "0"}
PROMPT = " ".join(["The quick brown fox jumps over the lazy dog."] * 3) + " again and again"
MIN_BATCH = 32  # ggml-vulkan's default op_offload_min_batch_size


def read_log(path):
    """copycount's log split per scheduler compute: [{kind: [fields...]}]."""
    computes = []
    for line in open(path):
        kind, rest = line[0], line[2:].rstrip("\n")
        if kind == "X":
            e2e.check(False, f"copycount: {rest}")
        if kind == "B":
            computes.append(collections.defaultdict(list))
        elif computes:
            computes[-1][kind].append(rest)
    return computes


def graphs(prof):
    """COPY records per graph id, in graph order."""
    g = collections.defaultdict(list)
    for r in prof["records"]:
        if r["type"] == 1 and r.get("graph_id", -1) >= 0:
            g[r["graph_id"]].append(r)
    return [g[k] for k in sorted(g)]


def run(label, model, extra_args):
    cmd = ["llama-completion", "-m", model, "-p", PROMPT, "-n", "4", "--temp", "0", "-t", "2", "-ngl", "99",
           "--ignore-eos", "-no-cnv", "--no-warmup"] + extra_args
    # The first run compiles Vulkan pipelines (mesa caches them for the second).
    rc0, out0, err0 = e2e.run(cmd, e2e.env_for([], extra=vk), timeout=600)
    e2e.check(rc0 == 0, f"{label}: llama-completion on Vulkan exits 0 (got {rc0}; {err0[-300:]!r})")
    prof, log = f"{d}/{label}.json", f"{d}/{label}.txt"
    rc1, out1, err1 = e2e.run(cmd, e2e.env_for([cc, e2e.PRELOAD], profile=prof, extra=dict(vk, OPSCOPE_TEST_COPYCOUNT=log)),
                              timeout=600)
    e2e.check(rc1 == 0, f"{label}: with the capture exits 0 (got {rc1})")
    e2e.check(out0 == out1 and len(out1) > 11, f"{label}: stdout identical with and without the capture ({len(out0)}, {len(out1)} bytes)")
    p = e2e.load_profile(prof)
    cs = read_log(log)
    gs = graphs(p)
    e2e.check(len(gs) == len(cs) and len(cs) == 4, f"{label}: {len(gs)} graphs with copies == {len(cs)} scheduler computes (4)")
    return p, cs, gs


def check_inferred(label, cs, gs):
    bad, n_shim, n_cap = [], 0, 0
    for i, (c, g) in enumerate(zip(cs, gs)):
        shim = collections.Counter()
        for a in c["A"]:
            _be, host, rest = a.split(" ", 2)
            names, size, ok = rest.rsplit(" ", 2)
            if ok == "1":
                shim[(names.split("|", 1)[1], int(size), "copy_H2D" if host == "1" else "copy_D2D")] += 1
        cap = collections.Counter((r["tensor_name"], r["bytes"], r["name"]) for r in g if r.get("extra") == "cpy_tensor_async")
        n_shim += sum(shim.values())
        n_cap += sum(cap.values())
        if shim != cap:
            bad.append((i, sorted((shim - cap).elements())[:3], sorted((cap - shim).elements())[:3]))
    e2e.check(n_shim > 0 and not bad, f"{label}: inferred cpy_tensor_async copies == the shim's successful vtable copies "
                                      f"in every graph ({n_cap} vs {n_shim}; differences [graph, shim only, capture only]: {bad[:3]})")
    zero = all(r["duration_ns"] == 0 for g in gs for r in g if r.get("extra") == "cpy_tensor_async")
    e2e.check(zero, f"{label}: inferred copies have zero duration (their time is unknown)")


# ---- MoE, experts on the CPU ----
m = e2e.model("tiny-moe-f32")
p, cs, gs = run("moe", m, ["-cmoe"])
vk_ids = {b["id"] for b in p["backends"] if b["name"].startswith("Vulkan")}
e2e.check(bool(vk_ids), f"moe: a Vulkan backend ({[b['name'] for b in p['backends']]})")

reader = gguf.GGUFReader(m)
n_layer = len({t.name.split(".")[1] for t in reader.tensors if t.name.startswith("blk.")})
nbytes = {t.name: int(t.n_bytes) for t in reader.tensors}
# prompt graph: every layer but the last computes all prompt tokens (>= MIN_BATCH rows), so its
# 3 expert MUL_MAT_IDs go to Vulkan with their used experts uploaded (all experts: 143 tokens
# pick 2 of 4 each); the last layer computes only the output token. Decode graphs: 1 token.
prompt_tokens = [int(x.rsplit(" ", 1)[1]) for x in cs[0]["M"]]
e2e.check(prompt_tokens and max(prompt_tokens) >= MIN_BATCH,
          f"moe: the prompt graph's MUL_MAT_IDs see >= {MIN_BATCH} tokens (shim: {sorted(set(prompt_tokens))})")
expect = collections.Counter()
for layer in range(n_layer - 1):
    for w in ("gate", "up", "down"):
        name = f"blk.{layer}.ffn_{w}_exps.weight"
        expect[(f"Vulkan0#{name}#0", nbytes[name])] += 1
shim_uploads = [collections.Counter((s.split(" ", 1)[1].rsplit(" ", 1)[0], int(s.rsplit(" ", 1)[1])) for s in c["S"])
                for c in cs]
cap_uploads = [collections.Counter((r["tensor_name"], r["bytes"]) for r in g if r.get("extra") == "tensor_set_async"
                                   and r["name"] == "copy_H2D") for g in gs]
e2e.check(shim_uploads[0] == expect,
          f"moe: shim sees {sum(shim_uploads[0].values())} expert uploads in the prompt graph == 3 x {n_layer - 1} layers "
          f"(the last layer's MUL_MAT_IDs run on the CPU: {[x for x in cs[0]['M'] if x.startswith('CPU')][:3]})")
e2e.check(all(not u for u in shim_uploads[1:]), "moe: no expert upload in the 1-token decode graphs")
e2e.check(cap_uploads == shim_uploads, f"moe: capture's tensor_set_async records == the shim's calls in every graph "
                                       f"({[sum(u.values()) for u in cap_uploads]} vs {[sum(u.values()) for u in shim_uploads]})")
shim_copies = [collections.Counter(int(x.rsplit(" ", 1)[1]) for x in c["C"]) for c in cs]
cap_copies = [collections.Counter(r["bytes"] for r in g if r.get("extra") == "tensor_copy") for g in gs]
e2e.check(cap_copies == shim_copies, f"moe: capture's tensor_copy records == the shim's calls in every graph "
                                     f"({[sum(u.values()) for u in cap_copies]} vs {[sum(u.values()) for u in shim_copies]})")
check_inferred("moe", cs, gs)

# ---- dense, all on Vulkan ----
_p, cs, gs = run("dense", e2e.model("tiny-dense-f32"), [])
check_inferred("dense", cs, gs)
e2e.finish()
