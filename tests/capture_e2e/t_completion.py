#!/usr/bin/env python3
"""llama-completion under the capture library: output unchanged, profile complete and on time.

usage (inside the root): t_completion.py MODEL_NAME [THREADS] [--timing]
--timing also requires the sum of op durations within 5% of each graph compute's wall time.
"""
import sys

import e2e

timing = "--timing" in sys.argv
args = [a for a in sys.argv[1:] if a != "--timing"]
name = args[0]
threads = args[1] if len(args) > 1 else "2"
e2e.need_preload()
m = e2e.model(name)
d = e2e.outdir("completion-" + name)
nc = e2e.nodecount_lib(d)
cmd = ["llama-completion", "-m", m, "-p", "The quick brown fox jumps over", "-n", "24", "--temp", "0",
       "--seed", "7", "-t", threads, "--ignore-eos", "-no-cnv", "--no-warmup"]

rc0, out0, err0 = e2e.run(cmd, e2e.env_for([nc], counts=f"{d}/counts-plain.txt"))
e2e.check(rc0 == 0, f"llama-completion without the preload exits 0 (got {rc0})")
prof = f"{d}/profile.json"
rc1, out1, err1 = e2e.run(cmd, e2e.env_for([nc, e2e.PRELOAD], profile=prof, counts=f"{d}/counts.txt"))
e2e.check(rc1 == 0, f"llama-completion with the preload exits 0 (got {rc1}; {err1[-300:]!r})")
open(f"{d}/stdout-plain.txt", "wb").write(out0)
open(f"{d}/stdout-preload.txt", "wb").write(out1)
if out0 != out1:
    # With several threads on a loaded machine ggml's CPU results can differ from run to run
    # (random weights give near-ties), so the strict comparison below runs on 1 thread.
    e2e.note(f"note  {threads}-thread outputs differ with and without the preload (not checked)")
# Plain llama-completion itself sometimes loses the end of its output on a loaded machine
# (its log worker thread has not flushed when the process exits: seen without any preload),
# so a differing pair is run again, up to 3 times; a real change in output differs every time.
rc2, rc3, out2, out3 = e2e.one_thread_pair(cmd, threads, f"{d}/profile-1thread.json", tries=3)
e2e.check(rc2 == 0 and rc3 == 0 and out2 == out3 and len(out3) > 30,
          f"1 thread: stdout byte-identical with and without the preload ({len(out2)}, {len(out3)} bytes)")

plain, counts = e2e.read_counts(f"{d}/counts-plain.txt"), e2e.read_counts(f"{d}/counts.txt")
e2e.check([c[2] for c in plain] == [c[2] for c in counts],
          f"the preload does not change the graphs ggml computes ({len(plain)} vs {len(counts)} computes)")
e2e.check(len(counts) >= 24, f"nodecount saw the prompt and every decode ({len(counts)} graph computes)")

p = e2e.load_checked(prof)
names = {r["name"] for r in e2e.op_records(p)}
want = {"MUL_MAT", "RMS_NORM", "ROPE", "GET_ROWS"} | ({"MUL_MAT_ID"} if "moe" in name else set())
e2e.check(want <= names, f"ops {sorted(want)} recorded (have {sorted(names)[:20]})")
e2e.check(not (names & e2e.EMPTY_OPS), "no records for empty ops (VIEW, RESHAPE, PERMUTE, TRANSPOSE, NONE)")


def again():
    prof2 = f"{d}/profile-again.json"
    rc, _o, err = e2e.run(cmd, e2e.env_for([nc, e2e.PRELOAD], profile=prof2, counts=f"{d}/counts-again.txt"))
    e2e.check(rc == 0, f"the second recording exits 0 (got {rc}; {err[-300:]!r})")
    return e2e.load_checked(prof2), e2e.read_counts(f"{d}/counts-again.txt")


e2e.check_graphs(p, counts, name, timing=timing, retry=again)
e2e.check_report(prof, sorted(want))
e2e.check_batches(prof, err1, name)
e2e.check_traffic(p, prof)
e2e.finish()
