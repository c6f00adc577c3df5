#!/usr/bin/env python3
"""Messages true to what is in the file: llama-completion on Vulkan (mesa lavapipe) under a
1 MiB record cap drops records; record says so, and never that the Vulkan layer "timed none
of its work" while the profile holds device-timed Vulkan records (a full buffer is a drop,
which a message about untimed work would hide)."""
import json
import os

import e2e

e2e.guard_children()
e2e.need_preload()
if not e2e.OPSCOPE:
    e2e.skip("the opscope CLI is not built in the root")
m = e2e.model("tiny-dense-f32")
d = e2e.outdir("vulkan_drops")
# the memory path (OPSCOPE_STREAM=0): a full record buffer; with the record log (the default
# for a file) OPSCOPE_MAX_MB caps the log on disk, which 400 tokens (~0.3 MB) never reach
env = e2e.env_for([], extra={"OPSCOPE_LIB": e2e.PRELOAD, "GGML_VK_VISIBLE_DEVICES": "0", "LP_NUM_THREADS": "2",
                             "OPSCOPE_MAX_MB": "1", "OPSCOPE_STREAM": "0"})
path = f"{d}/vk.json"
rc, _, err = e2e.run([e2e.OPSCOPE, "record", "-o", path, "--", "llama-completion", "-m", m, "-p", "Hello", "-n", "400",
                      "-no-cnv", "--ignore-eos", "-t", "2", "--no-warmup", "-ngl", "99"], env, timeout=540)
p = e2e.load_checked(path)
vk = {b["id"] for b in p["backends"] if b["name"].startswith("Vulkan")}
timed = [r for r in p["records"] if r.get("backend_id") in vk and r.get("time_source") not in (None, "host")]
e2e.check(rc == 0 and p.get("dropped_records", 0) > 0 and "dropped" in err,
          f"under OPSCOPE_MAX_MB=1 records are dropped and said (rc {rc}, {p.get('dropped_records')} dropped)")
e2e.check(len(timed) > 0, f"the profile holds {len(timed)} device-timed Vulkan records")
e2e.check("timed none of its work" not in err and "has no per-op timing" not in err,
          f"no message that Vulkan was not timed ({[l for l in err.splitlines() if 'opscope' in l]})")
e2e.finish()
