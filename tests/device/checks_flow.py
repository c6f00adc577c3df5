#!/usr/bin/env python3
"""scripts/device/gpu-checks.sh (every GPU check in one device call: device time is scarce),
run here with fake parts.

    checks_flow.py REPO_ROOT

A scratch checkout holds the real gpu-checks.sh beside a fake cupti-check.sh and a fake
gpu-timing.sh (each writes what the real one writes: steps, a summary with check rows, a
table with BAR lines), and the carries' marker files. Checked, each against what the fakes
were told to do, never against gpu-checks.sh's own figures:
1. both parts run, CUDA first; every check row and BAR line of the fakes is in checks.md as a
   "BAR ok|FAIL" line; timing.tsv has both parts with their exit status; $OUT holds at most 8
   files, none in a folder (the device tool brings back 8 files, 2 folders deep), and the
   tarballs hold the parts' files; the CUDA deadline passed on is within CUDA_LIMIT;
2. a CUDA part that overruns CUDA_LIMIT is stopped whole: its exit 124, a grandchild it
   started is gone, the call ends within the limit plus the 5 s grace, and Vulkan still runs;
3. PARTS=vulkan runs only Vulkan; a missing carry is reported as skipped.
"""
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

REPO = sys.argv[1]
fails = 0


def check(ok, what, got=None, want=None):
    global fails
    print(("ok    " if ok else "FAIL  ") + what + ("" if ok else f": got {got!r}, want {want!r}"), flush=True)
    fails += not ok


FAKE_CUDA = r'''#!/usr/bin/env bash
# fake cupti-check.sh: steps, a summary with one ok and one FAIL row, the deadline it was given
mkdir -p "$OUT"
echo "$CUPTI_CHECK_DEADLINE $(date +%s)" > "$OUT/deadline.txt"
printf '01\toffsets\tok\t1\n' > "$OUT/steps.tsv"
echo '{}' > "$OUT/profile-graphs.json"
if [ -n "${FAKE_SLEEP:-}" ]; then
    (sleep "$FAKE_SLEEP"; touch "$OUT/grandchild-survived") &
    echo $! > "$OUT/grandchild.pid"
    sleep "$FAKE_SLEEP"
fi
printf '| check | result |\n|---|---|\n| graphs: every computed node in exactly one OP record | ok |\n| tg128 captured/plain 0.900 >= 0.95 | FAIL |\n' > "$OUT/cupti-summary.md"
'''
FAKE_VK = r'''#!/usr/bin/env bash
# fake gpu-timing.sh: writes its table with two BAR lines and records its budget
mkdir -p "$OUT"
echo "== machine" > "$OUT/log.txt"
echo "budget $BUDGET m1bq ${M1BQ:-none}" >> "$OUT/log.txt"
printf '| model | config |\n\nBAR ok m1bq: default tg 99.0%% of plain\nBAR FAIL per op name, default within 10%% of all\n' > "$OUT/table.md"
'''


def scratch(with_cuda=True, with_vk=True):
    d = tempfile.mkdtemp(prefix="checks-flow-")
    os.makedirs(f"{d}/scripts/device")
    shutil.copy(f"{REPO}/scripts/device/gpu-checks.sh", f"{d}/scripts/device/")
    for name, text in (("cupti-check.sh", FAKE_CUDA), ("gpu-timing.sh", FAKE_VK)):
        open(f"{d}/scripts/device/{name}", "w").write(text)
    if with_cuda:
        os.makedirs(f"{d}/.device/cupti")
        open(f"{d}/.device/cupti/llama-src.tar.xz", "w").write("")
    if with_vk:
        os.makedirs(f"{d}/.dev")
        open(f"{d}/.dev/root.tar.xz", "w").write("")
    return d


def run(d, **env):
    out = tempfile.mkdtemp(prefix="checks-flow-out-")
    e = dict(os.environ, OUT=out, RAW=f"{d}/raw", WORK=f"{d}/work")
    e.update({k: str(v) for k, v in env.items()})
    t = time.time()
    r = subprocess.run(["bash", f"{d}/scripts/device/gpu-checks.sh"], env=e, capture_output=True, text=True,
                       timeout=240)
    return r, out, time.time() - t


def members(path):
    with tarfile.open(path) as t:
        return sorted(os.path.basename(m.name) for m in t.getmembers() if m.isfile())


# 1. both parts
d = scratch()
r, out, secs = run(d, LIMIT=300, CUDA_LIMIT=60, VK_RESERVE=20)
check(r.returncode == 0, "gpu-checks.sh exits 0 when both parts exit 0", r.returncode, 0)
md = open(f"{out}/checks.md").read()
for line in ("BAR ok   graphs: every computed node in exactly one OP record", "BAR FAIL tg128 captured/plain 0.900 >= 0.95",
             "BAR ok   m1bq: default tg 99.0% of plain", "BAR FAIL per op name, default within 10% of all"):
    check(line in md, f"checks.md has '{line}'", md[-600:], line)
check(md.index("## CUDA") < md.index("## Vulkan"), "CUDA before Vulkan in checks.md")
tim = [ln.split("\t") for ln in open(f"{out}/timing.tsv").read().split("\n") if ln]
check([t[:2] for t in tim] == [["cuda", "0"], ["vulkan", "0"]], "timing.tsv: cuda 0, vulkan 0", tim, "cuda/vulkan 0")
files = sorted(os.listdir(out))
check(len(files) <= 8 and all(os.path.isfile(f"{out}/{f}") for f in files), "$OUT: at most 8 plain files", files, "<= 8")
check(members(f"{out}/cuda.tar.xz") == sorted(["cupti-summary.md", "deadline.txt", "log.txt", "steps.tsv"]),
      "cuda.tar.xz: the part's files without profiles", members(f"{out}/cuda.tar.xz"), "4 files")
check(members(f"{out}/cuda-profiles.tar.xz") == ["profile-graphs.json"], "cuda-profiles.tar.xz: the completion profile",
      members(f"{out}/cuda-profiles.tar.xz"), ["profile-graphs.json"])
check("table.md" in members(f"{out}/vulkan.tar.xz"), "vulkan.tar.xz has table.md", members(f"{out}/vulkan.tar.xz"), "table.md")
dl, start = (int(x) for x in open(f"{d}/raw/cuda/deadline.txt").read().split())
check(start < dl <= start + 60, "CUDA deadline within CUDA_LIMIT of its start", dl - start, "(0, 60]")
with tarfile.open(f"{out}/vulkan.tar.xz") as t:
    log = t.extractfile("vulkan/log.txt").read().decode()
budget = int(log.split("budget ")[1].split()[0])
check(0 < budget <= 300 - 20, "Vulkan budget = what is left of LIMIT minus VK_RESERVE", budget, "(0, 280]")
shutil.rmtree(d)
shutil.rmtree(out)

# 2. a CUDA part past its limit is ended whole
d = scratch()
r, out, secs = run(d, LIMIT=200, CUDA_LIMIT=3, VK_RESERVE=20, FAKE_SLEEP=30)
tim = dict(ln.split("\t")[:2] for ln in open(f"{out}/timing.tsv").read().split("\n") if ln)
check(tim.get("cuda") == "124", "CUDA past CUDA_LIMIT: exit 124", tim.get("cuda"), "124")
check(tim.get("vulkan") == "0", "Vulkan runs after a stopped CUDA part", tim.get("vulkan"), "0")
check(r.returncode == 1, "gpu-checks.sh exits 1 after a stopped part", r.returncode, 1)
check(secs < 3 + 5 + 20, "the call ends within CUDA_LIMIT + grace + the rest", round(secs, 1), "< 28")
pid = int(open(f"{d}/raw/cuda/grandchild.pid").read())


def state(pid):
    """the process's state letter, "" when gone (a zombie, Z, has ended: only its parent's wait is left)"""
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


check(state(pid) in ("", "Z", "X"), "the CUDA part's grandchild has ended", state(pid), "gone or Z")
time.sleep(0.5)
check("(stopped after 3 s)" in open(f"{out}/checks.md").read(), "checks.md says the CUDA part was stopped")
shutil.rmtree(d)
shutil.rmtree(out)

# 3. one part; a missing carry
d = scratch(with_vk=False)
r, out, secs = run(d, PARTS="vulkan", LIMIT=200, VK_RESERVE=20)
md = open(f"{out}/checks.md").read()
check(r.returncode == 1, "gpu-checks.sh exits 1 when a part is skipped", r.returncode, 1)
check("## CUDA" not in md and "no .dev carried: Vulkan skipped" in md, "PARTS=vulkan without .dev: no CUDA, Vulkan skipped",
      md[-300:], "skipped")
check(sorted(os.listdir(out)) == ["checks.md", "timing.tsv"], "$OUT: checks.md and timing.tsv only", sorted(os.listdir(out)),
      ["checks.md", "timing.tsv"])
shutil.rmtree(d)
shutil.rmtree(out)
print(f"checks_flow: {fails} failed")
sys.exit(1 if fails else 0)
