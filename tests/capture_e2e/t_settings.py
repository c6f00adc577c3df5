#!/usr/bin/env python3
"""Bad OPSCOPE_* values: one warning each, the program and its profile untouched.

The real llama-simple (tiny-dense-f32) runs plain, then with the capture preloaded
(GGML_PROFILE=a JSON file) and one bad value at a time: OPSCOPE_MAX_MB=abc, 0, -5, 1e20 and
99999999999999999999, OPSCOPE_CHECKPOINT_MS=-1, and a flag, a word and a clock not in their
tables; on Vulkan (lavapipe) the GPU source's and the layer's settings, in one run. Each run:
exit status and stdout those of the plain run; exactly one line on stderr
names the variable, says the value and the default used (written out here from
docs/capture.md's table, not taken from the code); the profile is written, its records
complete, and `opscope report` reads it. Good values (the documented ones) say nothing.
"""
import os

import e2e

e2e.guard_children()
e2e.need_preload()
m = e2e.model("tiny-dense-f32")
d = e2e.outdir("settings")
SIMPLE = ["llama-simple", "-m", m, "-n", "16", "Hello"]
MIB = "is not a whole number of MiB from 1 to 1048576; using 4096"  # a regular file: the record log's default

# (variable, value, what the one warning line says after "NAME=VALUE ")
BAD = [
    ("OPSCOPE_MAX_MB", "abc", MIB),
    ("OPSCOPE_MAX_MB", "0", MIB),
    ("OPSCOPE_MAX_MB", "-5", MIB),
    ("OPSCOPE_MAX_MB", "1e20", MIB),
    ("OPSCOPE_MAX_MB", "99999999999999999999", MIB),
    ("OPSCOPE_CHECKPOINT_MS", "-1", "is not a whole number of ms from 0 to 86400000; using 1000"),
    ("OPSCOPE_STATS", "yes", "is not 0 or 1; using 0"),
    ("OPSCOPE_STREAM", "2", "is not 0 or 1; using 1"),
    ("OPSCOPE_CLOCK", "fast", "is not auto, tsc or monotonic; using auto"),
    ("OPSCOPE_FORMAT", "xml", "is not json, txt or summary; using the profile's file name's format"),
    ("OPSCOPE_VK_LAYER", "2", "is not 0 or 1; using the default (enabled where ggml can use Vulkan)"),
    ("OPSCOPE_FORCE", "yes", "is not 0 or 1; using 0"),
]
# read where a Vulkan device times the work (the capture's GPU source, the layer): one run on
# lavapipe with all of them, each said once (the layer reads its flags once per process)
FLAG0 = "is not 0 or 1; using 0"
BAD_VK = {"OPSCOPE_GPU_TIMING": ("bogus", "is not sampled or all; using sampled"),
          "OPSCOPE_GPU_BUDGET": ("abc", "is not a number of percent above 0 and at most 100; using 5"),
          "OPSCOPE_VK_GROUP": ("yes", FLAG0), "OPSCOPE_VK_SERIALIZE": ("-1", FLAG0),
          "OPSCOPE_VK_SHARE_BOUNDS": ("2", "is not 0 or 1; using the device's default (1 on a CPU device, else 0)")}
# the documented values: no warning
GOOD = [("OPSCOPE_MAX_MB", "4096"), ("OPSCOPE_CHECKPOINT_MS", "0"), ("OPSCOPE_CHECKPOINT_MS", "250"),
        ("OPSCOPE_STATS", "0"), ("OPSCOPE_STREAM", "1"), ("OPSCOPE_CLOCK", "monotonic"), ("OPSCOPE_FORMAT", "json")]

rc0, out0, _ = e2e.run(SIMPLE, e2e.env_for([]))
e2e.check(rc0 == 0 and len(out0) > 0, f"llama-simple runs plain (rc {rc0}, {len(out0)} bytes of stdout)")


def captured(name, value, label):
    """Runs llama-simple captured with NAME=VALUE: (rc, stdout, stderr, profile path)."""
    prof = os.path.join(d, f"{label}.json")
    rc, out, err = e2e.run(SIMPLE, e2e.env_for([e2e.PRELOAD], profile=prof, extra={name: value}))
    return rc, out, err, prof


def check_profile(prof, label):
    if not e2e.check(os.path.exists(prof), f"{label}: the profile is written"):
        return
    try:
        p = e2e.load_profile(prof)
    except (OSError, ValueError) as ex:
        e2e.check(False, f"{label}: the profile is readable ({ex})")
        return
    recs = p.get("records", [])
    e2e.check(len(recs) > 0 and all(e2e.record_complete(r) for r in recs),
              f"{label}: {len(recs)} records, all complete")
    if e2e.OPSCOPE:
        e2e.check_report(prof, ["MUL_MAT"])


for i, (name, value, says) in enumerate(BAD):
    label = f"bad{i}"
    rc, out, err, prof = captured(name, value, label)
    what = f"{name}={value}"
    e2e.check(rc == rc0 and out == out0, f"{what}: exit {rc} and stdout ({len(out)} bytes) those of the plain run")
    lines = [ln for ln in err.splitlines() if name in ln]
    want = f"opscope: {name}={value} {says}"
    e2e.check(lines == [want], f"{what}: one warning line {want!r} (got {lines})")
    check_profile(prof, what)

for i, (name, value) in enumerate(GOOD):
    rc, out, err, prof = captured(name, value, f"good{i}")
    what = f"{name}={value}"
    lines = [ln for ln in err.splitlines() if "OPSCOPE_" in ln]
    e2e.check(rc == rc0 and out == out0 and lines == [],
              f"{what}: runs as plain, nothing said of the settings (rc {rc}, {lines})")
    e2e.check(os.path.exists(prof), f"{what}: the profile is written")

# Vulkan (lavapipe): the layer and the GPU source's settings
vk = {"GGML_VK_VISIBLE_DEVICES": "0"}
VK = SIMPLE + ["-ngl", "99"]
rc1, out1, _ = e2e.run(VK, e2e.env_for([], extra=vk), timeout=600)
prof = os.path.join(d, "vulkan.json")
extra = dict(vk, **{name: value for name, (value, _) in BAD_VK.items()})
rc2, out2, err2 = e2e.run(VK, e2e.env_for([e2e.PRELOAD], profile=prof, extra=extra), timeout=600)
e2e.check(rc1 == 0 and rc2 == rc1 and out2 == out1,
          f"Vulkan: exit {rc2} and stdout ({len(out2)} bytes) those of the plain run (rc {rc1}, {len(out1)} bytes)")
for name, (value, says) in BAD_VK.items():
    lines = [ln for ln in err2.splitlines() if f"{name}=" in ln]
    want = f"opscope: {name}={value} {says}"
    e2e.check(lines == [want], f"Vulkan: one warning line {want!r} (got {lines})")
check_profile(prof, "Vulkan")
if os.path.exists(prof):
    # the defaults used: the layer still times the work on the device
    dev = [r for r in e2e.load_profile(prof).get("records", []) if r.get("time_source") == "device"]
    e2e.check(len(dev) > 0, f"Vulkan: {len(dev)} records timed on the device")

e2e.finish()
