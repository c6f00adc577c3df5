#!/usr/bin/env python3
"""Writes a real 4-rank torch.distributed (gloo, CPU) training job's Kineto traces.

    make_gloo_job.py OUTDIR [--ranks 4] [--slow-rank 2] [--slow-phase input|compute] [--steps 6]

Each rank trains the same small MLP under DistributedDataParallel for STEPS profiler steps and
writes OUTDIR/rank-R.json (torch.profiler, CPU activities). The slow rank is slower in one known
phase: 'input' sleeps in its Dataset's __getitem__ (inside DataLoader's iteration), 'compute'
runs extra matrix products in its forward pass. Run it inside the forky root (python3-torch).
"""
import argparse
import os
import sys
import tempfile
import time


def worker(rank, world, args, store):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + store, rank=rank, world_size=world)
    torch.manual_seed(0)
    slow = rank == args.slow_rank

    class Data(torch.utils.data.Dataset):
        def __len__(self):
            return 64 * (args.steps + 2)

        def __getitem__(self, i):
            if slow and args.slow_phase == "input":
                time.sleep(args.delay_ms / 1000.0 / args.batch)
            g = torch.Generator().manual_seed(i)
            return torch.randn(256, generator=g), torch.randn(64, generator=g)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(256, 512)
            self.b = torch.nn.Linear(512, 64)

        def forward(self, x):
            h = torch.relu(self.a(x))
            if slow and args.slow_phase == "compute":
                m = torch.randn(384, 384)
                t_end = time.perf_counter() + args.delay_ms / 1000.0
                while time.perf_counter() < t_end:
                    m = torch.tanh(m @ m)
                h = h + m.sum() * 0
            return self.b(h)

    model = DDP(Net())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = torch.utils.data.DataLoader(Data(), batch_size=args.batch, num_workers=0)
    it = iter(loader)
    from torch.profiler import ProfilerActivity, profile, schedule

    def step():
        x, y = next(it)
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    path = os.path.join(args.out, "rank-%d.json" % rank)
    # one warm-up step, then STEPS steps recorded as ProfilerStep#N
    # with_stack: python frames, "nn.Module: Net_0" among them (time per module)
    with profile(activities=[ProfilerActivity.CPU], with_stack=True,
                 schedule=schedule(wait=0, warmup=1, active=args.steps, repeat=1),
                 on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
        for _ in range(args.steps + 1):
            step()
            prof.step()
    dist.barrier()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--slow-rank", type=int, default=2)
    p.add_argument("--slow-phase", choices=["input", "compute"], default="input")
    p.add_argument("--delay-ms", type=float, default=80.0)
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--batch", type=int, default=16)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    import torch.multiprocessing as mp
    fd, store = tempfile.mkstemp(prefix="gloo-store-")
    os.close(fd)
    os.unlink(store)
    try:
        mp.spawn(worker, args=(args.ranks, args, store), nprocs=args.ranks, join=True)
    finally:
        if os.path.exists(store):
            os.unlink(store)
    return 0


if __name__ == "__main__":
    sys.exit(main())
