#!/usr/bin/env python3
"""`opscope record` in a script, with the real llama-completion.

1. SIGINT to a background job of a script: bash starts `prog &` with SIGINT ignored, and
   llama-completion installs its own handler again, so `kill -INT` stops it. The same script
   with `opscope record -- llama-completion ... &` must stop it the same way: the same exit
   status, within 2 s of the signal, measured here for both.
2. Two `opscope record -o same.json` of the command at once keep both profiles: the later one
   writes same-2.json, says so, and `opscope report` reads both.
"""
import os
import subprocess
import time

import e2e

e2e.guard_children()
e2e.need_preload()
if not e2e.OPSCOPE:
    e2e.skip("the opscope CLI is not built in the root")
m = e2e.model("tiny-dense-f32")
d = e2e.outdir("signals")
GEN = f"llama-completion -m {m} -p Hello -n 100000 -no-cnv --ignore-eos -t 2 --no-warmup"
ENV = e2e.env_for([], extra={"OPSCOPE_LIB": e2e.PRELOAD})

# The script: the command as a background job, SIGINT once it generates (its output grows),
# then the job's exit status and the milliseconds from the signal to its end. llama-completion's
# own SIGINT handler logs: when the signal lands while the main thread holds the log's mutex, the
# handler waits for it forever, with or without opscope (t_record.py has gdb's stack). About one
# plain run in twenty hangs so (every thread in futex wait: 1 of 30 here, 2 of 3 in one CI clone).
# Such a run is told apart ("hung", its threads' wait channels shown), killed with its children,
# and the attempt made again.
SCRIPT = r'''
out=$1; shift
"$@" > "$out" 2>"$out.err" < /dev/null &
pid=$!
for _ in $(seq 1 1200); do [ "$(stat -c %s "$out" 2>/dev/null || echo 0)" -gt 200 ] && break; sleep 0.05; done
sleep 1
t0=$(date +%s%N)
kill -INT $pid
for _ in $(seq 1 300); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
if kill -0 $pid 2>/dev/null; then
    for p in $pid $(pgrep -P $pid); do
        for t in /proc/$p/task/*; do echo "hung $p $(cat $t/comm 2>/dev/null) $(cat $t/wchan 2>/dev/null)"; done
    done
    pkill -KILL -P $pid; kill -KILL $pid
    wait $pid
    echo "HUNG"
    exit 0
fi
wait $pid
rc=$?
echo "$rc $(( ($(date +%s%N) - t0) / 1000000 ))"
'''
ATTEMPTS = 4


def background_sigint(cmd, tag):
    """(exit status, ms from SIGINT to the end, stderr) of the first attempt that ended."""
    for attempt in range(1, ATTEMPTS + 1):
        r = subprocess.run(["bash", "-c", SCRIPT, "sigint", f"{d}/{tag}.out", *cmd], env=ENV, capture_output=True,
                           text=True, timeout=180)
        if r.stdout.strip().endswith("HUNG"):
            waits = sorted({ln.split()[-1] for ln in r.stdout.splitlines() if ln.startswith("hung ")})
            e2e.note(f"note  {tag}: attempt {attempt} did not end 15 s after SIGINT (threads waiting in "
                     f"{', '.join(waits)}); killed, tried again")
            continue
        try:
            rc, ms = (int(x) for x in r.stdout.split()[-2:])
        except ValueError:
            rc, ms = -1, -1
        return rc, ms, open(f"{d}/{tag}.out.err", errors="replace").read()
    e2e.check(False, f"{tag}: none of {ATTEMPTS} attempts ended after SIGINT")
    e2e.finish()


plain_rc, plain_ms, _ = background_sigint(GEN.split(), "plain")
e2e.note(f"note  plain llama-completion, background job, SIGINT: exit {plain_rc} after {plain_ms} ms")
e2e.check(plain_rc == 130, f"without record the program stops on SIGINT with exit 130 (exit {plain_rc})")
prof = f"{d}/bg.json"
rec_rc, rec_ms, err = background_sigint([e2e.OPSCOPE, "record", "-o", prof, "--", *GEN.split()], "record")
e2e.note(f"note  under opscope record: exit {rec_rc} after {rec_ms} ms")
e2e.check(rec_rc == plain_rc, f"under record it stops the same way (exit {rec_rc}, plain {plain_rc})")
e2e.check(0 <= rec_ms < 2000, f"within 2 s of the signal ({rec_ms} ms; plain {plain_ms} ms)")
e2e.check("came in ignored" in err, "record says SIGINT came in ignored")
rrc = subprocess.run([e2e.OPSCOPE, "report", prof, "-q"], capture_output=True, timeout=120).returncode
e2e.check(rrc == 0, f"its profile is written and reads (report exit {rrc})")

# Two records of one output at once: both profiles kept.
same = f"{d}/same.json"
cmd = [e2e.OPSCOPE, "record", "-o", same, "--", "llama-completion", "-m", m, "-p", "Hello", "-n", "24",
       "-no-cnv", "--ignore-eos", "-t", "1", "--no-warmup"]
first = subprocess.Popen(cmd, env=ENV, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
lock = f"{d}/.same.json.opscope-lock"
t0 = time.monotonic()
while time.monotonic() - t0 < 30 and not (os.path.exists(lock) and open(lock).read().strip() == str(first.pid)):
    time.sleep(0.05)
second = subprocess.run(cmd, env=ENV, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        capture_output=False, stderr=subprocess.PIPE, text=True, timeout=300)
_, first_err = first.communicate(timeout=300)
e2e.check(first.returncode == 0 and second.returncode == 0,
          f"both records exit 0 ({first.returncode}, {second.returncode})")
e2e.check(f"this one writes {d}/same-2.json" in second.stderr, "the second says it writes same-2.json")
for p in (same, f"{d}/same-2.json"):
    prof = e2e.load_profile(p) if os.path.exists(p) else None
    n = sum(1 for r in prof["records"] if r.get("type") == 0) if prof else 0
    e2e.check(n > 0, f"{os.path.basename(p)} is a whole profile ({n} op records)")
e2e.finish()
