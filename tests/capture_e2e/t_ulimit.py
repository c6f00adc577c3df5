#!/usr/bin/env python3
"""llama-completion under an address-space limit (ulimit -v): the capture must leave the
program the room it needs.

  - plain's least working limit is found here, now (never a number written down: it moves
    with the build, the model and the C library): a scan up in 16 MiB steps from the
    program's size at start to the first limit it runs under, then bisection to 1 MiB
    (a run "works" when it exits 0 and prints its tokens);
  - at that least + 16 MiB, llama-completion under `opscope record` exits 0, prints its
    tokens and writes its profile, with records;
  - record's own least (bisected between plain's least and that + 16 MiB) is printed: what
    the capture's fixed part takes (the library's mapping, its first record chunk); every
    record run there said at most once that the capture turned itself off.

Prints the limits found. usage (inside the root): t_ulimit.py
"""
import os
import subprocess

import e2e

e2e.need_preload()
if not e2e.OPSCOPE:
    e2e.skip("OPSCOPE_BIN unset")
m = e2e.model("tiny-dense-f32")
d = e2e.outdir("ulimit")
cmd = ["llama-completion", "-m", m, "-p", "The quick brown fox jumps over", "-n", "24", "--temp", "0",
       "--seed", "7", "-t", "2", "--ignore-eos", "-no-cnv", "--no-warmup"]


def limited(kib, argv):
    """ARGV run under `ulimit -v KIB` (a shell sets it, then execs): (rc, stdout, stderr)."""
    sh = ["bash", "-c", f"ulimit -v {kib} && exec \"$@\"", "limited"] + argv
    return e2e.run(sh, e2e.env_for([]), timeout=300)


def least_working(works, lo, hi):
    """The least limit in (LO, HI] that WORKS, to 1 MiB: LO fails, HI works."""
    while hi - lo > 1024:
        mid = (lo + hi) // 2
        if works(mid):
            hi = mid
        else:
            lo = mid
    return hi


def plain_works(kib):
    rc, out, _ = limited(kib, cmd)
    return rc == 0 and len(out) > 0


# the program's size before it maps anything of its own: a limit below it cannot work
lo = 64 * 1024
step = 16 * 1024
hi = lo
while not plain_works(hi):
    lo = hi
    hi += step
    if hi > 8 * 1024 * 1024:
        e2e.check(False, "plain llama-completion runs under some limit up to 8 GiB")
        e2e.finish()
least = least_working(plain_works, lo, hi)
e2e.note(f"note  plain llama-completion's least working ulimit -v: {least} KiB ({least / 1024:.1f} MiB)")

rc0, out0, _ = limited(least + 16 * 1024, cmd)
e2e.check(rc0 == 0, f"plain llama-completion runs at {least} + 16 MiB (exit {rc0})")
prof = f"{d}/profile.json"
if os.path.exists(prof):
    os.unlink(prof)
rc1, out1, err1 = limited(least + 16 * 1024, [e2e.OPSCOPE, "record", "-o", prof, "--"] + cmd)
e2e.check(rc1 == 0, f"llama-completion under record runs at plain's least + 16 MiB, {least + 16 * 1024} KiB "
                    f"(exit {rc1}: {err1.strip()[-300:]!r})")
# (its text may differ from the plain run's: ggml's results with 2 threads vary from run to run)
e2e.check(len(out1) > 0 and len(out0) > 0, f"it prints its tokens ({len(out1)} bytes; plain {len(out0)})")
recs = 0
if os.path.exists(prof):
    recs = len(e2e.load_profile(prof).get("records", []))
e2e.check(recs > 0, f"and its profile is written ({recs} records)")

offs = []


def record_works(kib):
    rc, out, err = limited(kib, [e2e.OPSCOPE, "record", "-o", prof + ".least", "--"] + cmd)
    offs.append(err.count("turned itself off"))
    return rc == 0 and len(out) > 0


hi = least_working(record_works, least - 1024, least + 16 * 1024)
e2e.note(f"note  under record the least working ulimit -v is {hi} KiB: plain's + {(hi - least) / 1024:.1f} MiB")
e2e.check(max(offs, default=0) <= 1, f"the capture said at most once that it turned itself off ({offs})")
e2e.finish()
