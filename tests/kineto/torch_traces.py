#!/usr/bin/env python3
"""Makes real PyTorch CPU traces and torch's own key_averages() of each (run in the forky root,
Debian's python3-torch; tests/kineto/torch_cpu.sh).

Usage: torch_traces.py OUTDIR [SHIPPED_TRACE.json.gz ...]

For each run: a 2-layer MLP trained with torch.profiler (schedule(wait=1, warmup=1,
active=4), record_shapes, record_function ranges, a DataLoader, SGD, the gradients
all-reduced over gloo as DDP does, so gloo's threads add CPU threads), writes OUTDIR/NAME.json (export_chrome_trace) and OUTDIR/NAME.ka.json
(torch's key_averages(), computed in the same on_trace_ready: per name count,
self_cpu_time_total and cpu_time_total in microseconds). Runs: b8 (batch 8, fp32), b32
(batch 32), bf16 (batch 8 under autocast bf16). The b8 run's events are also written in the
legacy profiler's format (EventList.export_chrome_trace: no categories, pid "CPU functions",
as a torch before Kineto wrote them) as legacy.json, with the same key_averages.

Each SHIPPED trace (an older torch's trace kept in tests/kineto/traces) gets
OUTDIR/<base>.ka.json: torch's own EventList.key_averages() over FunctionEvents made from its
CPU slices (torch's nesting, duplicate folding, name filter and ProfilerStep* renaming).
"""
import gzip
import json
import os
import sys
import tempfile

import torch
import torch.distributed as dist
from torch.autograd import DeviceType
from torch.autograd.profiler_util import EventList, FunctionEvent, _filter_name, _rewrite_name
from torch.profiler import ProfilerActivity, profile, record_function, schedule


def ka_dump(events, path):
    out = {}
    for e in events.key_averages():
        out[e.key] = {"count": e.count, "self_us": e.self_cpu_time_total, "total_us": e.cpu_time_total}
    with open(path, "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)


def sync_grads(model):
    """DDP's gradient all-reduce over gloo (one process): gloo's worker threads run it, so the
    trace has several CPU threads, as a DDP job's has."""
    works = [dist.all_reduce(p.grad, async_op=True) for p in model.parameters()]
    for w in works:
        w.wait()


def train(outdir, name, batch, bf16):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = torch.utils.data.TensorDataset(torch.randn(batch * 8, 64), torch.randint(0, 10, (batch * 8,)))
    loader = torch.utils.data.DataLoader(data, batch_size=batch)
    done = {}

    def ready(prof):
        prof.export_chrome_trace(os.path.join(outdir, name + ".json"))
        ka_dump(prof.events(), os.path.join(outdir, name + ".ka.json"))
        if name == "b8":
            prof.events().export_chrome_trace(os.path.join(outdir, "legacy.json"))
            ka_dump(prof.events(), os.path.join(outdir, "legacy.ka.json"))
        done["ok"] = True

    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=4),
                 record_shapes=True, on_trace_ready=ready) as prof:
        it = iter(loader)
        for _ in range(6):
            x, y = next(it)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                with record_function("forward"):
                    out = model(x)
                    loss = torch.nn.functional.cross_entropy(out.float(), y)
            opt.zero_grad()
            loss.backward()
            sync_grads(model)
            opt.step()
            prof.step()
    if not done.get("ok"):
        sys.exit(f"{name}: on_trace_ready was not called")


def shipped_ka(path, outdir):
    """torch's key_averages() over an older trace's CPU slices, rebuilt as FunctionEvents."""
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        d = json.load(f)
    ev = d["traceEvents"] if isinstance(d, dict) else d
    cpu_cats = {"cpu_op", "Operator", "user_annotation", "python_function", "cuda_runtime",
                "cuda_driver", "Runtime", "Driver"}
    fes = []
    for i, e in enumerate(ev):
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat = e.get("cat")
        if cat not in cpu_cats and not (cat is None and e.get("pid") == "CPU functions"):
            continue
        name = e.get("name", "")
        if _filter_name(name):
            continue
        ts, dur = float(e["ts"]), float(e.get("dur", 0))
        # c10d's gloo collectives start on the caller's thread and end on a gloo thread, which
        # torch's event parser takes as async (the b8 run's key_averages show it: self 0)
        fes.append(FunctionEvent(id=i, name=_rewrite_name(name, with_wildcard=True),
                                 thread=str((e.get("pid"), e.get("tid"))), start_us=ts, end_us=ts + dur,
                                 device_type=DeviceType.CPU, stack=[], is_async=name.startswith("gloo:")))
    events = EventList(fes)
    events._build_tree()
    base = os.path.basename(path).split(".json")[0]
    ka_dump(events, os.path.join(outdir, base + ".ka.json"))


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(2)
    os.environ["USE_LIBUV"] = "0"  # Debian's torch has no libuv store
    store = tempfile.mktemp(prefix="opscope-gloo-")
    dist.init_process_group("gloo", init_method="file://" + store, rank=0, world_size=1)
    train(outdir, "b8", 8, False)
    train(outdir, "b32", 32, False)
    train(outdir, "bf16", 8, True)
    dist.destroy_process_group()
    if os.path.exists(store):
        os.remove(store)
    for p in sys.argv[2:]:
        shipped_ka(p, outdir)
    print("torch", torch.__version__, "traces in", outdir)


if __name__ == "__main__":
    main()
