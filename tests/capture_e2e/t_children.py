#!/usr/bin/env python3
"""Children of a profiled ggml program (docs/capture.md "Robustness").

children.c (built here against Debian's ggml) starts a ggml child BEFORE its own first compute;
the child computes first. The profile file must still be the parent's (the program the user
profiled) and the child's must go to PATH.<child pid>. A plain fork child writes nothing; a shell
between `opscope record` and the program (not a ggml program) owns nothing; a launcher that
computes nothing itself leaves its one child's profile as PATH (opscope record adopts it).

Whose records are whose comes from the program's graphs, not from opscope: each compute is one
MUL_MAT + one SILU named "<role>_out" (2 computed nodes); the parent computes twice, the exec'd
child 3 times, the fork child twice.
"""
import os
import re
import subprocess

import e2e

e2e.need_preload()
d = e2e.outdir("children")
prog = os.path.join(d, "children")
subprocess.run(["gcc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", os.path.join(e2e.HERE, "children.c"),
                "-o", prog, "-lggml", "-lggml-base"], check=True)

COMPUTES = {"parent": 2, "child": 3, "forkchild": 2}


def roles(path):
    """{role: number of graphs} of a profile, from the output names of its SILU records."""
    out = {}
    for r in e2e.op_records(e2e.load_profile(path)):
        name = r.get("tensor_name", "")
        if name.endswith("_out"):
            out[name[:-4]] = out.get(name[:-4], 0) + 1
    return out


def op_count(path):
    return len(e2e.op_records(e2e.load_profile(path)))


def files():
    return sorted(os.listdir(d))


def run(label, cmd, profile, extra=None):
    for f in files():
        if f.startswith("p-"):
            os.unlink(os.path.join(d, f))
    env = e2e.env_for([e2e.PRELOAD] if profile else [], profile=profile, extra=extra)
    rc, out, err = e2e.run(cmd, env, timeout=120)
    text = out.decode("utf-8", "replace")
    fails = [ln for ln in text.splitlines() if ln.startswith("FAIL")]
    e2e.check(rc == 0 and not fails, f"{label}: runs and its own checks pass (rc {rc}, {fails})")
    pids = [int(m) for m in re.findall(r"child_pid=(\d+)", text)]
    e2e.check(len(pids) == 1, f"{label}: started one child ({pids})")
    return (pids[0] if pids else -1), err


def expect_profile(label, path, role):
    if not e2e.check(os.path.exists(path), f"{label}: {os.path.basename(path)} written"):
        return
    got = roles(path)
    e2e.check(got == {role: COMPUTES[role]}, f"{label}: {os.path.basename(path)} holds exactly the {role}'s "
                                              f"{COMPUTES[role]} graphs (got {got})")
    e2e.check(op_count(path) == 2 * COMPUTES[role], f"{label}: {os.path.basename(path)} has 2 OP records per "
                                                     f"graph ({op_count(path)})")


# 1. fork+exec and posix_spawn: the child computes first, the parent still owns PATH.
for how in ("exec", "spawn"):
    p = os.path.join(d, f"p-{how}.json")
    pid, _ = run(how, [prog, how], p)
    expect_profile(how, p, "parent")
    expect_profile(how, f"{p}.{pid}", "child")
    e2e.check(files() == sorted([os.path.basename(p), f"p-{how}.json.{pid}", "children"]),
              f"{how}: no other file ({files()})")

# 2. Plain fork (before any compute, and after one): the fork child writes nothing (children.c
# also checks that no profile exists right after the child ended).
for how in ("fork", "fork-late"):
    p = os.path.join(d, f"p-{how}.json")
    pid, err = run(how, [prog, how], p)
    expect_profile(how, p, "parent")
    e2e.check(files() == sorted([os.path.basename(p), "children"]), f"{how}: no file of the fork child ({files()})")
    # ... but its computes are not lost silently
    e2e.check(f"opscope: pid {pid} computes ggml graphs that are not profiled" in err,
              f"{how}: the fork child says its graphs are not profiled ({err.strip()[-200:]!r})")

# 3. `opscope record -- sh -c PROG exec`: the shell is no ggml program and claims nothing.
if e2e.OPSCOPE:
    p = os.path.join(d, "p-sh.json")
    pid, err = run("record sh -c", [e2e.OPSCOPE, "record", "-o", p, "--", "sh", "-c", f"'{prog}' exec"], None,
                   {"OPSCOPE_LIB": e2e.PRELOAD})
    expect_profile("record sh -c", p, "parent")
    expect_profile("record sh -c", f"{p}.{pid}", "child")
    e2e.check(f"profile written to {p}.{pid} (children, pid {pid}," in err and
              re.search(rf"profile written to {re.escape(p)} \(children, pid (?!{pid},)\d+,", err) is not None,
              f"record sh -c: opscope record names both profiles with their pids ({err.strip()[-300:]!r})")
    # 4. A launcher with ggml that never computes: its lone child's profile becomes PATH.
    p = os.path.join(d, "p-idle.json")
    pid, err = run("record idle", [e2e.OPSCOPE, "record", "-o", p, "--", prog, "idle"], None,
                   {"OPSCOPE_LIB": e2e.PRELOAD})
    expect_profile("record idle", p, "child")
    e2e.check(files() == sorted([os.path.basename(p), "children"]), f"record idle: PATH.PID adopted ({files()})")
    e2e.check(f"profile written to {p} (children, pid {pid}," in err,
              f"record idle: opscope record says whose profile it is ({err.strip()[-200:]!r})")
    # 5. record of a plain fork child that computes: named, with its pid.
    p = os.path.join(d, "p-recfork.json")
    pid, err = run("record fork", [e2e.OPSCOPE, "record", "-o", p, "--", prog, "fork"], None,
                   {"OPSCOPE_LIB": e2e.PRELOAD})
    expect_profile("record fork", p, "parent")
    e2e.check(f"children (pid {pid}) computed ggml graphs that are not profiled: it is a child of pid" in err,
              f"record fork: record names the fork child's unprofiled graphs ({err.strip()[-200:]!r})")
else:
    e2e.note("note  opscope CLI not built in the root: record checks not run")

e2e.finish()
