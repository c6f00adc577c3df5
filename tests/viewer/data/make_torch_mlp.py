# Makes torch_mlp_cpu.json.gz (README.md beside this file): run in the forky root.
import torch, torch.nn as nn
from torch.profiler import profile, schedule, ProfilerActivity, record_function
torch.manual_seed(0)
torch.set_num_threads(2)
m = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
opt = torch.optim.SGD(m.parameters(), lr=0.01)
x, y = torch.randn(16, 64), torch.randint(0, 10, (16,))
with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=3),
             record_shapes=True,
             on_trace_ready=lambda p: p.export_chrome_trace("mlp_cpu.json")) as prof:
    for step in range(5):
        with record_function("forward"):
            loss = nn.functional.cross_entropy(m(x), y)
        with record_function("backward"):
            opt.zero_grad()
            loss.backward()
        with record_function("optimizer"):
            opt.step()
        def side():  # an inter-op pool thread's ops (a data-loading stand-in)
            with record_function("load_batch"):
                return torch.randn(32, 64).mul_(2).sum()
        torch.jit.wait(torch.jit.fork(side))
        prof.step()
print(torch.__version__)
