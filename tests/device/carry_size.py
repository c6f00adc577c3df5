#!/usr/bin/env python3
"""scripts/device/carry-size.sh against sizes written here: a scratch git checkout with a tracked
file, an untracked file, an ignored file and an ignored folder to carry.

    carry_size.py REPO_ROOT

The total must be the tracked + untracked + carried bytes (the ignored file left out), the exit
status 1 past MAX_MIB and 2 for a carried path that is missing."""
import os
import shutil
import subprocess
import sys
import tempfile

REPO = sys.argv[1]
fails = 0


def check(ok, what, got=None, want=None):
    global fails
    print(("ok    " if ok else "FAIL  ") + what + ("" if ok else f": got {got!r}, want {want!r}"), flush=True)
    fails += not ok


d = tempfile.mkdtemp(prefix="carry-size-")
os.makedirs(f"{d}/scripts/device")
shutil.copy(f"{REPO}/scripts/device/carry-size.sh", f"{d}/scripts/device/")
subprocess.run(["git", "init", "-q", d], check=True)
open(f"{d}/.gitignore", "w").write("/ignored.bin\n/.carry/\n")
open(f"{d}/tracked.bin", "wb").write(b"t" * 300000)
subprocess.run(["git", "-C", d, "add", ".gitignore", "tracked.bin", "scripts"], check=True)
open(f"{d}/untracked.bin", "wb").write(b"u" * 200000)
open(f"{d}/ignored.bin", "wb").write(b"i" * 5000000)
os.makedirs(f"{d}/.carry/sub")
open(f"{d}/.carry/sub/a.bin", "wb").write(b"c" * 1500000)
script = os.path.getsize(f"{d}/scripts/device/carry-size.sh")
gi = os.path.getsize(f"{d}/.gitignore")
r = subprocess.run(["bash", f"{d}/scripts/device/carry-size.sh", ".carry"], capture_output=True, text=True)
check(r.returncode == 0, "exit 0 under the limit", r.returncode, 0)
rows = {ln.split()[0]: int(ln.split()[1]) for ln in r.stdout.splitlines() if ln.split()}
want_tree = 300000 + 200000 + script + gi
check(rows.get("checkout") == want_tree, "checkout = tracked + untracked files, ignored left out", rows.get("checkout"), want_tree)
carry = rows.get(".carry", 0)
check(1500000 <= carry <= 1500000 + 3 * 4096, "carried folder counted (its bytes and its folders' entries)", carry, ">= 1500000")
check(rows.get("total") == want_tree + carry, "total = checkout + carried", rows.get("total"), want_tree + carry)
r = subprocess.run(["bash", f"{d}/scripts/device/carry-size.sh", ".carry"], capture_output=True, text=True,
                   env=dict(os.environ, MAX_MIB="1"))
check(r.returncode == 1, "exit 1 past MAX_MIB (1 MiB)", r.returncode, 1)
r = subprocess.run(["bash", f"{d}/scripts/device/carry-size.sh", ".missing"], capture_output=True, text=True)
check(r.returncode == 2, "exit 2 for a missing carried path", r.returncode, 2)
shutil.rmtree(d)
print(f"carry_size: {fails} failed")
sys.exit(1 if fails else 0)
